//! Resident memory of the service and, separately, of its Chromium (every process below it).

use std::collections::HashMap;

use serde_json::json;

use crate::service::Service;

/// VmRSS of one process, in MiB.
pub fn rss_mib(pid: u32) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|kb| kb.parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

/// The summed VmRSS of every descendant of `pid` (Chromium's browser, renderers, GPU/utility
/// processes), in MiB. Shared pages are counted once per process, so this is an upper bound.
pub fn descendants_rss_mib(pid: u32) -> f64 {
    descendants(pid).into_iter().map(rss_mib).sum()
}

/// Every live descendant of `pid`.
pub fn descendants(pid: u32) -> Vec<u32> {
    let mut children: HashMap<u32, Vec<u32>> = HashMap::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(child) = entry.file_name().to_string_lossy().parse::<u32>() else { continue };
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        // The fields after the command name (which may hold spaces) start after the last ')'.
        let Some(rest) = stat.rfind(')').map(|i| &stat[i + 1..]) else { continue };
        if let Some(parent) = rest.split_whitespace().nth(1).and_then(|p| p.parse::<u32>().ok()) {
            children.entry(parent).or_default().push(child);
        }
    }
    let mut found = Vec::new();
    let mut stack = children.get(&pid).cloned().unwrap_or_default();
    while let Some(p) = stack.pop() {
        found.push(p);
        stack.extend(children.get(&p).cloned().unwrap_or_default());
    }
    found
}

/// CPU time (user + system) `pid` has used, in milliseconds.
pub fn cpu_ms(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let Some(rest) = stat.rfind(')').map(|i| &stat[i + 1..]) else { return 0.0 };
    // utime and stime are fields 14 and 15; `rest` starts at field 3.
    let ticks: f64 = rest.split_whitespace().skip(11).take(2).filter_map(|t| t.parse::<f64>().ok()).sum();
    // USER_HZ is 100 on Linux.
    ticks * 10.0
}

/// The service's RSS with no open sessions and with 8, Chromium's separately, and the service's
/// RSS before and after `cycles` session create/close cycles.
pub async fn report(svc: &Service, base: &str, cycles: usize) {
    svc.wait_for_warm().await;
    let idle = rss_mib(svc.pid);
    let chromium_idle = descendants_rss_mib(svc.pid);
    let mut sids = Vec::new();
    for _ in 0..8 {
        let sid = svc.session().await;
        svc.ok("page.goto", json!({ "session_id": sid, "url": format!("{base}/") })).await;
        sids.push(sid);
    }
    let busy = rss_mib(svc.pid);
    let chromium_busy = descendants_rss_mib(svc.pid);
    for sid in &sids {
        svc.ok("session.close", json!({ "session_id": sid })).await;
    }
    println!(
        "service RSS: {idle:.1} MiB with 0 sessions, {busy:.1} MiB with 8 open (target <= 30 MiB: {}); \
         Chromium: {chromium_idle:.0} MiB / {chromium_busy:.0} MiB",
        if busy <= 30.0 { "yes" } else { "NO" }
    );
    if cycles == 0 {
        return;
    }
    let before = rss_mib(svc.pid);
    for _ in 0..cycles {
        let sid = svc.session().await;
        svc.ok("session.close", json!({ "session_id": sid })).await;
    }
    svc.wait_for_warm().await;
    let after = rss_mib(svc.pid);
    println!(
        "service RSS across {cycles} create/close cycles: {before:.1} MiB before, {after:.1} MiB after ({:+.1} MiB)",
        after - before
    );
}

/// Sessions at once in the storm, and how many times each does its round of heavy work.
const STORM_SESSIONS: usize = 16;
const STORM_ROUNDS: usize = 3;

/// The service's RSS before and after a storm of heavy work (`STORM_SESSIONS` sessions at once,
/// each loading 8 MiB of JSON bodies into its capture store, pulling them with bodies, taking
/// 2,000-element snapshots, the page's HTML and full-page screenshots) once every session is
/// closed again. Returns the RSS after, in MiB.
pub async fn storm(svc: &Service, base: &str) -> f64 {
    svc.wait_for_warm().await;
    let before = rss_mib(svc.pid);
    let started = std::time::Instant::now();
    let mut peak = before;
    let work = futures_util::future::join_all((0..STORM_SESSIONS).map(|_| async {
        let sid = svc.session().await;
        for _ in 0..STORM_ROUNDS {
            let bodies = format!("{base}/bodies/?n=20&kb=400");
            svc.ok("page.goto", json!({ "session_id": sid, "url": bodies, "waitUntil": "networkidle" })).await;
            let pulled = svc.ok("network.pull", json!({ "session_id": sid, "onlyErrors": false })).await;
            for request in pulled["requests"].as_array().into_iter().flatten().take(5) {
                if let Some(id) = request["requestId"].as_str() {
                    let _ = svc.call("network.body", json!({ "session_id": sid, "requestId": id })).await;
                }
            }
            svc.ok("page.goto", json!({ "session_id": sid, "url": format!("{base}/big/") })).await;
            svc.ok("page.snapshot", json!({ "session_id": sid })).await;
            svc.ok("page.content", json!({ "session_id": sid })).await;
            svc.ok("screenshot", json!({ "session_id": sid, "fullPage": true })).await;
        }
        sid
    }));
    let sampler = async {
        loop {
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            peak = peak.max(rss_mib(svc.pid));
        }
    };
    let sids = tokio::select! {
        sids = work => sids,
        _ = sampler => unreachable!("the sampler never ends"),
    };
    let trims = svc.metric("text_browser_memory_trims_total").await;
    let returned_before = svc.metric("text_browser_memory_returned_bytes_total").await;
    for sid in &sids {
        svc.ok("session.close", json!({ "session_id": sid })).await;
    }
    svc.wait_for_warm().await;
    svc.wait_for_trim(trims).await;
    let after = rss_mib(svc.pid);
    let returned = (svc.metric("text_browser_memory_returned_bytes_total").await - returned_before) / 1048576.0;
    println!(
        "service RSS in a storm of {STORM_SESSIONS} sessions x {STORM_ROUNDS} rounds (8 MiB of bodies, a \
         2,000-element snapshot, HTML and a full-page screenshot per round), {:.0} s: {before:.1} MiB before, \
         {peak:.1} MiB at peak, {after:.1} MiB once all had closed and the service trimmed ({returned:.0} MiB \
         handed back) (target <= 30 MiB: {})",
        started.elapsed().as_secs_f64(),
        if after <= 30.0 { "yes" } else { "NO" }
    );
    after
}
