//! What a hostile or careless client cannot do: crash a call or its neighbours, walk around the
//! limits, or make the service echo (and spend time on) an enormous input.

use std::time::Duration;

use async_tungstenite::tungstenite::Message;
use futures_util::StreamExt;
use serde_json::{Value, json};

use crate::helpers::{API_KEY, Instance, Service, page, shared};

/// POSTs a batch and returns its answers in order.
async fn batch(svc: &Service, calls: &[(&str, Value)]) -> Vec<Value> {
    let body: Vec<Value> = calls
        .iter()
        .enumerate()
        .map(|(i, (method, params))| json!({ "jsonrpc": "2.0", "id": i, "method": method, "params": params }))
        .collect();
    let response = svc.post(Value::Array(body).to_string()).await;
    assert_eq!(response.status(), 200);
    let answers: Value = response.json().await.expect("a JSON answer");
    let answers = answers.as_array().unwrap_or_else(|| panic!("a batch answer: {answers}")).clone();
    assert_eq!(answers.len(), calls.len(), "every call answered: {answers:?}");
    for (i, answer) in answers.iter().enumerate() {
        assert_eq!(answer["id"], i, "answers in order: {answers:?}");
    }
    answers
}

fn kind(answer: &Value) -> &str {
    answer["error"]["data"]["kind"].as_str().unwrap_or("ok")
}

#[tokio::test]
async fn a_huge_route_glob_is_invalid_params_and_its_batch_is_answered() {
    let svc = shared();
    let sid = svc.session().await;
    svc.ok("page.goto", json!({ "session_id": sid, "url": page("/") })).await;
    let answers = batch(
        svc,
        &[
            ("network.route", json!({ "session_id": sid, "urlPattern": "*a?".repeat(7_000), "abort": true })),
            ("page.evaluate", json!({ "session_id": sid, "expression": "6 * 7" })),
            ("network.route", json!({ "session_id": sid, "urlPattern": "*?".repeat(1_500), "abort": true })),
            ("assert.url", json!({ "session_id": sid, "pattern": "*/".repeat(10_000), "timeout": 200 })),
            ("network.list", json!({ "session_id": sid })),
        ],
    )
    .await;
    for (i, param) in [(0, "urlPattern"), (2, "urlPattern"), (3, "pattern")] {
        assert_eq!((kind(&answers[i]), answers[i]["error"]["data"]["param"].as_str()), ("invalid_params", Some(param)));
        let message = answers[i]["error"]["message"].as_str().unwrap();
        assert!(message.len() < 400, "a short message, not the glob: {message}");
    }
    assert_eq!(answers[1]["result"]["result"], 42, "{answers:?}");
    assert_eq!(answers[4]["result"]["routes"], json!([]), "no route was added: {answers:?}");
}

/// A service where every page.text call panics inside its handler (TEST_PANIC_METHOD).
fn panicking() -> Instance {
    Instance::start(&[("TEST_PANIC_METHOD", "page.text")])
}

#[tokio::test]
async fn a_panicking_call_answers_internal_error_alone_in_a_batch_a_run_and_a_websocket() {
    let svc = panicking();
    let sid = svc.session().await;
    svc.ok("page.goto", json!({ "session_id": sid, "url": page("/") })).await;
    let (text, evaluate) = (
        ("page.text", json!({ "session_id": sid })),
        ("page.evaluate", json!({ "session_id": sid, "expression": "document.title" })),
    );

    // A batch: the call between two others.
    let answers = batch(&svc, &[evaluate.clone(), text.clone(), evaluate.clone()]).await;
    assert_eq!(answers.iter().map(kind).collect::<Vec<_>>(), ["ok", "internal_error", "ok"], "{answers:?}");
    assert_eq!(answers[1]["error"]["code"], -32603);
    assert_eq!(answers[2]["result"]["result"], "Fixtures Home");

    // session.run: the step fails, the run goes on (stopOnError false) and is answered.
    let steps = json!([
        { "method": "page.evaluate", "params": { "expression": "1" } },
        { "method": "page.text" },
        { "method": "page.evaluate", "params": { "expression": "2" } },
    ]);
    let run = svc.ok("session.run", json!({ "session_id": sid, "steps": steps, "stopOnError": false })).await;
    let oks: Vec<bool> = run["results"].as_array().unwrap().iter().map(|r| r["ok"].as_bool().unwrap()).collect();
    assert_eq!(oks, [true, false, true], "{run}");
    assert_eq!(run["results"][1]["error"]["data"]["kind"], "internal_error", "{run}");

    // A WebSocket: the call is answered, and so is the next one on the same connection.
    let ws_url = format!("{}?api_key={API_KEY}", svc.rpc_url().replace("http://", "ws://"));
    let (mut ws, _) = async_tungstenite::tokio::connect_async(ws_url).await.expect("upgrade accepted");
    for (id, (method, params)) in [(1, text), (2, evaluate)] {
        let call = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
        ws.send(Message::text(call.to_string())).await.unwrap();
    }
    let mut answered = Vec::new();
    while answered.len() < 2 {
        let message = tokio::time::timeout(Duration::from_secs(30), ws.next()).await.expect("answered in time");
        let answer: Value = serde_json::from_str(message.unwrap().unwrap().to_text().unwrap()).unwrap();
        answered.push((answer["id"].as_i64().unwrap(), kind(&answer).to_owned()));
    }
    answered.sort();
    assert_eq!(answered, [(1, "internal_error".to_owned()), (2, "ok".to_owned())]);

    // The service is still whole, and the panic is one JSON log line saying where.
    svc.ok("page.evaluate", json!({ "session_id": sid, "expression": "1" })).await;
    // The service's log reaches the test through a pipe a reader thread drains: poll for it.
    let logs = crate::helpers::eventually(Duration::from_secs(20), "the panic in the log", || async {
        let logs = svc.logs();
        logs.contains("a call panicked").then_some(logs)
    })
    .await;
    for line in logs.lines().filter(|l| l.contains("\"panic\"")) {
        assert!(serde_json::from_str::<Value>(line).is_ok(), "not a JSON log line: {line}");
    }
}

/// Files that run only while the service starts (a panic there stops start-up, never a request),
/// or are not the service.
const NOT_A_REQUEST_PATH: &[&str] = &["src/main.rs", "src/startup.rs", "src/metrics.rs", "src/cli/"];

#[test]
fn no_unwrap_or_expect_on_a_request_path_without_a_reason() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![root.join("src")];
    let mut unjustified = Vec::new();
    while let Some(path) = files.pop() {
        if path.is_dir() {
            files.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
            continue;
        }
        let name = path.strip_prefix(root).unwrap().display().to_string();
        // A module's tests in a file of their own (`#[cfg(test)] mod tests;`) are no request path.
        let test_file = name.ends_with("/tests.rs");
        if !name.ends_with(".rs") || test_file || NOT_A_REQUEST_PATH.iter().any(|p| name.starts_with(p)) {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().take_while(|l| !l.trim_start().starts_with("#[cfg(all(test")).collect();
        let lines = lines.split(|l| l.trim() == "#[cfg(test)]").next().unwrap_or_default();
        for (i, line) in lines.iter().enumerate() {
            let code = line.split("//").next().unwrap_or_default();
            if !(code.contains(".unwrap()") || code.contains(".expect(")) {
                continue;
            }
            let justified = line.contains("// Infallible:") || (i > 0 && lines[i - 1].contains("// Infallible"));
            if !justified {
                unjustified.push(format!("{name}:{}: {}", i + 1, line.trim()));
            }
        }
    }
    assert!(
        unjustified.is_empty(),
        "unwrap/expect where a request could make them panic; handle the error, or say on the line above \
         why it cannot fail (`// Infallible: …`):\n{}",
        unjustified.join("\n")
    );
}

#[tokio::test]
async fn a_batch_of_51_is_one_invalid_request_naming_the_cap_and_runs_nothing() {
    let svc = shared();
    let calls: Vec<Value> =
        (0..51).map(|i| json!({ "jsonrpc": "2.0", "id": i, "method": "session.create", "params": {} })).collect();
    let before = crate::helpers::metric(&svc.metrics().await, "text_browser_sessions_created_total").unwrap_or(0.0);
    let response = svc.post(Value::Array(calls).to_string()).await;
    assert_eq!(response.status(), 200);
    let answer: Value = response.json().await.unwrap();
    assert_eq!((answer["error"]["code"].as_i64(), &answer["id"]), (Some(-32600), &Value::Null), "{answer}");
    let message = answer["error"]["message"].as_str().unwrap();
    assert!(message.contains("at most 50") && message.contains("has 51"), "{message}");
    let after = crate::helpers::metric(&svc.metrics().await, "text_browser_sessions_created_total").unwrap_or(0.0);
    assert_eq!(after, before, "no call of the batch ran");
    // 50 is fine.
    let fifty: Vec<(&str, Value)> = (0..50).map(|_| ("rpc.discover", json!({}))).collect();
    assert!(batch(svc, &fifty).await.iter().all(|a| kind(a) == "ok"));
}

/// How many tokens a bucket of `per_minute` may have gained back since `since`.
fn refilled(per_minute: u64, since: std::time::Instant) -> usize {
    (since.elapsed().as_secs() * per_minute / 60) as usize
}

#[tokio::test]
async fn each_call_of_a_batch_counts_against_the_rate_limit() {
    let svc = Instance::start(&[("RATE_LIMIT_MAX", "3")]);
    let started = std::time::Instant::now();
    let calls: Vec<(&str, Value)> = (0..10).map(|_| ("rpc.discover", json!({}))).collect();
    let answers = batch(&svc, &calls).await;
    let ok = answers.iter().filter(|a| kind(a) == "ok").count();
    let limited: Vec<&Value> = answers.iter().filter(|a| kind(a) == "rate_limited").collect();
    assert_eq!(ok + limited.len(), 10, "{answers:?}");
    assert!((3..=3 + refilled(3, started)).contains(&ok), "3 calls a minute, 10 in one batch: {ok} ran");
    assert_eq!(limited[0]["error"]["code"], -32022);
    assert!(limited[0]["error"]["data"]["retryAfter"].as_u64().is_some_and(|s| s >= 1), "{}", limited[0]);
    // The bucket is empty: the next request is refused at the door.
    let next = svc.post(json!({ "jsonrpc": "2.0", "id": 1, "method": "rpc.discover" }).to_string()).await;
    assert_eq!(next.status(), 429);
}

#[tokio::test]
async fn websocket_calls_are_rate_limited_like_posts() {
    let svc = Instance::start(&[("RATE_LIMIT_MAX", "3")]);
    let started = std::time::Instant::now();
    let ws_url = format!("{}?api_key={API_KEY}", svc.rpc_url().replace("http://", "ws://"));
    let (mut ws, _) = async_tungstenite::tokio::connect_async(ws_url).await.expect("upgrade accepted");
    for id in 0..10 {
        let call = json!({ "jsonrpc": "2.0", "id": id, "method": "rpc.discover" });
        ws.send(Message::text(call.to_string())).await.unwrap();
    }
    let mut kinds = Vec::new();
    while kinds.len() < 10 {
        let message = tokio::time::timeout(Duration::from_secs(30), ws.next()).await.expect("answered in time");
        let answer: Value = serde_json::from_str(message.unwrap().unwrap().to_text().unwrap()).unwrap();
        kinds.push(kind(&answer).to_owned());
    }
    let ok = kinds.iter().filter(|k| *k == "ok").count();
    assert_eq!(ok + kinds.iter().filter(|k| *k == "rate_limited").count(), 10, "{kinds:?}");
    assert!((3..=3 + refilled(3, started)).contains(&ok), "the upgrade and 2 more calls fit in 3 a minute: {kinds:?}");
    // A subscription is a call too.
    let subscribe =
        json!({ "jsonrpc": "2.0", "id": 99, "method": "events.subscribe", "params": { "session_id": "x" } });
    ws.send(Message::text(subscribe.to_string())).await.unwrap();
    let message = tokio::time::timeout(Duration::from_secs(30), ws.next()).await.expect("answered in time");
    let answer: Value = serde_json::from_str(message.unwrap().unwrap().to_text().unwrap()).unwrap();
    assert_eq!(kind(&answer), "rate_limited", "{answer}");
}

/// A run of `x` this long in an answer means an input was echoed past the 200 characters allowed.
fn echoed(answer: &str) -> bool {
    answer.contains(&"x".repeat(250))
}

#[tokio::test]
async fn a_400_kb_method_name_is_answered_at_once_with_a_short_message() {
    let svc = shared();
    let body = json!({ "jsonrpc": "2.0", "id": 1, "method": format!("page.text{}", "x".repeat(400 * 1024)) });
    let body = body.to_string();
    // The quickest of five: a busy machine can hold up one answer, not all of them.
    let mut fastest = Duration::MAX;
    for _ in 0..5 {
        let started = std::time::Instant::now();
        let text = svc.post(body.clone()).await.text().await.unwrap();
        fastest = fastest.min(started.elapsed());
        let answer: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(answer["error"]["code"], -32601, "{}", &text[..text.len().min(500)]);
        assert!(text.len() < 1000 && !echoed(&text), "a short message: {} bytes", text.len());
        assert!(text.contains("(409609 characters)"), "it says how long the name was: {text}");
    }
    assert!(fastest < Duration::from_millis(50), "answered in {fastest:?}");
}

#[tokio::test]
async fn errors_quote_at_most_200_characters_of_any_input() {
    let svc = shared();
    let sid = svc.session().await;
    svc.ok("page.goto", json!({ "session_id": sid, "url": page("/") })).await;
    let long = "x".repeat(400 * 1024);
    for (method, params) in [
        ("page.goto", json!({ "session_id": sid, "url": format!("http://example.com/{long}") })),
        ("page.goto", json!({ "session_id": sid, "url": format!("{long}:nothing") })),
        ("page.click", json!({ "session_id": sid, "selector": format!("#{long}"), "timeout": 200 })),
        (
            "page.click",
            json!({ "session_id": sid, "selector": format!("role=button[name=\"{long}\"]"), "timeout": 200 }),
        ),
        ("page.text", json!({ "session_id": long })),
        ("page.text", json!({ "session_id": sid, long.clone(): 1 })),
        ("page.text", json!({ "session_id": sid, "maxChars": long })),
        ("assert.text", json!({ "session_id": sid, "text": long, "timeout": 200 })),
        ("session.run", json!({ "session_id": sid, "steps": [{ "method": long }] })),
        ("session.create", json!({ "proxy": { "server": format!("http://{long}:1") } })),
    ] {
        let request = json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params });
        let answer = svc.post(request.to_string()).await.text().await.unwrap();
        let parsed: Value = serde_json::from_str(&answer).unwrap();
        assert!(parsed.get("error").is_some(), "{method}: {}", &answer[..answer.len().min(300)]);
        assert!(!echoed(&answer) && answer.len() < 8 * 1024, "{method}: {} bytes echoed", answer.len());
    }
}

/// Reads from `stream` until the service closes it; what it sent.
async fn until_closed(stream: &mut tokio::net::TcpStream) -> String {
    use tokio::io::AsyncReadExt;
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer).await;
    String::from_utf8_lossy(&answer).into_owned()
}

#[tokio::test]
async fn a_connection_that_sends_part_of_its_headers_is_closed_at_the_read_timeout() {
    use tokio::io::AsyncWriteExt;
    let svc = Instance::start(&[("READ_TIMEOUT_MS", "1500")]);
    let addr = svc.base.trim_start_matches("http://").to_owned();
    let started = std::time::Instant::now();
    let mut slow = tokio::net::TcpStream::connect(&addr).await.unwrap();
    slow.write_all(b"POST /rpc HTTP/1.1\r\nhost: x\r\ncontent-type: appl").await.unwrap();
    let mut silent = tokio::net::TcpStream::connect(&addr).await.unwrap();
    let closed = tokio::time::timeout(Duration::from_secs(20), async {
        until_closed(&mut slow).await;
        until_closed(&mut silent).await;
    })
    .await;
    let after = started.elapsed();
    assert!(closed.is_ok(), "still open after 20 s");
    assert!(after >= Duration::from_millis(1400), "closed by the deadline, not at once: {after:?}");
}

#[tokio::test]
async fn a_body_that_stalls_is_refused_with_408_at_the_read_timeout() {
    use tokio::io::AsyncWriteExt;
    let svc = Instance::start(&[("READ_TIMEOUT_MS", "1500")]);
    let addr = svc.base.trim_start_matches("http://").to_owned();
    let mut stream = tokio::net::TcpStream::connect(&addr).await.unwrap();
    let head = format!(
        "POST /rpc HTTP/1.1\r\nhost: {addr}\r\nx-api-key: {API_KEY}\r\ncontent-type: application/json\r\n\
         content-length: 100\r\n\r\n{{\"jsonrpc\":"
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let started = std::time::Instant::now();
    let answer = tokio::time::timeout(Duration::from_secs(20), until_closed(&mut stream)).await.expect("answered");
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("READ_TIMEOUT_MS"), "{answer}");
    assert!(started.elapsed() >= Duration::from_millis(1400), "{:?}", started.elapsed());
}

#[tokio::test]
async fn connections_that_have_not_authenticated_are_capped_per_address() {
    use tokio::io::AsyncWriteExt;
    let svc = Instance::start(&[("MAX_UNAUTHENTICATED_CONNECTIONS_PER_IP", "4"), ("READ_TIMEOUT_MS", "60000")]);
    let addr = svc.base.trim_start_matches("http://").to_owned();
    let connect = || tokio::net::TcpStream::connect(addr.clone());
    // Two clients that sent the key on their connection (kept open): they do not count.
    let request = format!(
        "POST /rpc HTTP/1.1\r\nhost: {addr}\r\nx-api-key: {API_KEY}\r\ncontent-type: application/json\r\n\
         content-length: 47\r\n\r\n{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"rpc.discover\"}}"
    );
    let mut known = Vec::new();
    for _ in 0..2 {
        let mut stream = connect().await.unwrap();
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut head = [0u8; 12];
        tokio::io::AsyncReadExt::read_exact(&mut stream, &mut head).await.unwrap();
        assert_eq!(&head, b"HTTP/1.1 200");
        known.push(stream);
    }
    // Four silent ones fill the cap; the fifth is closed at once, long before the read timeout.
    let mut silent = Vec::new();
    for _ in 0..4 {
        silent.push(connect().await.unwrap());
    }
    let mut fifth = connect().await.unwrap();
    let closed = tokio::time::timeout(Duration::from_secs(10), until_closed(&mut fifth)).await;
    assert_eq!(closed.ok().as_deref(), Some(""), "the fifth unauthenticated connection is closed unanswered");
    drop(silent);
    // With the silent ones gone, a client connects again.
    crate::helpers::eventually(Duration::from_secs(20), "a new connection once the silent ones closed", || async {
        let answer = reqwest::Client::new()
            .post(svc.rpc_url())
            .header("x-api-key", API_KEY)
            .header("content-type", "application/json")
            .body(json!({ "jsonrpc": "2.0", "id": 1, "method": "rpc.discover" }).to_string())
            .send()
            .await;
        answer.ok().filter(|r| r.status() == 200).map(|_| ())
    })
    .await;
    let metrics = svc.metrics().await;
    assert!(
        crate::helpers::metric(&metrics, "text_browser_http_rejected_total{status=\"connection_cap\"}") >= Some(1.0),
        "counted: {metrics}"
    );
    drop(known);
}
