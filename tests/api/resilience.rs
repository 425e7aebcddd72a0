//! Surviving a dead Chromium and a stuck page.

use std::time::Duration;

use serde_json::json;

use crate::helpers::{Instance, chromium_child, eventually, metric, page, shared};

#[tokio::test]
async fn after_chromium_is_killed_old_sessions_say_so_and_new_ones_work() {
    let svc = Instance::start(&[]);
    let old = svc.session().await;
    svc.ok("page.goto", json!({ "session_id": old, "url": page("/") })).await;
    let (pid, _) = chromium_child(svc.pid);
    // SAFETY: kill(2) on a pid we just read; no memory is involved.
    unsafe {
        libc::kill(pid as i32, libc::SIGKILL);
    }

    let err = svc.err("page.text", json!({ "session_id": old })).await;
    assert_eq!(err.kind(), "browser_unavailable", "{err:?}");
    assert!(err.data["remediation"].as_str().unwrap().contains("session.create"), "{err:?}");

    let fresh = eventually(Duration::from_secs(10), "a new session on the new Chromium", || async {
        let sid = svc.call("session.create", json!({})).await.ok()?["session_id"].as_str()?.to_owned();
        svc.call("page.goto", json!({ "session_id": sid, "url": page("/") })).await.ok().map(|_| sid)
    })
    .await;
    let text = svc.ok("page.text", json!({ "session_id": fresh, "selector": "h1" })).await;
    assert_eq!(text["text"], "Fixtures Home");
    let err = svc.err("page.text", json!({ "session_id": old })).await;
    assert_eq!(err.kind(), "browser_unavailable", "the lost session stays explained: {err:?}");
    let metrics = svc.metrics().await;
    assert_eq!(metric(&metrics, "text_browser_browser_restarts_total"), Some(1.0));
    assert_eq!(metric(&metrics, "text_browser_sessions_closed_total{reason=\"browser_lost\"}"), Some(1.0));
    assert_ne!(chromium_child(svc.pid).0, pid, "a new Chromium process");
}

#[tokio::test]
async fn a_page_stuck_in_a_loop_times_out_alone_while_other_sessions_answer() {
    let svc = shared();
    let stuck = svc.session().await;
    let other = svc.session().await;
    for sid in [&stuck, &other] {
        svc.ok("page.goto", json!({ "session_id": sid, "url": page("/") })).await;
    }
    let looping =
        svc.call("page.evaluate", json!({ "session_id": stuck, "expression": "while (true) {}", "timeout": 4000 }));
    tokio::pin!(looping);
    // The other session's reads all finish while the loop is still running.
    for _ in 0..5 {
        let read = svc.call("page.text", json!({ "session_id": other, "selector": "h1" }));
        tokio::select! {
            biased;
            answered = &mut looping => panic!("the stuck call ended before the other session answered: {answered:?}"),
            text = read => assert_eq!(text.expect("page.text on the other session")["text"], "Fixtures Home"),
        }
    }
    let err = looping.await.expect_err("the stuck call times out");
    assert_eq!(err.kind(), "timeout", "{err:?}");
    let text = svc.ok("page.text", json!({ "session_id": stuck, "selector": "h1" })).await;
    assert_eq!(text["text"], "Fixtures Home", "the stuck session recovers");
}

#[tokio::test]
async fn at_the_cap_create_waits_in_the_queue_and_readyz_and_metrics_say_so() {
    let svc = Instance::start(&[
        ("MAX_SESSIONS", "1"),
        ("WARM_SESSIONS", "0"),
        ("QUEUE_TIMEOUT_MS", "1500"),
        ("METRICS_API_KEY", "metrics-key-0123456789"),
    ]);
    let http = reqwest::Client::new();
    let readyz = |svc: &crate::helpers::Service| http.get(format!("{}/readyz", svc.base)).send();
    let ready = readyz(&svc).await.unwrap();
    assert_eq!(ready.status(), 200);
    let a = svc.session().await;
    let full = readyz(&svc).await.unwrap();
    assert_eq!(full.status(), 503, "no slot left");
    let body: serde_json::Value = full.json().await.unwrap();
    assert_eq!(body["ready"], false, "{body}");
    assert_eq!(body["browser_connected"], true, "{body}");

    // Nobody frees a slot: the queued create gives up after QUEUE_TIMEOUT_MS, and says so.
    let started = std::time::Instant::now();
    let err = svc.err("session.create", json!({})).await;
    assert_eq!(err.kind(), "queue_timeout", "{err:?}");
    assert!(started.elapsed() >= Duration::from_millis(1400), "it waited its QUEUE_TIMEOUT_MS");
    assert!(err.data["remediation"].as_str().unwrap().contains("MAX_SESSIONS"), "{err:?}");
    // A slot freed while a create waits goes to it.
    let waiting = svc.call("session.create", json!({}));
    let closing = async {
        eventually(Duration::from_secs(10), "the create to be queued", || async {
            let metrics = http
                .get(format!("{}/metrics", svc.base))
                .bearer_auth("metrics-key-0123456789")
                .send()
                .await
                .ok()?
                .text()
                .await
                .ok()?;
            (metric(&metrics, "text_browser_sessions_queued") == Some(1.0)).then_some(())
        })
        .await;
        svc.ok("session.close", json!({ "session_id": a })).await;
    };
    let (created, ()) = tokio::join!(waiting, closing);
    assert!(created.expect("the queued create got the freed slot")["session_id"].is_string());

    let refused = http.get(format!("{}/metrics", svc.base)).send().await.unwrap();
    assert_eq!(refused.status(), 401, "METRICS_API_KEY protects /metrics");
    let metrics = http
        .get(format!("{}/metrics", svc.base))
        .bearer_auth("metrics-key-0123456789")
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        metrics.contains("text_browser_cdp_call_duration_seconds_bucket{cdp_method=\"Target.createBrowserContext\"")
    );
    assert!(metrics.contains("text_browser_events_dropped_total") || !metrics.contains("dropped"), "{metrics}");
}

#[tokio::test]
async fn chromium_dies_with_the_service_even_when_the_service_is_killed() {
    let svc = Instance::start(&[]);
    let (chromium, profile) = chromium_child(svc.pid);
    // SIGKILL: no shutdown code runs, as when the OOM killer ends the service.
    // SAFETY: kill(2) on our own child's pid has no memory-safety concerns.
    unsafe {
        libc::kill(svc.pid as i32, libc::SIGKILL);
    }
    // Gone, or a zombie waiting to be reaped: the service and then its Chromium. (A killed
    // process takes a moment to exit; until it has, it still owns its profile directory.)
    for (pid, what) in [(svc.pid, "the killed service to exit"), (chromium, "the killed service's Chromium to exit")] {
        eventually(Duration::from_secs(10), what, || async {
            let state = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            (state.is_empty() || state.split_whitespace().nth(2) == Some("Z")).then_some(())
        })
        .await;
    }
    assert!(std::path::Path::new(&profile).exists(), "nothing cleaned up after the kill");
    let _next = Instance::start(&[]);
    assert!(!std::path::Path::new(&profile).exists(), "the next start removed the dead service's profile directory");
}

#[tokio::test]
async fn creates_beyond_max_sessions_wait_in_line_up_to_queue_max_for_their_full_queue_timeout() {
    let svc = Instance::start(&[
        ("MAX_SESSIONS", "1"),
        ("WARM_SESSIONS", "0"),
        ("QUEUE_TIMEOUT_MS", "6000"),
        ("QUEUE_MAX", "2"),
    ]);
    let first = svc.session().await;
    let queued = || async { metric(&svc.metrics().await, "text_browser_sessions_queued") };
    let started = std::time::Instant::now();
    // Two wait (more than MAX_SESSIONS: the line is QUEUE_MAX long) ...
    let line = async {
        let a = svc.call("session.create", json!({ "timeout": 60000 }));
        let b = svc.call("session.create", json!({ "timeout": 60000 }));
        tokio::join!(a, b)
    };
    let steps = async {
        eventually(Duration::from_secs(20), "two creates waiting", || async {
            (queued().await == Some(2.0)).then_some(())
        })
        .await;
        // ... a third is turned away at once ...
        let asked = std::time::Instant::now();
        let turned_away = svc.err("session.create", json!({})).await;
        assert_eq!(turned_away.kind(), "capacity_exceeded", "{turned_away:?}");
        assert!(turned_away.message.contains("QUEUE_MAX"), "{}", turned_away.message);
        assert!(asked.elapsed() < Duration::from_secs(3), "refused at once, not after a wait");
        // ... and a slot freed goes to one of the two.
        svc.ok("session.close", json!({ "session_id": first })).await;
    };
    let ((a, b), ()) = tokio::join!(line, steps);
    let (got, timed_out): (Vec<_>, Vec<_>) = [a, b].into_iter().partition(Result::is_ok);
    assert_eq!(got.len(), 1, "one waiting create got the freed slot");
    let err = timed_out.into_iter().next().unwrap().unwrap_err();
    assert_eq!(err.kind(), "queue_timeout", "the other waited and said why it gave up: {err:?}");
    assert!(started.elapsed() >= Duration::from_millis(5900), "it waited its full QUEUE_TIMEOUT_MS");
    let id = got[0].as_ref().unwrap()["session_id"].as_str().unwrap().to_owned();
    svc.ok("session.close", json!({ "session_id": id })).await;
}
