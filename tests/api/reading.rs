//! page.text, page.content and page.evaluate.

use serde_json::json;

use crate::helpers::{page, shared};

async fn on_home() -> String {
    let svc = shared();
    let sid = svc.session().await;
    svc.ok("page.goto", json!({ "session_id": sid, "url": page("/"), "waitUntil": "load" })).await;
    sid
}

#[tokio::test]
async fn text_excludes_hidden_content() {
    let svc = shared();
    let sid = on_home().await;
    let text = svc.ok("page.text", json!({ "session_id": sid })).await["text"].as_str().unwrap().to_owned();
    assert!(text.contains("A small app for testing text-browser."), "{text}");
    assert!(!text.contains("display:none"), "{text}");
    assert!(!text.contains("visibility:hidden"), "{text}");
}

#[tokio::test]
async fn text_is_clamped_to_max_chars_and_says_so() {
    let svc = shared();
    let sid = on_home().await;
    let text = svc.ok("page.text", json!({ "session_id": sid, "maxChars": 7 })).await;
    assert_eq!(text["text"], "Fixture");
    assert_eq!(text["truncated"], true);
    let text = svc.ok("page.text", json!({ "session_id": sid, "selector": "h1" })).await;
    assert_eq!(text["text"], "Fixtures Home");
    assert!(text.get("truncated").is_none());
}

#[tokio::test]
async fn text_of_a_missing_element_is_element_not_found() {
    let svc = shared();
    let sid = on_home().await;
    let err = svc.err("page.text", json!({ "session_id": sid, "selector": "#does-not-exist" })).await;
    assert_eq!(err.kind(), "element_not_found");
    assert!(err.message.contains("#does-not-exist"));
}

#[tokio::test]
async fn text_with_a_broken_selector_is_invalid_selector() {
    let svc = shared();
    let sid = on_home().await;
    let err = svc.err("page.text", json!({ "session_id": sid, "selector": "h1[" })).await;
    assert_eq!(err.kind(), "invalid_selector", "{err:?}");
}

#[tokio::test]
async fn text_works_even_when_the_page_breaks_builtins() {
    let svc = shared();
    let sid = on_home().await;
    svc.ok(
        "page.evaluate",
        json!({ "session_id": sid, "expression": "Document.prototype.querySelector = () => null; String.prototype.trim = null; 1" }),
    )
    .await;
    let text = svc.ok("page.text", json!({ "session_id": sid, "selector": "h1" })).await;
    assert_eq!(text["text"], "Fixtures Home");
}

#[tokio::test]
async fn content_is_the_html_after_javascript() {
    let svc = shared();
    let sid = svc.session().await;
    svc.ok("page.goto", json!({ "session_id": sid, "url": page("/projects") })).await;
    let html = svc.ok("page.content", json!({ "session_id": sid })).await["html"].as_str().unwrap().to_owned();
    assert!(html.starts_with("<!DOCTYPE html>"), "{}", &html[..40]);
    assert!(html.contains("<li>Apollo Dashboard</li>"), "the list built by JS is in the HTML");
}

#[tokio::test]
async fn evaluate_returns_values_calls_functions_and_awaits_promises() {
    let svc = shared();
    let sid = on_home().await;
    let eval = |expression: &str, arg: serde_json::Value| {
        let mut params = json!({ "session_id": sid, "expression": expression });
        if !arg.is_null() {
            params["arg"] = arg;
        }
        svc.call("page.evaluate", params)
    };
    assert_eq!(eval("document.title", json!(null)).await.unwrap()["result"], "Fixtures Home");
    assert_eq!(eval("(x) => x.a + x.b", json!({"a": 2, "b": 3})).await.unwrap()["result"], 5);
    assert_eq!(
        eval("new Promise(r => setTimeout(() => r({done: true}), 50))", json!(null)).await.unwrap()["result"],
        json!({"done": true})
    );
    assert_eq!(
        eval("await fetch('/api/projects').then(r => r.json()).then(p => p.length)", json!(null)).await.unwrap()["result"],
        3
    );
    assert_eq!(eval("undefined", json!(null)).await.unwrap()["result"], json!(null));
    assert_eq!(eval("new Date(0)", json!(null)).await.unwrap()["result"], "1970-01-01T00:00:00.000Z");
}

#[tokio::test]
async fn evaluate_exception_carries_its_message() {
    let svc = shared();
    let sid = on_home().await;
    let err =
        svc.err("page.evaluate", json!({ "session_id": sid, "expression": "throw new TypeError('bad thing')" })).await;
    assert_eq!(err.kind(), "evaluation_failed");
    assert!(err.message.contains("TypeError: bad thing"), "{}", err.message);
    let err = svc
        .err("page.evaluate", json!({ "session_id": sid, "expression": "Promise.reject(new Error('async bad'))" }))
        .await;
    assert_eq!(err.kind(), "evaluation_failed");
    assert!(err.message.contains("async bad"), "{}", err.message);
    let err = svc.err("page.evaluate", json!({ "session_id": sid, "expression": "this is not javascript" })).await;
    assert_eq!(err.kind(), "evaluation_failed");
    assert!(err.message.contains("SyntaxError"), "{}", err.message);
}

#[tokio::test]
async fn evaluate_non_json_results_are_clear_errors() {
    let svc = shared();
    let sid = on_home().await;
    for (expression, says) in [
        ("document.body", "DOM node"),
        ("({ el: document.querySelector('h1') })", "DOM node"),
        ("const o = {}; o.self = o; o", "cycle"),
        ("window", "Window"),
        ("NaN", "NaN"),
        ("10n", "10n"),
    ] {
        let err = svc.err("page.evaluate", json!({ "session_id": sid, "expression": expression })).await;
        assert_eq!(err.kind(), "result_not_serializable", "{expression}: {err:?}");
        assert!(err.message.contains(says), "{expression}: {}", err.message);
    }
}

#[tokio::test]
async fn evaluate_stuck_script_times_out_and_the_page_recovers() {
    let svc = shared();
    let sid = on_home().await;
    let err =
        svc.err("page.evaluate", json!({ "session_id": sid, "expression": "while (true) {}", "timeout": 500 })).await;
    assert_eq!(err.kind(), "timeout", "{err:?}");
    // The stuck script is terminated, so the session answers again.
    let title =
        svc.ok("page.evaluate", json!({ "session_id": sid, "expression": "document.title", "timeout": 10000 })).await;
    assert_eq!(title["result"], "Fixtures Home");
}
