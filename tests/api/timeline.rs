//! When, not just what: the page's timeline and the facts derived from it, each proven in one call
//! on a fixture that reproduces a real timing bug — a type-ahead whose slowest answer lands last,
//! an inventory that awaits its requests one by one, a panel that renders after load, a refresh
//! that fires twenty requests — plus the timeline's own promises: no view empties another,
//! answered requests end whether or not their body is read, caps in bytes, tasks that end with the
//! page.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::helpers::{Instance, eventually, metric, page, shared};

#[tokio::test]
async fn typing_into_a_type_ahead_names_the_request_that_finished_last_and_the_render_after_it() {
    let svc = shared();
    let sid = svc.session_with(json!({ "url": page("/search/") })).await;
    let typed =
        svc.ok("page.type", json!({ "session_id": sid, "selector": "#q", "text": "table", "delayMs": 40 })).await;
    let effects = &typed["effects"];
    let facts: Vec<&str> = effects["facts"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
    let line = facts.iter().find(|f| f.contains("finished out of order")).unwrap_or_else(|| panic!("{effects}"));
    assert!(
        line.starts_with("GET /api/search ×5 finished out of order: ?q=t started 1st, finished last at +"),
        "{line}\n{effects}"
    );
    assert!(
        line.contains("#status changed") || line.contains("#results changed"),
        "the render right after: {line}\n{effects}"
    );
    // Every search is listed with its times, relative to the action's start.
    let searches = effects["requests"].as_array().unwrap();
    assert_eq!(searches.len(), 5, "{effects}");
    let first = searches.iter().find(|r| r["url"] == "/api/search?q=t").unwrap();
    let last = searches.iter().find(|r| r["url"] == "/api/search?q=table").unwrap();
    assert!(first["startMs"].as_i64() < last["startMs"].as_i64(), "{effects}");
    assert!(first["endMs"].as_i64() > last["endMs"].as_i64(), "the first search finished after the last: {effects}");
    // And the page shows the stale answer, which the agent can now see why.
    let text = svc.ok("page.text", json!({ "session_id": sid, "selector": "#status" })).await;
    assert_eq!(text["text"], "12 results for \"t\"");
}

#[tokio::test]
async fn opening_the_inventory_answers_with_its_serial_chain_and_load_breakdown() {
    let svc = shared();
    let created = svc.ok("session.create", json!({ "url": page("/inventory/") })).await;
    let _guard = crate::helpers::SessionGuard::adopt(svc, created["session_id"].as_str().unwrap());
    let load = &created["load"];
    let chain = load["longestChain"].as_str().unwrap_or_else(|| panic!("{created}"));
    assert!(
        chain.starts_with("10 × GET /api/items/{id}/owner from loadItems (/inventory/:")
            && chain.contains("ran one after another: "),
        "{chain}"
    );
    assert_eq!(load["requests"], 12, "the document, the list and ten owners: {load}");
    let (dcl, loaded) = (load["domContentLoadedMs"].as_i64().unwrap(), load["loadMs"].as_i64().unwrap());
    assert!(dcl <= loaded, "{load}");
    let quiet = load["networkQuietMs"].as_i64().unwrap();
    let settled = load["contentSettledMs"].as_i64().unwrap();
    assert!(quiet >= 1200, "ten owners of 120 ms each, one after another: {load}");
    assert!(settled >= quiet - 50, "the table renders after the last owner: {load}");
}

#[tokio::test]
async fn the_har_after_a_pull_still_holds_every_request_in_start_order() {
    let svc = shared();
    let sid = svc.session_with(json!({ "url": page("/inventory/") })).await;
    let pulled = svc.ok("network.pull", json!({ "session_id": sid, "onlyErrors": false })).await;
    assert_eq!(pulled["requests"].as_array().unwrap().len(), 12, "{pulled}");
    let again = svc.ok("network.pull", json!({ "session_id": sid, "onlyErrors": false })).await;
    assert_eq!(again["requests"], json!([]), "a pull returns a request once");
    let har = svc.ok("network.har", json!({ "session_id": sid })).await;
    let entries = har["har"]["log"]["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 12, "the pull emptied nothing: {}", entries.len());
    let starts: Vec<&str> = entries.iter().map(|e| e["startedDateTime"].as_str().unwrap()).collect();
    let mut sorted = starts.clone();
    sorted.sort();
    assert_eq!(starts, sorted, "in the order they started");
    let timeline = svc.ok("page.timeline", json!({ "session_id": sid, "kinds": ["request"] })).await;
    assert!(timeline["timeline"].as_str().unwrap().contains("GET /api/items 200"), "{timeline}");
}

#[tokio::test]
async fn the_timeline_shows_when_the_panel_rendered_and_wait_for_says_how_long_it_took() {
    let svc = shared();
    let sid = svc.session_with(json!({ "url": page("/report/"), "waitUntil": "load" })).await;
    let waited =
        svc.ok("page.waitFor", json!({ "session_id": sid, "selector": "#summary p", "state": "visible" })).await;
    assert_eq!(waited["state"], "visible");
    assert!(waited["elapsedMs"].is_u64(), "{waited}");
    assert!(waited["t"].as_i64().unwrap() >= 700, "the panel renders 700 ms after load: {waited}");
    let timeline = svc.ok("page.timeline", json!({ "session_id": sid })).await;
    let text = timeline["timeline"].as_str().unwrap();
    let rendered = text
        .lines()
        .find(|l| l.contains("#summary: 3 children added"))
        .unwrap_or_else(|| panic!("the panel's render is in the timeline:\n{text}"));
    let at: i64 = rendered.trim_start_matches('+').split(' ').next().unwrap().parse().unwrap();
    let load_at: i64 = text
        .lines()
        .find(|l| l.ends_with(" load"))
        .and_then(|l| l.trim_start_matches('+').split(' ').next()?.parse().ok())
        .unwrap_or_else(|| panic!("{text}"));
    assert!(at >= load_at + 650, "rendered a while after load:\n{text}");
    assert!(text.contains("DOMContentLoaded"), "{text}");
    let gone =
        svc.ok("page.waitFor", json!({ "session_id": sid, "selector": "#no-such-thing", "state": "detached" })).await;
    assert_eq!(gone["state"], "detached");
    let err = svc.err("page.waitFor", json!({ "session_id": sid, "state": "visible" })).await;
    assert_eq!((err.code, err.data["param"].as_str()), (-32602, Some("state")), "{err:?}");
    let err = svc
        // Long enough for a look at the page on a loaded machine: the message says what it saw
        // (even when the deadline falls in the middle of a later look).
        .err("page.waitFor", json!({ "session_id": sid, "selector": "#summary", "state": "hidden", "timeout": 2000 }))
        .await;
    assert_eq!(err.kind(), "timeout", "{err:?}");
    assert!(err.message.contains("1 element(s) match, 1 visible"), "{err:?}");
    let err = svc.err("page.timeline", json!({ "session_id": sid, "since": "yesterday" })).await;
    assert_eq!(err.code, -32602, "{err:?}");
}

#[tokio::test]
async fn an_action_that_starts_twenty_requests_lists_the_failing_ones_and_groups_the_rest() {
    let svc = shared();
    let sid = svc.session_with(json!({ "url": page("/widgets/") })).await;
    let clicked = svc.ok("page.click", json!({ "session_id": sid, "selector": "#refresh" })).await;
    let effects = &clicked["effects"];
    let listed: Vec<(String, u64)> = effects["requests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["url"].as_str().unwrap().to_owned(), r["status"].as_u64().unwrap()))
        .collect();
    let mut listed_sorted = listed.clone();
    listed_sorted.sort();
    assert_eq!(
        listed_sorted,
        vec![("/api/rates".to_owned(), 404), ("/api/widgets/13".to_owned(), 500), ("/api/widgets/7".to_owned(), 500)],
        "every failing request, one by one: {effects}"
    );
    assert!(effects["requests"][0]["responseBody"].is_string(), "with what the server said: {effects}");
    let groups = effects["groups"].as_array().unwrap();
    let widgets =
        groups.iter().find(|g| g["endpoint"] == "GET /api/widgets/{id}").unwrap_or_else(|| panic!("{effects}"));
    assert_eq!((widgets["count"].as_u64(), widgets["statuses"].as_str()), (Some(16), Some("200×16")), "{effects}");
    let me = groups.iter().find(|g| g["endpoint"] == "GET /api/me").unwrap();
    assert_eq!(me["count"], 1);
    assert!(effects.get("moreRequests").is_none(), "nothing hidden behind a count");
    let changes = effects["changes"].as_array().unwrap();
    assert!(changes.iter().any(|c| c.as_str().unwrap().contains("#board: 18 children added")), "{effects}");
}

#[tokio::test]
async fn an_answer_whose_body_the_page_never_reads_ends_with_its_status_and_nothing_waits_for_it() {
    let svc = shared();
    let sid = svc.session_with(json!({ "url": page("/settings/") })).await;
    let started = Instant::now();
    let clicked = svc.ok("page.click", json!({ "session_id": sid, "selector": "#save" })).await;
    assert!(started.elapsed() < Duration::from_millis(1900), "the click did not wait out settleMs: {clicked}");
    let save = &clicked["effects"]["requests"][0];
    assert_eq!((save["url"].as_str(), save["status"].as_u64()), (Some("/api/save"), Some(200)), "{clicked}");
    assert!(clicked["effects"].get("pending").is_none(), "answered, so not pending: {clicked}");
    let shown = svc.ok("page.text", json!({ "session_id": sid, "selector": "#status" })).await;
    assert_eq!(shown["text"], "Settings saved");
    // The same no-store answer read by the page ends as any other, its body captured.
    let read = svc.ok("page.click", json!({ "session_id": sid, "selector": "#save-show" })).await;
    let save = &read["effects"]["requests"][0];
    assert_eq!(save["status"], 200, "{read}");
    assert!(save.get("bodyNotRead").is_none() && save["endMs"].is_i64(), "{read}");
    let shown = svc.ok("page.text", json!({ "session_id": sid, "selector": "#status" })).await;
    assert_eq!(shown["text"], "Saved revision 42");
    // Saving then reloading: Chromium gives up the unread body, which is no failure.
    svc.ok("page.click", json!({ "session_id": sid, "selector": "#save-reload" })).await;
    svc.ok("page.waitFor", json!({ "session_id": sid, "state": "load" })).await;
    let pulled =
        svc.ok("network.pull", json!({ "session_id": sid, "onlyErrors": false, "urlContains": "/api/save" })).await;
    let saves = pulled["requests"].as_array().unwrap();
    assert_eq!(saves.len(), 3, "{pulled}");
    let bodies: Vec<&str> = saves.iter().filter_map(|s| s["responseBody"].as_str()).collect();
    assert_eq!(bodies, vec![r#"{"saved":true,"revision":42}"#], "only the one the page read has its body: {pulled}");
    for save in saves {
        assert_eq!(save["status"], 200, "{save}");
        assert!(save.get("failure").is_none(), "{save}");
    }
    let errors = svc.ok("network.pull", json!({ "session_id": sid })).await;
    assert_eq!(errors["requests"], json!([]), "nothing failed: {errors}");
}

#[tokio::test]
async fn a_request_cut_off_by_a_navigation_ends_as_cancelled_not_failed() {
    let svc = shared();
    let sid = svc.session_with(json!({ "url": page("/settings/") })).await;
    svc.ok("page.evaluate", json!({ "session_id": sid, "expression": "fetch('/slow?ms=8000').catch(() => {}); 1" }))
        .await;
    let moved = svc.ok("page.goto", json!({ "session_id": sid, "url": page("/report/"), "waitUntil": "load" })).await;
    assert_eq!(moved["signals"]["failedRequests"], 0, "{moved}");
    let pulled =
        svc.ok("network.pull", json!({ "session_id": sid, "onlyErrors": false, "urlContains": "/slow" })).await;
    let slow = &pulled["requests"][0];
    assert_eq!(slow["cancelled"], true, "{pulled}");
    assert!(slow.get("failure").is_none() && slow.get("status").is_none(), "{slow}");
    assert!(pulled.get("pending").is_none(), "{pulled}");
}

#[tokio::test]
async fn a_flood_of_megabyte_console_messages_stays_bounded_and_every_entry_is_accounted_for() {
    let svc = Instance::start(&[("RATE_LIMIT_MAX", "1000000")]);
    let sid = svc.session_with(json!({ "url": page("/report/"), "waitUntil": "load" })).await;
    // Logged in batches from timers, as a runaway page would: the call returns at once.
    let flood = "let i = 0; const batch = () => { for (let n = 0; n < 20 && i < 1000; n++, i++) \
                 console.log(String(i).padEnd(1 << 20, 'x')); if (i < 1000) setTimeout(batch, 0); \
                 else window.floodDone = true; }; batch(); 1";
    svc.ok("page.evaluate", json!({ "session_id": sid, "expression": flood })).await;
    eventually(Duration::from_secs(240), "the page to log its thousandth message", || async {
        let done =
            svc.ok("page.evaluate", json!({ "session_id": sid, "expression": "window.floodDone === true" })).await;
        (done["result"] == true).then_some(())
    })
    .await;
    let (mut returned, mut dropped, mut capped) = (0, 0, false);
    let until = Instant::now() + Duration::from_secs(180);
    while returned + dropped < 1000 {
        assert!(Instant::now() < until, "returned {returned}, dropped {dropped} of 1000 within 180 s");
        let logs = svc.ok("logs.pull", json!({ "session_id": sid, "timeout": 60000 })).await;
        let answer = serde_json::to_string(&logs).unwrap();
        assert!(answer.len() <= 1_200_000, "a pull answers within its cap: {} bytes", answer.len());
        let console = logs["console"].as_array().unwrap();
        if let Some(first) = console.first() {
            assert_eq!(first["textLength"], 1 << 20, "the cut is said with the original length");
            assert_eq!(first["text"].as_str().unwrap().len(), 4096);
        }
        returned += console.len();
        dropped += logs["dropped"].as_u64().unwrap_or(0) as usize;
        capped |= logs["more"].as_u64().is_some_and(|more| more > 0);
        if console.is_empty() {
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
    assert_eq!(returned + dropped, 1000, "returned {returned}, dropped {dropped}: nothing lost unannounced");
    assert!(capped, "one pull could not hold them all, and said so");
    let rss_kb: u64 = std::fs::read_to_string(format!("/proc/{}/status", svc.pid))
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:")?.trim().strip_suffix(" kB")?.trim().parse().ok())
        .unwrap();
    assert!(rss_kb < 100 * 1024, "the service holds {rss_kb} kB after the flood");
}

#[tokio::test]
async fn a_page_that_goes_takes_its_background_tasks_with_it() {
    let svc = Instance::start(&[]);
    let tasks = || async { metric(&svc.metrics().await, "text_browser_page_tasks").unwrap_or(-1.0) };
    let sid = svc.session().await;
    // The board never finishes loading (its HTML streams for a minute): no wait state would come.
    let go = format!("location.assign({:?}); 1", page("/status-board"));
    svc.ok("page.evaluate", json!({ "session_id": sid, "expression": go })).await;
    // The inline script's error wants its source line, which waits for a load that never comes.
    eventually(Duration::from_secs(20), "a task fetching the source line", || async {
        (tasks().await >= 1.0).then_some(())
    })
    .await;
    svc.ok("session.close", json!({ "session_id": sid })).await;
    let closed = Instant::now();
    eventually(Duration::from_secs(20), "no task left once the page is gone", || async {
        (tasks().await == 0.0).then_some(())
    })
    .await;
    assert!(closed.elapsed() < Duration::from_secs(3), "stopped with the page, not timed out ({:?})", closed.elapsed());
}

#[tokio::test]
async fn a_render_the_page_was_too_busy_to_hand_over_in_time_still_reaches_the_timeline() {
    // The click's look at the page waits half a second for the next task; the page freezes for
    // 1.2 s first, so the DOM watcher's report comes too late for that answer and has to take the
    // watcher's own way in.
    let svc = shared();
    let sid = svc.session_with(json!({ "url": page("/ledger/"), "waitUntil": "load" })).await;
    svc.ok("page.click", json!({ "session_id": sid, "selector": "#recalculate" })).await;
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let timeline = svc.ok("page.timeline", json!({ "session_id": sid, "kinds": ["dom"] })).await;
        let text = timeline["timeline"].as_str().unwrap_or_default().to_owned();
        if text.contains(r#"#total: text "Total: —" → "Total: 1,234.40""#) {
            break;
        }
        assert!(Instant::now() < deadline, "the recalculated total never reached the timeline:\n{timeline}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn an_actions_page_errors_are_timed_from_its_start_like_its_requests() {
    let svc = shared();
    let sid = svc.session_with(json!({ "url": page("/releases/") })).await;
    // A second of the document's life before the click: its times and the click's then differ.
    svc.ok("page.evaluate", json!({ "session_id": sid, "expression": "new Promise((r) => setTimeout(r, 1000))" }))
        .await;
    let clicked = svc.ok("page.click", json!({ "session_id": sid, "selector": "#older" })).await;
    let effects = &clicked["effects"];
    let request = &effects["requests"][0];
    assert_eq!(request["url"], "/releases/older.json", "{clicked}");
    let answered = request["endMs"].as_i64().unwrap_or_else(|| panic!("{clicked}"));
    let error = &effects["pageErrors"][0];
    let t = error["t"].as_i64().unwrap_or_else(|| panic!("{clicked}"));
    // Thrown while the response was handled: after it ended, well within the second before.
    assert!(t >= answered && t <= answered + 900, "the error at +{t}, the response it was handling at +{answered}");
}

#[tokio::test]
async fn a_change_held_through_a_long_task_shows_both_steps_with_their_own_lines() {
    let svc = shared();
    let sid = svc.session_with(json!({ "url": page("/ledger/") })).await;
    svc.ok("page.click", json!({ "session_id": sid, "selector": "#recalculate" })).await;
    // The click shows "Recalculating…" and disables the button; a timer then keeps the thread for
    // 1.2 s before "Up to date". The watcher could not report in between: the two steps stay two.
    let timeline = eventually(Duration::from_secs(30), "the recalculation to end", || {
        let sid = sid.to_string();
        async move {
            let t = svc.ok("page.timeline", json!({ "session_id": sid })).await;
            let text = t["timeline"].as_str().unwrap_or_default().to_owned();
            text.contains("Up to date").then_some(text)
        }
    })
    .await;
    let line =
        |needle: &str| timeline.lines().find(|l| l.contains(needle)).unwrap_or_else(|| panic!("{needle}: {timeline}"));
    let started = line(r#"#status: text "Ready" → "Recalculating…""#);
    assert!(
        started.contains("#recalculate: disabled set") && started.contains("← click on #recalculate"),
        "{timeline}"
    );
    let ended = line(r#"#status: text "Recalculating…" → "Up to date""#);
    assert!(
        ended.contains("#recalculate: disabled removed") && ended.contains("← setTimeout in /ledger/:24"),
        "{timeline}"
    );
    let at = |l: &str| l.split_whitespace().next().unwrap().trim_start_matches('+').parse::<i64>().unwrap();
    assert!(at(ended) - at(started) >= 1000, "the long task lies between them: {timeline}");
}
