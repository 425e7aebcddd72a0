//! Dialogs never wedge a page: dismissed unless armed, answered as armed, always reported.

use serde_json::json;

use crate::helpers::{SessionGuard, page, shared};

async fn on_team() -> SessionGuard {
    let svc = shared();
    let sid = svc.session().await;
    svc.ok("page.goto", json!({ "session_id": sid, "url": page("/team/"), "waitUntil": "load" })).await;
    sid
}

async fn status(sid: &str) -> String {
    let t = shared().ok("page.text", json!({ "session_id": sid, "selector": "#status" })).await;
    t["text"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn an_unarmed_confirm_is_dismissed_and_the_action_says_so() {
    let svc = shared();
    let sid = on_team().await;
    let clicked = svc.ok("page.click", json!({ "session_id": sid, "selector": "tr:first-child .remove" })).await;
    assert_eq!(
        clicked["effects"]["dialogs"],
        json!([r#"confirm("Remove Ada Lovelace from the team?") dismissed (default: no dialog.arm)"#]),
        "{clicked}"
    );
    assert_eq!(status(&sid).await, "Kept Ada Lovelace");
    let logs = svc.ok("logs.pull", json!({ "session_id": sid })).await;
    let dialog = logs["console"].as_array().unwrap().iter().find(|e| e["kind"] == "dialog").cloned();
    assert!(dialog.is_some_and(|d| d["text"].as_str().unwrap().starts_with("confirm(")), "{logs}");
}

#[tokio::test]
async fn an_armed_accept_answers_confirm_and_prompt() {
    let svc = shared();
    let sid = on_team().await;
    svc.ok("dialog.arm", json!({ "session_id": sid, "accept": true })).await;
    let clicked = svc.ok("page.click", json!({ "session_id": sid, "selector": "tr:first-child .remove" })).await;
    assert!(clicked["effects"]["dialogs"][0].as_str().unwrap().ends_with("accepted (armed)"), "{clicked}");
    assert_eq!(status(&sid).await, "Removed Ada Lovelace");
    svc.ok("assert.count", json!({ "session_id": sid, "selector": "#members tr", "count": 2 })).await;

    svc.ok("dialog.arm", json!({ "session_id": sid, "accept": true, "promptText": "linus@example.com" })).await;
    svc.ok("page.click", json!({ "session_id": sid, "selector": "#invite" })).await;
    assert_eq!(status(&sid).await, "Invited linus@example.com");
    // The arm was used once: the next prompt is dismissed.
    svc.ok("page.click", json!({ "session_id": sid, "selector": "#invite" })).await;
    assert_eq!(status(&sid).await, "Invite cancelled");
    // An accepted prompt without text returns its default.
    svc.ok("dialog.arm", json!({ "session_id": sid, "accept": true })).await;
    svc.ok("page.click", json!({ "session_id": sid, "selector": "#invite" })).await;
    assert_eq!(status(&sid).await, "Invited someone@example.com");
}

#[tokio::test]
async fn an_alert_in_evaluated_code_does_not_hang_the_session() {
    let svc = shared();
    let sid = on_team().await;
    let answer =
        svc.ok("page.evaluate", json!({ "session_id": sid, "expression": "alert('Saved'); confirm('Sure?')" })).await;
    assert_eq!(answer["result"], false, "the confirm was dismissed: {answer}");
}

#[tokio::test]
async fn a_bad_arm_is_refused_with_the_param_named() {
    let svc = shared();
    let sid = svc.session().await;
    let err = svc.err("dialog.arm", json!({ "session_id": sid, "accept": true, "timeoutMs": 600000 })).await;
    assert_eq!((err.kind(), err.data["param"].as_str()), ("invalid_params", Some("timeoutMs")));
    let err = svc.err("dialog.arm", json!({ "session_id": sid, "accept": false, "promptText": "x" })).await;
    assert_eq!(err.data["param"], "promptText");
}

#[tokio::test]
async fn a_page_that_asks_before_leaving_does_not_block_goto_and_leaving_is_reported() {
    let svc = shared();
    let sid = svc.session().await;
    svc.ok("page.goto", json!({ "session_id": sid, "url": page("/notes/"), "waitUntil": "load" })).await;
    // Typing gives the page the user activation a beforeunload dialog needs, and an unsaved note.
    svc.ok("page.fill", json!({ "session_id": sid, "selector": "#note", "value": "buy milk" })).await;
    let left = svc.ok("page.goto", json!({ "session_id": sid, "url": page("/"), "timeout": 10000 })).await;
    assert_eq!(left["title"], "Fixtures Home", "{left}");
    let logs = svc.ok("logs.pull", json!({ "session_id": sid })).await;
    let dialog = logs["console"].as_array().unwrap().iter().find(|e| e["kind"] == "dialog").cloned();
    let text = dialog.as_ref().and_then(|d| d["text"].as_str()).unwrap_or_default();
    assert!(text.starts_with("beforeunload(") && text.contains("accepted: the page was left"), "{logs}");
}
