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

/// The shell block between `<!-- walkthrough: begin -->` and `<!-- walkthrough: end -->` in the
/// README, without its fence.
fn readme_walkthrough() -> String {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let start = readme.find("<!-- walkthrough: begin -->").expect("the README marks its walkthrough");
    let end = readme.find("<!-- walkthrough: end -->").expect("the walkthrough's end marker");
    let block = &readme[start..end];
    let code = block.split("```sh\n").nth(1).expect("a sh block").split("```").next().unwrap();
    code.to_owned()
}

#[test]
fn the_readme_walkthrough_finds_both_bugs_of_the_invoice_page_as_it_says() {
    let svc = shared();
    let output = std::process::Command::new("bash")
        .args(["-euo", "pipefail", "-c", &readme_walkthrough()])
        .env("TB", svc.rpc_url())
        .env("KEY", API_KEY)
        .env("APP", fixtures())
        .output()
        .expect("bash runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "the walkthrough failed:\n{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 6, "one answer per call: {stdout}");
    assert!(!stdout.contains("\"error\""), "no call failed: {stdout}");
    for (line, says) in [
        (0, r#""status":200"#),
        (0, r#""pageErrors":1"#),
        (1, "reading 'toFixed'"),
        (1, "view.js\",\"line\":12"),
        (2, r#"\"amount_cents\":12900"#),
        (3, r#""status":422"#),
        (3, "card_declined"),
        (3, "view.js:16:19"),
        (4, "Paid, thank you!"),
        (5, r#""ok":true"#),
    ] {
        assert!(lines[line].contains(says), "answer {} should say {says}: {}", line + 1, lines[line]);
    }
}
