//! The contract: openrpc.json, rpc.discover and the README agree with the code.

use serde_json::{Value, json};

use crate::helpers::shared;
use text_browser::config::VARS;
use text_browser::rpc::error::KINDS;
use text_browser::rpc::{all_methods, openrpc};

fn repo_file(name: &str) -> String {
    std::fs::read_to_string(format!("{}/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

#[test]
fn openrpc_json_matches_the_code() {
    let generated = openrpc::document(&all_methods());
    let checked_in: Value = serde_json::from_str(&repo_file("openrpc.json")).expect("openrpc.json is JSON");
    assert!(
        generated == checked_in,
        "openrpc.json is out of date: regenerate it with `cargo run -- --openrpc > openrpc.json`"
    );
}

#[tokio::test]
async fn rpc_discover_returns_the_document() {
    let served = shared().ok("rpc.discover", json!({})).await;
    assert_eq!(served, openrpc::document(&all_methods()));
}

#[test]
fn every_method_param_is_described() {
    let doc = openrpc::document(&all_methods());
    for method in doc["methods"].as_array().unwrap() {
        for param in method["params"].as_array().unwrap() {
            if param["name"] != "session_id" {
                assert!(
                    param.get("description").is_some() || param["schema"].get("$ref").is_some(),
                    "{}.{} has no description",
                    method["name"],
                    param["name"]
                );
            }
        }
    }
}

#[test]
fn readme_documents_every_method_with_a_curl_example() {
    let readme = repo_file("README.md");
    for method in all_methods() {
        let heading = format!("### `{}`", method.name);
        assert!(readme.contains(&heading), "README has no section {heading}");
        let section = readme.split(&heading).nth(1).unwrap().split("\n### ").next().unwrap();
        assert!(
            section.contains(&format!("\"method\":\"{}\"", method.name)),
            "README section for {} has no curl example calling it",
            method.name
        );
    }
}

#[test]
fn readme_error_table_matches_the_code() {
    let readme = repo_file("README.md");
    for kind in KINDS {
        let row = format!("| `{}` | {} |", kind.kind, kind.code);
        assert!(readme.contains(&row), "README error table lacks the row starting {row}");
    }
}

#[test]
fn readme_config_table_lists_every_variable_with_its_default() {
    let readme = repo_file("README.md");
    for var in VARS {
        // Markdown tables need `|` escaped, even inside code spans.
        let row = format!("| `{}` | `{}` |", var.name, var.default.replace('|', "\\|"));
        assert!(readme.contains(&row), "README config table lacks the row starting {row}");
    }
}

#[test]
fn openrpc_json_validates_against_the_openrpc_meta_schema() {
    let root = env!("CARGO_MANIFEST_DIR");
    let output = std::process::Command::new("python3")
        .arg(format!("{root}/tests/contract/validate_openrpc.py"))
        .arg(format!("{root}/openrpc.json"))
        .arg(format!("{root}/node_modules"))
        .output()
        .expect("python3 runs (bash .ci/setup installs it with jsonschema and the meta-schemas)");
    assert!(
        output.status.success(),
        "openrpc.json breaks the OpenRPC meta-schema:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

#[tokio::test]
async fn metrics_pass_promtool_check() {
    use std::io::Write;
    let svc = shared();
    let sid = svc.session().await;
    svc.ok("page.text", json!({ "session_id": sid })).await;
    let _ = svc.call("page.text", json!({ "session_id": "no-such-session" })).await;
    let metrics = svc.metrics().await;
    let mut promtool = std::process::Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("promtool runs (bash .ci/setup installs Debian's prometheus package)");
    promtool.stdin.take().unwrap().write_all(metrics.as_bytes()).unwrap();
    let output = promtool.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "promtool check metrics failed:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}
