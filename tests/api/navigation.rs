//! page.goto, page.reload and page.waitFor against the fixtures.

use serde_json::json;

use crate::helpers::{page, shared};

#[tokio::test]
async fn goto_networkidle_waits_for_late_fetches() {
    let svc = shared();
    let sid = svc.session().await;
    // /projects fills its list from an API that answers after 800 ms.
    let nav = svc.ok("page.goto", json!({ "session_id": sid, "url": page("/projects") })).await;
    assert_eq!(nav["title"], "Projects");
    assert_eq!(nav["status"], 200);
    let text = svc.ok("page.text", json!({ "session_id": sid })).await;
    assert!(text["text"].as_str().unwrap().contains("Borealis API"), "{text}");
    svc.ok("session.close", json!({ "session_id": sid })).await;
}

#[tokio::test]
async fn goto_load_returns_before_late_fetches_finish() {
    let svc = shared();
    let sid = svc.session().await;
    svc.ok("page.goto", json!({ "session_id": sid, "url": page("/projects"), "waitUntil": "load" })).await;
    let text = svc.ok("page.text", json!({ "session_id": sid, "selector": "#status" })).await;
    assert_eq!(text["text"], "Loading projects…");
    // ...and waitFor networkidle then sees the list.
    svc.ok("page.waitFor", json!({ "session_id": sid, "state": "networkidle" })).await;
    let text = svc.ok("page.text", json!({ "session_id": sid, "selector": "#status" })).await;
    assert_eq!(text["text"], "3 projects");
}

#[tokio::test]
async fn goto_domcontentloaded_is_accepted() {
    let svc = shared();
    let sid = svc.session().await;
    let nav =
        svc.ok("page.goto", json!({ "session_id": sid, "url": page("/"), "waitUntil": "domcontentloaded" })).await;
    assert_eq!(nav["title"], "Fixtures Home");
}

#[tokio::test]
async fn goto_reports_http_error_status_without_failing() {
    let svc = shared();
    let sid = svc.session().await;
    let nav =
        svc.ok("page.goto", json!({ "session_id": sid, "url": page("/no-such-page"), "waitUntil": "load" })).await;
    assert_eq!(nav["status"], 404);
    assert_eq!(nav["title"], "Not found");
}

#[tokio::test]
async fn goto_disallowed_host_is_rejected() {
    let svc = shared();
    let sid = svc.session().await;
    for url in
        ["http://example.com/", "http://169.254.169.254/latest/meta-data/", "file:///etc/passwd", "javascript:alert(1)"]
    {
        let err = svc.err("page.goto", json!({ "session_id": sid, "url": url })).await;
        assert_eq!(err.kind(), "url_not_allowed", "{url}: {err:?}");
        assert!(err.data["remediation"].as_str().unwrap().contains("ALLOW_HOST_REGEX"));
    }
}

#[tokio::test]
async fn goto_refused_connection_is_navigation_failed() {
    let svc = shared();
    let sid = svc.session().await;
    // A port nothing listens on: bind one, note it, close it.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let err = svc.err("page.goto", json!({ "session_id": sid, "url": format!("http://127.0.0.1:{port}/") })).await;
    assert_eq!(err.kind(), "navigation_failed", "{err:?}");
    assert!(err.message.contains("ERR_CONNECTION_REFUSED"), "{}", err.message);
}

#[tokio::test]
async fn a_click_on_a_link_to_a_server_that_refuses_fails_naming_where_it_went() {
    let svc = shared();
    let sid = svc.session().await;
    svc.ok("page.goto", json!({ "session_id": sid, "url": page("/"), "waitUntil": "load" })).await;
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let href = format!("http://127.0.0.1:{port}/status");
    svc.ok("page.evaluate", json!({ "session_id": sid, "expression": "(href) => { const a = document.createElement('a'); a.id = 'status'; a.href = href; a.textContent = 'Status'; document.body.append(a); }", "arg": href }))
        .await;
    let err = svc.err("page.click", json!({ "session_id": sid, "selector": "#status" })).await;
    assert_eq!(err.kind(), "navigation_failed", "{err:?}");
    assert!(err.message.contains("ERR_CONNECTION_REFUSED"), "{}", err.message);
    assert!(err.message.contains(&format!("127.0.0.1:{port}/status")), "the message names the URL: {}", err.message);
}

#[tokio::test]
async fn session_create_refuses_a_url_outside_the_allow_list_as_goto_does() {
    let svc = shared();
    let refused = svc.err("session.create", json!({ "url": "http://example.com/" })).await;
    let sid = svc.session().await;
    let goto = svc.err("page.goto", json!({ "session_id": sid, "url": "http://example.com/" })).await;
    for err in [refused, goto] {
        assert_eq!(err.kind(), "url_not_allowed", "{err:?}");
        assert!(err.message.contains("matched against the whole URL"), "{}", err.message);
        assert!(err.data["remediation"].as_str().unwrap().contains("whole URL"), "{err:?}");
    }
}

#[tokio::test]
async fn goto_slower_than_its_timeout_times_out_and_the_session_stays_usable() {
    let svc = shared();
    let sid = svc.session().await;
    let err = svc.err("page.goto", json!({ "session_id": sid, "url": page("/slow?ms=5000"), "timeout": 700 })).await;
    assert_eq!(err.kind(), "timeout", "{err:?}");
    assert!(err.message.contains("/slow?ms=5000"), "{}", err.message);
    let nav = svc.ok("page.goto", json!({ "session_id": sid, "url": page("/"), "waitUntil": "load" })).await;
    assert_eq!(nav["title"], "Fixtures Home");
}

#[tokio::test]
async fn reload_loads_a_fresh_document() {
    let svc = shared();
    let sid = svc.session().await;
    svc.ok("page.goto", json!({ "session_id": sid, "url": page("/"), "waitUntil": "load" })).await;
    svc.ok("page.evaluate", json!({ "session_id": sid, "expression": "window.marker = 42" })).await;
    let nav = svc.ok("page.reload", json!({ "session_id": sid, "waitUntil": "load" })).await;
    assert_eq!(nav["title"], "Fixtures Home");
    let marker = svc.ok("page.evaluate", json!({ "session_id": sid, "expression": "typeof window.marker" })).await;
    assert_eq!(marker["result"], "undefined");
}

#[tokio::test]
async fn wait_for_idle_for_needs_ms_and_returns_the_state() {
    let svc = shared();
    let sid = svc.session().await;
    svc.ok("page.goto", json!({ "session_id": sid, "url": page("/"), "waitUntil": "load" })).await;
    let done = svc.ok("page.waitFor", json!({ "session_id": sid, "state": "idleFor", "ms": 200 })).await;
    assert_eq!(done["state"], "idleFor");
    let err = svc.err("page.waitFor", json!({ "session_id": sid, "state": "idleFor" })).await;
    assert_eq!(err.data["param"], "ms");
    let err = svc.err("page.waitFor", json!({ "session_id": sid, "state": "sleep" })).await;
    assert_eq!(err.code, -32602);
    assert_eq!(err.data["param"], "state");
}

#[tokio::test]
async fn goto_settled_reads_the_data_the_page_fetches_after_its_load() {
    let svc = shared();
    let sid = svc.session().await;
    // The catalog's stock answers 300 ms after the load, and that answer makes it fetch prices.
    let nav = svc.ok("page.goto", json!({ "session_id": sid, "url": page("/catalog/"), "waitUntil": "settled" })).await;
    assert_eq!(nav["title"], "Catalog · Orchard Supply");
    let text = svc.ok("page.text", json!({ "session_id": sid, "selector": "#stock-status" })).await;
    assert_eq!(text["text"], "Stock checked: 1998 in stock, 2 sold out, from 12.50 EUR");
    // The same for a reload.
    svc.ok("page.reload", json!({ "session_id": sid, "waitUntil": "settled" })).await;
    let text = svc.ok("page.text", json!({ "session_id": sid, "selector": "#stock-status" })).await;
    assert_eq!(text["text"], "Stock checked: 1998 in stock, 2 sold out, from 12.50 EUR");
}

#[tokio::test]
async fn goto_settled_stops_waiting_for_a_request_that_never_ends() {
    let svc = shared();
    let sid = svc.session().await;
    // ?live holds a request the backend never answers: networkidle cannot be reached...
    let url = page("/catalog/?live");
    let err = svc.err("page.goto", json!({ "session_id": sid, "url": url, "timeout": 4000 })).await;
    assert_eq!(err.kind(), "timeout", "{err:?}");
    // ...while settled gives up on it (2 s after the load) and the page's data is there.
    svc.ok("page.goto", json!({ "session_id": sid, "url": url, "waitUntil": "settled", "timeout": 30000 })).await;
    let text = svc.ok("page.text", json!({ "session_id": sid, "selector": "#stock-status" })).await;
    assert_eq!(text["text"], "Stock checked: 1998 in stock, 2 sold out, from 12.50 EUR");
}
