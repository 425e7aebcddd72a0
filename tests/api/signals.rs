//! logs.pull and network.pull: the page's console, errors and failed requests.

use std::time::Duration;

use serde_json::json;

use crate::helpers::{eventually, page, shared};

#[tokio::test]
async fn logs_pull_returns_the_console_and_drains() {
    let svc = shared();
    let sid = svc.session().await;
    svc.ok("page.goto", json!({ "session_id": sid, "url": page("/projects") })).await;
    let logs = svc.ok("logs.pull", json!({ "session_id": sid })).await;
    let texts: Vec<&str> = logs["console"].as_array().unwrap().iter().map(|e| e["text"].as_str().unwrap()).collect();
    assert!(texts.contains(&"projects page loaded"), "{texts:?}");
    assert!(texts.contains(&"loaded 3 projects"), "{texts:?}");
    let again = svc.ok("logs.pull", json!({ "session_id": sid })).await;
    assert_eq!(again["console"], json!([]), "a second pull only returns newer entries");
    svc.ok("page.evaluate", json!({ "session_id": sid, "expression": "console.info('newer'); 1" })).await;
    let newer = svc.ok("logs.pull", json!({ "session_id": sid })).await;
    assert_eq!(newer["console"][0]["text"], "newer");
}

#[tokio::test]
async fn logs_pull_filters_by_level_and_reports_page_errors() {
    let svc = shared();
    let sid = svc.session().await;
    svc.ok("page.goto", json!({ "session_id": sid, "url": page("/errors") })).await;
    let logs = eventually(Duration::from_secs(10), "both page errors", || async {
        let logs = svc.ok("logs.pull", json!({ "session_id": sid, "level": "warning" })).await;
        (logs["pageErrors"].as_array().unwrap().len() == 2).then_some(logs)
    })
    .await;
    let console = logs["console"].as_array().unwrap();
    let kinds: Vec<&str> = console.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["warning", "error"], "log and debug are below warning");
    assert_eq!(console[1]["text"], "something failed: 42");
    assert!(console[1]["location"]["url"].as_str().unwrap().ends_with("/errors/"));
    assert!(console[1]["location"]["line"].as_u64().unwrap() > 0);
    assert_eq!(console[1]["kind"], "console");
    let source = console[1]["source"].as_str().expect("a console error carries its source line");
    assert!(source.contains("console.error('something failed:', 42);"), "{source}");
    let messages: Vec<&str> =
        logs["pageErrors"].as_array().unwrap().iter().map(|e| e["message"].as_str().unwrap()).collect();
    assert!(messages.iter().any(|m| m.contains("TypeError: undefinedThing is not a function")), "{messages:?}");
    assert!(messages.iter().any(|m| m.contains("unhandled rejection here")), "{messages:?}");
    let err = svc.err("logs.pull", json!({ "session_id": sid, "level": "loud" })).await;
    assert_eq!(err.data["param"], "level");
}

#[tokio::test]
async fn network_pull_returns_the_500_with_its_body_and_the_refused_request() {
    let svc = shared();
    let sid = svc.session().await;
    svc.ok("page.goto", json!({ "session_id": sid, "url": page("/projects") })).await;
    let net = svc.ok("network.pull", json!({ "session_id": sid })).await;
    let requests = net["requests"].as_array().unwrap();
    let fail = requests.iter().find(|r| r["url"].as_str().unwrap().ends_with("/api/fail")).expect("the /api/fail 500");
    assert_eq!(fail["status"], 500);
    assert_eq!(fail["method"], "GET");
    assert_eq!(fail["resourceType"], "Fetch");
    assert!(fail["responseBody"].as_str().unwrap().contains("database connection refused"), "{fail}");
    assert!(
        requests.iter().all(|r| r["status"].as_u64().unwrap_or(0) >= 400 || r.get("failure").is_some()),
        "only errors by default"
    );
    assert_eq!(svc.ok("network.pull", json!({ "session_id": sid })).await["requests"], json!([]), "drained");

    svc.ok("page.goto", json!({ "session_id": sid, "url": page("/errors") })).await;
    let all = svc.ok("network.pull", json!({ "session_id": sid, "onlyErrors": false })).await;
    let requests = all["requests"].as_array().unwrap();
    let refused =
        requests.iter().find(|r| r["url"].as_str().unwrap().contains(":65533/")).expect("the refused request");
    assert_eq!(refused["failure"], "net::ERR_CONNECTION_REFUSED");
    assert!(requests.iter().any(|r| r["status"] == 200), "onlyErrors=false keeps successes: {requests:?}");
}

#[tokio::test]
async fn the_timeline_keeps_the_newest_entries_and_counts_what_fell_off_unread() {
    let svc = shared();
    let sid = svc.session().await;
    svc.ok("page.goto", json!({ "session_id": sid, "url": page("/flood"), "waitUntil": "load" })).await;
    // 1,101 messages from the page, then 5,000 more: more than the page's timeline keeps.
    let more = "for (let i = 1100; i < 6100; i++) console.log('message ' + i); console.log('flood over'); 1";
    svc.ok("page.evaluate", json!({ "session_id": sid, "expression": more })).await;
    let (mut texts, mut dropped) = (Vec::<String>::new(), 0);
    let until = std::time::Instant::now() + Duration::from_secs(30);
    while texts.last().map(String::as_str) != Some("flood over") {
        assert!(std::time::Instant::now() < until, "the last message within 30 s ({} so far)", texts.len());
        let logs = svc.ok("logs.pull", json!({ "session_id": sid })).await;
        dropped += logs["dropped"].as_u64().unwrap_or(0);
        texts.extend(logs["console"].as_array().unwrap().iter().map(|e| e["text"].as_str().unwrap().to_owned()));
    }
    assert_eq!(
        texts.len() as u64 + dropped,
        6102,
        "{} returned, {dropped} dropped: every message accounted for",
        texts.len()
    );
    assert!(dropped >= 1000, "the oldest fell off: {dropped}");
    let numbers: Vec<u64> = texts.iter().filter_map(|t| t.strip_prefix("message ")?.parse().ok()).collect();
    assert!(numbers.windows(2).all(|w| w[0] < w[1]), "in the order they were logged");
}
