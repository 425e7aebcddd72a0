//! Calls per second with 8 sessions calling page.evaluate at once, against 8 raw pages doing
//! Runtime.evaluate at once.

use std::time::{Duration, Instant};

use futures_util::future::join_all;
use serde_json::json;
use text_browser::browser::cdp;

use crate::floors::{Raw, dispose, open_page};
use crate::service::Service;

const SESSIONS: usize = 8;
const WINDOW: Duration = Duration::from_secs(3);

pub async fn report(svc: &Service, raw: &Raw, base: &str) {
    let home = format!("{base}/");
    let mut sids = Vec::new();
    for _ in 0..SESSIONS {
        let sid = svc.session().await;
        svc.ok("page.goto", json!({ "session_id": sid, "url": home })).await;
        sids.push(sid);
    }
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
    let service_rate = calls.iter().sum::<u64>() as f64 / WINDOW.as_secs_f64();
    for sid in &sids {
        svc.ok("session.close", json!({ "session_id": sid })).await;
    }

    let mut pages = Vec::new();
    for _ in 0..SESSIONS {
        let (context, page) = open_page(&raw.chromium, None).await;
        page.goto(home.as_str()).await.expect("navigates");
        pages.push((context, page));
    }
    let calls = join_all(pages.iter().map(|(_, page)| async move {
        let end = Instant::now() + WINDOW;
        let mut n = 0u64;
        while Instant::now() < end {
            let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
            cdp::call(page, "Runtime.evaluate", json!({ "expression": "1", "returnByValue": true }), deadline)
                .await
                .expect("evaluates");
            n += 1;
        }
        n
    }))
    .await;
    let raw_rate = calls.iter().sum::<u64>() as f64 / WINDOW.as_secs_f64();
    for (context, _) in &pages {
        dispose(&raw.chromium, context).await;
    }
    println!(
        "throughput, {SESSIONS} sessions x page.evaluate: {service_rate:.0} calls/s; raw Runtime.evaluate on \
         {SESSIONS} pages: {raw_rate:.0} calls/s ({:.2}x of raw)",
        service_rate / raw_rate
    );
}
