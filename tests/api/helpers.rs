//! Test harness: starts the real `text-browser` and `fixtures` binaries on random ports and talks
//! to them over HTTP, like any client.
//!
//! One shared service (and one fixtures server) serves the whole test binary; each test makes its
//! own session, held by a [`SessionGuard`] that closes it when the test ends (pass or fail). Tests that need other settings (TTL, caps, rate limits) start their own
//! [`Instance`], stopped when dropped. Every child process gets PR_SET_PDEATHSIG, so nothing
//! outlives the test binary. If Chromium is missing, start-up fails with the service's own
//! message ("install Chromium (apt-get install -y chromium) or set CHROME_PATH").

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

pub const API_KEY: &str = "test-key-0123456789";

/// A running service and how to reach it.
pub struct Service {
    pub base: String,
    pub pid: u32,
    log: Arc<Mutex<String>>,
}

/// A JSON-RPC error answer.
#[derive(Debug, Clone)]
pub struct RpcError {
    pub code: i64,
    pub message: String,
    pub data: Value,
}

impl RpcError {
    pub fn kind(&self) -> &str {
        self.data["kind"].as_str().unwrap_or_default()
    }
}

/// The service shared by every test in this binary.
pub fn shared() -> &'static Service {
    static SHARED: OnceLock<Service> = OnceLock::new();
    SHARED.get_or_init(|| {
        fixtures();
        let (tx, rx) = mpsc::channel();
        // The spawning thread must outlive every test: PDEATHSIG fires when it exits.
        std::thread::spawn(move || {
            let (child, service) = start_service(&[("RATE_LIMIT_MAX", "1000000"), ("MAX_SESSIONS", "160")]);
            tx.send(service).expect("the test thread waits");
            let _keep = child;
            loop {
                std::thread::park();
            }
        });
        rx.recv().expect("the shared service started")
    })
}

/// Base URL of the fixtures web app (shared by the whole binary).
pub fn fixtures() -> &'static str {
    static FIXTURES: OnceLock<String> = OnceLock::new();
    FIXTURES.get_or_init(|| {
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut cmd = Command::new(env!("CARGO_BIN_EXE_fixtures"));
            cmd.env("PORT", "0").stdout(Stdio::piped()).stderr(Stdio::inherit());
            let mut child = spawn_tied(cmd);
            let stdout = child.stdout.take().expect("piped stdout");
            let mut lines = BufReader::new(stdout).lines();
            let line = lines.next().and_then(Result::ok).unwrap_or_default();
            let url = line.strip_prefix("fixtures listening on ").expect("the fixtures server announces its address");
            tx.send(url.trim().to_owned()).expect("the test thread waits");
            let _keep = child;
            loop {
                std::thread::park();
            }
        });
        rx.recv_timeout(Duration::from_secs(30)).expect("the fixtures server started")
    })
}

/// A framework fixture app of `fixtures/apps/` (Vite-built, installed and built by `.ci/setup`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum App {
    /// Vite + React + TypeScript: expense claims.
    Expenses,
    /// Vite + Vue 3 + TypeScript: meeting-room bookings.
    Rooms,
}

impl App {
    pub fn name(self) -> &'static str {
        match self {
            App::Expenses => "expenses",
            App::Rooms => "rooms",
        }
    }

    /// The URL of its production build (minified bundles, source maps beside them), served by the
    /// fixtures server under `/apps/<name>/`.
    pub fn prod(self) -> String {
        let index = format!("{}/fixtures/apps/{}/dist/index.html", env!("CARGO_MANIFEST_DIR"), self.name());
        assert!(std::path::Path::new(&index).exists(), "{index} is missing: run `bash .ci/setup` (it builds the apps)");
        page(&format!("/apps/{}/", self.name()))
    }

    /// The URL of its Vite dev server (`npm run dev`, transformed modules with inline maps, the HMR
    /// client), started on a free port the first time a test asks and stopped with the test binary.
    /// Its `/api` goes to the fixtures server.
    pub fn dev(self) -> &'static str {
        static DEV: [OnceLock<String>; 2] = [OnceLock::new(), OnceLock::new()];
        DEV[self as usize].get_or_init(|| start_dev_server(self.name()))
    }
}

/// Starts `fixtures/apps/dev-server.mjs <app>` and waits for its `vite listening on URL` line.
fn start_dev_server(app: &'static str) -> String {
    let fixtures = fixtures().to_owned();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let root = env!("CARGO_MANIFEST_DIR");
        let mut cmd = Command::new("node");
        cmd.arg(format!("{root}/fixtures/apps/dev-server.mjs")).arg(app).env("FIXTURES_URL", fixtures);
        // Its stdin stays open as long as this thread lives: the script stops when it closes.
        cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::inherit());
        let Ok(mut child) = try_spawn_tied(cmd) else { return };
        let stdout = child.stdout.take().expect("piped stdout");
        let line = BufReader::new(stdout).lines().next().and_then(Result::ok).unwrap_or_default();
        let _ = tx.send(line.strip_prefix("vite listening on ").map(str::to_owned));
        let _keep = child;
        loop {
            std::thread::park();
        }
    });
    match rx.recv_timeout(Duration::from_secs(120)) {
        Ok(Some(url)) => url.trim().to_owned(),
        _ => {
            panic!("the {app} app's Vite dev server did not start: run `bash .ci/setup` (it installs Node's packages)")
        }
    }
}

/// A service with its own settings, stopped (SIGTERM, then wait) when dropped.
pub struct Instance {
    pub service: Service,
    child: Child,
}

impl Instance {
    pub fn start(env: &[(&str, &str)]) -> Self {
        fixtures();
        let (child, service) = start_service(env);
        Self { service, child }
    }
}

impl std::ops::Deref for Instance {
    type Target = Service;
    fn deref(&self) -> &Service {
        &self.service
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        // SAFETY: kill(2) on our own child's pid has no memory-safety concerns.
        unsafe {
            libc::kill(self.child.id() as i32, libc::SIGTERM);
        }
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn spawn_tied(cmd: Command) -> Child {
    try_spawn_tied(cmd).expect("the binary was built by cargo")
}

fn try_spawn_tied(mut cmd: Command) -> std::io::Result<Child> {
    // SAFETY: prctl(PR_SET_PDEATHSIG) is async-signal-safe and touches no Rust state.
    unsafe {
        cmd.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM);
            Ok(())
        });
    }
    cmd.spawn()
}

/// Starts the service with `env` over test defaults and waits for its "listening" line.
fn start_service(env: &[(&str, &str)]) -> (Child, Service) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_text-browser"));
    cmd.env("PORT", "0").env("API_KEY", API_KEY).env("LOG_FORMAT", "json").env_remove("RUST_LOG");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.stdout(Stdio::null()).stderr(Stdio::piped());
    let mut child = spawn_tied(cmd);
    let stderr = child.stderr.take().expect("piped stderr");
    let log = Arc::new(Mutex::new(String::new()));
    let (tx, rx) = mpsc::channel();
    let sink = log.clone();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if let Ok(v) = serde_json::from_str::<Value>(&line)
                && v["message"] == "listening"
            {
                let _ = tx.send(v["addr"].as_str().unwrap_or_default().to_owned());
            }
            let mut sink = sink.lock().unwrap();
            sink.push_str(&line);
            sink.push('\n');
        }
    });
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Ok(addr) = rx.recv_timeout(Duration::from_millis(100)) {
            let pid = child.id();
            return (child, Service { base: format!("http://{addr}"), pid, log });
        }
        if let Ok(Some(status)) = child.try_wait() {
            std::thread::sleep(Duration::from_millis(200));
            panic!(
                "text-browser exited ({status}) before it was ready. Its output:\n{}\n\
                 (Chromium is needed: apt-get install -y chromium, or set CHROME_PATH.)",
                log.lock().unwrap()
            );
        }
        if Instant::now() > deadline {
            panic!("text-browser was not ready within 60 s. Its output:\n{}", log.lock().unwrap());
        }
    }
}

impl Service {
    pub fn rpc_url(&self) -> String {
        format!("{}/rpc", self.base)
    }

    /// Everything the service has written to stderr so far.
    pub fn logs(&self) -> String {
        self.log.lock().unwrap().clone()
    }

    /// POSTs `body` to /rpc with the API key and a JSON content type.
    pub async fn post(&self, body: impl Into<reqwest::Body>) -> reqwest::Response {
        reqwest::Client::new()
            .post(self.rpc_url())
            .header("x-api-key", API_KEY)
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await
            .unwrap_or_else(|e| {
                // The service is gone: what it said last is the best clue why.
                let log = self.logs();
                let tail: Vec<&str> = log.lines().rev().take(40).collect::<Vec<_>>().into_iter().rev().collect();
                panic!("the service did not answer ({e}); its last log lines:\n{}", tail.join("\n"))
            })
    }

    /// Calls `method` with named `params`.
    pub async fn call(&self, method: &str, params: Value) -> Result<Value, RpcError> {
        let request = json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params });
        let response = self.post(request.to_string()).await;
        let status = response.status();
        let body: Value =
            response.json().await.unwrap_or_else(|e| panic!("{method}: HTTP {status}, body not JSON: {e}"));
        if let Some(error) = body.get("error") {
            return Err(RpcError {
                code: error["code"].as_i64().unwrap_or_default(),
                message: error["message"].as_str().unwrap_or_default().to_owned(),
                data: error.get("data").cloned().unwrap_or(Value::Null),
            });
        }
        Ok(body["result"].clone())
    }

    /// Calls `method` and expects success.
    pub async fn ok(&self, method: &str, params: Value) -> Value {
        self.call(method, params).await.unwrap_or_else(|e| panic!("{method} failed: {e:?}"))
    }

    /// Calls `method` and expects an error.
    pub async fn err(&self, method: &str, params: Value) -> RpcError {
        match self.call(method, params).await {
            Ok(v) => panic!("{method} succeeded but should have failed: {v}"),
            Err(e) => e,
        }
    }

    /// Opens a session, closed again when the returned guard is dropped.
    pub async fn session(&self) -> SessionGuard {
        self.session_with(json!({})).await
    }

    /// Opens a session with `params` (session.create's), closed again when the guard is dropped.
    pub async fn session_with(&self, params: Value) -> SessionGuard {
        let result = self.ok("session.create", params).await;
        let id = result["session_id"].as_str().expect("session_id").to_owned();
        SessionGuard { id, base: self.base.clone() }
    }

    /// The /metrics text.
    pub async fn metrics(&self) -> String {
        reqwest::get(format!("{}/metrics", self.base)).await.expect("metrics").text().await.expect("text")
    }
}

/// A WebSocket on a service's /rpc.
pub type Socket = async_tungstenite::WebSocketStream<async_tungstenite::tokio::ConnectStream>;

/// Every message the socket received so far (none for half a second ends it), as one text.
pub async fn drain(ws: &mut Socket) -> String {
    use futures_util::StreamExt;
    let mut all = String::new();
    while let Ok(Some(Ok(message))) = tokio::time::timeout(Duration::from_millis(500), ws.next()).await {
        all.push_str(message.to_text().unwrap_or_default());
        all.push('\n');
    }
    all
}

/// Opens a WebSocket on `svc`'s /rpc (the key in the query, as browsers must send it).
pub async fn websocket(svc: &Service) -> Socket {
    let url = format!("{}?api_key={API_KEY}", svc.rpc_url().replace("http://", "ws://"));
    async_tungstenite::tokio::connect_async(url).await.expect("upgrade accepted").0
}

/// The next JSON message on `ws` (within 60 s).
pub async fn next_json(ws: &mut Socket) -> Value {
    use futures_util::StreamExt;
    loop {
        let message =
            tokio::time::timeout(Duration::from_secs(60), ws.next()).await.expect("a message").unwrap().unwrap();
        if let async_tungstenite::tungstenite::Message::Text(text) = message {
            return serde_json::from_str(&text).unwrap();
        }
    }
}

/// Subscribes `ws` to a session's events (`params` of events.subscribe); returns once subscribed.
pub async fn subscribe_on(ws: &mut Socket, params: Value) {
    let request = json!({ "jsonrpc": "2.0", "id": 1, "method": "events.subscribe", "params": params });
    ws.send(async_tungstenite::tungstenite::Message::text(request.to_string())).await.unwrap();
    let answer = next_json(ws).await;
    assert!(answer["result"].is_u64() || answer["result"].is_string(), "subscribed: {answer}");
}

/// Polls `check` every 50 ms until it returns `Some`, or panics after `limit` naming `what`.
pub async fn eventually<T, F, Fut>(limit: Duration, what: &str, mut check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    let deadline = Instant::now() + limit;
    loop {
        if let Some(value) = check().await {
            return value;
        }
        if Instant::now() > deadline {
            panic!("timed out after {limit:?} waiting for {what}");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A fixtures URL for `path`.
pub fn page(path: &str) -> String {
    format!("{}{}", fixtures(), path)
}

/// The service's Chromium: its pid and profile directory (the child with a --user-data-dir).
pub fn chromium_child(service_pid: u32) -> (u32, String) {
    let tasks = std::fs::read_dir(format!("/proc/{service_pid}/task")).expect("the service runs");
    for task in tasks.flatten() {
        let children = std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
        for child in children.split_whitespace() {
            let cmdline = std::fs::read_to_string(format!("/proc/{child}/cmdline")).unwrap_or_default();
            if let Some(dir) = cmdline.split('\0').find_map(|arg| arg.strip_prefix("--user-data-dir=")) {
                return (child.parse().expect("a pid"), dir.to_owned());
            }
        }
    }
    panic!("no Chromium child found under the service (pid {service_pid})");
}

/// Chromium's own list of page targets, read through its DevTools HTTP endpoint.
pub async fn chromium_page_targets(service_pid: u32) -> usize {
    let port = devtools_port(service_pid);
    let list: Vec<Value> = reqwest::get(format!("http://127.0.0.1:{port}/json/list"))
        .await
        .expect("Chromium's DevTools endpoint answers")
        .json()
        .await
        .expect("a JSON target list");
    list.iter().filter(|t| t["type"] == "page").count()
}

/// How many renderer processes the service's Chromium runs now (its descendants started with
/// `--type=renderer`).
pub fn chromium_renderers(service_pid: u32) -> usize {
    let (chromium, _) = chromium_child(service_pid);
    let mut parents = std::collections::HashMap::new();
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else { continue };
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        // `pid (comm) state ppid …`: the comm may hold spaces, the fields after it do not.
        let ppid = stat.rsplit_once(')').and_then(|(_, rest)| rest.split_whitespace().nth(1)?.parse::<u32>().ok());
        if let Some(ppid) = ppid {
            parents.insert(pid, ppid);
        }
    }
    let descends = |mut pid: u32| {
        while let Some(&up) = parents.get(&pid) {
            if up == chromium {
                return true;
            }
            if up <= 1 {
                return false;
            }
            pid = up;
        }
        false
    };
    parents
        .keys()
        .filter(|pid| descends(**pid))
        .filter(|pid| {
            let cmdline = std::fs::read_to_string(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            cmdline.split('\0').any(|arg| arg == "--type=renderer")
        })
        .count()
}

/// Reads the DevTools port from the service's Chromium's profile (DevToolsActivePort).
pub fn devtools_port(service_pid: u32) -> u16 {
    let (_, dir) = chromium_child(service_pid);
    let file = std::fs::read_to_string(format!("{dir}/DevToolsActivePort")).expect("DevToolsActivePort");
    file.lines().next().unwrap().trim().parse().expect("a port number")
}

/// The value of a metric line `name` (with its labels, exactly as exposed), if present.
pub fn metric(text: &str, name: &str) -> Option<f64> {
    text.lines().find_map(|line| line.strip_prefix(name)?.strip_prefix(' ')?.trim().parse().ok())
}

/// A session id that closes its session when dropped, so tests leave nothing open. It reads as the
/// id: `json!({"session_id": sid})`, `&sid` as `&str`, `sid.to_string()`.
pub struct SessionGuard {
    id: String,
    base: String,
}

impl SessionGuard {
    /// Closes `id`, a session opened some other way, when dropped.
    pub fn adopt(svc: &Service, id: &str) -> Self {
        Self { id: id.to_owned(), base: svc.base.clone() }
    }
}

impl std::ops::Deref for SessionGuard {
    type Target = str;
    fn deref(&self) -> &str {
        &self.id
    }
}

impl std::fmt::Display for SessionGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.id)
    }
}

impl std::fmt::Debug for SessionGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.id)
    }
}

impl serde::Serialize for SessionGuard {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.id)
    }
}

impl Drop for SessionGuard {
    /// Closes the session with a plain blocking HTTP call (drop cannot await). A session the test
    /// closed itself, or a service already gone, is fine: the answer is not read for errors.
    fn drop(&mut self) {
        let addr = self.base.trim_start_matches("http://");
        let body = json!({ "jsonrpc": "2.0", "id": 1, "method": "session.close", "params": { "session_id": self.id } })
            .to_string();
        let Ok(mut stream) = std::net::TcpStream::connect(addr) else { return };
        let _ = stream.set_read_timeout(Some(Duration::from_secs(20)));
        let request = format!(
            "POST /rpc HTTP/1.1\r\nhost: {addr}\r\nx-api-key: {API_KEY}\r\ncontent-type: application/json\r\n\
             content-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        );
        if stream.write_all(request.as_bytes()).is_ok() {
            let mut answer = Vec::new();
            let _ = stream.read_to_end(&mut answer);
        }
    }
}
