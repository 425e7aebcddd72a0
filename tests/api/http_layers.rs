//! The HTTP side: API key, body cap, rate limit, health, metrics, request ids, WebSocket.

use std::time::Duration;

use async_tungstenite::tungstenite::Message;
use futures_util::StreamExt;
use serde_json::{Value, json};

use crate::helpers::{API_KEY, Instance, eventually, metric, shared};

async fn post_with_key(key: Option<&str>) -> reqwest::Response {
    let mut request = reqwest::Client::new()
        .post(shared().rpc_url())
        .header("content-type", "application/json")
        .body(json!({ "jsonrpc": "2.0", "id": 1, "method": "rpc.discover" }).to_string());
    if let Some(key) = key {
        request = request.header("x-api-key", key);
    }
    request.send().await.unwrap()
}

#[tokio::test]
async fn missing_api_key_is_401_with_a_json_body() {
    let response = post_with_key(None).await;
    assert_eq!(response.status(), 401);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"]["data"]["kind"], "unauthorized");
    assert!(body["error"]["message"].as_str().unwrap().contains("x-api-key"));
}

#[tokio::test]
async fn wrong_api_key_is_401() {
    let response = post_with_key(Some("not-the-key")).await;
    assert_eq!(response.status(), 401);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"]["data"]["kind"], "unauthorized");
    assert!(!body.to_string().contains(API_KEY), "the real key is never echoed");
}

#[tokio::test]
async fn right_api_key_is_served() {
    let response = post_with_key(Some(API_KEY)).await;
    assert_eq!(response.status(), 200);
}

#[tokio::test]
async fn healthz_needs_no_key() {
    let response = reqwest::get(format!("{}/healthz", shared().base)).await.unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.json::<Value>().await.unwrap()["ok"], true);
}

#[tokio::test]
async fn metrics_count_calls_by_method_and_outcome() {
    let svc = shared();
    svc.err("page.text", json!({ "session_id": "missing" })).await;
    let text = svc.metrics().await;
    let n = metric(&text, "text_browser_rpc_requests_total{method=\"page.text\",outcome=\"session_not_found\"}");
    assert!(n.unwrap_or(0.0) >= 1.0, "{text}");
    assert!(text.contains("text_browser_rpc_duration_seconds_bucket{method=\"page.text\""));
    assert!(text.contains("text_browser_sessions_open"));
}

#[tokio::test]
async fn body_over_the_cap_is_413() {
    let svc = Instance::start(&[("MAX_BODY_BYTES", "2048")]);
    let big = json!({ "jsonrpc": "2.0", "id": 1, "method": "page.evaluate",
                      "params": { "session_id": "x", "expression": "x".repeat(4096) } })
    .to_string();
    let response = svc.post(big.clone()).await;
    assert_eq!(response.status(), 413);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"]["data"]["kind"], "payload_too_large");

    // The same body sent chunked (no Content-Length) is refused the same way, not with a 500.
    let chunks: Vec<Result<String, std::io::Error>> =
        big.as_bytes().chunks(512).map(|c| Ok(String::from_utf8(c.to_vec()).unwrap())).collect();
    let response = svc.post(reqwest::Body::wrap_stream(futures_util::stream::iter(chunks))).await;
    assert_eq!(response.status(), 413);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"]["data"]["kind"], "payload_too_large");
    assert!(metric(&svc.metrics().await, "text_browser_http_rejected_total{status=\"413\"}").unwrap() >= 2.0);
}

#[tokio::test]
async fn requests_over_the_rate_limit_get_429_with_retry_after() {
    let svc = Instance::start(&[("RATE_LIMIT_MAX", "3")]);
    let mut statuses = Vec::new();
    for _ in 0..5 {
        let response = svc.post(json!({ "jsonrpc": "2.0", "id": 1, "method": "rpc.discover" }).to_string()).await;
        statuses.push(response.status().as_u16());
        if response.status() == 429 {
            assert!(response.headers().get("retry-after").is_some());
            let body: Value = response.json().await.unwrap();
            assert_eq!(body["error"]["data"]["kind"], "rate_limited");
        }
    }
    assert_eq!(&statuses[..3], &[200, 200, 200], "{statuses:?}");
    assert!(statuses[3..].iter().all(|s| *s == 429), "{statuses:?}");
    // Health checks are not rate limited.
    let health = reqwest::get(format!("{}/healthz", svc.base)).await.unwrap();
    assert_eq!(health.status(), 200);
}

#[tokio::test]
async fn responses_carry_a_request_id_and_no_store() {
    let response = post_with_key(Some(API_KEY)).await;
    assert!(response.headers().get("x-request-id").is_some());
    assert_eq!(response.headers()["cache-control"], "no-store");
    let response = reqwest::Client::new()
        .get(format!("{}/healthz", shared().base))
        .header("x-request-id", "my-trace-123")
        .send()
        .await
        .unwrap();
    assert_eq!(response.headers()["x-request-id"], "my-trace-123");
}

#[tokio::test]
async fn websocket_on_rpc_serves_calls_with_the_key_in_the_query() {
    let svc = shared();
    let ws_url = format!("{}?api_key={API_KEY}", svc.rpc_url().replace("http://", "ws://"));
    let (mut ws, _) = async_tungstenite::tokio::connect_async(ws_url).await.expect("upgrade accepted");
    ws.send(Message::text(json!({ "jsonrpc": "2.0", "id": 7, "method": "session.create", "params": {} }).to_string()))
        .await
        .unwrap();
    let answer = tokio::time::timeout(Duration::from_secs(30), ws.next()).await.unwrap().unwrap().unwrap();
    let answer: Value = serde_json::from_str(answer.to_text().unwrap()).unwrap();
    assert_eq!(answer["id"], 7);
    let sid = answer["result"]["session_id"].as_str().expect("a session id").to_owned();
    ws.send(Message::text(
        json!({ "jsonrpc": "2.0", "id": 8, "method": "session.close", "params": { "session_id": sid } }).to_string(),
    ))
    .await
    .unwrap();
    let answer = tokio::time::timeout(Duration::from_secs(30), ws.next()).await.unwrap().unwrap().unwrap();
    assert_eq!(serde_json::from_str::<Value>(answer.to_text().unwrap()).unwrap()["result"]["ok"], true);
}

#[tokio::test]
async fn websocket_without_the_key_is_refused() {
    let ws_url = shared().rpc_url().replace("http://", "ws://");
    let refused = async_tungstenite::tokio::connect_async(ws_url).await;
    assert!(refused.is_err(), "the upgrade must be refused without a key");
}

#[tokio::test]
async fn logs_are_json_lines_and_never_contain_the_api_key() {
    let svc = shared();
    let sid = svc.session().await;
    svc.ok("page.goto", json!({ "session_id": sid, "url": crate::helpers::page("/"), "waitUntil": "load" })).await;
    let _ = post_with_key(Some("wrong-key")).await;
    let logs = svc.logs();
    assert!(!logs.is_empty());
    assert!(!logs.contains(API_KEY), "the API key appeared in the service's output");
    for line in logs.lines() {
        let entry: Value = serde_json::from_str(line).unwrap_or_else(|_| panic!("not a JSON log line: {line}"));
        // This test's own calls' lines (the shared service also logs other tests' calls over /mcp,
        // which the MCP server runs in a task of its own, outside the request's span): the call's
        // line names its request, and lines written while a request is handled carry its id too.
        let own = entry["session_id"] == sid.to_string();
        if own && entry["message"] == "rpc" {
            assert!(entry["request_id"].as_str().is_some_and(|id| !id.is_empty()), "{line}");
            assert!(entry["method"].is_string() && entry["outcome"].is_string(), "{line}");
        }
        if own && (entry["message"] == "session created" || entry["message"] == "rpc") {
            assert!(entry["span"]["request_id"].as_str().is_some_and(|id| !id.is_empty()), "{line}");
        }
    }
    assert!(logs.lines().any(|l| l.contains("\"session created\"")), "a session was created in this log");
}

#[tokio::test]
async fn a_request_s_own_id_follows_it_into_the_log() {
    let svc = shared();
    let response = reqwest::Client::new()
        .post(svc.rpc_url())
        .header("x-api-key", API_KEY)
        .header("x-request-id", "trace-me-4711")
        .header("content-type", "application/json")
        .body(json!({ "jsonrpc": "2.0", "id": 1, "method": "session.create", "params": {} }).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(response.headers()["x-request-id"], "trace-me-4711");
    // The service's log reaches the test through a pipe a reader thread drains: poll for it.
    eventually(Duration::from_secs(20), "both log lines of the request", || async {
        let logs = svc.logs();
        let mine: Vec<&str> = logs.lines().filter(|l| l.contains("trace-me-4711")).collect();
        let created = mine.iter().any(|l| l.contains("\"session created\""));
        (created && mine.iter().any(|l| l.contains("\"message\":\"rpc\""))).then_some(())
    })
    .await;
}
