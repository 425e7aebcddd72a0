//! Nobody locks others out of /rpc: one client's WebSockets are capped, idle ones are closed, and
//! every refusal is in the error contract (JSON-RPC error body with `kind` and `retryAfter`).

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use async_tungstenite::WebSocketStream;
use async_tungstenite::tokio::TokioAdapter;
use async_tungstenite::tungstenite::{Error as WsError, Message};
use futures_util::{Stream, StreamExt};
use serde_json::{Value, json};

use crate::helpers::{API_KEY, Instance, Service, metric, subscribe_on, websocket};

/// A WebSocket from an address of the test's choosing.
type Local = WebSocketStream<TokioAdapter<tokio::net::TcpStream>>;

/// Opens a WebSocket on `svc`'s /rpc from `from` (a loopback address).
async fn open_from(svc: &Service, from: &str) -> Result<Local, WsError> {
    let addr: SocketAddr = svc.base.trim_start_matches("http://").parse().unwrap();
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind(format!("{from}:0").parse().unwrap()).unwrap();
    let stream = socket.connect(addr).await.unwrap();
    let url = format!("ws://{addr}/rpc?api_key={API_KEY}");
    Ok(async_tungstenite::tokio::client_async(url, stream).await?.0)
}

/// The next JSON message on `ws` (within 60 s).
async fn next_json<S: Stream<Item = Result<Message, WsError>> + Unpin>(ws: &mut S) -> Value {
    loop {
        let message = tokio::time::timeout(Duration::from_secs(60), ws.next()).await.expect("a message");
        if let Message::Text(text) = message.expect("the socket is open").expect("a message") {
            return serde_json::from_str(&text).unwrap();
        }
    }
}

/// The JSON body and Retry-After of a refused upgrade.
fn refusal(err: WsError) -> (u16, Value, Option<String>) {
    let WsError::Http(response) = err else { panic!("the upgrade failed without an HTTP answer: {err}") };
    let body = response.body().as_deref().unwrap_or_default();
    let json = serde_json::from_slice(body).unwrap_or_else(|_| {
        panic!("HTTP {} refusal is not JSON: {:?}", response.status(), String::from_utf8_lossy(body))
    });
    let retry = response.headers().get("retry-after").map(|v| v.to_str().unwrap().to_owned());
    (response.status().as_u16(), json, retry)
}

/// POSTs `rpc.discover` from `from`; the status and the time it took.
async fn discover_from(svc: &Service, from: &str) -> (u16, Value, Duration) {
    let client = reqwest::Client::builder().local_address(from.parse::<std::net::IpAddr>().unwrap()).build().unwrap();
    let started = Instant::now();
    let response = client
        .post(svc.rpc_url())
        .header("x-api-key", API_KEY)
        .header("content-type", "application/json")
        .body(json!({ "jsonrpc": "2.0", "id": 1, "method": "rpc.discover" }).to_string())
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    let body = response.json().await.unwrap_or(Value::Null);
    (status, body, started.elapsed())
}

#[tokio::test]
async fn two_hundred_idle_websockets_from_one_client_leave_rpc_answering_for_others() {
    let svc = Instance::start(&[("RATE_LIMIT_MAX", "100000")]);
    let (mut open, mut refused) = (Vec::new(), 0);
    for _ in 0..200 {
        match open_from(&svc, "127.0.0.1").await {
            Ok(ws) => open.push(ws),
            Err(err) => {
                let (status, body, retry) = refusal(err);
                assert_eq!(status, 429, "{body}");
                assert_eq!(body["error"]["data"]["kind"], "rate_limited", "{body}");
                assert!(body["error"]["message"].as_str().unwrap().contains("MAX_WEBSOCKETS_PER_IP"), "{body}");
                assert!(body["error"]["data"]["retryAfter"].as_u64().is_some_and(|s| s >= 1), "{body}");
                assert!(retry.is_some(), "a Retry-After header");
                refused += 1;
            }
        }
    }
    assert_eq!((open.len(), refused), (16, 184), "MAX_WEBSOCKETS_PER_IP (16) sockets, the rest refused");
    // Another client, over HTTP and over a WebSocket, and the same client over HTTP, are answered.
    for from in ["127.0.0.3", "127.0.0.1"] {
        let (status, body, took) = discover_from(&svc, from).await;
        assert_eq!(status, 200, "{from}: {body}");
        assert!(body["result"]["methods"].is_array(), "{from}: {body}");
        eprintln!("with 200 WebSockets tried from 127.0.0.1: rpc.discover from {from} answered in {took:?}");
    }
    let mut other = open_from(&svc, "127.0.0.3").await.expect("another address opens its own WebSocket");
    let call = json!({ "jsonrpc": "2.0", "id": 2, "method": "rpc.discover" });
    other.send(Message::text(call.to_string())).await.unwrap();
    assert!(next_json(&mut other).await["result"]["methods"].is_array());
    let metrics = svc.metrics().await;
    assert_eq!(metric(&metrics, "text_browser_http_rejected_total{status=\"websockets_per_ip\"}"), Some(184.0));
}

#[tokio::test]
async fn past_max_connections_a_request_is_refused_in_the_contract_until_a_socket_closes() {
    let svc = Instance::start(&[("MAX_CONNECTIONS", "3"), ("RATE_LIMIT_MAX", "100000")]);
    let mut open = Vec::new();
    for _ in 0..3 {
        open.push(open_from(&svc, "127.0.0.1").await.expect("three connections fit"));
    }
    let (status, body, retry) = refusal(open_from(&svc, "127.0.0.3").await.expect_err("a fourth is refused"));
    assert_eq!((status, body["error"]["data"]["kind"].as_str()), (503, Some("rate_limited")), "{body}");
    assert!(body["error"]["message"].as_str().unwrap().contains("MAX_CONNECTIONS"), "{body}");
    assert!(retry.is_some());
    let (status, body, _) = discover_from(&svc, "127.0.0.3").await;
    assert_eq!((status, body["error"]["data"]["retryAfter"].as_u64()), (503, Some(5)), "{body}");
    // A socket closes: its place is free again.
    let mut closing = open.pop().unwrap();
    closing.close(None).await.unwrap();
    while closing.next().await.is_some() {}
    let answered = crate::helpers::eventually(Duration::from_secs(20), "a freed place", || async {
        let (status, body, _) = discover_from(&svc, "127.0.0.3").await;
        (status == 200).then_some(body)
    })
    .await;
    assert!(answered["result"]["methods"].is_array());
    let metrics = svc.metrics().await;
    assert!(metric(&metrics, "text_browser_http_rejected_total{status=\"connections\"}").is_some_and(|n| n >= 2.0));
}

/// Waits up to `limit` for `ws` to be closed by the service; how long that took, or None.
async fn closed_within<S: Stream<Item = Result<Message, WsError>> + Unpin>(
    ws: &mut S,
    limit: Duration,
) -> Option<Duration> {
    let started = Instant::now();
    let ended = tokio::time::timeout(limit, async {
        while let Some(Ok(message)) = ws.next().await {
            if message.is_close() {
                break;
            }
        }
    })
    .await;
    ended.ok().map(|()| started.elapsed())
}

#[tokio::test]
async fn an_idle_websocket_is_closed_and_one_running_a_call_or_a_subscription_is_not() {
    let svc = Instance::start(&[("WS_IDLE_TIMEOUT_MS", "1500")]);
    let sid = svc.session().await;
    // The service's idle clock starts once the socket is open, after this.
    let before = Instant::now();
    let mut idle = websocket(&svc).await;
    let mut subscribed = websocket(&svc).await;
    subscribe_on(&mut subscribed, json!({ "session_id": sid })).await;
    let mut calling = websocket(&svc).await;
    // A call that runs 4 s (past the idle time) on the third socket.
    let wait = json!({ "jsonrpc": "2.0", "id": 3, "method": "page.waitFor",
        "params": { "session_id": sid, "selector": "#never-there", "timeout": 4000 } });
    calling.send(Message::text(wait.to_string())).await.unwrap();
    closed_within(&mut idle, Duration::from_secs(30)).await.expect("the idle socket is closed");
    let took = before.elapsed();
    assert!(took >= Duration::from_millis(1500), "closed only once idle: {took:?}");
    let answer = next_json(&mut calling).await;
    assert_eq!(answer["id"], 3, "the call's answer came on its socket: {answer}");
    // The subscribed socket is still open: a call over it is answered.
    let call = json!({ "jsonrpc": "2.0", "id": 4, "method": "page.evaluate",
        "params": { "session_id": sid, "expression": "console.log('still here'); 1" } });
    subscribed.send(Message::text(call.to_string())).await.unwrap();
    let mut answered = false;
    for _ in 0..10 {
        let message = next_json(&mut subscribed).await;
        if message["id"] == 4 {
            answered = message["result"]["result"] == 1;
            break;
        }
    }
    assert!(answered, "the subscribed socket stayed open past WS_IDLE_TIMEOUT_MS");
    // The calling socket, idle since its answer, is closed in its turn.
    assert!(closed_within(&mut calling, Duration::from_secs(30)).await.is_some());
}
