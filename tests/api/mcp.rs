//! /mcp: the browser as an MCP server, driven by the official MCP Python SDK (an agent's client
//! from another ecosystem) and checked at the HTTP level: the key, Host and Origin rules.

use std::path::Path;
use std::process::Command;

use serde_json::json;

use crate::helpers::{API_KEY, Instance, fixtures, shared};

/// The Python with the pinned MCP SDK, installed by .ci/setup.
pub const MCP_PYTHON: &str = ".venv-mcp/bin/python";

fn initialize() -> String {
    json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "probe", "version": "1" } } })
    .to_string()
}

/// Runs `tests/mcp/<script>` with the pinned SDK against `base`; its stdout, once it passed.
async fn sdk_script(script: &str, base: &str, logs: impl Fn() -> String) -> String {
    let python = Path::new(env!("CARGO_MANIFEST_DIR")).join(MCP_PYTHON);
    assert!(python.exists(), "{} is missing: run `bash .ci/setup` (it installs the pinned MCP SDK)", python.display());
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp").join(script);
    let base = base.to_owned();
    let output = tokio::task::spawn_blocking(move || {
        Command::new(python).arg(script).args([base.as_str(), API_KEY, fixtures()]).output()
    })
    .await
    .unwrap()
    .expect("the MCP client runs");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "the MCP client failed:\n{stdout}\n{stderr}\nservice log:\n{}", logs());
    stdout
}

#[tokio::test]
async fn the_official_python_sdk_debugs_the_broken_invoice_through_mcp() {
    // A service of its own, without warm sessions: the script counts the browser sessions open.
    let svc = Instance::start(&[("WARM_SESSIONS", "0")]);
    let stdout = sdk_script("agent_session.py", &svc.base, || svc.logs()).await;
    assert!(stdout.trim_end().ends_with("ok 18 steps"), "{stdout}");
}

#[tokio::test]
async fn the_official_python_sdk_drives_every_tool_within_the_context_budget() {
    // Every tool listed is called and checked (what it did, its annotations), a click with
    // `snapshot: "diff"` answers with the diff, and tools/list stays within 16,000 bytes.
    let svc = shared();
    let stdout = sdk_script("every_tool.py", &svc.base, || svc.logs()).await;
    let last = stdout.trim_end().lines().last().unwrap_or_default();
    assert!(last.starts_with("ok 38 tools, tools/list "), "{stdout}");
}

#[tokio::test]
async fn mcp_needs_the_api_key_and_refuses_foreign_origins_and_hosts() {
    let svc = shared();
    let http = reqwest::Client::new();
    let post = |key: Option<&str>| {
        let mut request = http
            .post(format!("{}/mcp", svc.base))
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(initialize());
        if let Some(key) = key {
            request = request.header("x-api-key", key);
        }
        request
    };
    assert_eq!(post(None).send().await.unwrap().status(), 401);
    assert_eq!(post(Some("wrong-key")).send().await.unwrap().status(), 401);
    // The MCP transport's DNS-rebinding rule: a browser page elsewhere cannot drive the service.
    let foreign = post(Some(API_KEY)).header("origin", "http://evil.example").send().await.unwrap();
    assert_eq!(foreign.status(), 403);
    let rebound = post(Some(API_KEY)).header("host", "evil.example").send().await.unwrap();
    assert_eq!(rebound.status(), 403);
    let welcome = post(Some(API_KEY)).send().await.unwrap();
    assert_eq!(welcome.status(), 200);
    assert!(welcome.headers().contains_key("mcp-session-id"), "{:?}", welcome.headers());
}
