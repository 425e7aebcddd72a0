//! Three replicas on one machine, named to each other with PEERS: a session lives on the replica
//! that created it, and any replica answers for it by forwarding the call there.

use std::time::{Duration, Instant};

use async_tungstenite::tungstenite::Message;
use futures_util::StreamExt;
use serde_json::{Value, json};

use crate::egress::Internal;
use crate::helpers::{API_KEY, Instance, RpcError, metric, page};
use text_browser::replica::{PeerSecret, Signed};

/// The PEER_SECRET the replicas of these tests share.
const PEER_SECRET: &str = "peers-only-0123456789";

/// Ports for `n` services, taken from the OS and let go again just before the services bind them.
fn free_ports(n: usize) -> Vec<u16> {
    let listeners: Vec<_> = (0..n).map(|_| std::net::TcpListener::bind("127.0.0.1:0").unwrap()).collect();
    listeners.iter().map(|l| l.local_addr().unwrap().port()).collect()
}

/// Replicas `tb-0`, `tb-1`, `tb-2`, each knowing the others by PEERS; `extra[i]` adds settings to
/// replica `i`.
fn start_replicas(extra: [&[(&str, &str)]; 3]) -> Vec<Instance> {
    let ports = free_ports(3);
    let peers: Vec<String> = ports.iter().enumerate().map(|(i, p)| format!("tb-{i}=http://127.0.0.1:{p}")).collect();
    let peers = peers.join(",");
    (0..3)
        .map(|i| {
            let (name, port) = (format!("tb-{i}"), ports[i].to_string());
            let mut env = vec![
                ("REPLICA_ID", name.as_str()),
                ("PEERS", peers.as_str()),
                ("PORT", port.as_str()),
                ("PEER_SECRET", PEER_SECRET),
            ];
            env.extend_from_slice(extra[i]);
            Instance::start(&env)
        })
        .collect()
}

async fn ws_call(base: &str, request: Value) -> Value {
    let url = format!("{}/rpc?api_key={API_KEY}", base.replace("http://", "ws://"));
    let (mut ws, _) = async_tungstenite::tokio::connect_async(url).await.expect("upgrade accepted");
    ws.send(Message::text(request.to_string())).await.unwrap();
    loop {
        let message =
            tokio::time::timeout(Duration::from_secs(30), ws.next()).await.expect("an answer").unwrap().unwrap();
        if let Message::Text(text) = message {
            return serde_json::from_str(&text).unwrap();
        }
    }
}

/// POSTs an MCP message to `base`'s /mcp in MCP session `session`; the status, the session id the
/// answer names, and the JSON-RPC answer (from a JSON body or the event stream's data lines).
async fn mcp(base: &str, session: Option<&str>, message: Value) -> (u16, Option<String>, Value) {
    let mut request = reqwest::Client::new()
        .post(format!("{base}/mcp"))
        .header("x-api-key", API_KEY)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .body(message.to_string());
    if let Some(session) = session {
        request = request.header("mcp-session-id", session);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let id = response.headers().get("mcp-session-id").map(|v| v.to_str().unwrap().to_owned());
    let text = response.text().await.unwrap();
    let answer = text
        .lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .chain(std::iter::once(text.as_str()))
        .find_map(|data| serde_json::from_str::<Value>(data.trim()).ok().filter(|v| v.get("jsonrpc").is_some()))
        .unwrap_or(Value::Null);
    (status, id, answer)
}

fn forwarded(metrics: &str, transport: &str, outcome: &str) -> f64 {
    let name = format!("text_browser_forwarded_calls_total{{outcome=\"{outcome}\",transport=\"{transport}\"}}");
    metric(metrics, &name).unwrap_or_else(|| panic!("{name} is exported:\n{metrics}"))
}

/// A batch whose calls belong to different replicas: each call goes to its owner, answered in order.
/// Answers the other session, on replica 2.
async fn batch_to_owners(r1: &Instance, r2: &Instance, sid: &str) -> String {
    let other = r2.ok("session.create", json!({})).await["session_id"].as_str().unwrap().to_owned();
    assert!(other.starts_with("tb-2."), "{other}");
    let batch = json!([
        { "jsonrpc": "2.0", "id": "a", "method": "page.goto", "params": { "session_id": other, "url": page("/") } },
        { "jsonrpc": "2.0", "id": "b", "method": "page.text", "params": { "session_id": sid, "selector": "h1" } },
        { "jsonrpc": "2.0", "id": "c", "method": "page.text", "params": { "session_id": "tb-0.nosuchsession" } },
    ]);
    let answers: Value = r1.post(batch.to_string()).await.json().await.unwrap();
    assert_eq!(answers[0]["id"], "a", "{answers}");
    assert_eq!(answers[0]["result"]["url"], page("/"), "{answers}");
    assert_eq!(answers[1]["result"]["text"], "Projects", "{answers}");
    assert_eq!(answers[2]["error"]["data"]["kind"], "session_not_found", "{answers}");
    other
}

/// Over a WebSocket: calls are forwarded too; a subscription is refused, naming the owner's URL.
async fn websocket_to_owner(r0: &Instance, r1: &Instance, r2: &Instance, sid: &str) {
    let text =
        json!({ "jsonrpc": "2.0", "id": 7, "method": "page.text", "params": { "session_id": sid, "selector": "h1" } });
    assert_eq!(ws_call(&r2.base, text).await["result"]["text"], "Projects");
    let subscribe = json!({ "jsonrpc": "2.0", "id": 8, "method": "events.subscribe", "params": { "session_id": sid } });
    let refused = ws_call(&r1.base, subscribe.clone()).await;
    assert_eq!(refused["error"]["data"]["kind"], "wrong_replica", "{refused}");
    assert_eq!(refused["error"]["data"]["owner"], "tb-0", "{refused}");
    assert_eq!(refused["error"]["data"]["ownerUrl"], r0.base, "{refused}");
    let at_owner = ws_call(&r0.base, subscribe).await;
    assert!(at_owner["result"].is_string() || at_owner["result"].is_u64(), "the owner streams it: {at_owner}");
}

/// An MCP session begun on replica 0 is driven through the others: its requests go to replica 0.
/// Answers the MCP session's id.
async fn mcp_through_others(r0: &Instance, r1: &Instance, r2: &Instance) -> String {
    let init = json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "probe", "version": "1" } } });
    let (status, mcp_session, _) = mcp(&r0.base, None, init).await;
    assert_eq!(status, 200);
    let mcp_session = mcp_session.expect("an MCP session id");
    assert!(mcp_session.starts_with("tb-0."), "the MCP session names its replica: {mcp_session}");
    let initialized = json!({ "jsonrpc": "2.0", "method": "notifications/initialized" });
    assert_eq!(mcp(&r1.base, Some(&mcp_session), initialized).await.0, 202);
    let navigate = json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": { "name": "navigate", "arguments": { "url": page("/projects") } } });
    let (status, _, went) = mcp(&r1.base, Some(&mcp_session), navigate).await;
    assert_eq!(status, 200, "{went}");
    assert_eq!(went["result"]["isError"], false, "{went}");
    let heading = json!({ "jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": { "name": "text", "arguments": { "selector": "h1" } } });
    let (_, _, read) = mcp(&r2.base, Some(&mcp_session), heading).await;
    assert!(read["result"].to_string().contains("Projects"), "{read}");
    mcp_session
}

#[tokio::test]
async fn any_replica_drives_a_session_of_another_with_the_same_answers_until_the_owner_stops() {
    // Replica 0 allows few requests a minute: calls forwarded to it must not count against it.
    let replicas = start_replicas([&[("RATE_LIMIT_MAX", "8")], &[], &[("MAX_SESSIONS", "2"), ("WARM_SESSIONS", "0")]]);
    let (r0, r1, r2) = (&replicas[0], &replicas[1], &replicas[2]);

    let sid = r0.ok("session.create", json!({})).await["session_id"].as_str().unwrap().to_owned();
    assert!(sid.starts_with("tb-0."), "the id names its replica: {sid}");

    // goto through 1, click and fill through 2, read through each: one session, one page.
    let went = r1.ok("page.goto", json!({ "session_id": sid, "url": page("/projects") })).await;
    assert_eq!(went["title"], "Projects", "{went}");
    r2.ok("page.click", json!({ "session_id": sid, "selector": "text=New Project" })).await;
    let name = json!({ "session_id": sid, "selector": "role=textbox[name=\"Project name\"]", "value": "Zephyr" });
    r2.ok("page.fill", name).await;
    let read = json!({ "session_id": sid, "selector": "body" });
    let answers = [
        r0.ok("page.text", read.clone()).await,
        r1.ok("page.text", read.clone()).await,
        r2.ok("page.text", read).await,
    ];
    assert!(answers[0]["text"].as_str().unwrap().contains("New project: Zephyr"), "{}", answers[0]);
    assert_eq!(answers[0], answers[1], "replica 1 relays replica 0's answer");
    assert_eq!(answers[0], answers[2], "replica 2 relays replica 0's answer");
    // Errors come back as the owner gave them, kind, remediation and evidence included.
    let missing = json!({ "session_id": sid, "selector": "#nothing-here", "timeout": 300 });
    let (direct, relayed) = (r0.err("page.click", missing.clone()).await, r1.err("page.click", missing).await);
    assert_eq!((direct.code, direct.kind()), (relayed.code, relayed.kind()), "{relayed:?}");
    assert_eq!(relayed.data["evidence"]["url"], went["url"], "{relayed:?}");

    let other = batch_to_owners(r1, r2, &sid).await;

    websocket_to_owner(r0, r1, r2, &sid).await;

    let mcp_session = mcp_through_others(r0, r1, r2).await;

    // Forwarded calls are counted where they were forwarded, and skipped the owner's rate limit:
    // replica 0 took far more than its 8 a minute through the others.
    let m1 = r1.metrics().await;
    assert!(forwarded(&m1, "rpc", "ok") >= 3.0, "{m1}");
    assert_eq!(forwarded(&m1, "rpc", "error"), 2.0, "the click that failed and the unknown session");
    assert_eq!(forwarded(&m1, "subscription", "wrong_replica"), 1.0);
    assert_eq!(forwarded(&m1, "mcp", "ok"), 2.0, "initialized and navigate");
    let m0 = r0.metrics().await;
    assert_eq!(forwarded(&m0, "rpc", "ok"), 0.0, "replica 0 owns them all");
    // page.text ran on replica 0 six times: directly, forwarded by 1 and 2, in the batch, over the
    // WebSocket and as the MCP text tool.
    let texts = metric(&m0, "text_browser_rpc_requests_total{method=\"page.text\",outcome=\"ok\"}");
    assert_eq!(texts, Some(6.0), "{m0}");
    let mut limited = false;
    for _ in 0..12 {
        if let Err(RpcError { data, .. }) = r0.call("page.text", json!({ "session_id": sid, "selector": "h1" })).await
            && data["kind"] == "rate_limited"
        {
            limited = true;
            break;
        }
    }
    assert!(limited, "replica 0's own clients are still limited");

    // /readyz says no when the replica has no free slot, so the Service sends creates elsewhere.
    let http = reqwest::Client::new();
    let ready = |base: &str| http.get(format!("{base}/readyz")).send();
    assert_eq!(ready(&r2.base).await.unwrap().status(), 200, "one of two slots is free");
    let third = r2.ok("session.create", json!({})).await["session_id"].as_str().unwrap().to_owned();
    let full = ready(&r2.base).await.unwrap();
    assert_eq!(full.status(), 503);
    assert_eq!(full.json::<Value>().await.unwrap()["sessions_open"], 2);
    r1.ok("session.close", json!({ "session_id": third })).await;
    assert_eq!(ready(&r2.base).await.unwrap().status(), 200, "a close through replica 1 freed the slot");

    // The owner stops: its sessions are gone, and the others say so at once.
    let r0_base = r0.base.clone();
    let mut replicas = replicas;
    drop(replicas.remove(0));
    let (r1, r2) = (&replicas[0], &replicas[1]);
    for replica in [r1, r2] {
        let started = Instant::now();
        let err = replica.err("page.text", json!({ "session_id": sid })).await;
        assert!(started.elapsed() < Duration::from_secs(2), "answered in {:?}", started.elapsed());
        assert_eq!(err.kind(), "replica_unavailable", "{err:?}");
        assert_eq!((err.data["owner"].as_str(), err.data["ownerUrl"].as_str()), (Some("tb-0"), Some(r0_base.as_str())));
        assert!(err.data["remediation"].as_str().unwrap().contains("session.create"), "{err:?}");
    }
    assert_eq!(forwarded(&r2.metrics().await, "rpc", "replica_unavailable"), 1.0);
    let ping = json!({ "jsonrpc": "2.0", "id": 4, "method": "ping" });
    let (status, _, refused) = mcp(&r1.base, Some(&mcp_session), ping).await;
    assert_eq!((status, refused["error"]["data"]["kind"].as_str()), (503, Some("replica_unavailable")), "{refused}");
    // Replica 2's own session still works.
    assert_eq!(r2.ok("page.text", json!({ "session_id": other, "selector": "h1" })).await["text"], "Fixtures Home");
}

/// POSTs a JSON-RPC `body` to `base`'s /rpc with the API key and `headers`; the answer.
async fn post_with(base: &str, body: &Value, headers: &[(&str, String)]) -> Value {
    let mut request = reqwest::Client::new()
        .post(format!("{base}/rpc"))
        .header("x-api-key", API_KEY)
        .header("content-type", "application/json");
    for (name, value) in headers {
        request = request.header(*name, value);
    }
    request.body(body.to_string()).send().await.unwrap().json().await.unwrap()
}

#[tokio::test]
async fn an_id_naming_no_known_replica_is_not_found_and_a_call_sent_back_with_a_peers_proof_is_wrong_replica() {
    let svc =
        Instance::start(&[("REPLICA_ID", "tb-5"), ("PEERS", "tb-6=http://127.0.0.1:9"), ("PEER_SECRET", PEER_SECRET)]);
    let err = svc.err("page.text", json!({ "session_id": "tb-7.0123456789abcdef" })).await;
    assert_eq!(err.kind(), "session_not_found", "tb-7 is no replica this one knows: {err:?}");
    // A call a peer forwarded (its proof made with PEER_SECRET) is never forwarded again.
    let body = json!({ "jsonrpc": "2.0", "id": 1, "method": "page.text", "params": { "session_id": "tb-6.00ff" } });
    let text = body.to_string();
    let proof =
        PeerSecret::new(PEER_SECRET).sign("tb-6", Signed { method: "POST", path: "/rpc", body: text.as_bytes() });
    let headers = [("x-text-browser-forwarded-by", "tb-6".to_owned()), ("x-text-browser-peer-proof", proof)];
    let answer = post_with(&svc.base, &body, &headers).await;
    assert_eq!(answer["error"]["data"]["kind"], "wrong_replica", "{answer}");
    assert_eq!(answer["error"]["data"]["ownerUrl"], "http://127.0.0.1:9", "{answer}");
    // Without REPLICA_ID nothing changes: bare ids, no forwarding.
    let plain = Instance::start(&[]);
    let sid = plain.ok("session.create", json!({})).await["session_id"].as_str().unwrap().to_owned();
    assert!(!sid.contains('.'), "{sid}");
    let err = plain.err("page.text", json!({ "session_id": "tb-6.00ff" })).await;
    assert_eq!(err.kind(), "session_not_found", "{err:?}");
}

/// Sends `request` as it is (raw bytes, so a path keeps its `../`) to `base` and reads the answer's
/// status line.
async fn raw_status(base: &str, request: String) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(base.trim_start_matches("http://")).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut answer = vec![0u8; 512];
    let n = tokio::time::timeout(Duration::from_secs(30), stream.read(&mut answer)).await.unwrap().unwrap();
    String::from_utf8_lossy(&answer[..n]).lines().next().unwrap_or_default().to_owned()
}

#[tokio::test]
async fn session_and_mcp_ids_that_name_a_host_reach_nothing() {
    // With a template, a replica name becomes a host name: an id of the caller's must never pick
    // one. 127.0.0.2 (outside every allow-list) records what reaches it; the names below all
    // resolve there.
    let internal = Internal::start().await;
    let port = internal.addr.rsplit(':').next().unwrap().to_owned();
    let template = format!("http://{{replica}}:{port}");
    let svc = Instance::start(&[
        ("REPLICA_ID", "tb-2"),
        ("PEER_URL_TEMPLATE", template.as_str()),
        ("REPLICA_COUNT", "3"),
        ("PEER_SECRET", PEER_SECRET),
    ]);
    let hosts = ["2130706434", "0x7f000002", "017700000002"];
    for host in hosts {
        let err = svc.err("page.text", json!({ "session_id": format!("{host}.x"), "timeout": 2000 })).await;
        assert_eq!(err.kind(), "session_not_found", "{host}: {err:?}");
        let init = json!({ "jsonrpc": "2.0", "id": 1, "method": "ping" });
        let (status, _, answer) = mcp(&svc.base, Some(&format!("{host}.abc")), init).await;
        assert!(status == 404 || status == 400, "{host}: HTTP {status} {answer}");
    }
    let addr = svc.base.trim_start_matches("http://").to_owned();
    for (method, path) in [("GET", "/mcp"), ("DELETE", "/mcp"), ("POST", "/mcp/../rpc"), ("POST", "/mcp/x?y=1")] {
        let body = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
        let request = format!(
            "{method} {path} HTTP/1.1\r\nhost: {addr}\r\nx-api-key: {API_KEY}\r\ncontent-type: application/json\r\n\
             accept: application/json, text/event-stream\r\nmcp-session-id: 0x7f000002.abc\r\n\
             content-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        );
        let status = raw_status(&svc.base, request).await;
        assert!(!status.contains(" 200 ") && !status.contains(" 503 "), "{method} {path}: {status}");
    }
    assert_eq!(internal.hits(), 0, "a session or MCP session id made the replica connect to 127.0.0.2");
    let metrics = svc.metrics().await;
    for transport in ["rpc", "mcp"] {
        for outcome in ["ok", "error", "replica_unavailable"] {
            assert_eq!(forwarded(&metrics, transport, outcome), 0.0, "{transport} {outcome}");
        }
    }
}

#[tokio::test]
async fn the_forwarded_marker_without_a_peers_proof_is_any_callers() {
    let svc = Instance::start(&[
        ("REPLICA_ID", "tb-5"),
        ("PEERS", "tb-6=http://127.0.0.1:9"),
        ("PEER_SECRET", PEER_SECRET),
        ("RATE_LIMIT_MAX", "6"),
    ]);
    // Another key holder claims to be replica tb-6, with no proof or a made-up one.
    let claims = [
        vec![("x-text-browser-forwarded-by", "tb-6".to_owned())],
        vec![("x-text-browser-forwarded-by", "tb-6".to_owned()), ("x-text-browser-peer-proof", "1.AAAA".to_owned())],
    ];
    // Its call for tb-6's session is forwarded like anyone's (not refused as sent back).
    let call = json!({ "jsonrpc": "2.0", "id": 1, "method": "page.text", "params": { "session_id": "tb-6.00ff" } });
    let answer = post_with(&svc.base, &call, &claims[0]).await;
    assert_eq!(answer["error"]["data"]["kind"], "replica_unavailable", "{answer}");
    // And the rate limit counts its calls, single and batched.
    let cheap = json!({ "jsonrpc": "2.0", "id": 1, "method": "page.text", "params": { "session_id": "nosuch" } });
    let mut limited = 0;
    for i in 0..20 {
        let answer = post_with(&svc.base, &cheap, &claims[i % 2]).await;
        limited += usize::from(answer["error"]["data"]["kind"] == "rate_limited");
    }
    assert!(limited >= 10, "only {limited} of 20 calls claiming a peer were rate limited");
    let batch: Vec<Value> = (0..50).map(|_| cheap.clone()).collect();
    let answers = post_with(&svc.base, &Value::Array(batch), &claims[0]).await;
    let refused = match answers.as_array() {
        Some(answers) => answers.iter().filter(|a| a["error"]["data"]["kind"] == "rate_limited").count(),
        None => usize::from(answers["error"]["data"]["kind"] == "rate_limited") * 50,
    };
    assert_eq!(refused, 50, "a batch claiming a peer is limited too: {answers}");
}

#[tokio::test]
async fn a_peer_that_never_answers_gives_replica_unavailable_within_the_calls_timeout() {
    // A peer that accepts connections and then says nothing.
    let silent = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let peers = format!("tb-6=http://{}", silent.local_addr().unwrap());
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((stream, _)) = silent.accept().await {
            held.push(stream);
        }
    });
    let svc = Instance::start(&[
        ("REPLICA_ID", "tb-5"),
        ("PEERS", peers.as_str()),
        ("PEER_SECRET", PEER_SECRET),
        ("MAX_CALL_MS", "30000"),
    ]);
    for timeout in [1000u64, 2500] {
        let started = Instant::now();
        let err = svc.err("page.text", json!({ "session_id": "tb-6.00ff", "timeout": timeout })).await;
        let took = started.elapsed();
        assert_eq!(err.kind(), "replica_unavailable", "{err:?}");
        assert!(took < Duration::from_millis(timeout + 1000), "timeout {timeout} ms: answered after {took:?}");
        assert!(took >= Duration::from_millis(timeout), "the owner had its time: {took:?}");
    }
}
