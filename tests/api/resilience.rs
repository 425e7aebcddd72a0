//! Surviving a dead Chromium and a stuck page.

use std::time::Duration;

use serde_json::json;

use crate::helpers::{Instance, chromium_child, eventually, metric, next_json, page, shared, subscribe_on, websocket};

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
    // Its sessions' download directories (the warm session has one), owned by its pid.
    let owned_by = |pid: u32| -> Vec<std::path::PathBuf> {
        std::fs::read_dir(std::env::temp_dir())
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with("text-browser-download-"))
            .filter(|p| std::fs::read_to_string(p.join("owner.pid")).is_ok_and(|o| o.trim() == pid.to_string()))
            .collect()
    };
    let downloads = eventually(Duration::from_secs(30), "a session's download directory", || async {
        Some(owned_by(svc.pid)).filter(|d| !d.is_empty())
    })
    .await;
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
    // Its helper processes (zygote, renderers) end on their own a moment later; one still shutting
    // down can write into the profile again, so the next start is made once they are gone.
    let using_profile = || {
        std::fs::read_dir("/proc").unwrap().flatten().any(|p| {
            let cmdline = std::fs::read_to_string(p.path().join("cmdline")).unwrap_or_default();
            cmdline.split('\0').any(|arg| arg == format!("--user-data-dir={profile}"))
        })
    };
    eventually(Duration::from_secs(20), "the killed Chromium's helpers to exit", || async {
        (!using_profile()).then_some(())
    })
    .await;
    assert!(std::path::Path::new(&profile).exists(), "nothing cleaned up after the kill");
    assert!(downloads.iter().all(|d| d.exists()), "nor its download directories");
    let next = Instance::start(&[]);
    let left: Vec<String> = std::fs::read_dir(&profile)
        .map(|d| d.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default();
    assert!(
        !std::path::Path::new(&profile).exists(),
        "the next start removed the dead service's profile directory; left in it: {left:?}; owner {:?}; the next \
         service said: {}",
        std::fs::read_to_string(format!("{profile}/owner.pid")),
        next.logs().lines().filter(|l| l.contains("directory")).collect::<Vec<_>>().join("\n")
    );
    // Download directories are made (and the dead's removed) when the first session opens.
    next.session().await;
    assert!(downloads.iter().all(|d| !d.exists()), "and its download directories: {downloads:?}");
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

#[tokio::test]
async fn chromium_killed_mid_goto_ends_that_call_at_once_and_the_next_create_works() {
    let svc = Instance::start(&[]);
    let sid = svc.session().await;
    svc.ok("page.goto", json!({ "session_id": sid, "url": page("/"), "waitUntil": "load" })).await;
    let mut events = websocket(&svc).await;
    subscribe_on(&mut events, json!({ "session_id": sid })).await;
    // A page that answers after 20 s: the call is still waiting for it when Chromium dies.
    let slow = json!({ "session_id": sid, "url": page("/slow?ms=20000"), "timeout": 30000 });
    let goto = svc.call("page.goto", slow);
    tokio::pin!(goto);
    tokio::select! {
        answered = &mut goto => panic!("the slow page cannot have loaded yet: {answered:?}"),
        () = tokio::time::sleep(Duration::from_millis(500)) => {}
    }
    let (pid, _) = chromium_child(svc.pid);
    let killed = std::time::Instant::now();
    // SAFETY: kill(2) on a pid we just read; no memory is involved.
    unsafe {
        libc::kill(pid as i32, libc::SIGKILL);
    }
    // A create right away (the service may not have noticed yet) waits for the new Chromium and
    // hands out a session that works, never one on the dead browser.
    let (cut_short, created) = tokio::join!(
        async {
            let err = goto.await.expect_err("the goto cannot succeed");
            (err, killed.elapsed())
        },
        svc.call("session.create", json!({}))
    );
    let (err, after) = cut_short;
    assert_eq!(err.kind(), "browser_unavailable", "{err:?}");
    assert!(after < Duration::from_secs(2), "the call ended {after:?} after the kill, not at its timeout");
    eprintln!("page.goto answered browser_unavailable {after:?} after Chromium was killed");
    let fresh = created.expect("session.create during the restart")["session_id"].as_str().unwrap().to_owned();
    svc.ok("page.goto", json!({ "session_id": fresh, "url": page("/"), "waitUntil": "load" })).await;
    assert_eq!(svc.ok("page.text", json!({ "session_id": fresh, "selector": "h1" })).await["text"], "Fixtures Home");
    let end = loop {
        let message = next_json(&mut events).await;
        if message["params"]["result"]["kind"] == "end" {
            break message["params"]["result"].clone();
        }
    };
    assert_eq!(end["reason"], "browser_lost", "{end}");
    let err = svc.err("page.text", json!({ "session_id": sid })).await;
    assert_eq!(err.kind(), "browser_unavailable", "{err:?}");
    svc.ok("session.close", json!({ "session_id": fresh })).await;
}

#[tokio::test]
async fn a_deadline_that_passes_during_a_browser_command_reports_what_was_waited_for() {
    let svc = shared();
    let sid = svc.session().await;
    svc.ok("page.goto", json!({ "session_id": sid, "url": page("/upload/"), "waitUntil": "load" })).await;
    // The page's main thread goes busy for 6 s: every look the call takes then waits for it, and
    // the call's deadline passes inside a browser command.
    let busy = "setTimeout(() => { const end = Date.now() + 6000; while (Date.now() < end) {} }, 50); 1";
    let file = json!([{ "name": "a.csv", "base64": "YQ==" }]);
    let cases = [
        ("page.upload", json!({ "selector": "#never", "files": file }), "element_not_found"),
        ("page.click", json!({ "selector": "#never" }), "timeout"),
        ("assert.visible", json!({ "selector": "#never" }), "assertion_failed"),
    ];
    for (method, mut params, kind) in cases {
        svc.ok("page.evaluate", json!({ "session_id": sid, "expression": busy })).await;
        params["session_id"] = json!(sid);
        params["timeout"] = json!(1500);
        let started = std::time::Instant::now();
        let err = svc.err(method, params).await;
        assert_eq!(err.kind(), kind, "{method}: {err:?}");
        assert!(err.message.contains("#never"), "{method} says what it waited for: {}", err.message);
        assert!(!err.message.contains("Runtime.") && !err.message.contains("DOM."), "{method}: {}", err.message);
        assert!(err.data.get("evidence").is_some(), "{method} carries the evidence it could gather: {err:?}");
        assert!(started.elapsed() < Duration::from_secs(6), "{method} ended at its deadline");
        // The page answers again once its script is done.
        svc.ok("page.evaluate", json!({ "session_id": sid, "expression": "1", "timeout": 15000 })).await;
    }
}

#[tokio::test]
async fn evaluate_waits_past_thirty_seconds_when_its_timeout_allows() {
    let svc = shared();
    let sid = svc.session().await;
    // chromiumoxide gives one browser command at most 30 s; the call's own timeout is what counts.
    let late = "new Promise((resolve) => setTimeout(() => resolve('settled after 40 s'), 40000))";
    let answer = svc.ok("page.evaluate", json!({ "session_id": sid, "expression": late, "timeout": 45000 })).await;
    assert_eq!(answer["result"], "settled after 40 s");
    let err = svc.err("page.evaluate", json!({ "session_id": sid, "expression": late, "timeout": 1000 })).await;
    assert_eq!(err.kind(), "timeout");
    assert!(err.message.contains("did not settle"), "{}", err.message);
}
