//! `cargo bench`: what the service's mechanisms cost, measured against raw Chromium in one run.
//!
//! The machine is noisy, so every figure is a median of many runs next to its floor, measured in
//! the same process at the same time, and reported as a ratio.
//!
//! - egress: `Page.navigate` + load of a page with 50 images (51 requests), in a browser context
//!   sent through a session's egress proxy vs a context with no proxy at all.

use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::browser::BrowserContextId;
use chromiumoxide::cdp::browser_protocol::target::CreateTargetParams;
use regex::Regex;
use serde_json::json;
use text_browser::browser::chromium::Chromium;
use text_browser::config::Config;
use text_browser::egress::EgressPolicy;
use text_browser::egress::proxy::EgressProxy;

const ROUNDS: usize = 21;

#[tokio::main]
async fn main() {
    let (fixtures, base) = start_fixtures();
    let config = Config::from_env().expect("configuration");
    let executable = config.chrome_executable().expect("Chromium is installed (bash .ci/setup)");
    let chromium = Chromium::launch(&executable, true).await.expect("Chromium starts");

    println!("text-browser benchmark: medians of {ROUNDS} rounds, floors measured in the same run\n");
    println!("{:<44} {:>10} {:>10} {:>8}", "what", "p50 ms", "floor ms", "ratio");
    egress(&chromium, &base).await;

    chromium.shutdown().await;
    drop(fixtures);
}

/// Navigation through the egress proxy vs straight to the network.
async fn egress(chromium: &Chromium, base: &str) {
    let policy = Arc::new(EgressPolicy::new(Regex::new(r"^https?://127\.0\.0\.1(:\d+)?/").unwrap(), false));
    let proxy = EgressProxy::start(policy, None).await.expect("the egress proxy starts");
    let proxied = open_page(chromium, Some(&proxy.server())).await;
    let direct = open_page(chromium, None).await;
    let url = format!("{base}/many?n=50");
    let (mut via, mut raw) = (Vec::new(), Vec::new());
    for round in 0..ROUNDS + 2 {
        // chromiumoxide's goto sends Page.navigate and returns once the page has loaded.
        let a = timed(|| async { proxied.goto(url.as_str()).await.map(|_| ()).expect("navigates") }).await;
        let b = timed(|| async { direct.goto(url.as_str()).await.map(|_| ()).expect("navigates") }).await;
        if round >= 2 {
            via.push(a);
            raw.push(b);
        }
    }
    let (p_via, p_raw) = (median(&mut via), median(&mut raw));
    row("page load, 51 requests, via egress proxy", p_via, p_raw);
    println!("{:<44} {:>10.3}", "  egress cost per request (ms)", ((p_via - p_raw) / 51.0).max(0.0));
}

async fn open_page(chromium: &Chromium, proxy: Option<&str>) -> Page {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    // "direct://" overrides the launch-time proxy that keeps traffic outside sessions nowhere.
    let mut params = json!({ "disposeOnDetach": true, "proxyServer": "direct://" });
    if let Some(server) = proxy {
        params["proxyServer"] = json!(server);
        params["proxyBypassList"] = json!("<-loopback>");
    }
    let created = chromium.call("Target.createBrowserContext", params, deadline).await.expect("a context");
    let context = created["browserContextId"].as_str().map(str::to_owned).unwrap_or_default();
    let target = CreateTargetParams::builder()
        .url("about:blank")
        .browser_context_id(BrowserContextId::new(context))
        .build()
        .expect("target params");
    chromium.new_page(target, deadline).await.expect("a page")
}

async fn timed<F, Fut, T>(op: F) -> f64
where
    F: FnOnce() -> Fut,
    Fut: std::future::Future<Output = T>,
{
    let start = Instant::now();
    op().await;
    start.elapsed().as_secs_f64() * 1000.0
}

fn median(samples: &mut [f64]) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

fn row(what: &str, p50: f64, floor: f64) {
    println!("{what:<44} {p50:>10.2} {floor:>10.2} {:>7.2}x", p50 / floor);
}

/// Starts the fixtures app on a free port; it stops when the returned child is dropped.
fn start_fixtures() -> (ChildGuard, String) {
    use std::io::{BufRead, BufReader};
    let mut child = Command::new(env!("CARGO_BIN_EXE_fixtures"))
        .env("PORT", "0")
        .stdout(Stdio::piped())
        .spawn()
        .expect("the fixtures binary runs");
    let stdout = child.stdout.take().expect("piped");
    let line = BufReader::new(stdout).lines().next().and_then(Result::ok).unwrap_or_default();
    let base =
        line.strip_prefix("fixtures listening on ").expect("the fixtures announce their address").trim().to_owned();
    (ChildGuard(child), base)
}

struct ChildGuard(Child);

impl Drop for ChildGuard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
