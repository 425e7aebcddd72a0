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
    let logs = svc.logs();
    let panics: Vec<&str> = logs.lines().filter(|l| l.contains("\"panic\"")).collect();
    assert!(!panics.is_empty(), "the panic is logged");
    for line in panics {
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
        if !name.ends_with(".rs") || NOT_A_REQUEST_PATH.iter().any(|p| name.starts_with(p)) {
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
