//! assert.*: pass once the page shows what is expected (waiting for it), fail with the actual value.

use serde_json::json;

use crate::helpers::{page, shared};

#[tokio::test]
async fn assertions_wait_for_the_page_and_pass() {
    let svc = shared();
    let sid = svc.session().await;
    svc.ok("page.goto", json!({ "session_id": sid, "url": page("/delayed"), "waitUntil": "load" })).await;
    // The button is enabled after a second; the click's result shows after it.
    svc.ok("page.click", json!({ "session_id": sid, "selector": "#go" })).await;
    let passed = svc.ok("assert.text", json!({ "session_id": sid, "selector": "#result", "text": "Continued" })).await;
    assert_eq!(passed, json!({ "ok": true, "actual": { "text": "Continued" } }));
    svc.ok("assert.text", json!({ "session_id": sid, "text": "Delayed Continue" })).await;
    svc.ok("assert.title", json!({ "session_id": sid, "title": "Delayed", "exact": true })).await;
    svc.ok("assert.url", json!({ "session_id": sid, "pattern": "**/delayed*" })).await;
    svc.ok("assert.count", json!({ "session_id": sid, "selector": "button", "count": 1 })).await;
    svc.ok("assert.visible", json!({ "session_id": sid, "selector": "role=button[name=\"Continue\"]" })).await;
    svc.ok("assert.hidden", json!({ "session_id": sid, "selector": "#nothing-here" })).await;
}

#[tokio::test]
async fn a_failing_assertion_says_what_the_page_shows_instead() {
    let svc = shared();
    let sid = svc.session().await;
    svc.ok("page.goto", json!({ "session_id": sid, "url": page("/team/"), "waitUntil": "load" })).await;
    let err = svc
        .err("assert.text", json!({ "session_id": sid, "selector": "#search-count", "text": "4 of 4", "timeout": 600 }))
        .await;
    assert_eq!(err.kind(), "assertion_failed", "{err:?}");
    assert_eq!(err.data["actual"], json!({ "text": "3 of 3 members" }));
    assert_eq!(err.data["expected"]["text"], "4 of 4");
    assert!(err.message.contains("failed after"), "{}", err.message);
    let err = svc
        .err("assert.count", json!({ "session_id": sid, "selector": "#members tr", "count": 5, "timeout": 300 }))
        .await;
    assert_eq!(err.data["actual"], json!({ "count": 3 }));
    let err = svc
        .err("assert.value", json!({ "session_id": sid, "selector": "#role", "value": "admin", "timeout": 300 }))
        .await;
    assert_eq!(err.data["actual"]["value"], "viewer");
    let err = svc.err("assert.checked", json!({ "session_id": sid, "selector": "#notify", "timeout": 300 })).await;
    assert_eq!(err.data["actual"]["checked"], false);
    let err = svc.err("assert.visible", json!({ "session_id": sid, "selector": "#email-hint", "timeout": 300 })).await;
    assert_eq!(err.data["actual"], json!({ "count": 1, "visible": 0 }));
    let err = svc.err("assert.url", json!({ "session_id": sid, "pattern": "/projects", "timeout": 300 })).await;
    assert!(err.data["actual"]["url"].as_str().unwrap().ends_with("/team/"), "{err:?}");
    let err = svc.err("assert.title", json!({ "session_id": sid, "title": "Billing", "timeout": 300 })).await;
    assert_eq!(err.data["actual"]["title"], "Team settings · Acme");
    let err = svc.err("assert.text", json!({ "session_id": sid, "text": "  ", "timeout": 300 })).await;
    assert_eq!(err.kind(), "invalid_params");
}

#[tokio::test]
async fn a_failure_the_page_explains_carries_what_the_page_showed() {
    let svc = shared();
    let sid = svc.session().await;
    svc.ok("page.goto", json!({ "session_id": sid, "url": page("/team/"), "waitUntil": "load" })).await;
    let err = svc.err("page.click", json!({ "session_id": sid, "selector": "text=Billing", "timeout": 400 })).await;
    assert_eq!(err.kind(), "timeout");
    let evidence = &err.data["evidence"];
    assert!(evidence["url"].as_str().unwrap().ends_with("/team/"), "{evidence}");
    assert_eq!(evidence["title"], "Team settings · Acme");
    assert!(evidence["text"].as_str().unwrap().contains("Ada Lovelace"), "the page's text: {evidence}");
    let err = svc
        .err(
            "page.evaluate",
            json!({ "session_id": sid,
            "expression": "console.error('Cart total is NaN'); throw new Error('checkout failed')" }),
        )
        .await;
    assert_eq!(err.kind(), "evaluation_failed");
    assert_eq!(err.data["evidence"]["consoleErrors"][0]["text"], "Cart total is NaN", "{:?}", err.data);
    // A caller's mistake is not the page's: no evidence.
    let err = svc.err("page.click", json!({ "session_id": sid, "selector": "role=" })).await;
    assert!(err.data.get("evidence").is_none(), "{:?}", err.data);
}

#[tokio::test]
async fn a_session_created_with_evidence_gets_a_small_screenshot_with_each_failure() {
    use base64::Engine;
    let svc = shared();
    let sid = svc.session_with(json!({ "evidence": true })).await;
    svc.ok("page.goto", json!({ "session_id": sid, "url": page("/team/"), "waitUntil": "load" })).await;
    let err = svc.err("assert.visible", json!({ "session_id": sid, "selector": "#email-hint", "timeout": 300 })).await;
    let shot = &err.data["evidence"]["screenshot"];
    assert_eq!(shot["mime"], "image/jpeg");
    let jpeg = base64::engine::general_purpose::STANDARD.decode(shot["base64"].as_str().unwrap()).unwrap();
    assert!(jpeg.starts_with(&[0xFF, 0xD8]), "a JPEG");
    assert!(jpeg.len() < 60_000, "small: {} bytes", jpeg.len());
    // Without the option, no screenshot rides along.
    let plain = svc.session().await;
    svc.ok("page.goto", json!({ "session_id": plain, "url": page("/team/"), "waitUntil": "load" })).await;
    let err =
        svc.err("assert.visible", json!({ "session_id": plain, "selector": "#email-hint", "timeout": 300 })).await;
    assert!(err.data["evidence"].get("screenshot").is_none());
}
