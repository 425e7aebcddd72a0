//! A page setting 1,000 cookies (`/cookie-jar/?n=1000`: ten responses of 100 `Set-Cookie` lines,
//! each request then carrying what the browser kept), loaded again and again while another
//! session reads its page: that session's `page.text` next to its idle figure, and the service's
//! RSS at its peak and after (every hop's headers and cookies are recorded, bounded per hop).

use std::cell::Cell;

use serde_json::json;

use crate::memory::rss_mib;
use crate::service::Service;
use crate::table::{Samples, Target, row, time};

/// The README's resident-memory target for the service (with 8 sessions open).
const RSS_TARGET_MIB: f64 = 30.0;
/// Whole reloads of the full jar the timed reads span, at least.
const LOADS: usize = 3;

pub async fn report(svc: &Service, base: &str, rounds: usize) {
    svc.wait_for_warm().await;
    let before = rss_mib(svc.pid);
    let reader = svc.session().await;
    let reader = reader.as_str();
    svc.ok("page.goto", json!({ "session_id": reader, "url": format!("{base}/") })).await;
    let text = json!({ "session_id": reader });
    let mut idle = Samples::default();
    for _ in 0..rounds {
        idle.push(time(svc.ok("page.text", text.clone())).await);
    }
    let jar = svc.session().await;
    let jar = jar.as_str();
    let load_jar = || async {
        let url = format!("{base}/cookie-jar/?n=1000");
        svc.ok("page.goto", json!({ "session_id": jar, "url": url, "waitUntil": "load" })).await;
        let set = json!({ "session_id": jar, "selector": "#state", "text": "1000 cookies set", "timeout": 60000 });
        svc.ok("assert.text", set).await;
        // What an agent reads of it: every hop with its headers and cookies.
        svc.ok("network.pull", json!({ "session_id": jar, "onlyErrors": false, "headers": true })).await;
    };
    // Once before the timed reads: the jar's first load opens its session's page and fills the jar.
    load_jar().await;
    let peak = Cell::new(rss_mib(svc.pid));
    let loads = Cell::new(0usize);
    let mut busy = Samples::default();
    // The reads span at least LOADS whole reloads of the full jar (and `rounds` reads).
    let reads = async {
        while busy.len() < rounds || loads.get() < LOADS {
            busy.push(time(svc.ok("page.text", text.clone())).await);
            peak.set(peak.get().max(rss_mib(svc.pid)));
        }
    };
    let loading = async {
        loop {
            load_jar().await;
            peak.set(peak.get().max(rss_mib(svc.pid)));
            loads.set(loads.get() + 1);
        }
    };
    tokio::select! {
        () = reads => {}
        () = loading => unreachable!("the jar loads until the reads end"),
    }
    let (peak, loads) = (peak.get(), loads.get());
    row("page.text (idle)", &idle, None, Target::None);
    row("page.text (beside 1,000 cookies)", &busy, Some(idle.p50()), Target::Ratio(1.5));
    println!(
        "  floor: the same page.text with no cookie jar loading ({loads} reloads of the full 1,000-cookie jar meanwhile)"
    );
    let after = rss_mib(svc.pid);
    println!(
        "service RSS beside the cookie jar: {before:.1} MiB before, {peak:.1} MiB at peak, {after:.1} MiB after \
         with both sessions open (target <= {RSS_TARGET_MIB} MiB: {})",
        if peak <= RSS_TARGET_MIB { "yes" } else { "NO" }
    );
    for session_id in [reader, jar] {
        svc.ok("session.close", json!({ "session_id": session_id })).await;
    }
}
