//! The DOM watcher's cost on a page that rewrites 2,000 nodes ten times a second (`/churn/`):
//! another session's `page.text` next to its idle figure, and the churning page's own frame rate
//! with the watcher (a session of the service) and without it (a raw page of our own Chromium).

use serde_json::json;

use crate::floors::Raw;
use crate::service::Service;
use crate::table::{Samples, Target, row, time};

const FPS_JS: &str = "window.framesPerSecond()";

/// A session reading the fixtures' home page, and its `page.text` times with nothing else open:
/// the floor a busy page beside it is compared with.
pub async fn idle_reader(svc: &Service, base: &str, rounds: usize) -> (String, Samples) {
    let reader = svc.session().await;
    svc.ok("page.goto", json!({ "session_id": reader, "url": format!("{base}/") })).await;
    let text = json!({ "session_id": reader });
    let mut idle = Samples::default();
    for _ in 0..rounds {
        idle.push(time(svc.ok("page.text", text.clone())).await);
    }
    (reader, idle)
}

pub async fn report(svc: &Service, raw: &Raw, base: &str, rounds: usize) {
    let (reader, idle) = idle_reader(svc, base, rounds).await;
    let reader = reader.as_str();
    let text = json!({ "session_id": reader });
    let churning = svc.session().await;
    let churning = churning.as_str();
    let churn = format!("{base}/churn/");
    svc.ok("page.goto", json!({ "session_id": churning, "url": churn, "waitUntil": "load" })).await;
    let mut busy = Samples::default();
    for _ in 0..rounds {
        busy.push(time(svc.ok("page.text", text.clone())).await);
    }
    row("page.text (idle machine)", &idle, None, Target::None);
    row("page.text (beside a churning page)", &busy, Some(idle.p50()), Target::Ratio(1.5));
    println!("  floor: the same page.text with no churning page open");

    raw.goto(&churn).await;
    let fps = |value: serde_json::Value| value.as_f64().unwrap_or_default();
    let (mut watched, mut bare) = (Vec::new(), Vec::new());
    for _ in 0..3 {
        let ours = svc.ok("page.evaluate", json!({ "session_id": churning, "expression": FPS_JS })).await;
        watched.push(fps(ours["result"].clone()));
        let theirs = raw
            .call("Runtime.evaluate", json!({ "expression": FPS_JS, "awaitPromise": true, "returnByValue": true }))
            .await;
        bare.push(fps(theirs["result"]["value"].clone()));
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    // The raw page is every later row's floor: left churning, it would take a core from the
    // throughput and storm runs after this (both sides of the throughput ratio ran 25 % slower).
    raw.goto(&format!("{base}/")).await;
    let (watched, bare) = (median(&mut watched), median(&mut bare));
    let met = if watched * 2.0 >= bare { "yes" } else { "NO" };
    println!(
        "{:<34} frames/s with the DOM watcher {watched:.0}, without {bare:.0} ({:.2}x)  target >= 0.5x  {met}",
        "churning page's frame rate",
        watched / bare.max(1.0)
    );
    let timeline = svc.ok("page.timeline", json!({ "session_id": churning, "kinds": ["dom"], "maxChars": 400 })).await;
    println!("  what its timeline says: {}", timeline["timeline"].as_str().unwrap_or("").lines().last().unwrap_or(""));
    // Both sessions go: the storm after this opens MAX_SESSIONS sessions at once.
    for session_id in [reader, churning] {
        svc.ok("session.close", json!({ "session_id": session_id })).await;
    }
}
