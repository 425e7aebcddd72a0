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
