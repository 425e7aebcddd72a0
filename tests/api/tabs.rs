//! Tabs: popups a page opens become tabs of its session that can be listed, read, driven, focused
//! and closed; tabs.open opens one set up like the session's others.

use serde_json::{Value, json};

use crate::helpers::{SessionGuard, page, shared};

async fn on_invoices() -> SessionGuard {
    let svc = shared();
    let sid = svc.session().await;
    svc.ok("page.goto", json!({ "session_id": sid, "url": page("/invoices/"), "waitUntil": "load" })).await;
    sid
}

/// The tab id an action's `effects.popups` names (`popup opened as tab <id>: <url>`).
fn popup_tab(effects: &Value, url_part: &str) -> String {
    let note = effects["effects"]["popups"]
        .as_array()
        .and_then(|notes| notes.iter().filter_map(Value::as_str).find(|n| n.contains(url_part)))
        .unwrap_or_else(|| panic!("no popup with {url_part} in {effects}"));
    note.trim_start_matches("popup opened as tab ").split(':').next().unwrap().to_owned()
}

#[tokio::test]
async fn a_window_opened_by_the_page_is_a_tab_that_can_be_listed_read_and_driven() {
    let svc = shared();
    let sid = on_invoices().await;
    let clicked = svc.ok("page.click", json!({ "session_id": sid, "selector": "button.open" })).await;
    let popup = popup_tab(&clicked, "/invoices/view.html?id=17");

    let listed = svc.ok("tabs.list", json!({ "session_id": sid })).await;
    let tabs = listed["tabs"].as_array().unwrap();
    assert_eq!(tabs.len(), 2, "{listed}");
    let (first, second) = (&tabs[0], &tabs[1]);
    assert_eq!(first["active"], true, "the opener stays active: {listed}");
    assert_eq!(second["tab_id"], popup.as_str());
    assert_eq!(second["opener"], first["tab_id"]);
    assert!(second["url"].as_str().unwrap().ends_with("/invoices/view.html?id=17"), "{listed}");

    // The popup is read and driven by its tab_id; the opener is untouched.
    svc.ok("assert.text", json!({ "session_id": sid, "tab_id": popup, "text": "Invoice #17" })).await;
    let paid = svc.ok("page.click", json!({ "session_id": sid, "tab_id": popup, "selector": "#pay" })).await;
    let request = &paid["effects"]["requests"][0];
    assert_eq!((request["method"].as_str(), request["status"].as_u64()), (Some("POST"), Some(422)), "{paid}");
    assert!(request["responseBody"].as_str().unwrap().contains("card_declined"), "{paid}");
    let opener = svc.ok("page.text", json!({ "session_id": sid })).await;
    assert!(opener["text"].as_str().unwrap().starts_with("Invoices"), "{opener}");
}

#[tokio::test]
async fn a_target_blank_link_opens_a_tab_that_can_be_focused_and_closed() {
    let svc = shared();
    let sid = on_invoices().await;
    let clicked = svc.ok("page.click", json!({ "session_id": sid, "selector": "#terms" })).await;
    let terms = popup_tab(&clicked, "/invoices/terms.html");
    // The new tab may still be loading: wait for it like a test runner would.
    svc.ok("assert.title", json!({ "session_id": sid, "tab_id": terms, "title": "Payment terms · Acme" })).await;

    let focused = svc.ok("tabs.focus", json!({ "session_id": sid, "tab_id": terms })).await;
    assert_eq!(focused["title"], "Payment terms · Acme", "{focused}");
    // Page methods without tab_id now act on the focused tab.
    let text = svc.ok("page.text", json!({ "session_id": sid })).await;
    assert!(text["text"].as_str().unwrap().contains("due within 30 days"), "{text}");

    let closed = svc.ok("tabs.close", json!({ "session_id": sid, "tab_id": terms })).await;
    let listed = svc.ok("tabs.list", json!({ "session_id": sid })).await;
    assert_eq!(listed["tabs"].as_array().unwrap().len(), 1, "{listed}");
    assert_eq!(closed["active"], listed["tabs"][0]["tab_id"], "the opener is active again: {closed}");
    let text = svc.ok("page.text", json!({ "session_id": sid })).await;
    assert!(text["text"].as_str().unwrap().starts_with("Invoices"), "{text}");

    // The last tab is the session's: closing it is refused, and a closed tab is not found.
    let last = listed["tabs"][0]["tab_id"].as_str().unwrap();
    let refused = svc.err("tabs.close", json!({ "session_id": sid, "tab_id": last })).await;
    assert_eq!((refused.kind(), refused.data["param"].as_str()), ("invalid_params", Some("tab_id")));
    assert!(refused.message.contains("session.close"), "{}", refused.message);
    let gone = svc.err("page.text", json!({ "session_id": sid, "tab_id": terms })).await;
    assert_eq!(gone.kind(), "invalid_params");
    assert!(gone.message.contains(last) && gone.message.contains("tabs.list"), "{}", gone.message);
}

#[tokio::test]
async fn tabs_open_loads_a_url_in_a_new_active_tab_with_the_sessions_setup_and_routes() {
    let svc = shared();
    let sid = svc.session_with(json!({ "viewport": { "width": 640, "height": 480 } })).await;
    svc.ok("page.goto", json!({ "session_id": sid, "url": page("/invoices/"), "waitUntil": "load" })).await;
    let mock = json!({ "customer": "Mock AG", "total": 5, "currency": "EUR" });
    svc.ok(
        "network.route",
        json!({ "session_id": sid, "urlPattern": "*/api/invoices/17", "response": { "json": mock } }),
    )
    .await;

    let opened = svc
        .ok("tabs.open", json!({ "session_id": sid, "url": page("/invoices/view.html?id=17"), "waitUntil": "load" }))
        .await;
    assert_eq!(opened["status"], 200, "{opened}");
    let tab = opened["tab_id"].as_str().unwrap();
    // The new tab is active, has the session's viewport and the opener's route.
    svc.ok("assert.text", json!({ "session_id": sid, "selector": "#total", "text": "Total: 5.00 EUR" })).await;
    let size = svc.ok("page.evaluate", json!({ "session_id": sid, "expression": "[innerWidth, innerHeight]" })).await;
    assert_eq!(size["result"], json!([640, 480]));
    let listed = svc.ok("tabs.list", json!({ "session_id": sid })).await;
    let active: Vec<&Value> = listed["tabs"].as_array().unwrap().iter().filter(|t| t["active"] == true).collect();
    assert_eq!((active.len(), active[0]["tab_id"].as_str()), (1, Some(tab)), "{listed}");

    // A disallowed URL is refused before any tab is opened.
    let refused = svc.err("tabs.open", json!({ "session_id": sid, "url": "http://example.invalid/" })).await;
    assert_eq!(refused.kind(), "url_not_allowed");
    let listed = svc.ok("tabs.list", json!({ "session_id": sid })).await;
    assert_eq!(listed["tabs"].as_array().unwrap().len(), 2);
}

#[tokio::test]
async fn a_popups_first_load_errors_are_in_its_logs_with_its_api_calls_named() {
    let svc = shared();
    let sid = on_invoices().await;
    let clicked = svc.ok("page.click", json!({ "session_id": sid, "selector": "button.open" })).await;
    let popup = popup_tab(&clicked, "/invoices/view.html?id=17");
    // The invoice window's own script fails on the API's answer as it loads.
    svc.ok("assert.text", json!({ "session_id": sid, "tab_id": popup, "text": "Borealis GmbH" })).await;
    let logs = svc.ok("logs.pull", json!({ "session_id": sid, "tab_id": popup })).await;
    let errors: Vec<&str> =
        logs["pageErrors"].as_array().unwrap().iter().filter_map(|e| e["message"].as_str()).collect();
    assert!(errors.iter().any(|e| e.contains("reading 'toFixed'")), "{logs}");
    // If the window loaded before the session took it on, a note says so and names its API calls.
    let notes: Vec<&str> = logs["console"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == "popup")
        .filter_map(|e| e["text"].as_str())
        .collect();
    for note in notes {
        assert!(note.contains("/api/invoices/17 → 200") && note.contains("page.reload"), "{note}");
    }
}

#[tokio::test]
async fn a_tabs_open_that_fails_closes_its_tab_and_leaves_the_old_one_active() {
    let svc = shared();
    let sid = on_invoices().await;
    let before = svc.ok("tabs.list", json!({ "session_id": sid })).await["tabs"][0]["tab_id"].clone();
    // Allowed by the policy, but nothing listens there; then a page slower than the call's timeout.
    let refused = svc.err("tabs.open", json!({ "session_id": sid, "url": "http://127.0.0.1:9/" })).await;
    assert_eq!(refused.kind(), "navigation_failed", "{refused:?}");
    let slow = json!({ "session_id": sid, "url": page("/slow?ms=10000"), "timeout": 1500 });
    let timed_out = svc.err("tabs.open", slow).await;
    assert_eq!(timed_out.kind(), "timeout", "{timed_out:?}");
    let listed = svc.ok("tabs.list", json!({ "session_id": sid })).await;
    let tabs = listed["tabs"].as_array().unwrap();
    assert_eq!(tabs.len(), 1, "the failed tabs are gone: {listed}");
    assert_eq!((&tabs[0]["tab_id"], &tabs[0]["active"]), (&before, &json!(true)), "{listed}");
    let title = svc.ok("page.evaluate", json!({ "session_id": sid, "expression": "document.title" })).await;
    assert_eq!(title["result"], "Invoices · Acme", "calls without tab_id read the old tab");
}
