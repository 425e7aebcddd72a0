//! The README scenario with jsonrpsee's HTTP client: create a session, open the fixtures'
//! /projects page, read it, click and fill, pull the console and the failed requests, close.
//! `main.rs` runs it from the command line; the integration tests run it against a live service.

use jsonrpsee_core::ClientError;
use jsonrpsee_core::client::ClientT;
use jsonrpsee_core::params::ObjectParams;
use jsonrpsee_http_client::{HeaderMap, HeaderValue, HttpClient, HttpClientBuilder};
use serde_json::{Value, json};

/// A text-browser client: named params in, `serde_json::Value` results out.
pub struct TextBrowser {
    client: HttpClient,
}

impl TextBrowser {
    pub fn new(rpc_url: &str, api_key: &str) -> Result<Self, String> {
        let mut headers = HeaderMap::new();
        headers.insert("x-api-key", HeaderValue::from_str(api_key).map_err(|e| e.to_string())?);
        let client = HttpClientBuilder::default()
            .set_headers(headers)
            .request_timeout(std::time::Duration::from_secs(120))
            .build(rpc_url)
            .map_err(|e| e.to_string())?;
        Ok(Self { client })
    }

    /// Calls `method` with the fields of `params` (a JSON object) as named params.
    pub async fn call(&self, method: &str, params: Value) -> Result<Value, ClientError> {
        let mut named = ObjectParams::new();
        for (name, value) in params.as_object().cloned().unwrap_or_default() {
            named.insert(&name, value).map_err(|e| ClientError::Custom(e.to_string()))?;
        }
        self.client.request(method, named).await
    }
}

/// The error kind (`data.kind`) of a JSON-RPC error answer.
pub fn kind_of(err: &ClientError) -> Option<String> {
    match err {
        ClientError::Call(object) => {
            let data: Value = serde_json::from_str(object.data()?.get()).ok()?;
            data["kind"].as_str().map(str::to_owned)
        }
        _ => None,
    }
}

fn check(what: &str, condition: bool, detail: &Value) -> Result<(), String> {
    if !condition {
        return Err(format!("FAIL: {what}: {detail}"));
    }
    println!("ok: {what}");
    Ok(())
}

pub async fn run(rpc_url: &str, api_key: &str, app_url: &str) -> Result<(), String> {
    let tb = TextBrowser::new(rpc_url, api_key)?;
    let call = |method: &'static str, params: Value| {
        let tb = &tb;
        async move { tb.call(method, params).await.map_err(|e| format!("FAIL: {method}: {e}")) }
    };
    let created = call("session.create", json!({})).await?;
    let sid = created["session_id"].as_str().unwrap_or_default().to_owned();
    check("session.create", !sid.is_empty(), &created)?;
    let url = format!("{app_url}/projects");
    let landed = call("page.goto", json!({ "session_id": sid, "url": url, "waitUntil": "networkidle" })).await?;
    check("page.goto", landed["title"] == "Projects", &landed)?;
    let list = call("page.text", json!({ "session_id": sid, "selector": "#project-list" })).await?;
    check("page.text", list["text"].as_str().unwrap_or_default().contains("Borealis API"), &list)?;
    let expression = "document.querySelectorAll('li').length";
    let count = call("page.evaluate", json!({ "session_id": sid, "expression": expression })).await?;
    check("page.evaluate", count["result"] == 3, &count)?;
    let clicked = call("page.click", json!({ "session_id": sid, "selector": "#new-project" })).await?;
    check("page.click", clicked["ok"] == true, &clicked)?;
    let filled =
        call("page.fill", json!({ "session_id": sid, "selector": "#project-name", "value": "Zephyr" })).await?;
    check("page.fill", filled["ok"] == true, &filled)?;
    let preview = call("page.text", json!({ "session_id": sid, "selector": "#preview" })).await?;
    check("the page reacted", preview["text"] == "New project: Zephyr", &preview)?;
    let logs = call("logs.pull", json!({ "session_id": sid })).await?;
    let logged = logs["console"]
        .as_array()
        .is_some_and(|entries| entries.iter().any(|e| e["text"] == "failed to load /api/fail: HTTP 500"));
    check("logs.pull", logged, &logs)?;
    let network = call("network.pull", json!({ "session_id": sid })).await?;
    let failed = network["requests"].as_array().is_some_and(|requests| {
        requests.iter().any(|r| r["url"].as_str().is_some_and(|u| u.ends_with("/api/fail")) && r["status"] == 500)
    });
    check("network.pull", failed, &network)?;
    let closed = call("session.close", json!({ "session_id": sid })).await?;
    check("session.close", closed["ok"] == true, &closed)?;
    match tb.call("page.text", json!({ "session_id": sid })).await {
        Ok(answer) => return Err(format!("FAIL: a closed session still answered: {answer}")),
        Err(err) => {
            let kind = kind_of(&err);
            check("closed session is gone", kind.as_deref() == Some("session_not_found"), &json!(kind))?;
        }
    }
    println!("rust example: all steps passed");
    Ok(())
}
