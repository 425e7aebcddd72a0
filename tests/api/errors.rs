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

#[tokio::test]
async fn what_the_browser_would_refuse_from_the_caller_is_invalid_params_naming_the_param() {
    let svc = shared();
    for (params, param) in [
        (json!({ "userAgent": "Mozilla/5.0\r\nX-Injected: 1" }), "userAgent"),
        (json!({ "extraHTTPHeaders": { "X-Trace": "a\u{0}b" } }), "extraHTTPHeaders"),
        (json!({ "viewport": { "width": 10000, "height": 10000, "deviceScaleFactor": 4 } }), "viewport"),
    ] {
        let err = svc.err("session.create", params.clone()).await;
        assert_eq!((err.kind(), err.data["param"].as_str()), ("invalid_params", Some(param)), "{params}: {err:?}");
        assert!(!err.data["remediation"].as_str().unwrap().to_lowercase().contains("retry"), "{err:?}");
    }
    let sid = svc.session().await;
    let huge = json!({ "session_id": sid, "width": 10000, "height": 10000, "deviceScaleFactor": 4 });
    let err = svc.err("page.setViewport", huge).await;
    assert_eq!((err.kind(), err.data["param"].as_str()), ("invalid_params", Some("deviceScaleFactor")), "{err:?}");
    assert!(err.message.contains("megapixels"), "{}", err.message);
    svc.ok("page.goto", json!({ "session_id": sid, "url": crate::helpers::page("/"), "waitUntil": "load" })).await;
    svc.ok("page.evaluate", json!({ "session_id": sid, "expression": "document.body.style.height = '200000px'" }))
        .await;
    for mime in ["image/jpeg", "image/png"] {
        let shot = json!({ "session_id": sid, "fullPage": true, "mime": mime });
        let err = svc.err("screenshot", shot).await;
        assert_eq!((err.kind(), err.data["param"].as_str()), ("invalid_params", Some("fullPage")), "{mime}: {err:?}");
        assert!(err.message.contains("1280x2000"), "says how large the page is: {}", err.message);
    }
    svc.ok("page.evaluate", json!({ "session_id": sid, "expression": "document.body.style.height = '70000px'" })).await;
    let jpeg = svc.err("screenshot", json!({ "session_id": sid, "fullPage": true, "mime": "image/jpeg" })).await;
    assert!(jpeg.message.contains("take image/png"), "a JPEG's own limit: {}", jpeg.message);
    let mock = json!({ "session_id": sid, "urlPattern": "*/x", "response": { "headers": { "X-A": "1\n2" } } });
    let err = svc.err("network.route", mock).await;
    assert_eq!(err.data["param"], "response.headers", "{err:?}");
}

#[tokio::test]
async fn session_run_fails_whole_for_a_bad_session_or_step_and_bounds_steps_by_its_deadline() {
    let svc = shared();
    let step = json!([{ "method": "page.text" }]);
    let err = svc.err("session.run", json!({ "session_id": "no-such-session", "steps": step })).await;
    assert_eq!(err.kind(), "session_not_found", "the run fails, not its first step: {err:?}");
    let sid = svc.session().await;
    svc.ok("page.goto", json!({ "session_id": sid, "url": crate::helpers::page("/"), "waitUntil": "load" })).await;
    // Unknown keys in a step, or in its params, are refused before any step runs.
    let typo = json!([{ "method": "page.click", "param": { "selector": "a" } }]);
    let err = svc.err("session.run", json!({ "session_id": sid, "steps": typo })).await;
    assert_eq!(err.kind(), "invalid_params", "{err:?}");
    assert!(err.message.contains("param"), "{}", err.message);
    let typo = json!([
        { "method": "page.evaluate", "params": { "expression": "window.ran = true" } },
        { "method": "page.click", "params": { "selecter": "a" } }
    ]);
    let err = svc.err("session.run", json!({ "session_id": sid, "steps": typo })).await;
    assert_eq!(err.data["param"], "steps[1].params.selecter", "{err:?}");
    assert!(err.message.contains("did you mean `selector`"), "{}", err.message);
    let ran = svc.ok("page.evaluate", json!({ "session_id": sid, "expression": "window.ran === true" })).await;
    assert_eq!(ran["result"], false, "no step ran");
    // A step asking for 5 s in a 1 s run gets what is left of the run.
    let waiting = json!([{ "method": "page.click", "params": { "selector": "#never", "timeout": 5000 } }]);
    let started = std::time::Instant::now();
    let run = svc.ok("session.run", json!({ "session_id": sid, "steps": waiting, "timeout": 1000 })).await;
    let took = started.elapsed();
    assert_eq!(run["results"][0]["ok"], false, "{run}");
    assert!(took < std::time::Duration::from_millis(3500), "the step ended with the run's deadline, after {took:?}");
}
