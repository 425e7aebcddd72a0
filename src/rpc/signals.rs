//! `logs.pull`, `network.pull`, `network.body` and `network.har`: what went wrong in the page, and the evidence.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::error::ApiError;
use super::registry::{Call, Hints, MethodSpec, Params, page_method};
use crate::browser::{ConsoleEntry, Level, NetworkEntry, NetworkQuery, Page, PageError, PendingView, ResourceType};

/// How long a pull may take by default (it only waits for events already sent to arrive).
const PULL_TIMEOUT_MS: u64 = 10_000;

/// The console messages and uncaught page errors since the last pull. Each entry (`ConsoleEntry`,
/// `PageError`) has its `kind`, time `t` and `location`; errors carry `source`, the throwing line
/// with two each side. `level` keeps console entries at that level and above. Messages are cut at
/// 4 KB (`textLength`); a pull returns at most 1 MiB (`more` counts the rest); `dropped` counts what
/// the timeline let go before the pull.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct LogsPullParams {
    /// Keep console entries at this level and above: error, warning, info or debug (default).
    pub level: Option<Level>,
}

impl Params for LogsPullParams {}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LogsPullResult {
    pub console: Vec<ConsoleEntry>,
    /// Uncaught exceptions and unhandled promise rejections.
    pub page_errors: Vec<PageError>,
    /// Entries that fell off the page's timeline (its cap) before a pull returned them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dropped: Option<u64>,
    /// Entries left for the next pull: this one reached its 1 MiB.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub more: Option<u64>,
}

/// Returns the requests answered since the last pull (each once) and those still in flight
/// (`pending`). With `onlyErrors` (default true) only status ≥ 400 and failures (`failure` says
/// why); `urlContains` and `resourceTypes` narrow it. Each entry (`NetworkEntry`) has its times, the
/// script that sent it and the first 2 KB of what it posted (secrets masked); error responses carry
/// the first 2 KB of their body, and with `onlyErrors: false` every fetch/XHR and document does
/// (`network.body` returns it whole). Each redirect hop is its own entry (`redirectedTo`);
/// `cookies` says which were sent, withheld (why) and set; `headers: true` adds the headers.
/// Other views (`network.har`, `page.timeline`) are not drained.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NetworkPullParams {
    /// Only status >= 400 and failed requests (default true).
    pub only_errors: Option<bool>,
    /// Only requests whose URL contains this.
    pub url_contains: Option<String>,
    /// Only these resource types: Document, Fetch, XHR, Script, Stylesheet, Image, Font, …
    pub resource_types: Option<Vec<String>>,
    /// Also data:/blob: URLs and a dev server's own client (default false).
    pub include_noise: Option<bool>,
    /// Each entry's request and response headers too (credential values masked; default false).
    pub headers: Option<bool>,
}

impl Params for NetworkPullParams {}

#[derive(Debug, Serialize, JsonSchema)]
pub struct NetworkPullResult {
    pub requests: Vec<NetworkEntry>,
    /// Requests still in flight, oldest first (absent when there are none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pending: Vec<PendingView>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dropped: Option<u64>,
    /// Requests the query selects left for the next pull: this one reached its 1 MiB.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub more: Option<u64>,
}

/// The whole captured response body of one request (`requestId` from network.pull or an
/// action's effects), up to 1 MB, secrets masked, with its request and response headers. Bodies are kept for fetch/XHR and document
/// responses and for error responses with a text body, 4 MiB per session, oldest evicted first.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NetworkBodyParams {
    /// From network.pull's entries or an action's effects.
    pub request_id: String,
}

impl Params for NetworkBodyParams {}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NetworkBodyResult {
    pub body: String,
    /// The response was longer than 1 MB: this is its start.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
    /// `[name, value]` as sent (Cookie, Authorization and secret-named values masked).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_headers: Option<Vec<(String, String)>>,
    /// `[name, value]` as answered (Set-Cookie values masked, attributes kept).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response_headers: Option<Vec<(String, String)>>,
}

pub fn methods() -> Vec<MethodSpec> {
    vec![
        page_method(
            "logs.pull",
            "The console messages and uncaught page errors since the last pull.",
            PULL_TIMEOUT_MS,
            logs_pull,
        )
        .example(r#"{"level":"warning"}"#)
        .tool("console", Hints::READ),
        page_method(
            "network.pull",
            "The requests answered since the last pull (by default only failed ones); those in flight.",
            PULL_TIMEOUT_MS,
            network_pull,
        )
        .example(r#"{"onlyErrors":false,"urlContains":"/api/"}"#)
        .tool("network", Hints::READ),
        page_method("network.body", "The whole captured response body of one request.", PULL_TIMEOUT_MS, network_body)
            .example(r#"{"requestId":"1234.56"}"#)
            .tool("response_body", Hints::READ),
        page_method("network.har", "The session's requests as a HAR 1.2 log.", PULL_TIMEOUT_MS, network_har)
            .example(r#"{"bodies":true}"#),
    ]
}

/// The page's requests (every one its timeline holds, whatever a pull returned) as a HAR 1.2 log
/// (`{"har": {"log": {…}}}`) in start order; nothing is drained. Entries have method, URL, status,
/// start, timings, sizes, headers and cookies (credential values masked, cookie values never
/// kept), `redirectURL`, `_resourceType`, `_pending` and `_failure`. `bodies` adds the 2 KB body
/// excerpts (secrets masked).
#[derive(Debug, Deserialize, JsonSchema)]
pub struct NetworkHarParams {
    /// Include the captured body excerpts (default false).
    pub bodies: Option<bool>,
}

impl Params for NetworkHarParams {}

#[derive(Debug, Serialize, JsonSchema)]
pub struct NetworkHarResult {
    pub har: serde_json::Value,
}

async fn network_har(call: Call, page: Page, p: NetworkHarParams) -> Result<NetworkHarResult, ApiError> {
    let settled = page.settled(false, call.deadline).await;
    Ok(NetworkHarResult { har: settled.har(p.bodies.unwrap_or(false), call.deadline).await })
}

async fn logs_pull(call: Call, page: Page, p: LogsPullParams) -> Result<LogsPullResult, ApiError> {
    let logs = page.settled(false, call.deadline).await.logs(p.level.unwrap_or(Level::Debug), call.deadline).await;
    Ok(LogsPullResult {
        console: logs.console,
        page_errors: logs.page_errors,
        dropped: (logs.dropped > 0).then_some(logs.dropped),
        more: (logs.more > 0).then_some(logs.more),
    })
}

async fn network_pull(call: Call, page: Page, p: NetworkPullParams) -> Result<NetworkPullResult, ApiError> {
    let query = NetworkQuery {
        only_errors: p.only_errors.unwrap_or(true),
        url_contains: p.url_contains.filter(|s| !s.is_empty()),
        resource_types: p
            .resource_types
            .filter(|t| !t.is_empty())
            .map(|types| types.iter().map(|t| ResourceType::parse_loose(t)).collect()),
        include_noise: p.include_noise.unwrap_or(false),
        headers: p.headers.unwrap_or(false),
    };
    let pulled = page.settled(false, call.deadline).await.network(&query, call.deadline).await;
    Ok(NetworkPullResult {
        requests: pulled.requests,
        pending: pulled.pending,
        dropped: (pulled.dropped > 0).then_some(pulled.dropped),
        more: (pulled.more > 0).then_some(pulled.more),
    })
}

async fn network_body(call: Call, page: Page, p: NetworkBodyParams) -> Result<NetworkBodyResult, ApiError> {
    let whole = page
        .settled(false, call.deadline)
        .await
        .body(&p.request_id, call.deadline)
        .await
        .map_err(|why| ApiError::invalid("requestId", why))?;
    Ok(NetworkBodyResult {
        body: whole.text,
        truncated: whole.truncated,
        request_headers: whole.request_headers,
        response_headers: whole.response_headers,
    })
}
