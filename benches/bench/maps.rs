//! What reading the app's own source costs a click: "Submit claim" on the production React fixture
//! (`/apps/expenses/`: one 222 KB minified bundle, its 1 MB source map beside it), whose answer
//! names the component's handler, the request's chain and the wrapper's error in the original
//! files. Maps cold: the session's first answer naming the bundle fetches and parses the map;
//! warm: the same session's next click; off: a session opened with `sourceMaps: false` (locations
//! as served). One round opens both sessions, so the three rows see the same machine. The
//! opening (session.create on the app + a fill) is timed too: its load answer names the bundle
//! (the list's request), so that is where a session reads the map cold; the bench says in how many
//! rounds the map was held before the first click (`text_browser_source_map_bytes` grew).

use std::time::Instant;

use serde_json::json;

use crate::service::Service;
use crate::table::{Samples, Target, row, time};

/// Rounds at most: each opens two sessions on the app.
const MAX_ROUNDS: usize = 15;
/// The gauge of the parsed maps the sessions keep.
const GAUGE: &str = "text_browser_source_map_bytes";

pub async fn report(svc: &Service, base: &str, rounds: usize) {
    let url = format!("{base}/apps/expenses/");
    let (mut cold, mut warm, mut off) = (Samples::default(), Samples::default(), Samples::default());
    let (mut opened_on, mut opened_off) = (Samples::default(), Samples::default());
    let (mut held_before_click, mut peak) = (0, 0.0_f64);
    let n = rounds.min(MAX_ROUNDS);
    for _ in 0..n {
        let held = svc.metric(GAUGE).await;
        let started = Instant::now();
        let mapped = open(svc, &url, true).await;
        opened_on.push(started.elapsed().as_secs_f64() * 1000.0);
        let read = svc.metric(GAUGE).await;
        held_before_click += usize::from(read > held);
        cold.push(time(click(svc, &mapped)).await);
        warm.push(time(click(svc, &mapped)).await);
        peak = peak.max(svc.metric(GAUGE).await - held);
        svc.ok("session.close", json!({ "session_id": mapped })).await;
        let started = Instant::now();
        let served = open(svc, &url, false).await;
        opened_off.push(started.elapsed().as_secs_f64() * 1000.0);
        click(svc, &served).await;
        off.push(time(click(svc, &served)).await);
        svc.ok("session.close", json!({ "session_id": served })).await;
    }
    row("create+fill, React prod, maps off", &opened_off, None, Target::None);
    row("create+fill, React prod, maps on", &opened_on, Some(opened_off.p50()), Target::None);
    row("page.click, React prod, maps off", &off, None, Target::None);
    row("page.click, React prod, maps cold", &cold, Some(off.p50()), Target::None);
    row("page.click, React prod, maps warm", &warm, Some(off.p50()), Target::Ratio(1.1));
    println!("  floor: the same click in a session with sourceMaps: false (each session's second click for off)");
    println!(
        "  the map was read before the first click (by the load answer or the fill) in {held_before_click} of {n} \
         rounds; one session's maps: {:.1} MiB",
        peak / 1024.0 / 1024.0
    );
}

/// A session on the app with its description filled in, source maps on or off.
async fn open(svc: &Service, url: &str, maps: bool) -> String {
    let created = svc.ok("session.create", json!({ "url": url, "sourceMaps": maps })).await;
    let sid = created["session_id"].as_str().expect("a session id").to_owned();
    let field = "role=textbox[name=\"Description\"]";
    svc.ok("page.fill", json!({ "session_id": sid, "selector": field, "value": "Taxi" })).await;
    sid
}

async fn click(svc: &Service, sid: &str) {
    let button = "role=button[name=\"Submit claim\"]";
    let clicked = svc.ok("page.click", json!({ "session_id": sid, "selector": button })).await;
    let sent = clicked["effects"]["requests"].to_string();
    assert!(sent.contains("/api/expenses/claims"), "the click sent the claim: {clicked}");
}

/// Scripts on the page of [`cap`], each with a 5 MB map of its own.
const BIG_SCRIPTS: usize = 3;
/// Generated (and original) lines of each: with its original text, a map of about 5 MB.
const BIG_LINES: usize = 70_000;
/// The session's map cache cap (`source_map::CACHE_CAP`).
const CAP_BYTES: f64 = 16.0 * 1024.0 * 1024.0;

/// The session's map cache on 5 MB maps: one page whose [`BIG_SCRIPTS`] scripts each throw at load
/// and each carry a 5 MB map (`sourcesContent` and a mapping per line); the errors read through
/// their maps by logs.pull, then each original file asked for by page.source (a map the cache let
/// go is fetched again). What the service keeps (`text_browser_source_map_bytes`, sampled after
/// every call) stays within the session's 16 MiB cap: the least recently used map goes first.
pub async fn cap(svc: &Service) {
    let base = serve_big_maps().await;
    let before = svc.metric(GAUGE).await;
    let created = svc.ok("session.create", json!({ "url": format!("{base}/") })).await;
    let sid = created["session_id"].as_str().expect("a session id").to_owned();
    let (mut seen, mut mapped, mut peak) = (0, 0, 0.0_f64);
    for _ in 0..300 {
        let logs = svc.ok("logs.pull", json!({ "session_id": sid })).await;
        let errors = logs["pageErrors"].as_array().cloned().unwrap_or_default();
        seen += errors.len();
        let (kept, served): (Vec<_>, Vec<_>) =
            errors.iter().partition(|e| e["location"]["original"]["source"].is_string());
        mapped += kept.len();
        if let Some(error) = served.first() {
            println!("  an error as served: {}", error["location"]);
        }
        peak = peak.max(svc.metric(GAUGE).await - before);
        if seen >= BIG_SCRIPTS {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let (mut shown, mut refused) = (0, None);
    for n in (0..BIG_SCRIPTS).chain(0..BIG_SCRIPTS) {
        let asked = json!({ "session_id": sid, "url": format!("src/big-{n}.ts:2") });
        match svc.call("page.source", asked).await {
            Ok(_) => shown += 1,
            Err(error) => refused = Some(error["message"].as_str().unwrap_or_default().to_owned()),
        }
        peak = peak.max(svc.metric(GAUGE).await - before);
    }
    let held = svc.metric(GAUGE).await - before;
    peak = peak.max(held);
    let met = if peak <= CAP_BYTES { "yes" } else { "NO" };
    println!(
        "source map cache, {BIG_SCRIPTS} maps of {:.1} MB in one session ({mapped} of {seen} errors mapped, page.source \
         {shown} of {}): {:.1} MiB at peak, {:.1} MiB kept (cap 16 MiB) {met}",
        big_map(0).len() as f64 / 1e6,
        2 * BIG_SCRIPTS,
        peak / 1024.0 / 1024.0,
        held / 1024.0 / 1024.0
    );
    if let Some(message) = refused {
        println!("  page.source refused: {message}");
    }
    svc.ok("session.close", json!({ "session_id": sid })).await;
}

/// Script `n` of the big page: it throws at load, then defines a function per line.
fn big_script(n: usize) -> String {
    let mut js = format!("setTimeout(() => {{ throw new Error('big map {n}'); }}, 0);\n");
    for i in 1..BIG_LINES {
        js.push_str(&format!("function f{i}(){{return {i}}}\n"));
    }
    js.push_str(&format!("//# sourceMappingURL=app-{n}.js.map\n"));
    js
}

/// The map of script `n`: each generated line to the same line of `src/big-n.ts`, whose text it
/// carries.
fn big_map(n: usize) -> String {
    let mut source = String::from("setTimeout(() => { throw new Error('big map'); }, 0);\n");
    for i in 1..BIG_LINES {
        source.push_str(&format!("export function handler{i}(): number {{ return {i}; /* a line of the app */ }}\n"));
    }
    let mappings = format!("AAAA{}", ";AACA".repeat(BIG_LINES - 1));
    let map = json!({ "version": 3, "file": format!("app-{n}.js"), "sources": [format!("src/big-{n}.ts")],
        "sourcesContent": [source], "names": [], "mappings": mappings });
    map.to_string()
}

/// Serves the big page on 127.0.0.1 (a port of its own) until the bench ends; its base URL.
async fn serve_big_maps() -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a port");
    let base = format!("http://{}", listener.local_addr().expect("bound"));
    let scripts: String = (0..BIG_SCRIPTS).map(|n| format!("<script src=\"app-{n}.js\"></script>")).collect();
    let page = format!("<!doctype html><title>Big maps</title><p>Big maps</p>{scripts}");
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let page = page.clone();
            tokio::spawn(async move {
                let mut request = vec![0u8; 4096];
                let read = socket.read(&mut request).await.unwrap_or(0);
                let head = String::from_utf8_lossy(&request[..read]);
                let path = head.split_whitespace().nth(1).unwrap_or("/").to_owned();
                let number = |prefix: &str, suffix: &str| {
                    path.strip_prefix(prefix)?.strip_suffix(suffix)?.parse::<usize>().ok().filter(|n| *n < BIG_SCRIPTS)
                };
                let (kind, body) = if let Some(n) = number("/app-", ".js.map") {
                    ("application/json", big_map(n))
                } else if let Some(n) = number("/app-", ".js") {
                    ("text/javascript", big_script(n))
                } else {
                    ("text/html", page)
                };
                let head = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: {kind}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                    body.len()
                );
                let _ = socket.write_all(head.as_bytes()).await;
                let _ = socket.write_all(body.as_bytes()).await;
            });
        }
    });
    base
}
