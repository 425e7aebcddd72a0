//! The egress policy holds for every request the browser makes, not only page.goto's URL.
//!
//! An "internal" host on 127.0.0.2 (outside the default allow-list) records every TCP connection
//! and every UDP datagram it receives; pages, scripts, MCP tools and session options aim every way
//! they can reach a host at it. The counts must stay 0.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::helpers::{Instance, Service, eventually, page, shared};

/// A host on 127.0.0.2 that records every TCP connection it accepts (and answers 200 if asked) and
/// every UDP datagram sent to the same port (STUN, TURN).
pub struct Internal {
    pub origin: String,
    /// `127.0.0.2:port`, as a STUN/TURN or proxy address.
    pub addr: String,
    hits: Arc<AtomicUsize>,
    datagrams: Arc<AtomicUsize>,
}

impl Internal {
    pub async fn start() -> Self {
        let (listener, udp) = loop {
            let listener = tokio::net::TcpListener::bind("127.0.0.2:0").await.expect("127.0.0.2 is a loopback address");
            let port = listener.local_addr().unwrap().port();
            // The same port for UDP; another process may hold it there: pick again.
            if let Ok(udp) = tokio::net::UdpSocket::bind(("127.0.0.2", port)).await {
                break (listener, udp);
            }
        };
        let addr = listener.local_addr().unwrap().to_string();
        let hits = Arc::new(AtomicUsize::new(0));
        let counter = hits.clone();
        tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                counter.fetch_add(1, Ordering::SeqCst);
                tokio::spawn(async move {
                    let mut buf = [0u8; 4096];
                    let _ = stream.read(&mut buf).await;
                    let _ = stream
                        .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 8\r\nconnection: close\r\n\r\ninternal")
                        .await;
                });
            }
        });
        let datagrams = Arc::new(AtomicUsize::new(0));
        let counter = datagrams.clone();
        tokio::spawn(async move {
            let mut buf = vec![0u8; 65536];
            while udp.recv_from(&mut buf).await.is_ok() {
                counter.fetch_add(1, Ordering::SeqCst);
            }
        });
        Self { origin: format!("http://{addr}"), addr, hits, datagrams }
    }

    /// TCP connections accepted so far.
    pub fn hits(&self) -> usize {
        self.hits.load(Ordering::SeqCst)
    }

    /// UDP datagrams received so far.
    pub fn datagrams(&self) -> usize {
        self.datagrams.load(Ordering::SeqCst)
    }
}

/// Pulls network entries until every path in `wanted` shows up as blocked by the policy.
async fn blocked_paths(svc: &Service, sid: &str, internal: &Internal, wanted: &[&str]) -> BTreeSet<String> {
    let seen = std::sync::Mutex::new(BTreeSet::new());
    let seen_ref = &seen;
    eventually(Duration::from_secs(20), &format!("blocked requests for {wanted:?}"), || async move {
        let net = svc.ok("network.pull", json!({ "session_id": sid, "onlyErrors": true })).await;
        let mut seen = seen_ref.lock().unwrap();
        for entry in net["requests"].as_array().unwrap() {
            let url = entry["url"].as_str().unwrap_or_default();
            if let Some(path) = url.strip_prefix(&internal.origin) {
                assert_eq!(entry["failure"], "blocked_by_policy", "{entry}");
                seen.insert(path.to_owned());
            }
        }
        wanted.iter().all(|w| seen.contains(*w)).then_some(())
    })
    .await;
    seen.into_inner().unwrap()
}

#[tokio::test]
async fn every_way_a_page_reaches_a_disallowed_host_is_blocked_before_the_network() {
    every_way_out_is_blocked(shared()).await;
}

/// Aims every way a page can reach a host at a recording server on 127.0.0.2 (outside the
/// allow-list) through `svc`, and checks that each was refused and nothing arrived there. Also run
/// against a service attached to a browser it did not launch (`remote_browser`).
pub async fn every_way_out_is_blocked(svc: &Service) {
    let internal = Internal::start().await;
    let target = internal.origin.clone();
    let sid = svc.session().await;
    let egress_page = page(&format!("/egress/?target={target}"));
    svc.ok("page.goto", json!({ "session_id": sid, "url": egress_page })).await;

    // Subresources and everything a script can send: img, iframe, fetch, XHR, WebSocket,
    // EventSource, sendBeacon, a worker's fetch and importScripts, prefetch, stylesheet, script.
    // (WebSocket handshakes and a worker's own requests are not in the page's network log; the
    // hit count below covers them.)
    let fired = svc.ok("page.evaluate", json!({ "session_id": sid, "expression": "fireSubresources()" })).await;
    assert_eq!(fired["result"], "fired");
    let page_requests =
        ["/img", "/iframe", "/fetch", "/xhr", "/beacon", "/sse", "/prefetch", "/style.css", "/script.js"];
    let seen = blocked_paths(svc, &sid, &internal, &page_requests).await;

    // A link click and a form post navigate the page: the call fails with url_not_allowed.
    // (When the click returns before Chromium reports that it started navigating, the call
    // succeeds; the refused navigation must then be in network.pull.)
    for (selector, path) in [("#link", "/link"), ("#submit", "/form")] {
        svc.ok("page.goto", json!({ "session_id": sid, "url": egress_page })).await;
        match svc.call("page.click", json!({ "session_id": sid, "selector": selector })).await {
            Err(err) => {
                assert_eq!(err.kind(), "url_not_allowed", "{err:?}");
                assert!(err.message.contains("127.0.0.2"), "{}", err.message);
            }
            Ok(_) => {
                blocked_paths(svc, &sid, &internal, &[path]).await;
            }
        }
    }

    // A redirect hop from an allowed URL (meta refresh and Refresh headers: see below).
    let redirect = page(&format!("/redirect?to={target}/redirect"));
    let err = svc.err("page.goto", json!({ "session_id": sid, "url": redirect })).await;
    assert_eq!(err.kind(), "url_not_allowed", "{err:?}");
    let later = err.message;

    // A popup opens in the same browser context, so it goes through the same proxy (it is a page of
    // its own, so its requests are not in this page's network.pull; the hit count covers it).
    svc.ok("page.goto", json!({ "session_id": sid, "url": egress_page })).await;
    let popup = format!("window.open({:?}) ? 'opened' : 'refused'", format!("{target}/popup"));
    let opened = svc.ok("page.evaluate", json!({ "session_id": sid, "expression": popup })).await;
    assert_eq!(opened["result"], "opened");
    let settle = svc.ok(
        "page.evaluate",
        json!({ "session_id": sid, "expression": "new Promise(r => setTimeout(() => r(1), 500))" }),
    );
    settle.await;

    assert_eq!(internal.hits(), 0, "the internal server was reached; blocked so far: {seen:?} {later:?}");
    svc.ok("session.close", json!({ "session_id": sid })).await;
}

#[tokio::test]
async fn a_meta_refresh_or_refresh_header_to_a_refused_url_is_url_not_allowed() {
    let svc = shared();
    let internal = Internal::start().await;
    let sid = svc.session().await;
    // Like a redirect: the page loads, sends itself on, and the call says where that was refused.
    for (path, via) in [("/meta", "/meta-refresh"), ("/header", "/refresh-header")] {
        let url = page(&format!("{via}?to={}{path}", internal.origin));
        let err = svc.err("page.goto", json!({ "session_id": sid, "url": url })).await;
        assert_eq!(err.kind(), "url_not_allowed", "{via}: {err:?}");
        assert!(err.message.contains(&format!("{}{path}", internal.origin)), "{via}: names the URL: {}", err.message);
    }
    blocked_paths(svc, &sid, &internal, &["/meta", "/header"]).await;
    assert_eq!(internal.hits(), 0, "the refused host was reached");
}

#[tokio::test]
async fn goto_follows_a_refresh_of_a_second_or_less_even_when_it_starts_after_the_network_went_quiet() {
    let svc = shared();
    let internal = Internal::start().await;
    let sid = svc.session().await;
    // 1 s: later than the 500 ms of quiet networkidle waits for, as a busy renderer may make a
    // refresh of 0 s; still a redirect to Chromium (it replaces the history entry), so goto follows.
    for via in ["/meta-refresh", "/refresh-header"] {
        let url = page(&format!("{via}?delay=1&to={}", page("/order/")));
        let landed = svc.ok("page.goto", json!({ "session_id": sid, "url": url })).await;
        assert_eq!(
            (landed["title"].as_str(), landed["status"].as_u64()),
            (Some("Checkout"), Some(200)),
            "{via}: {landed}"
        );
        assert!(landed["url"].as_str().unwrap().ends_with("/order/"), "{via}: {landed}");
        let url = page(&format!("{via}?delay=1&to={}/late", internal.origin));
        let err = svc.err("page.goto", json!({ "session_id": sid, "url": url })).await;
        assert_eq!(err.kind(), "url_not_allowed", "{via}: {err:?}");
    }
    // A refresh seconds away is the page's own business, not the navigation's.
    let url = page(&format!("/meta-refresh?delay=30&to={}", page("/order/")));
    let landed = svc.ok("page.goto", json!({ "session_id": sid, "url": url })).await;
    assert_eq!(landed["title"], "Refreshing", "{landed}");
    assert_eq!(internal.hits(), 0, "the refused host was reached");
}

#[tokio::test]
async fn goto_refuses_url_tricks_and_other_schemes() {
    let svc = shared();
    let sid = svc.session().await;
    for url in [
        "http://localhost@127.0.0.2/",
        "http://2130706434/",
        "http://0x7f000002/",
        "http://[::ffff:127.0.0.2]/",
        "http://LOCALHOST.evil.example/",
        "http://169.254.169.254/latest/meta-data/",
        "file:///etc/passwd",
        "data:text/html,hi",
        "javascript:alert(1)",
        "chrome://version",
        "about:blank",
        "view-source:http://localhost/",
        "ftp://localhost/",
    ] {
        let err = svc.err("page.goto", json!({ "session_id": sid, "url": url })).await;
        assert_eq!(err.kind(), "url_not_allowed", "{url}: {err:?}");
    }
}

#[tokio::test]
async fn a_page_cannot_navigate_itself_to_a_local_file() {
    let svc = shared();
    let sid = svc.session().await;
    let start = page("/form");
    svc.ok("page.goto", json!({ "session_id": sid, "url": start })).await;
    for url in ["file:///etc/passwd", "chrome://version", "view-source:http://localhost/"] {
        let expression = format!("location.href = {url:?}; 'asked'");
        svc.ok("page.evaluate", json!({ "session_id": sid, "expression": expression })).await;
    }
    let text = svc.ok("page.text", json!({ "session_id": sid })).await;
    let body = text["text"].as_str().unwrap();
    assert!(!body.contains("root:"), "{body}");
    let here = svc.ok("page.evaluate", json!({ "session_id": sid, "expression": "location.protocol" })).await;
    assert_eq!(here["result"], "http:");
}

#[tokio::test]
async fn block_private_ips_refuses_hosts_that_resolve_to_loopback() {
    let svc = Instance::start(&[("ALLOW_HOST_REGEX", "^https?://[^/]+/"), ("BLOCK_PRIVATE_IPS", "true")]);
    let sid = svc.session().await;
    for url in [page("/"), page("/").replace("127.0.0.1", "localhost")] {
        let err = svc.err("page.goto", json!({ "session_id": sid, "url": url })).await;
        assert_eq!(err.kind(), "url_not_allowed", "{url}: {err:?}");
        assert!(err.message.contains("BLOCK_PRIVATE_IPS"), "{}", err.message);
    }
}

#[tokio::test]
async fn refuse_password_fill_refuses_password_fields_only() {
    let svc = Instance::start(&[("REFUSE_PASSWORD_FILL", "true")]);
    let sid = svc.session().await;
    svc.ok("page.goto", json!({ "session_id": sid, "url": page("/login") })).await;
    svc.ok("page.fill", json!({ "session_id": sid, "selector": "#username", "value": "ada" })).await;
    let err = svc.err("page.fill", json!({ "session_id": sid, "selector": "#password", "value": "hunter2" })).await;
    assert_eq!(err.kind(), "not_allowed", "{err:?}");
    assert!(!err.message.contains("hunter2"), "{}", err.message);
    // Typing key by key is the same secret.
    let err = svc.err("page.type", json!({ "session_id": sid, "selector": "#password", "text": "hunter2" })).await;
    assert_eq!(err.kind(), "not_allowed", "{err:?}");
    svc.ok("page.focus", json!({ "session_id": sid, "selector": "#password" })).await;
    let err = svc.err("page.type", json!({ "session_id": sid, "text": "hunter2" })).await;
    assert_eq!(err.kind(), "not_allowed", "into the focused password field too: {err:?}");
    let typed: Value = svc
        .ok("page.evaluate", json!({ "session_id": sid, "expression": "document.querySelector('#password').value" }))
        .await;
    assert_eq!(typed["result"], "", "nothing was typed");
}

#[tokio::test]
async fn a_mock_never_answers_for_a_disallowed_host() {
    let svc = shared();
    let internal = Internal::start().await;
    let sid = svc.session().await;
    svc.ok("page.goto", json!({ "session_id": sid, "url": page("/egress/?target=x"), "waitUntil": "load" })).await;
    svc.ok("network.route", json!({ "session_id": sid, "urlPattern": "*", "response": { "body": "mocked" } })).await;
    let fetch =
        format!("fetch({:?}).then(r => r.text(), e => 'failed: ' + e.message)", format!("{}/mock", internal.origin));
    let answer = svc.ok("page.evaluate", json!({ "session_id": sid, "expression": fetch })).await;
    assert!(answer["result"].as_str().unwrap().starts_with("failed"), "the mock did not answer: {answer}");
    blocked_paths(svc, &sid, &internal, &["/mock"]).await;
    assert_eq!(internal.hits(), 0, "nothing reached the host");
    // An allowed URL is mocked.
    let allowed = format!("fetch({:?}).then(r => r.text())", page("/anything"));
    let answer = svc.ok("page.evaluate", json!({ "session_id": sid, "expression": allowed })).await;
    assert_eq!(answer["result"], "mocked");
}

/// What a script runs to open a WebRTC connection with STUN and TURN (UDP and TCP) at `ice`.
fn gather_candidates(ice: &str) -> String {
    format!("gatherCandidates({ice:?}, 5000)")
}

#[tokio::test]
async fn webrtc_from_a_page_or_page_evaluate_sends_nothing_to_a_refused_host() {
    let svc = shared();
    let internal = Internal::start().await;
    let sid = svc.session().await;
    // The call page asks its STUN/TURN server for candidates as soon as it opens...
    let call = page(&format!("/call/?ice={}", internal.addr));
    svc.ok("page.goto", json!({ "session_id": sid, "url": call })).await;
    let status = eventually(Duration::from_secs(20), "the page's own ICE gathering to end", || async {
        let text = svc.ok("page.text", json!({ "session_id": sid, "selector": "#call-status" })).await;
        text["text"].as_str().filter(|t| t.starts_with("gathering")).map(str::to_owned)
    })
    .await;
    // ... and a script asks again.
    let asked = svc.ok("page.evaluate", json!({ "session_id": sid, "expression": gather_candidates(&internal.addr) }));
    let asked = asked.await;
    assert_eq!(
        (internal.datagrams(), internal.hits()),
        (0, 0),
        "STUN/TURN reached 127.0.0.2 (UDP datagrams, TCP connections); the page said {status:?}, the script {asked}"
    );
    // No candidate at all: no UDP socket was even opened for the page.
    assert_eq!(status, "gathering complete: 0 candidate(s)");
    assert_eq!(asked["result"], json!({ "state": "complete", "candidates": [] }));
}

#[tokio::test]
async fn webrtc_from_the_mcp_evaluate_tool_sends_nothing_to_a_refused_host() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let python = root.join(crate::mcp::MCP_PYTHON);
    assert!(python.exists(), "{} is missing: run `bash .ci/setup` (it installs the pinned MCP SDK)", python.display());
    // A service of its own: MCP's calls log without an HTTP request id, which the shared
    // service's log test does not expect.
    let svc = Instance::start(&[]);
    let internal = Internal::start().await;
    let args = [
        root.join("tests/mcp/evaluate.py").display().to_string(),
        svc.base.clone(),
        crate::helpers::API_KEY.to_owned(),
        page("/call/"),
        gather_candidates(&internal.addr),
    ];
    let output = tokio::task::spawn_blocking(move || std::process::Command::new(python).args(args).output())
        .await
        .unwrap()
        .expect("the MCP client runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!((internal.datagrams(), internal.hits()), (0, 0), "STUN/TURN reached 127.0.0.2: {stdout}");
    let answer: Value = serde_json::from_str(stdout.trim().lines().last().unwrap_or_default()).expect("JSON");
    assert_eq!(answer["result"], json!({ "state": "complete", "candidates": [] }), "{stdout}");
}

#[tokio::test]
async fn an_upstream_proxy_on_a_refused_host_is_invalid_params_and_never_contacted() {
    let internal = Internal::start().await;
    let proxy = json!({ "proxy": { "server": internal.origin } });
    // By default no upstream proxy is allowed at all.
    let err = shared().err("session.create", proxy.clone()).await;
    assert_eq!((err.kind(), err.data["param"].as_str()), ("invalid_params", Some("proxy.server")), "{err:?}");
    assert!(err.message.contains("ALLOW_PROXY_REGEX is unset"), "{}", err.message);
    // Allowed by ALLOW_PROXY_REGEX, but BLOCK_PRIVATE_IPS applies to the address it resolves to.
    let strict = Instance::start(&[
        ("ALLOW_HOST_REGEX", "^https?://[^/]+/"),
        ("ALLOW_PROXY_REGEX", "^http://"),
        ("BLOCK_PRIVATE_IPS", "true"),
    ]);
    let port = internal.addr.rsplit(':').next().unwrap();
    for server in [internal.origin.clone(), format!("http://localhost:{port}"), format!("http://0x7f000002:{port}")] {
        let err = strict.err("session.create", json!({ "proxy": { "server": server } })).await;
        assert_eq!((err.kind(), err.data["param"].as_str()), ("invalid_params", Some("proxy.server")), "{err:?}");
        assert!(err.message.contains("BLOCK_PRIVATE_IPS"), "{server}: {}", err.message);
    }
    assert_eq!((internal.hits(), internal.datagrams()), (0, 0), "the refused proxy was contacted");
}

#[tokio::test]
async fn an_allowed_upstream_proxy_gets_the_sessions_plain_http_requests_whole() {
    // A stand-in upstream proxy on 127.0.0.1 that answers every request with what it was sent.
    let upstream = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let upstream_addr = upstream.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = upstream.accept().await {
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut buf = [0u8; 4096];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                    match stream.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => head.extend_from_slice(&buf[..n]),
                    }
                }
                let first = String::from_utf8_lossy(&head).lines().next().unwrap_or_default().to_owned();
                let body = format!("<!doctype html><title>Upstream</title><p id=seen>upstream saw: {first}</p>");
                let answer = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = stream.write_all(answer.as_bytes()).await;
            });
        }
    });
    let svc = Instance::start(&[("ALLOW_PROXY_REGEX", r"^http://127\.0\.0\.1:\d+/$")]);
    let sid = svc.session_with(json!({ "proxy": { "server": format!("http://{upstream_addr}") } })).await;
    let target = page("/projects/");
    svc.ok("page.goto", json!({ "session_id": sid, "url": target, "waitUntil": "load" })).await;
    let seen = svc.ok("page.text", json!({ "session_id": sid, "selector": "#seen" })).await;
    assert_eq!(seen["text"], format!("upstream saw: GET {target} HTTP/1.1"));
    // A refused URL never reaches the upstream: the egress policy comes first.
    let err = svc.err("page.goto", json!({ "session_id": sid, "url": "http://127.0.0.2/" })).await;
    assert_eq!(err.kind(), "url_not_allowed", "{err:?}");
}

#[tokio::test]
async fn a_service_worker_registers_runs_and_its_requests_pass_the_egress_policy() {
    let svc = shared();
    let sid = svc.session().await;
    svc.ok("page.goto", json!({ "session_id": sid, "url": page("/notes/"), "waitUntil": "load" })).await;
    svc.ok(
        "assert.text",
        json!({ "session_id": sid, "selector": "#offline", "text": "Ready for offline use", "timeout": 15000 }),
    )
    .await;
    // From now on the worker answers the page's requests: the page itself from its cache, others
    // by fetching them itself, through the session's egress proxy like any request.
    let reloaded = svc.ok("page.reload", json!({ "session_id": sid, "waitUntil": "load", "timeout": 15000 })).await;
    assert_eq!(reloaded["title"], "Notes", "{reloaded}");
    let controlled = svc
        .ok("page.evaluate", json!({ "session_id": sid, "expression": "!!navigator.serviceWorker.controller" }))
        .await;
    assert_eq!(controlled["result"], true);
    let allowed = "fetch('/api/projects').then((r) => r.status)";
    assert_eq!(svc.ok("page.evaluate", json!({ "session_id": sid, "expression": allowed })).await["result"], 200);
    let refused =
        "fetch('http://127.0.0.2:9/steal').then((r) => 'reached: ' + r.status, (e) => 'refused: ' + e.message)";
    let answer = svc.ok("page.evaluate", json!({ "session_id": sid, "expression": refused })).await;
    assert!(answer["result"].as_str().unwrap().starts_with("refused"), "{answer}");
}
