//! page.addInitScript runs before the page's first script; page.pdf prints; page.metrics counts.

use serde_json::json;

use crate::helpers::{page, shared};

#[tokio::test]
async fn an_init_script_runs_before_the_pages_first_script_until_removed() {
    let svc = shared();
    let sid = svc.session().await;
    let text = |sel: &'static str| {
        let sid = sid.to_string();
        async move { svc.ok("page.text", json!({ "session_id": sid, "selector": sel })).await["text"].clone() }
    };
    svc.ok("page.goto", json!({ "session_id": sid, "url": page("/flags/"), "waitUntil": "load" })).await;
    assert_eq!(text("#beta").await, "Beta features off");
    let flags = svc
        .ok("page.addInitScript", json!({ "session_id": sid, "script": "window.featureFlags = { beta: true }" }))
        .await;
    let clock = svc
        .ok("page.addInitScript", json!({ "session_id": sid, "script": "Date.now = () => Date.UTC(2030, 0, 2)" }))
        .await;
    assert_eq!(clock["scripts"].as_array().unwrap().len(), 2, "{clock}");
    assert_eq!(clock["scripts"][0]["preview"], "window.featureFlags = { beta: true }");
    svc.ok("page.reload", json!({ "session_id": sid, "waitUntil": "load" })).await;
    assert_eq!(text("#beta").await, "Beta features on");
    assert_eq!(text("#today").await, "2030-01-02");

    let removed = svc.ok("page.removeInitScript", json!({ "session_id": sid, "scriptId": flags["scriptId"] })).await;
    assert_eq!(removed["scripts"].as_array().unwrap().len(), 1);
    svc.ok("page.reload", json!({ "session_id": sid, "waitUntil": "load" })).await;
    assert_eq!(text("#beta").await, "Beta features off");
    let err = svc.err("page.removeInitScript", json!({ "session_id": sid, "scriptId": flags["scriptId"] })).await;
    assert_eq!(err.data["param"], "scriptId");
}

#[tokio::test]
async fn a_pdf_starts_with_the_pdf_magic_and_metrics_count_the_dom() {
    let svc = shared();
    let sid = svc.session().await;
    svc.ok("page.goto", json!({ "session_id": sid, "url": page("/flags/"), "waitUntil": "load" })).await;
    let pdf = svc.ok("page.pdf", json!({ "session_id": sid, "format": "A4", "printBackground": true })).await;
    use base64::Engine;
    let bytes = base64::engine::general_purpose::STANDARD.decode(pdf["base64"].as_str().unwrap()).unwrap();
    assert!(bytes.starts_with(b"%PDF"), "a PDF");
    assert_eq!(pdf["bytes"], bytes.len());
    let err = svc.err("page.pdf", json!({ "session_id": sid, "format": "B7" })).await;
    assert_eq!(err.data["param"], "format");

    let before = svc.ok("page.metrics", json!({ "session_id": sid })).await;
    let nodes = before["metrics"]["Nodes"].as_f64().unwrap();
    assert!(before["metrics"]["JSHeapUsedSize"].as_f64().unwrap() > 0.0, "{before}");
    svc.ok(
        "page.evaluate",
        json!({ "session_id": sid,
        "expression": "for (let i = 0; i < 500; i++) document.body.appendChild(document.createElement('div')); 1" }),
    )
    .await;
    let after = svc.ok("page.metrics", json!({ "session_id": sid })).await;
    assert!(after["metrics"]["Nodes"].as_f64().unwrap() >= nodes + 500.0, "{before} → {after}");
}
