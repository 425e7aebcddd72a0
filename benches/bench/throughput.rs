//! Calls per second with 8 sessions calling page.evaluate at once, against 8 raw pages doing
//! Runtime.evaluate at once, and where the CPU of each call goes: on two cores the
//! browser, the service and the client share the CPU, so calls per second follow CPU per call.

use std::time::{Duration, Instant};

use futures_util::future::join_all;
use serde_json::json;
use text_browser::browser::cdp;

use crate::floors::{Raw, dispose, open_page};
use crate::memory::{cpu_ms, descendants};
use crate::service::Service;

/// CPU used so far by the client (this process), a service and its Chromium.
#[derive(Clone, Copy)]
struct Cpu {
    client: f64,
    service: f64,
    chromium: f64,
}

impl Cpu {
    /// `service`: the service's pid (none for the raw run); `chromium`: the pid Chromium descends from.
    fn now(service: Option<u32>, chromium: u32) -> Self {
        let me = std::process::id();
        let chromium_pids = descendants(chromium);
        Self {
            client: cpu_ms(me),
            service: service.map_or(0.0, cpu_ms),
            chromium: chromium_pids.into_iter().map(cpu_ms).sum(),
        }
    }

    /// CPU per call between `self` and `later`, in ms: "client a + service b + Chromium c".
    fn per_call(self, later: Self, calls: u64) -> String {
        let n = calls.max(1) as f64;
        let (c, s, b) = (
            (later.client - self.client) / n,
            (later.service - self.service) / n,
            (later.chromium - self.chromium) / n,
        );
        format!("{:.3} ms CPU per call (client {c:.3} + service {s:.3} + Chromium {b:.3})", c + s + b)
    }
}

const SESSIONS: usize = 8;
const WINDOW: Duration = Duration::from_secs(3);

/// What `page.evaluate` sends Chromium for an expression, so both sides ask Chromium for the same
/// work. (`userGesture` alone doubles Chromium's CPU per call next to `returnByValue` only: every
/// call is a user activation the renderer reports to the browser process. Playwright's evaluate
/// asks for it too, and pages need it for popups, fullscreen and the clipboard.)
fn as_page_evaluate_sends() -> serde_json::Value {
    json!({ "expression": "1", "replMode": true, "userGesture": true, "awaitPromise": false })
}

pub async fn report(svc: &Service, raw: &Raw, base: &str) {
    let home = format!("{base}/");
    let mut sids = Vec::new();
    for _ in 0..SESSIONS {
        let sid = svc.session().await;
        svc.ok("page.goto", json!({ "session_id": sid, "url": home })).await;
        sids.push(sid);
    }
    let before = Cpu::now(Some(svc.pid), svc.pid);
    let calls = join_all(sids.iter().map(|sid| async move {
        let end = Instant::now() + WINDOW;
        let mut n = 0u64;
        while Instant::now() < end {
            svc.ok("page.evaluate", json!({ "session_id": sid, "expression": "1" })).await;
            n += 1;
        }
        n
    }))
    .await;
    let service_calls = calls.iter().sum::<u64>();
    let service_cpu = before.per_call(Cpu::now(Some(svc.pid), svc.pid), service_calls);
    let service_rate = service_calls as f64 / WINDOW.as_secs_f64();
    for sid in &sids {
        svc.ok("session.close", json!({ "session_id": sid })).await;
    }

    let mut pages = Vec::new();
    for _ in 0..SESSIONS {
        let (context, page) = open_page(&raw.chromium, None).await;
        page.goto(home.as_str()).await.expect("navigates");
        pages.push((context, page));
    }
    let before = Cpu::now(None, std::process::id());
    let calls = join_all(pages.iter().map(|(_, page)| async move {
        let end = Instant::now() + WINDOW;
        let mut n = 0u64;
        while Instant::now() < end {
            let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
            cdp::call(page, "Runtime.evaluate", as_page_evaluate_sends(), deadline).await.expect("evaluates");
            n += 1;
        }
        n
    }))
    .await;
    let raw_calls = calls.iter().sum::<u64>();
    // The raw Chromium descends from this process, so its CPU is in "chromium", not "client".
    let raw_cpu = before.per_call(Cpu::now(None, std::process::id()), raw_calls);
    let raw_rate = raw_calls as f64 / WINDOW.as_secs_f64();
    for (context, _) in &pages {
        dispose(&raw.chromium, context).await;
    }
    println!(
        "throughput, {SESSIONS} sessions x page.evaluate: {service_rate:.0} calls/s; raw Runtime.evaluate (same \
         params) on {SESSIONS} pages: {raw_rate:.0} calls/s ({:.2}x of raw)\n  service: {service_cpu}\n  raw:     {raw_cpu}",
        service_rate / raw_rate
    );
}
