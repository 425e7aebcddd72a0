//! A password typed in a session never leaves the service in an answer, whatever reads it.
//!
//! The change-password fixture is careless in every way a real app can be (it echoes the new
//! password in a hint, logs it, stores a draft in localStorage and the URL, puts it in the title,
//! and shows an API answer that repeats it). One session types two passwords into it and then
//! calls every method the service has; no answer may contain either password.

use std::collections::BTreeSet;

use serde_json::{Value, json};

use crate::helpers::{Service, page, shared};
use text_browser::rpc::all_methods;

/// Typed with page.fill and with page.type (key by key).
const FILLED: &str = "Old-Secret-2024";
const TYPED: &str = "Tr0ub4dor-horse-42";

/// Every answer the session got, as sent.
struct Transcript<'a> {
    svc: &'a Service,
    answers: Vec<(String, String)>,
    called: BTreeSet<String>,
}

impl Transcript<'_> {
    /// Calls `method` and keeps its raw answer; returns it parsed.
    async fn call(&mut self, method: &str, params: Value) -> Value {
        let request = json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params });
        let text = self.svc.post(request.to_string()).await.text().await.expect("an answer");
        self.called.insert(method.to_owned());
        self.answers.push((format!("{method} {params}"), text.clone()));
        serde_json::from_str(&text).unwrap_or(Value::Null)
    }
}

#[tokio::test]
async fn a_typed_password_is_in_no_answer_of_any_method() {
    let svc = shared();
    let sid = svc.session().await;
    let mut t = Transcript { svc, answers: Vec::new(), called: BTreeSet::new() };
    let s = |params: Value| {
        let mut params = params;
        params["session_id"] = json!(sid.to_string());
        params
    };

    t.call("page.goto", s(json!({ "url": page("/password/") }))).await;
    t.call("page.fill", s(json!({ "selector": "#current", "value": FILLED }))).await;
    let typed = t.call("page.type", s(json!({ "selector": "#new-password", "text": TYPED }))).await;
    assert_eq!(typed["result"]["ok"], true, "{typed}");
    t.call("page.click", s(json!({ "selector": "role=button[name=\"Save password\"]" }))).await;
    let saved = t.call("assert.text", s(json!({ "selector": "#result", "text": "we saved", "timeout": 10000 }))).await;
    assert_eq!(saved["result"]["ok"], true, "the page showed the API's answer: {saved}");

    // What reads the fields and the echoes directly, passing and failing.
    let value = t.call("assert.value", s(json!({ "selector": "#new-password", "value": TYPED }))).await;
    assert_eq!(value["result"]["actual"], json!({ "count": 1, "value": "••••" }), "compared, not shown: {value}");
    let wrong = t.call("assert.value", s(json!({ "selector": "#current", "value": "guess", "timeout": 300 }))).await;
    assert_eq!(wrong["error"]["data"]["actual"], json!({ "count": 1, "value": "••••" }), "{wrong}");
    assert_eq!(wrong["error"]["data"]["expected"], json!({ "value": "••••" }), "{wrong}");
    for (method, params) in readers() {
        t.call(method, s(params)).await;
    }
    let pulled = t.call("network.pull", s(json!({ "urlContains": "/api/signup" }))).await;
    if let Some(id) = pulled["result"]["requests"][0]["requestId"].as_str() {
        t.call("network.body", s(json!({ "requestId": id }))).await;
    }

    // Then every other method, with its README example; the ones that leave the page last.
    let last = ["tabs.open", "tabs.list", "tabs.focus", "tabs.close", "page.goto", "page.reload", "page.back"];
    let methods = all_methods();
    let (later, now): (Vec<_>, Vec<_>) =
        methods.iter().partition(|m| last.contains(&m.name) || m.name == "page.forward");
    for method in now.into_iter().chain(later) {
        if t.called.contains(method.name) && !last.contains(&method.name) {
            continue;
        }
        let mut params: Value = serde_json::from_str(method.example).expect("example params are JSON");
        let names = method.param_names();
        if names.iter().any(|n| n == "session_id") {
            params = s(params);
        }
        if names.iter().any(|n| n == "timeout") && params.get("timeout").is_none() {
            params["timeout"] = json!(300);
        }
        if method.name == "session.create" {
            params = json!({});
        }
        let answer = t.call(method.name, params).await;
        if method.name == "session.create"
            && let Some(other) = answer["result"]["session_id"].as_str()
        {
            t.call("session.close", json!({ "session_id": other })).await;
        }
    }
    t.call("page.reload", s(json!({}))).await;
    t.call("tabs.list", s(json!({}))).await;
    t.call("session.close", s(json!({}))).await;

    let every: BTreeSet<String> = methods.iter().map(|m| m.name.to_owned()).collect();
    assert_eq!(every.difference(&t.called).collect::<Vec<_>>(), Vec::<&String>::new(), "every method was called");
    let leaks: Vec<&(String, String)> =
        t.answers.iter().filter(|(_, answer)| answer.contains(FILLED) || answer.contains(TYPED)).collect();
    assert!(leaks.is_empty(), "a password in {} answer(s):\n{leaks:#?}", leaks.len());
}

/// What reads the fields and their echoes, passing and failing, as (method, params without the
/// session).
fn readers() -> Vec<(&'static str, Value)> {
    vec![
        ("assert.text", json!({ "selector": "#hint", "text": TYPED })),
        ("assert.text", json!({ "selector": "#result", "text": "nothing like this", "timeout": 300 })),
        ("assert.title", json!({ "title": "Change password" })),
        ("assert.url", json!({ "pattern": "**/password/*" })),
        ("page.inspect", json!({ "selector": "#new-password" })),
        ("page.inspect", json!({ "selector": "#hint" })),
        ("page.inspect", json!({ "selector": "#result" })),
        ("page.text", json!({})),
        ("page.text", json!({ "format": "markdown" })),
        ("page.content", json!({})),
        ("page.snapshot", json!({})),
        ("page.evaluate", json!({ "expression": "[document.querySelector('#new-password').value, location.href]" })),
        ("page.evaluate", json!({ "expression": "localStorage.getItem('password-draft')" })),
        ("page.evaluate", json!({ "expression": "(() => { throw new Error(document.title) })()" })),
        ("logs.pull", json!({})),
        ("network.pull", json!({})),
        ("network.har", json!({ "bodies": true })),
        ("storage.state", json!({})),
        ("storage.local", json!({})),
        ("find.byRole", json!({ "role": "status" })),
        ("page.click", json!({ "selector": "text=strong password", "timeout": 300 })),
        (
            "session.run",
            json!({ "steps": [{ "method": "page.text" }, { "method": "page.inspect", "params": { "selector": "#hint" } }] }),
        ),
    ]
}
