//! network.route mocks and aborts change what the page shows; routes are listed and removed;
//! a mock never answers for a host the allow-list refuses.

use serde_json::json;

use crate::helpers::{page, shared};

#[tokio::test]
async fn a_mocked_api_changes_what_the_page_shows_until_unrouted() {
    let svc = shared();
    let sid = svc.session().await;
    let added = svc
        .ok(
            "network.route",
            json!({ "session_id": sid, "urlPattern": "*/api/stats",
            "response": { "json": { "revenue": 1234.5 } } }),
        )
        .await;
    let route_id = added["routeId"].clone();
    svc.ok("page.goto", json!({ "session_id": sid, "url": page("/dashboard/"), "waitUntil": "networkidle" })).await;
    svc.ok("assert.text", json!({ "session_id": sid, "selector": "#revenue", "text": "$1234.50" })).await;
    let listed = svc.ok("network.list", json!({ "session_id": sid })).await;
    assert_eq!(
        listed["routes"],
        json!([{ "routeId": route_id, "urlPattern": "*/api/stats", "action": "fulfill 200", "hits": 1 }])
    );

    // An aborted request is a network error for the page, and shows as a failure.
    svc.ok("network.route", json!({ "session_id": sid, "urlPattern": "*/api/stats/live", "abort": true })).await;
    let clicked = svc.ok("page.click", json!({ "session_id": sid, "selector": "#refresh-live" })).await;
    let failed = &clicked["effects"]["requests"][0];
    assert!(failed["url"].as_str().unwrap().ends_with("/api/stats/live"), "{clicked}");
    assert!(failed["failure"].is_string(), "{clicked}");

    let removed = svc.ok("network.unroute", json!({ "session_id": sid, "routeId": route_id })).await;
    assert_eq!((removed["removed"].clone(), removed["routes"].as_array().unwrap().len()), (json!(1), 1));
    svc.ok("page.reload", json!({ "session_id": sid, "waitUntil": "networkidle" })).await;
    svc.ok("assert.text", json!({ "session_id": sid, "selector": "#revenue", "text": "Loading…" })).await;
    let err = svc.err("network.unroute", json!({ "session_id": sid, "routeId": route_id })).await;
    assert_eq!(err.data["param"], "routeId");
}

#[tokio::test]
async fn a_bad_route_is_refused_with_the_param_named() {
    let svc = shared();
    let sid = svc.session().await;
    let err = svc.err("network.route", json!({ "session_id": sid, "urlPattern": "*" })).await;
    assert_eq!(err.data["param"], "response");
    let err =
        svc.err("network.route", json!({ "session_id": sid, "urlPattern": "*", "response": { "status": 700 } })).await;
    assert_eq!(err.data["param"], "response.status");
    let err = svc
        .err("network.route", json!({ "session_id": sid, "urlPattern": "*", "response": { "body": "a", "json": 1 } }))
        .await;
    assert_eq!(err.data["param"], "response.json");
}

/// The HAR has what a HAR 1.2 reader requires of every entry, with real statuses and timings.
#[tokio::test]
async fn the_har_lists_each_request_with_status_timings_and_sizes() {
    let svc = shared();
    let sid = svc.session().await;
    svc.ok("page.goto", json!({ "session_id": sid, "url": page("/order/"), "waitUntil": "networkidle" })).await;
    svc.ok("page.click", json!({ "session_id": sid, "selector": "role=button[name=\"Place order\"]" })).await;
    let har = svc.ok("network.har", json!({ "session_id": sid, "bodies": true })).await["har"].clone();
    let log = &har["log"];
    assert_eq!(log["version"], "1.2");
    assert_eq!(log["creator"]["name"], "text-browser");
    let entries = log["entries"].as_array().unwrap();
    assert!(entries.len() >= 2, "{har}");
    for entry in entries {
        for key in ["startedDateTime", "time", "request", "response", "cache", "timings"] {
            assert!(entry.get(key).is_some(), "{key} missing: {entry}");
        }
        assert!(entry["startedDateTime"].as_str().unwrap().ends_with('Z'), "{entry}");
        assert!(entry["timings"]["wait"].as_u64().is_some() && entry["timings"]["send"] == 0, "{entry}");
        for key in ["method", "url", "httpVersion", "cookies", "headers", "queryString", "headersSize", "bodySize"] {
            assert!(entry["request"].get(key).is_some(), "request.{key} missing: {entry}");
        }
        for key in ["status", "statusText", "httpVersion", "content", "redirectURL", "headersSize", "bodySize"] {
            assert!(entry["response"].get(key).is_some(), "response.{key} missing: {entry}");
        }
        assert!(entry["response"]["content"]["size"].as_u64().is_some(), "{entry}");
    }
    let order = entries.iter().find(|e| e["request"]["url"].as_str().unwrap().ends_with("/api/orders")).unwrap();
    assert_eq!((order["request"]["method"].as_str(), order["response"]["status"].as_u64()), (Some("POST"), Some(422)));
    assert!(order["response"]["content"]["text"].is_string(), "the body excerpt: {order}");
    // Nothing was drained: network.pull still has the failure.
    let pulled = svc.ok("network.pull", json!({ "session_id": sid })).await;
    assert_eq!(pulled["requests"][0]["status"], 422);
}
