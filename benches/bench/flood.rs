//! A page flooding its socket (`/firehose/`: 10,000 small JSON frames a second for 10 s, every one
//! reported by CDP and read or counted by the service): the service's resident memory before,
//! at its peak during the flood and once the page closed, against the README's limit, and another
//! session's `page.text` beside the flood next to its idle figure.

use std::time::{Duration, Instant};

use serde_json::json;

use crate::churn::idle_reader;
use crate::memory::rss_mib;
use crate::service::Service;
use crate::table::{Samples, Target, row, time};

/// Frames a second the page sends, and for how many seconds.
const RATE: u32 = 10_000;
const SECONDS: u32 = 10;
/// The service's resident memory at most (the README's limit).
const RSS_LIMIT_MIB: f64 = 30.0;

pub async fn report(svc: &Service, base: &str, rounds: usize) {
    let (reader, idle) = idle_reader(svc, base, rounds).await;
    let reader = reader.as_str();
    let text = json!({ "session_id": reader });
    svc.wait_for_warm().await;
    let before = rss_mib(svc.pid);
    let flooding = svc.session().await;
    let flooding = flooding.as_str();
    let url = format!("{base}/firehose/?rate={RATE}&seconds={SECONDS}");
    let started = Instant::now();
    svc.ok("page.goto", json!({ "session_id": flooding, "url": url, "waitUntil": "load" })).await;
    // Reads beside the flood until the page has sent every frame (a loaded machine lets it send
    // them slower than asked), the service's memory sampled as it goes.
    let (mut busy, mut peak, mut last_check) = (Samples::default(), before, Instant::now());
    let state = json!({ "session_id": flooding, "selector": "#state" });
    while started.elapsed() < Duration::from_secs(u64::from(SECONDS) * 6) {
        busy.push(time(svc.ok("page.text", text.clone())).await);
        peak = peak.max(rss_mib(svc.pid));
        if last_check.elapsed() >= Duration::from_secs(1) {
            last_check = Instant::now();
            if svc.ok("page.text", state.clone()).await["text"] == "Done" {
                break;
            }
        }
    }
    let flood_s = started.elapsed().as_secs_f64();
    let timeline = svc.ok("page.timeline", json!({ "session_id": flooding, "kinds": ["socket"] })).await;
    let lines = timeline["timeline"].as_str().unwrap_or_default().lines().count();
    svc.ok("session.close", json!({ "session_id": flooding })).await;
    svc.wait_for_warm().await;
    let after = rss_mib(svc.pid);
    row(&format!("page.text (beside {RATE} frames/s)"), &busy, Some(idle.p50()), Target::Ratio(1.5));
    println!("  floor: the same page.text with no flooding page open");
    println!(
        "service RSS beside a page sending {RATE} socket frames/s for {SECONDS} s ({flood_s:.0} s here; its \
         timeline: {lines} socket lines): {before:.1} MiB before, {peak:.1} MiB at peak, {after:.1} MiB once it \
         closed (target <= {RSS_LIMIT_MIB} MiB: {})",
        if peak <= RSS_LIMIT_MIB { "yes" } else { "NO" }
    );
    svc.ok("session.close", json!({ "session_id": reader })).await;
}
