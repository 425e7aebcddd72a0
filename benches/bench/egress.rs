//! Page loads through a session's egress proxy vs a context with no proxy at all.

use std::sync::Arc;

use regex::Regex;
use text_browser::browser::Chromium;
use text_browser::egress::EgressPolicy;
use text_browser::egress::proxy::EgressProxy;

use crate::floors::open_page;
use crate::table::{Samples, Target, row, time};

pub async fn report(chromium: &Chromium, base: &str, rounds: usize) {
    let policy = Arc::new(EgressPolicy::new(Regex::new(r"^https?://127\.0\.0\.1(:\d+)?/").unwrap(), false));
    let proxy = EgressProxy::start(policy, None, &text_browser::egress::proxy::ProxyAddress::local(), u64::MAX)
        .await
        .expect("the egress proxy starts");
    let (_, proxied) = open_page(chromium, Some(&proxy.server())).await;
    let (_, direct) = open_page(chromium, None).await;
    let url = format!("{base}/many?n=50");
    let (mut via, mut raw) = (Samples::default(), Samples::default());
    for round in 0..rounds + 2 {
        // chromiumoxide's goto sends Page.navigate and returns once the page has loaded.
        let a = time(async { proxied.goto(url.as_str()).await.expect("navigates") }).await;
        let b = time(async { direct.goto(url.as_str()).await.expect("navigates") }).await;
        if round >= 2 {
            via.push(a);
            raw.push(b);
        }
    }
    row("load 51 requests via egress proxy", &via, Some(raw.p50()), Target::None);
    println!("  egress cost per request: {:.3} ms", ((via.p50() - raw.p50()) / 51.0).max(0.0));
}
