//! Bounded and honest answers: nothing larger than an answer may hold leaves the service (one
//! answer, or a batch's answers together, at most 16 MiB of JSON), and what is refused says why
//! and what to ask instead — on every transport, in the one error contract.

use async_tungstenite::tungstenite::Message;
use serde_json::{Value, json};

use crate::helpers::{API_KEY, SessionGuard, Socket, next_json, page, shared, websocket};

/// A session on a page whose body text is `chars` copies of `ch`.
async fn page_of(ch: char, chars: usize) -> SessionGuard {
    let svc = shared();
    let sid = svc.session().await;
    svc.ok("page.goto", json!({ "session_id": sid, "url": page("/"), "waitUntil": "load" })).await;
    let fill = "(a) => { document.body.textContent = a.ch.repeat(a.n); return document.body.textContent.length; }";
    let made = svc
        .ok(
            "page.evaluate",
            json!({ "session_id": sid, "expression": fill, "arg": { "ch": ch, "n": chars }, "timeout": 60000 }),
        )
        .await;
    assert_eq!(made["result"], chars);
    sid
}

#[tokio::test]
async fn oversized_content_evaluate_and_text_answer_result_too_large_saying_what_to_ask_instead() {
    let svc = shared();
    // 20 M characters: more than one answer may hold as HTML, and as text at 2 bytes each.
    let sid = page_of('é', 20_000_000).await;
    let err = svc.err("page.content", json!({ "session_id": sid, "timeout": 60000 })).await;
    assert_eq!((err.kind(), err.code), ("result_too_large", -32023), "{err:?}");
    assert!(err.message.contains("maxChars"), "the message names the narrower call: {}", err.message);
    assert!(err.data["remediation"].as_str().unwrap().contains("maxChars"), "{err:?}");
    let start = svc.ok("page.content", json!({ "session_id": sid, "maxChars": 60 })).await;
    assert_eq!((start["html"].as_str().unwrap().chars().count(), &start["truncated"]), (60, &json!(true)));

    let err = svc.err("page.text", json!({ "session_id": sid, "maxChars": 10_000_000, "timeout": 60000 })).await;
    assert_eq!(err.kind(), "result_too_large", "10 M two-byte characters are 20 MB: {err:?}");
    assert!(err.message.contains("smaller maxChars"), "{}", err.message);
    let cut = svc.ok("page.text", json!({ "session_id": sid, "maxChars": 1000 })).await;
    assert_eq!((cut["text"].as_str().unwrap().chars().count(), &cut["truncated"]), (1000, &json!(true)));

    // page.evaluate's documented 10 MiB, for a string as for an object, whatever its size.
    for expression in
        ["'x'.repeat(11 * 1024 * 1024)", "({ big: 'x'.repeat(11 * 1024 * 1024) })", "'x'.repeat(30 * 1024 * 1024)"]
    {
        let err = svc.err("page.evaluate", json!({ "session_id": sid, "expression": expression })).await;
        assert_eq!(err.kind(), "result_too_large", "{expression}: {err:?}");
        assert!(err.message.contains("10 MiB"), "{}", err.message);
    }
    let fits =
        svc.ok("page.evaluate", json!({ "session_id": sid, "expression": "'x'.repeat(9 * 1024 * 1024).length" })).await;
    assert_eq!(fits["result"], 9 * 1024 * 1024);
}

#[tokio::test]
async fn a_batch_of_large_answers_gets_each_its_own_honest_answer() {
    let svc = shared();
    let sid = page_of('y', 6 * 1024 * 1024).await;
    let calls: Vec<Value> = (0..6)
        .map(|i| {
            json!({ "jsonrpc": "2.0", "id": i, "method": "page.text",
                    "params": { "session_id": sid, "maxChars": 10_000_000, "timeout": 60000 } })
        })
        .collect();
    let response = svc.post(Value::Array(calls).to_string()).await;
    assert_eq!(response.status(), 200);
    let answers: Vec<Value> = response.json().await.unwrap();
    assert_eq!(answers.len(), 6, "one answer per call");
    let kinds: Vec<&str> = answers
        .iter()
        .map(|a| if a.get("result").is_some() { "ok" } else { a["error"]["data"]["kind"].as_str().unwrap() })
        .collect();
    // Two 6 MiB texts fit the batch's 16 MiB; each of the others is told so on its own.
    assert_eq!(kinds, ["ok", "ok", "result_too_large", "result_too_large", "result_too_large", "result_too_large"]);
    let refused = &answers[5]["error"];
    assert!(refused["message"].as_str().unwrap().contains("call it on its own"), "{refused}");
    assert_eq!(answers[0]["result"]["text"].as_str().unwrap().len(), 6 * 1024 * 1024);
}

async fn ask(ws: &mut Socket, message: String) -> Value {
    ws.send(Message::text(message)).await.unwrap();
    next_json(ws).await
}

/// The kind the README's error table gives `code`.
fn documented(code: i64) -> Option<String> {
    let table = include_str!("../../README.md");
    let row = table.lines().find(|l| l.starts_with("| `") && l.contains(&format!("| {code} |")))?;
    row.split('`').nth(1).map(str::to_owned)
}

/// An error answer in the contract: our data, and a code the table gives exactly that kind.
fn in_contract(answer: &Value) -> &str {
    let error = &answer["error"];
    let kind = error["data"]["kind"].as_str().unwrap_or_else(|| panic!("no data.kind: {answer}"));
    assert!(error["data"]["remediation"].as_str().is_some_and(|r| !r.is_empty()), "{answer}");
    let code = error["code"].as_i64().unwrap();
    assert_eq!(documented(code).as_deref(), Some(kind), "code {code} is documented for this kind: {answer}");
    kind
}

#[tokio::test]
async fn errors_on_a_websocket_carry_kind_and_remediation_with_codes_of_our_table() {
    let mut ws = websocket(shared()).await;
    let unknown = ask(&mut ws, json!({ "jsonrpc": "2.0", "id": 1, "method": "page.txt" }).to_string()).await;
    assert_eq!(in_contract(&unknown), "method_not_found");
    assert!(unknown["error"]["message"].as_str().unwrap().contains("did you mean page.text"), "{unknown}");
    let no_session = ask(
        &mut ws,
        json!({ "jsonrpc": "2.0", "id": 2, "method": "page.text", "params": { "session_id": "x" } }).to_string(),
    )
    .await;
    assert_eq!(in_contract(&no_session), "session_not_found");
    // Params past MAX_BODY_BYTES (512 KiB in the tests' service) are refused as on HTTP.
    let big = "x".repeat(600 * 1024);
    let oversized = ask(
        &mut ws,
        json!({ "jsonrpc": "2.0", "id": 3, "method": "page.evaluate", "params": { "session_id": "x", "expression": big } })
            .to_string(),
    )
    .await;
    assert_eq!(in_contract(&oversized), "payload_too_large");
    let calls: Vec<Value> = (0..51).map(|i| json!({ "jsonrpc": "2.0", "id": i, "method": "rpc.discover" })).collect();
    let too_many = ask(&mut ws, Value::Array(calls).to_string()).await;
    assert_eq!(in_contract(&too_many), "invalid_request", "a batch over 50 calls, as over HTTP");
    assert!(too_many["error"]["message"].as_str().unwrap().contains("at most 50"), "{too_many}");
}

#[tokio::test]
async fn http_refusals_outside_a_method_are_json_errors_in_the_contract() {
    let svc = shared();
    let http = reqwest::Client::new();
    let rpc = svc.rpc_url();
    let plain = http.post(&rpc).header("x-api-key", API_KEY).body("{}").send().await.unwrap();
    assert_eq!(plain.status(), 415);
    assert_eq!(in_contract(&plain.json().await.unwrap()), "invalid_request");
    let get = http.get(&rpc).header("x-api-key", API_KEY).send().await.unwrap();
    assert_eq!(get.status(), 405);
    assert_eq!(in_contract(&get.json().await.unwrap()), "invalid_request");
    let nowhere = http.get(format!("{}/nowhere", svc.base)).send().await.unwrap();
    assert_eq!(nowhere.status(), 404);
    assert_eq!(in_contract(&nowhere.json().await.unwrap()), "invalid_request");
    // /mcp: rmcp's own refusals (406 without the Accept it wants) and its JSON-RPC errors.
    let mcp = format!("{}/mcp", svc.base);
    let refused = http.post(&mcp).header("x-api-key", API_KEY).header("content-type", "application/json").body("{}");
    let refused = refused.send().await.unwrap();
    assert_eq!(refused.status(), 406);
    assert_eq!(in_contract(&refused.json().await.unwrap()), "invalid_request");
    let mcp_call = |body: Value, session: Option<String>| {
        let mut request = http
            .post(&mcp)
            .header("x-api-key", API_KEY)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(body.to_string());
        if let Some(session) = session {
            request = request.header("mcp-session-id", session);
        }
        request.send()
    };
    let init = json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "probe", "version": "1" } } });
    let opened = mcp_call(init, None).await.unwrap();
    let session = opened.headers()["mcp-session-id"].to_str().unwrap().to_owned();
    let _ = opened.text().await;
    let _ = mcp_call(json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }), Some(session.clone())).await;
    let answer = mcp_call(json!({ "jsonrpc": "2.0", "id": 2, "method": "resources/list" }), Some(session.clone()))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let event = answer.lines().filter_map(|l| l.strip_prefix("data:")).map(str::trim).find(|d| d.contains("\"id\":2"));
    let event: Value = serde_json::from_str(event.unwrap_or_else(|| panic!("an answer event: {answer}"))).unwrap();
    assert_eq!(in_contract(&event), "method_not_found");
    let unknown_session = mcp_call(json!({ "jsonrpc": "2.0", "id": 3, "method": "tools/list" }), Some("nope".into()));
    let unknown_session = unknown_session.await.unwrap();
    assert_eq!(unknown_session.status(), 404);
    assert_eq!(in_contract(&unknown_session.json().await.unwrap()), "invalid_request");
    let _ = http.delete(&mcp).header("x-api-key", API_KEY).header("mcp-session-id", session).send().await;
}
