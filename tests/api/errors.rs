//! Protocol errors: every bad request gets a clear JSON-RPC error, never a 500 or a panic.

use serde_json::{Value, json};

use crate::helpers::shared;

async fn raw(body: &str) -> (u16, Value) {
    let response = shared().post(body.to_owned()).await;
    let status = response.status().as_u16();
    let text = response.text().await.unwrap();
    (status, serde_json::from_str(&text).unwrap_or(Value::String(text)))
}

#[tokio::test]
async fn malformed_json_is_a_parse_error() {
    let (status, body) = raw(r#"{"jsonrpc":"2.0","id":1,"method":"session.create""#).await;
    assert_ne!(status, 500);
    assert_eq!(body["error"]["code"], -32700, "{body}");
}

#[tokio::test]
async fn a_request_without_a_method_is_invalid() {
    let (status, body) = raw(r#"{"jsonrpc":"2.0","id":1}"#).await;
    assert_ne!(status, 500);
    assert_eq!(body["error"]["code"], -32600, "{body}");
}

#[tokio::test]
async fn unknown_method_is_method_not_found() {
    let err = shared().err("page.teleport", json!({})).await;
    assert_eq!(err.code, -32601);
}

#[tokio::test]
async fn missing_param_is_named() {
    let err = shared().err("page.goto", json!({ "url": "http://localhost/" })).await;
    assert_eq!(err.code, -32602);
    assert_eq!(err.data["param"], "session_id");
    assert!(err.message.contains("session_id"), "{}", err.message);
    assert_eq!(err.kind(), "invalid_params");
}

#[tokio::test]
async fn mistyped_param_is_named() {
    let err = shared().err("page.text", json!({ "session_id": "x", "maxChars": "lots" })).await;
    assert_eq!(err.code, -32602);
    assert_eq!(err.data["param"], "maxChars");
}

#[tokio::test]
async fn misspelled_param_suggests_the_right_one() {
    let err = shared().err("page.text", json!({ "session_id": "x", "selecter": "h1" })).await;
    assert_eq!(err.code, -32602);
    assert_eq!(err.data["param"], "selecter");
    assert!(err.message.contains("did you mean `selector`"), "{}", err.message);
}

#[tokio::test]
async fn positional_params_are_refused_clearly() {
    let err = shared().err("session.close", json!(["abc"])).await;
    assert_eq!(err.code, -32602);
    assert!(err.message.contains("named params"), "{}", err.message);
}

#[tokio::test]
async fn unknown_session_is_session_not_found() {
    let err = shared().err("page.text", json!({ "session_id": "no-such-session" })).await;
    assert_eq!(err.kind(), "session_not_found");
    assert_eq!(err.code, -32001);
    assert!(err.data["remediation"].as_str().unwrap().contains("session.create"));
}

#[tokio::test]
async fn out_of_range_values_are_invalid_params() {
    let svc = shared();
    let sid = svc.session().await;
    for (params, param) in [
        (json!({ "session_id": sid, "maxChars": 0 }), "maxChars"),
        (json!({ "session_id": sid, "timeout": 0 }), "timeout"),
        (json!({ "session_id": sid, "selector": "  " }), "selector"),
    ] {
        let err = svc.err("page.text", params).await;
        assert_eq!(err.data["param"], param, "{err:?}");
    }
}

#[tokio::test]
async fn batch_calls_each_get_an_answer() {
    let body = json!([
        { "jsonrpc": "2.0", "id": 1, "method": "page.text", "params": { "session_id": "nope" } },
        { "jsonrpc": "2.0", "id": 2, "method": "rpc.discover" },
        { "jsonrpc": "2.0", "method": "page.text", "params": { "session_id": "nope" } }
    ]);
    let (status, answers) = raw(&body.to_string()).await;
    assert_eq!(status, 200);
    let answers = answers.as_array().expect("a batch answer is an array");
    assert_eq!(answers.len(), 2, "the notification gets no answer: {answers:?}");
    let by_id = |id: i64| answers.iter().find(|a| a["id"] == id).unwrap();
    assert_eq!(by_id(1)["error"]["data"]["kind"], "session_not_found");
    assert_eq!(by_id(2)["result"]["openrpc"], "1.3.2");
}
