//! storage.state round-trips a sign-in into a new session; cookies.* and storage.local/session
//! read and change what the page sees.

use serde_json::json;

use crate::helpers::{page, shared};

async fn who(sid: &str) -> String {
    let t = shared().ok("page.text", json!({ "session_id": sid, "selector": "#who" })).await;
    t["text"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn storage_state_carries_a_sign_in_into_a_new_session() {
    let svc = shared();
    let first = svc.session().await;
    svc.ok("page.goto", json!({ "session_id": first, "url": page("/account/"), "waitUntil": "load" })).await;
    assert_eq!(who(&first).await, "Signed out");
    svc.ok("page.fill", json!({ "session_id": first, "selector": "#user", "value": "ada" })).await;
    svc.ok("page.click", json!({ "session_id": first, "selector": "text=Sign in" })).await;
    assert_eq!(who(&first).await, "Signed in as ada");
    let state = svc.ok("storage.state", json!({ "session_id": first })).await;
    assert_eq!(state["cookies"][0]["name"], "acme_session", "{state}");
    assert_eq!(state["origins"][0]["localStorage"], json!([{ "name": "displayName", "value": "ada" }]));

    let second = svc.session_with(json!({ "storageState": state })).await;
    svc.ok("page.goto", json!({ "session_id": second, "url": page("/account/"), "waitUntil": "load" })).await;
    assert_eq!(who(&second).await, "Signed in as ada", "the new session starts signed in");

    let other = svc.session().await;
    svc.ok("page.goto", json!({ "session_id": other, "url": page("/account/"), "waitUntil": "load" })).await;
    assert_eq!(who(&other).await, "Signed out", "sessions stay apart");
}

#[tokio::test]
async fn cookies_and_web_storage_change_what_the_page_sees() {
    let svc = shared();
    let sid = svc.session().await;
    svc.ok("page.goto", json!({ "session_id": sid, "url": page("/account/"), "waitUntil": "load" })).await;
    let host = url_host(&page("/"));
    let set = svc
        .ok(
            "cookies.set",
            json!({ "session_id": sid, "cookies": [{ "name": "acme_session", "value": "x", "domain": host }] }),
        )
        .await;
    assert_eq!(set["cookies"].as_array().unwrap().len(), 1, "{set}");
    let stored = svc.ok("storage.local", json!({ "session_id": sid, "set": { "displayName": "Grace" } })).await;
    assert_eq!(stored["items"], json!([{ "name": "displayName", "value": "Grace" }]));
    assert!(stored["origin"].as_str().unwrap().starts_with("http://127.0.0.1:"), "{stored}");
    svc.ok("page.reload", json!({ "session_id": sid, "waitUntil": "load" })).await;
    assert_eq!(who(&sid).await, "Signed in as Grace");

    let got = svc.ok("cookies.get", json!({ "session_id": sid, "domain": host })).await;
    assert_eq!(got["cookies"][0]["value"], "x");
    let cleared = svc.ok("cookies.clear", json!({ "session_id": sid })).await;
    assert_eq!(cleared["cleared"], 1);
    svc.ok("page.reload", json!({ "session_id": sid, "waitUntil": "load" })).await;
    assert_eq!(who(&sid).await, "Signed out");

    let emptied = svc.ok("storage.local", json!({ "session_id": sid, "clear": true })).await;
    assert_eq!(emptied["items"], json!([]));
    let tab = svc.ok("storage.session", json!({ "session_id": sid, "set": { "step": "2" } })).await;
    assert_eq!(tab["items"], json!([{ "name": "step", "value": "2" }]));

    let err = svc
        .err(
            "cookies.set",
            json!({ "session_id": sid, "cookies": [{ "name": "a", "value": "b", "domain": "http://x/" }] }),
        )
        .await;
    assert_eq!(err.data["param"], "cookies[0].domain", "{err:?}");
}

fn url_host(url: &str) -> String {
    url.split("://").nth(1).unwrap().split([':', '/']).next().unwrap().to_owned()
}
