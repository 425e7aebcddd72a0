//! Exactly JSON-RPC 2.0 (https://www.jsonrpc.org/specification), seen by a black-box client:
//! one test per rule, quoting the specification.

use serde_json::{Value, json};

use crate::helpers::{Instance, metric, shared};

/// POSTs `body` as it is; returns the HTTP status and the body text.
async fn post(body: &str) -> (u16, String) {
    let response = shared().post(body.to_owned()).await;
    (response.status().as_u16(), response.text().await.unwrap())
}

fn json_of(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text:?}"))
}

/// "A Notification is a Request object without an "id" member. […] The Server MUST NOT reply to a
/// Notification, including those that are within a batch request."
#[tokio::test]
async fn a_notification_gets_no_answer_at_all() {
    let (status, body) = post(r#"{"jsonrpc":"2.0","method":"rpc.discover"}"#).await;
    assert_eq!((status, body.as_str()), (204, ""), "no body, not even null");
}

/// "If there are no Response objects contained within the Response array as it is to be sent to
/// the client, the server MUST NOT return an empty Array and should return nothing at all."
#[tokio::test]
async fn a_batch_of_only_notifications_gets_no_answer_at_all() {
    let (status, body) =
        post(r#"[{"jsonrpc":"2.0","method":"rpc.discover"},{"jsonrpc":"2.0","method":"no.such"}]"#).await;
    assert_eq!((status, body.as_str()), (204, ""));
}

/// "id: An identifier established by the Client that MUST contain a String, Number, or NULL
/// value […]. The Server MUST reply with the same value in the Response object."
#[tokio::test]
async fn any_json_number_id_is_echoed_exactly() {
    for id in ["-7", "1.5", "0", "-0.25", "1e3", "123456789012345678901234567890", "9007199254740993"] {
        let (status, body) = post(&format!(r#"{{"jsonrpc":"2.0","method":"rpc.discover","id":{id}}}"#)).await;
        assert_eq!(status, 200, "{id}");
        let members: std::collections::HashMap<String, Box<serde_json::value::RawValue>> =
            serde_json::from_str(&body).unwrap();
        assert_eq!(members["id"].get(), id, "the id exactly as sent");
        assert!(members.contains_key("result"), "{id}");
    }
    let (_, body) = post(r#"{"jsonrpc":"2.0","method":"rpc.discover","id":null}"#).await;
    assert_eq!(json_of(&body)["id"], Value::Null);
}

/// "If there was an error in detecting the id in the Request object (e.g. Parse error/Invalid
/// Request), it MUST be Null." An id that is an object or an array is not a valid id.
#[tokio::test]
async fn an_id_of_another_type_is_an_invalid_request_with_a_null_id() {
    for id in [r#"{"a":1}"#, "[1,2]", "true"] {
        let (status, body) = post(&format!(r#"{{"jsonrpc":"2.0","method":"rpc.discover","id":{id}}}"#)).await;
        let answer = json_of(&body);
        assert_eq!(
            (status, answer["error"]["code"].as_i64(), &answer["id"]),
            (200, Some(-32600), &Value::Null),
            "{id}"
        );
        assert_eq!(answer["error"]["data"]["kind"], "invalid_request");
    }
}

/// The specification's own example: "--> {"jsonrpc": "2.0", "method": 1, "params": "bar"}
/// <-- {"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null}"
#[tokio::test]
async fn a_method_that_is_not_a_string_is_an_invalid_request() {
    let (_, body) = post(r#"{"jsonrpc": "2.0", "method": 1, "params": "bar"}"#).await;
    let answer = json_of(&body);
    assert_eq!((answer["error"]["code"].as_i64(), &answer["id"]), (Some(-32600), &Value::Null), "{answer}");
    assert!(answer["error"]["message"].as_str().unwrap().starts_with("Invalid Request"));
}

/// "--> [] <-- {"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null}"
#[tokio::test]
async fn an_empty_batch_is_one_invalid_request() {
    let (_, body) = post("[]").await;
    let answer = json_of(&body);
    assert!(answer.is_object(), "one answer, not an array: {answer}");
    assert_eq!((answer["error"]["code"].as_i64(), &answer["id"]), (Some(-32600), &Value::Null));
}

/// "--> [1,2,3] <-- [{…-32600…}, {…-32600…}, {…-32600…}]" and the mixed batch of the
/// specification's examples: every non-notification answered, in order.
#[tokio::test]
async fn a_mixed_batch_answers_exactly_its_calls_in_order() {
    let (_, body) = post("[1,2,3]").await;
    let answers = json_of(&body);
    assert_eq!(answers.as_array().unwrap().len(), 3);
    assert!(answers.as_array().unwrap().iter().all(|a| a["error"]["code"] == -32600 && a["id"].is_null()));
    let batch = r#"[
        {"jsonrpc": "2.0", "method": "rpc.discover", "id": "1"},
        {"jsonrpc": "2.0", "method": "rpc.discover"},
        {"foo": "boo"},
        {"jsonrpc": "2.0", "method": "foo.get", "params": {"name": "myself"}, "id": "5"},
        {"jsonrpc": "2.0", "method": "page.text", "params": {"session_id": "no-such-session"}, "id": -9.5}
    ]"#;
    let (status, body) = post(batch).await;
    let answers = json_of(&body);
    let answers = answers.as_array().unwrap();
    assert_eq!(status, 200);
    let ids: Vec<String> = answers.iter().map(|a| a["id"].to_string()).collect();
    assert_eq!(ids, [r#""1""#, "null", r#""5""#, "-9.5"], "{body}");
    assert!(answers[0].get("result").is_some());
    assert_eq!(answers[1]["error"]["code"], -32600);
    assert_eq!(answers[2]["error"]["code"], -32601);
    assert_eq!(answers[3]["error"]["data"]["kind"], "session_not_found");
}

/// "-32601 Method not found: The method does not exist / is not available." — with the method
/// probably meant.
#[tokio::test]
async fn an_unknown_method_says_which_was_probably_meant() {
    let (_, body) = post(r#"{"jsonrpc":"2.0","method":"page.clik","id":3}"#).await;
    let answer = json_of(&body);
    assert_eq!((answer["error"]["code"].as_i64(), answer["id"].as_i64()), (Some(-32601), Some(3)));
    assert!(answer["error"]["message"].as_str().unwrap().contains("did you mean page.click?"), "{answer}");
    assert_eq!(answer["error"]["data"]["kind"], "method_not_found");
}

/// "-32700 Parse error: Invalid JSON was received by the server."
#[tokio::test]
async fn invalid_json_is_a_parse_error_with_a_null_id() {
    let (_, body) = post(r#"{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]"#).await;
    let answer = json_of(&body);
    assert_eq!((answer["error"]["code"].as_i64(), &answer["id"]), (Some(-32700), &Value::Null));
}

#[tokio::test]
async fn metrics_count_unknown_methods_parse_errors_and_invalid_requests_and_start_at_zero() {
    let svc = Instance::start(&[]);
    let metrics = svc.metrics().await;
    for series in [
        r#"text_browser_http_rejected_total{status="401"}"#,
        r#"text_browser_http_rejected_total{status="413"}"#,
        r#"text_browser_http_rejected_total{status="429"}"#,
        r#"text_browser_rpc_requests_total{method="unknown",outcome="method_not_found"}"#,
        r#"text_browser_rpc_requests_total{method="unknown",outcome="parse_error"}"#,
        r#"text_browser_rpc_requests_total{method="unknown",outcome="invalid_request"}"#,
        r#"text_browser_rpc_requests_total{method="page.click",outcome="ok"}"#,
        r#"text_browser_sessions_closed_total{reason="expired"}"#,
        r#"text_browser_events_dropped_total{buffer="timeline"}"#,
    ] {
        assert_eq!(metric(&metrics, series), Some(0.0), "{series} reads 0 on a fresh start");
    }
    for body in [r#"{"jsonrpc":"2.0","method":"nope","id":1}"#, "{oops", r#"{"jsonrpc":"1.0","method":"x","id":1}"#] {
        svc.post(body.to_owned()).await;
    }
    let metrics = svc.metrics().await;
    for outcome in ["method_not_found", "parse_error", "invalid_request"] {
        let series = format!(r#"text_browser_rpc_requests_total{{method="unknown",outcome="{outcome}"}}"#);
        assert_eq!(metric(&metrics, &series), Some(1.0), "{series}");
    }
}

#[tokio::test]
async fn evaluate_gives_arg_to_a_plain_expression_and_to_a_function_and_null_stays_null() {
    let svc = shared();
    let sid = svc.session().await;
    let eval = |expression: &str, arg: Value| json!({ "session_id": sid, "expression": expression, "arg": arg });
    assert_eq!(svc.ok("page.evaluate", eval("arg.x + 1", json!({ "x": 41 }))).await["result"], 42);
    assert_eq!(svc.ok("page.evaluate", eval("(a) => a * 2", json!(21))).await["result"], 42);
    assert_eq!(svc.ok("page.evaluate", eval("arg === null", Value::Null)).await["result"], true);
    assert_eq!(svc.ok("page.evaluate", eval("(a) => a === null", Value::Null)).await["result"], true);
    let no_arg = svc.ok("page.evaluate", json!({ "session_id": sid, "expression": "typeof arg" })).await;
    assert_eq!(no_arg["result"], "undefined", "without arg the expression runs as it is");
}
