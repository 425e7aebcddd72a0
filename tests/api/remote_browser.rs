//! BROWSER_WS_ENDPOINT: the service attaches to a Chromium it did not launch (as it would to a
//! browser pool), and everything holds there: the egress policy (each context is pointed at the
//! service's proxy), reading and acting, the warm pool; when that browser goes away its sessions
//! end as browser_lost and the service reconnects once a browser answers there again.

use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use async_tungstenite::tungstenite::Message;
use futures_util::StreamExt;
use serde_json::{Value, json};

use crate::helpers::{API_KEY, Instance, eventually, metric, page};
use text_browser::browser::Chromium;
use text_browser::config::Config;

/// A Chromium started by the test, with the service's own flags and a DevTools port of its choosing.
struct Remote {
    child: Child,
    ws_url: String,
    _profile: std::path::PathBuf,
}

impl Remote {
    fn start(port: u16) -> Self {
        Self::start_without(port, &[])
    }

    /// Started without the flags that begin with any of `without`.
    fn start_without(port: u16, without: &[&str]) -> Self {
        let executable = Config::from_env().unwrap().chrome_executable().expect("Chromium is installed");
        let profile = std::env::temp_dir().join(format!("text-browser-test-remote-{}", uuid::Uuid::new_v4().simple()));
        let mut args: Vec<String> = Chromium::recommended_args(true)
            .into_iter()
            .filter(|a| !a.starts_with("--remote-debugging-port") && !without.iter().any(|w| a.starts_with(w)))
            .collect();
        args.push(format!("--remote-debugging-port={port}"));
        args.push(format!("--user-data-dir={}", profile.display()));
        let mut command = Command::new(executable);
        command.args(&args).arg("about:blank").stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped());
        // SAFETY: prctl(PR_SET_PDEATHSIG) is async-signal-safe and touches no Rust state.
        unsafe {
            command.pre_exec(|| {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                Ok(())
            });
        }
        let mut child = command.spawn().expect("Chromium starts");
        let stderr = child.stderr.take().unwrap();
        let mut lines = BufReader::new(stderr).lines();
        let ws_url = loop {
            let line = lines.next().expect("Chromium says where DevTools listens").unwrap();
            if let Some((_, url)) = line.split_once("listening on ") {
                break url.trim().to_owned();
            }
        };
        std::thread::spawn(move || lines.for_each(drop));
        Self { child, ws_url, _profile: profile }
    }

    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Remote {
    fn drop(&mut self) {
        self.kill();
        let _ = std::fs::remove_dir_all(&self._profile);
    }
}

/// Chromium processes the service started itself (children with a --user-data-dir).
fn own_chromium_children(service_pid: u32) -> usize {
    let tasks = std::fs::read_dir(format!("/proc/{service_pid}/task")).expect("the service runs");
    tasks
        .flatten()
        .flat_map(|task| {
            let children = std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
            children.split_whitespace().map(str::to_owned).collect::<Vec<_>>()
        })
        .filter(|child| {
            std::fs::read_to_string(format!("/proc/{child}/cmdline")).unwrap_or_default().contains("--user-data-dir=")
        })
        .count()
}

async fn next_json(ws: &mut async_tungstenite::WebSocketStream<async_tungstenite::tokio::ConnectStream>) -> Value {
    loop {
        let message =
            tokio::time::timeout(Duration::from_secs(30), ws.next()).await.expect("a message").unwrap().unwrap();
        if let Message::Text(text) = message {
            return serde_json::from_str(&text).unwrap();
        }
    }
}

#[tokio::test]
async fn a_service_attached_to_a_remote_browser_keeps_egress_reading_and_acting_and_reconnects_after_it_dies() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let mut remote = Remote::start(port);
    let svc = Instance::start(&[("BROWSER_WS_ENDPOINT", &remote.ws_url), ("RATE_LIMIT_MAX", "100000")]);
    assert_eq!(own_chromium_children(svc.pid), 0, "the service launched no Chromium of its own");

    // Nothing leaves past the allow-list: the remote browser's contexts go through our proxy.
    crate::egress::every_way_out_is_blocked(&svc).await;

    // Reading and acting, screenshots and the warm pool work as with a browser of our own.
    let sid = svc.session().await;
    svc.ok("page.goto", json!({ "session_id": sid, "url": page("/projects") })).await;
    svc.ok("page.click", json!({ "session_id": sid, "selector": "text=New Project" })).await;
    let name = json!({ "session_id": sid, "selector": "role=textbox[name=\"Project name\"]", "value": "Zephyr" });
    svc.ok("page.fill", name).await;
    let text = svc.ok("page.text", json!({ "session_id": sid, "selector": "body" })).await;
    assert!(text["text"].as_str().unwrap().contains("New project: Zephyr"), "{text}");
    let snapshot = svc.ok("page.snapshot", json!({ "session_id": sid })).await;
    assert!(snapshot.to_string().contains("Project name"), "{snapshot}");
    let shot = svc.ok("screenshot", json!({ "session_id": sid })).await;
    assert!(shot.to_string().contains("iVBOR"), "a PNG came back");
    let metrics = svc.metrics().await;
    assert!(metric(&metrics, "text_browser_sessions_warm").is_some(), "{metrics}");

    // Subscribed to the session's events, then the browser dies.
    let url = format!("{}/rpc?api_key={API_KEY}", svc.base.replace("http://", "ws://"));
    let (mut ws, _) = async_tungstenite::tokio::connect_async(url).await.expect("upgrade accepted");
    let subscribe = json!({ "jsonrpc": "2.0", "id": 1, "method": "events.subscribe", "params": { "session_id": sid } });
    ws.send(Message::text(subscribe.to_string())).await.unwrap();
    let subscribed = next_json(&mut ws).await;
    assert!(subscribed["result"].is_string() || subscribed["result"].is_u64(), "{subscribed}");
    remote.kill();

    // Events the page sent before it died may come first; the last says why it ended.
    let end = loop {
        let note = next_json(&mut ws).await;
        if note["params"]["result"]["kind"] == "end" {
            break note;
        }
    };
    assert_eq!(end["params"]["result"]["reason"], "browser_lost", "{end}");
    let err = svc.err("page.text", json!({ "session_id": sid })).await;
    assert_eq!(err.kind(), "browser_unavailable", "{err:?}");
    assert!(err.message.contains("browser_lost"), "{}", err.message);
    // Counted by the supervisor as it lets the sessions go, which may come just after the answers.
    let lost = eventually(Duration::from_secs(30), "the lost session to be counted", || async {
        let metrics = svc.metrics().await;
        metric(&metrics, "text_browser_sessions_closed_total{reason=\"browser_lost\"}").filter(|n| *n >= 1.0)
    })
    .await;
    assert_eq!(lost, 1.0);
    let readyz: Value = reqwest::get(format!("{}/readyz", svc.base)).await.unwrap().json().await.unwrap();
    assert_eq!(readyz["browser_connected"], false, "{readyz}");

    // A browser answers at the same address again (a new process, a new browser id): the service
    // finds it and new sessions work.
    let _again = Remote::start(port);
    let fresh = eventually(Duration::from_secs(30), "a session on the reconnected browser", || async {
        let sid = svc.call("session.create", json!({})).await.ok()?["session_id"].as_str()?.to_owned();
        svc.call("page.goto", json!({ "session_id": sid, "url": page("/") })).await.ok().map(|_| sid)
    })
    .await;
    let title = svc.ok("page.text", json!({ "session_id": fresh, "selector": "h1" })).await;
    assert_eq!(title["text"], "Fixtures Home");
    assert_eq!(metric(&svc.metrics().await, "text_browser_browser_restarts_total"), Some(1.0));
    assert_eq!(own_chromium_children(svc.pid), 0);
}

#[tokio::test]
async fn a_pool_browser_without_the_egress_flags_is_refused_unless_allowed_and_then_reported() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let remote = Remote::start_without(port, &["--webrtc-ip-handling-policy"]);

    // Refused: the service does not start on it, and says which flag is missing and what to do.
    let mut command = Command::new(env!("CARGO_BIN_EXE_text-browser"));
    command.env("PORT", "0").env("API_KEY", API_KEY).env("BROWSER_WS_ENDPOINT", &remote.ws_url);
    command.env_remove("ALLOW_UNGUARDED_BROWSER").stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped());
    let mut service = command.spawn().expect("the service starts");
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    let exited = loop {
        if let Some(status) = service.try_wait().unwrap() {
            break Some(status);
        }
        if std::time::Instant::now() > deadline {
            let _ = service.kill();
            let _ = service.wait();
            break None;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let mut said = String::new();
    std::io::Read::read_to_string(&mut service.stderr.take().unwrap(), &mut said).unwrap();
    assert!(exited.is_some_and(|status| !status.success()), "still serving after 60 s: {said}");
    assert!(said.contains("--webrtc-ip-handling-policy=disable_non_proxied_udp is missing"), "{said}");
    assert!(said.contains("ALLOW_UNGUARDED_BROWSER"), "{said}");

    // Allowed: it serves, and /readyz and the log say what the browser lacks.
    let svc = Instance::start(&[("BROWSER_WS_ENDPOINT", &remote.ws_url), ("ALLOW_UNGUARDED_BROWSER", "true")]);
    let ready: Value = reqwest::get(format!("{}/readyz", svc.base)).await.unwrap().json().await.unwrap();
    let warnings = ready["warnings"].to_string();
    assert!(warnings.contains("--webrtc-ip-handling-policy=disable_non_proxied_udp is missing"), "{ready}");
    assert!(svc.logs().contains("without the flags that guard egress"), "{}", svc.logs());
}
