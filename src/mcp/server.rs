//! One MCP session: the tools of the toolbox, run as the JSON-RPC methods they are
//! (`RpcContext::invoke`, with the same checks, metrics and log lines), on the browser session
//! this MCP session owns. That session is opened by the first tool call and closed by the `close`
//! tool or when the MCP session ends (the client deletes it, or it idles past SESSION_TTL_MS).
//!
//! Results are the methods' own compact results — an action's `effects` (requests, console
//! errors, dialogs …) with the page's URL and title after it, `text` and `snapshot` as plain
//! text, a screenshot as image content. A
//! failed call is a tool error carrying the JSON-RPC error (`kind`, `remediation`, evidence).

use std::borrow::Cow;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation, InitializeResult,
    ListToolsResult, PaginatedRequestParams, ProtocolVersion, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::{Value, json};

use super::tools::Toolbox;
use crate::browser::CloseReason;
use crate::rpc::RpcContext;
use crate::rpc::error::{ApiError, ErrorKind};

/// What `initialize` tells the agent about using the tools: the params many tools share are
/// described here once rather than in every tool's schema (see `tools`).
const INSTRUCTIONS: &str = "A real Chromium; this MCP session owns one isolated browser session \
    (closed with it, or by close). navigate waits until the page's own requests have settled, then \
    read it with snapshot (elements you can act on carry refs like e5) or text. Act by ref (e5, from \
    the latest snapshot) or selector (CSS, role=button[name=\"Save\"], text=Save, xpath=//button). \
    An action answers with its effects (requests it caused with status, failed ones with their \
    bodies; console and page errors with their source line; dialogs, popups, navigation, requests \
    still pending) and page: where the page is now. Every action also takes settleMs (how long to \
    wait for the requests it started, default 2000), snapshot (true: the page after it; \"diff\": \
    only the lines changed since the last snapshot; {ref} or {selector}: one element) and \
    maxChars (that snapshot's cap). Every page tool takes tab_id (from tabs or an action's \
    popups; default the active tab) and timeout (ms). console and network drain what happened \
    since their last call; response_body returns a request's whole body. Dialogs are dismissed \
    unless dialog armed an answer first. Errors carry data.kind and data.remediation: follow it.";

pub struct BrowserTools {
    ctx: Arc<RpcContext>,
    toolbox: Arc<Toolbox>,
    /// The browser session this MCP session owns, once a tool has needed one.
    session: tokio::sync::Mutex<Option<String>>,
}

impl BrowserTools {
    pub fn new(ctx: Arc<RpcContext>, toolbox: Arc<Toolbox>) -> Self {
        Self { ctx, toolbox, session: tokio::sync::Mutex::new(None) }
    }

    async fn run(&self, tool: &str, arguments: serde_json::Map<String, Value>) -> Result<Vec<ContentBlock>, ApiError> {
        let Some(route) = self.toolbox.methods.get(tool) else {
            let mut known: Vec<&String> = self.toolbox.methods.keys().collect();
            known.sort_unstable();
            return Err(ApiError::invalid("name", format!("there is no tool {tool:?} (tools: {known:?})")));
        };
        let method = route.method;
        if arguments.contains_key("session_id") {
            return Err(ApiError::invalid(
                "session_id",
                "the MCP session brings its own browser session: leave session_id out",
            ));
        }
        // Calls of one MCP session run one at a time, as calls on one browser session do anyway.
        let mut session = self.session.lock().await;
        if method == "session.close" {
            let Some(id) = session.take() else {
                return Ok(vec![ContentBlock::text("no browser session was open")]);
            };
            self.ctx.invoke(method, &json!({ "session_id": id })).await?;
            return Ok(vec![ContentBlock::text("browser session closed; the next tool call opens a new one")]);
        }
        let id = match session.as_ref() {
            Some(id) => id.clone(),
            None => {
                let created = self.ctx.invoke("session.create", &json!({})).await?;
                let id = created["session_id"].as_str().unwrap_or_default().to_owned();
                *session = Some(id.clone());
                id
            }
        };
        let tab = arguments.get("tab_id").and_then(Value::as_str).map(str::to_owned);
        let mut arguments = arguments;
        for (key, value) in &route.defaults {
            arguments.entry(key.clone()).or_insert_with(|| value.clone());
        }
        let mut params = Value::Object(arguments);
        params["session_id"] = json!(id);
        match self.ctx.invoke(method, &params).await {
            Ok(mut result) => {
                if result.get("effects").is_some() && result.get("page").is_none() {
                    // After an action, where the page is now: the agent's next decision needs it.
                    // (An action asked for a `snapshot` says so in its own `page` already.)
                    result["page"] = self.where_now(&id, tab.as_deref()).await;
                }
                Ok(render(method, result))
            }
            Err(err) => {
                if matches!(err.kind(), ErrorKind::SessionNotFound | ErrorKind::SessionClosed) {
                    // Expired or lost: the next call opens a new browser session.
                    *session = None;
                }
                Err(err)
            }
        }
    }

    /// The URL and title of the tab the action was on (null if it does not answer in time).
    async fn where_now(&self, id: &str, tab: Option<&str>) -> Value {
        let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(2);
        let landed =
            self.ctx.sessions.run(id, tab, deadline, |page| async move { page.nav().landed(deadline).await }).await;
        landed.map(|l| json!({ "url": l.url, "title": l.title })).unwrap_or(Value::Null)
    }
}

/// A method's result as MCP content: text and snapshots as they read, images as images, the
/// rest as compact JSON. An action's snapshot (`snapshot: true | "diff"`) is a text block of its
/// own after the JSON, whose `page` keeps the URL, title and counts.
fn render(method: &str, mut result: Value) -> Vec<ContentBlock> {
    if let Some(snapshot) = result.pointer_mut("/page/snapshot").map(Value::take) {
        if let Some(page) = result.get_mut("page").and_then(Value::as_object_mut) {
            page.remove("snapshot");
        }
        let text = snapshot.as_str().unwrap_or_default().to_owned();
        return vec![ContentBlock::text(result.to_string()), ContentBlock::text(text)];
    }
    let mut take = |field: &str| result.as_object_mut().and_then(|o| o.remove(field));
    match method {
        "screenshot" => {
            let data = take("base64").and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default();
            let mime = take("mime").and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_else(|| "image/png".into());
            vec![ContentBlock::image(data, mime)]
        }
        "page.text" | "page.snapshot" => {
            let field = if method == "page.text" { "text" } else { "snapshot" };
            let body = take(field).and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default();
            let mut blocks = vec![ContentBlock::text(body)];
            // What is left (truncated, refs, unchanged …) only when it says something.
            let rest: serde_json::Map<String, Value> = result
                .as_object()
                .map(|o| {
                    o.iter()
                        .filter(|(_, v)| !matches!(v, Value::Bool(false) | Value::Null))
                        .map(|(k, v)| (k.clone(), v.clone()))
                        .collect()
                })
                .unwrap_or_default();
            if !rest.is_empty() {
                blocks.push(ContentBlock::text(Value::Object(rest).to_string()));
            }
            blocks
        }
        _ => vec![ContentBlock::text(result.to_string())],
    }
}

impl Drop for BrowserTools {
    fn drop(&mut self) {
        let Some(id) = self.session.get_mut().take() else { return };
        let sessions = self.ctx.sessions.clone();
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                tracing::info!(session_id = %id, "the MCP session ended: closing its browser session");
                let _ = sessions.close(&id, CloseReason::Closed).await;
            });
        }
    }
}

impl ServerHandler for BrowserTools {
    fn get_info(&self) -> ServerConfig {
        InitializeResult::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("text-browser", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }

    /// Versions with `initialize` and sessions only: a browser session lives as long as an MCP
    /// session, which the stateless 2026-07-28 protocol does not have.
    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(ProtocolVersion::known_up_to(&ProtocolVersion::V_2025_11_25))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(self.toolbox.tools.clone()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let arguments = request.arguments.unwrap_or_default();
        // The tool runs on the MCP session's worker, outside the HTTP request's span: its calls log
        // with the request's x-request-id all the same.
        let request_id = context
            .extensions
            .get::<axum::http::request::Parts>()
            .and_then(|parts| parts.headers.get("x-request-id"))
            .and_then(|id| id.to_str().ok())
            .map(|id| id.chars().take(128).collect())
            .unwrap_or_default();
        Ok(match crate::rpc::as_request(request_id, self.run(&request.name, arguments)).await {
            Ok(content) => CallToolResult::success(content),
            Err(err) => {
                let mut error = serde_json::to_value(err.to_error_object()).unwrap_or(Value::Null);
                // The JSON-RPC method's params (with session_id), not the tool's: its input schema says those.
                if let Some(data) = error.get_mut("data").and_then(Value::as_object_mut) {
                    data.remove("usage");
                }
                CallToolResult::error(vec![ContentBlock::text(json!({ "error": error }).to_string())])
            }
        }
        .into())
    }
}
