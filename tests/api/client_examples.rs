//! The client examples run green against a live service (they are the README's walkthrough).

use crate::helpers::{API_KEY, fixtures, shared};

#[test]
fn curl_example_walks_through_the_readme_scenario() {
    let svc = shared();
    let output = std::process::Command::new("bash")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/client-examples/curl.sh"))
        .env("TB_URL", svc.rpc_url())
        .env("API_KEY", API_KEY)
        .env("APP_URL", fixtures())
        .output()
        .expect("bash runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "curl.sh failed:\n{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    assert!(stdout.contains("all steps passed"), "{stdout}");
}

/// Runs a client example script with `program` and checks it passed every step.
fn run_script(program: &[&str], script: &str, passed: &str) {
    let svc = shared();
    let path = format!("{}/client-examples/{script}", env!("CARGO_MANIFEST_DIR"));
    let output = std::process::Command::new(program[0])
        .args(&program[1..])
        .arg(&path)
        .env("TB_URL", svc.rpc_url())
        .env("API_KEY", API_KEY)
        .env("APP_URL", fixtures())
        .output()
        .unwrap_or_else(|e| panic!("{} could not run ({e}); bash .ci/setup installs it", program[0]));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{script} failed:\n{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    assert!(stdout.contains(passed), "{stdout}");
}

#[test]
fn python_example_walks_through_the_readme_scenario() {
    run_script(&["python3"], "python_client.py", "python example: all steps passed");
}

#[test]
fn typescript_example_walks_through_the_readme_scenario() {
    // tsx runs TypeScript on Node 20 without a build step; .ci/setup installs it in node_modules.
    let tsx = concat!(env!("CARGO_MANIFEST_DIR"), "/node_modules/.bin/tsx");
    run_script(&[tsx], "typescript_client.ts", "typescript example: all steps passed");
}

#[path = "../../client-examples/rust/scenario.rs"]
mod rust_client;

#[tokio::test]
async fn rust_example_walks_through_the_readme_scenario() {
    let svc = shared();
    rust_client::run(&svc.rpc_url(), API_KEY, fixtures()).await.unwrap_or_else(|failure| panic!("{failure}"));
}
