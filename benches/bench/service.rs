//! The fixtures app and the service as child processes, and a keep-alive JSON-RPC client.

use std::io::{BufRead, BufReader, Read};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

const API_KEY: &str = "bench-key-0123456789";

/// Spawns `cmd` so that it gets SIGTERM when the bench ends however it ends (Ctrl-C included):
/// the bench spawns on its main thread, which lives as long as the process.
fn spawn_tied(cmd: &mut Command) -> Child {
    // SAFETY: prctl(PR_SET_PDEATHSIG) is async-signal-safe and touches no Rust state.
    unsafe {
        cmd.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM);
            Ok(())
        });
    }
    cmd.spawn().expect("the binary was built by cargo")
}

/// A child process stopped when dropped (SIGTERM, then SIGKILL after 10 s).
pub struct ChildGuard(Child);

impl Drop for ChildGuard {
    fn drop(&mut self) {
        // SIGTERM first, so the service closes its Chromium and removes its profile itself.
        // SAFETY: kill(2) on our own child's pid.
        unsafe { libc::kill(self.0.id() as libc::pid_t, libc::SIGTERM) };
        for _ in 0..200 {
            if matches!(self.0.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts the fixtures app on a free port; returns it with its base URL.
pub fn start_fixtures() -> (ChildGuard, String) {
    let mut child = spawn_tied(Command::new(env!("CARGO_BIN_EXE_fixtures")).env("PORT", "0").stdout(Stdio::piped()));
    let stdout = child.stdout.take().expect("piped");
    let line = BufReader::new(stdout).lines().next().and_then(Result::ok).unwrap_or_default();
    let base =
        line.strip_prefix("fixtures listening on ").expect("the fixtures announce their address").trim().to_owned();
    (ChildGuard(child), base)
}

pub struct Service {
    pub pid: u32,
    rpc: String,
    client: reqwest::Client,
    _child: ChildGuard,
}

impl Service {
    /// Starts the service (release build) on a free port with `env` and waits until it listens.
    pub fn start(env: &[(&str, &str)]) -> Self {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_text-browser"));
        cmd.env("PORT", "0").env("API_KEY", API_KEY).env("LOG_FORMAT", "json").env("RATE_LIMIT_MAX", "1000000");
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = spawn_tied(cmd.stdout(Stdio::null()).stderr(Stdio::piped()));
        let stderr = child.stderr.take().expect("piped");
        let (tx, rx) = mpsc::channel();
        // Reads the log for the listening address, then drains it unread (parsing every call's
        // log line would cost the bench CPU the service's figures would pay for).
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stderr);
            for line in reader.by_ref().lines().map_while(Result::ok) {
                if let Ok(v) = serde_json::from_str::<Value>(&line)
                    && v["message"] == "listening"
                {
                    let _ = tx.send(v["addr"].as_str().unwrap_or_default().to_owned());
                    break;
                }
            }
            let _ = std::io::copy(&mut reader, &mut std::io::sink());
        });
        let addr = rx.recv_timeout(Duration::from_secs(60)).expect("the service listens (is Chromium installed?)");
        Self {
            pid: child.id(),
            rpc: format!("http://{addr}/rpc"),
            client: reqwest::Client::new(),
            _child: ChildGuard(child),
        }
    }

    /// Calls `method`; the result, or the error object.
    pub async fn call(&self, method: &str, params: Value) -> Result<Value, Value> {
        let body = json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params });
        let response = self
            .client
            .post(&self.rpc)
            .header("x-api-key", API_KEY)
            .header("content-type", "application/json")
            .body(body.to_string())
            .send()
            .await
            .expect("the service answers");
        let mut answer: Value = response.json().await.expect("a JSON-RPC answer");
        match answer.get_mut("error") {
            Some(error) => Err(error.take()),
            None => Ok(answer["result"].take()),
        }
    }

    /// Calls `method` and expects success.
    pub async fn ok(&self, method: &str, params: Value) -> Value {
        self.call(method, params).await.unwrap_or_else(|e| panic!("{method} failed: {e}"))
    }

    /// A metric's value from /metrics (0 when absent).
    pub async fn metric(&self, name: &str) -> f64 {
        let url = self.rpc.replace("/rpc", "/metrics");
        let text = self.client.get(&url).send().await.expect("metrics").text().await.unwrap_or_default();
        text.lines()
            .find_map(|l| l.strip_prefix(name).and_then(|v| v.strip_prefix(' ')))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(0.0)
    }

    /// Waits (up to 15 s) until the service has trimmed memory more than `trims` times (a trim
    /// follows a quiet second after activity).
    pub async fn wait_for_trim(&self, trims: f64) {
        for _ in 0..1500 {
            if self.metric("text_browser_memory_trims_total").await > trims {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("no memory trim within 15 s of quiet");
    }

    /// Waits (up to 30 s) until the warm pool has a session ready.
    pub async fn wait_for_warm(&self) {
        let metrics = self.rpc.replace("/rpc", "/metrics");
        for _ in 0..3000 {
            let text = self.client.get(&metrics).send().await.expect("metrics").text().await.unwrap_or_default();
            if text.lines().any(|l| l.starts_with("text_browser_sessions_warm ") && !l.ends_with(" 0")) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("the warm pool did not refill within 30 s");
    }

    pub async fn session(&self) -> String {
        self.ok("session.create", json!({})).await["session_id"].as_str().expect("a session id").to_owned()
    }
}
