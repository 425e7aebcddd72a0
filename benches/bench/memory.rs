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
    let mut total = 0.0;
    let mut stack = children.get(&pid).cloned().unwrap_or_default();
    while let Some(p) = stack.pop() {
        total += rss_mib(p);
        stack.extend(children.get(&p).cloned().unwrap_or_default());
    }
    total
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
