//! The warm pool: session.create hands out a blank session opened ahead of time, which must be
//! exactly as fresh and isolated as one made on demand.

use std::time::Duration;

use serde_json::{Value, json};

use crate::helpers::{Instance, Service, chromium_page_targets, chromium_renderers, eventually, metric, page};

async fn warm_ready(svc: &Service) -> f64 {
    eventually(Duration::from_secs(30), "a warm session to be ready", || async {
        metric(&svc.metrics().await, "text_browser_sessions_warm").filter(|n| *n >= 1.0)
    })
    .await
}

async fn eval(svc: &Service, sid: &str, expression: &str) -> Value {
    svc.ok("page.evaluate", json!({ "session_id": sid, "expression": expression })).await["result"].clone()
}

#[tokio::test]
async fn a_warm_session_never_sees_cookies_storage_or_cache_of_an_earlier_one() {
    let svc = Instance::start(&[("WARM_SESSIONS", "1"), ("MAX_SESSIONS", "2")]);
    warm_ready(&svc).await;
    let a = svc.session().await;
    svc.ok("page.goto", json!({ "session_id": a, "url": page("/") })).await;
    eval(
        &svc,
        &a,
        "document.cookie = 'who=a; max-age=3600'; localStorage.setItem('who', 'a'); \
         sessionStorage.setItem('who', 'a'); 1",
    )
    .await;
    let fetch = "async () => (await fetch('/cached?k=pool')).text()";
    assert_eq!(eval(&svc, &a, fetch).await, "1");
    assert_eq!(eval(&svc, &a, fetch).await, "1", "the second fetch in one session comes from its cache");
    svc.ok("session.close", json!({ "session_id": a })).await;

    // The pool refilled while `a` was open; the next create takes that warm session.
    warm_ready(&svc).await;
    let b = svc.session().await;
    assert_eq!(metric(&svc.metrics().await, "text_browser_sessions_warm"), Some(0.0), "b came from the pool");
    assert_eq!(eval(&svc, &b, "[location.href, history.length]").await, json!(["about:blank", 1]));
    let pulled = svc.ok("network.pull", json!({ "session_id": b })).await;
    assert_eq!(pulled["requests"], json!([]), "a warm session has no traffic of its own: {pulled}");
    svc.ok("page.goto", json!({ "session_id": b, "url": page("/") })).await;
    let seen = eval(&svc, &b, "[document.cookie, localStorage.getItem('who'), sessionStorage.getItem('who')]").await;
    assert_eq!(seen, json!(["", null, null]));
    assert_eq!(eval(&svc, &b, fetch).await, "2", "b's request reached the server: nothing cached from a");
}

#[tokio::test]
async fn at_the_cap_a_create_takes_the_warm_session_and_then_fails_with_capacity_exceeded() {
    let svc = Instance::start(&[
        ("WARM_SESSIONS", "1"),
        ("MAX_SESSIONS", "1"),
        ("ALLOW_PROXY_REGEX", r"^http://127\.0\.0\.1:9/$"),
    ]);
    warm_ready(&svc).await;
    let a = svc.session().await;
    let err = svc.err("session.create", json!({})).await;
    assert_eq!(err.kind(), "capacity_exceeded");
    svc.ok("session.close", json!({ "session_id": a })).await;
    // A session with its own upstream proxy cannot come warm; it takes the warm session's place.
    warm_ready(&svc).await;
    let created = svc.ok("session.create", json!({ "proxy": { "server": "http://127.0.0.1:9" } })).await;
    assert!(created["session_id"].is_string());
}

#[tokio::test]
async fn with_warm_sessions_off_sessions_are_made_on_demand() {
    let svc = Instance::start(&[("WARM_SESSIONS", "0"), ("MAX_SESSIONS", "1")]);
    let a = svc.session().await;
    svc.ok("page.goto", json!({ "session_id": a, "url": page("/") })).await;
    assert_eq!(metric(&svc.metrics().await, "text_browser_sessions_warm"), Some(0.0));
    svc.ok("session.close", json!({ "session_id": a })).await;
    svc.session().await;
}

#[tokio::test]
async fn creates_that_outpace_the_pool_grow_it_so_the_next_ones_find_sessions_ready() {
    let svc = Instance::start(&[("WARM_SESSIONS", "1"), ("MAX_SESSIONS", "8")]);
    let warm = || async { metric(&svc.metrics().await, "text_browser_sessions_warm").unwrap_or(0.0) };
    warm_ready(&svc).await;
    // Three at once: one finds the warm session, two find the pool empty and grow it by two.
    let burst = futures_util::future::join_all((0..3).map(|_| svc.session())).await;
    for sid in &burst {
        svc.ok("session.close", json!({ "session_id": sid })).await;
    }
    eventually(Duration::from_secs(60), "the grown pool to fill", || async { (warm().await >= 3.0).then_some(()) })
        .await;
    let misses = || async { metric(&svc.metrics().await, "text_browser_sessions_warm_misses_total").unwrap() };
    assert_eq!(misses().await, 2.0, "two of the first three found the pool empty");
    let again = futures_util::future::join_all((0..3).map(|_| svc.session())).await;
    assert_eq!(again.len(), 3);
    assert_eq!(misses().await, 2.0, "all three of the next burst found a session ready");
}

#[tokio::test]
async fn thirty_sequential_create_close_cycles_keep_at_most_two_spare_sessions() {
    let svc = Instance::start(&[("WARM_SESSIONS", "1"), ("MAX_SESSIONS", "8")]);
    warm_ready(&svc).await;
    let (pages, renderers) = (chromium_page_targets(svc.pid).await, chromium_renderers(svc.pid));
    for i in 0..30 {
        let sid = svc.session().await;
        if i % 3 == 0 {
            svc.ok("page.goto", json!({ "session_id": sid, "url": page("/"), "waitUntil": "load" })).await;
        }
        svc.ok("session.close", json!({ "session_id": sid })).await;
    }
    let warm = || async { metric(&svc.metrics().await, "text_browser_sessions_warm").unwrap_or(0.0) };
    // One client, one create at a time: the pool grows by two at most to keep up with it.
    let readyz: Value = reqwest::get(format!("{}/readyz", svc.base)).await.unwrap().json().await.unwrap();
    assert_eq!(readyz["sessions_open"].as_u64(), Some(0), "{readyz}");
    assert!(readyz["sessions_warm"].as_u64().is_some_and(|n| n <= 3), "{readyz}");
    eventually(Duration::from_secs(60), "the pool to fill to its grown size", || async {
        (warm().await >= 2.0).then_some(())
    })
    .await;
    // Chromium's own counts: at most two pages and two renderers more than before the cycles.
    eventually(Duration::from_secs(20), "Chromium to drop the closed sessions' pages and renderers", || async {
        let now = (chromium_page_targets(svc.pid).await, chromium_renderers(svc.pid));
        (now.0 <= pages + 2 && now.1 <= renderers + 2).then_some(())
    })
    .await;
    assert!(warm().await <= 3.0, "never more than two spare sessions");
}
