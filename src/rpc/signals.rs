//! `logs.pull` and `network.pull`: draining what went wrong in the page.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::error::ApiError;
use super::registry::{Call, MethodSpec, Params, page_method};
use crate::browser::{ConsoleEntry, Level, NetworkEntry, Page, PageError};

/// How long a pull may take by default (it only waits for events already sent to arrive).
const PULL_TIMEOUT_MS: u64 = 10_000;

/// Drains the console messages (`console.log` … with their source location) and uncaught page
/// errors (exceptions and unhandled promise rejections) seen since the last pull. `level` keeps
/// console entries at that level and above (`error`, `warning`, `info`, `debug`); the buffer is
/// drained whatever the level. Each buffer keeps the newest 1000 entries; `dropped` counts what a
/// full buffer lost.
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
    /// Entries lost because a buffer (1000 entries) was full since the last pull.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dropped: Option<u64>,
}

/// Drains the requests that finished since the last pull. With `onlyErrors` (default true) only
/// status ≥ 400 and failed requests (refused, DNS, blocked, aborted: `failure` says which) are
/// returned. An error response with a text body (JSON, HTML, text) carries `body`, its first 2 KB,
/// captured before the browser evicts it: the server's own error message is usually the fastest
/// way to the cause.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NetworkPullParams {
    /// Only status >= 400 and failed requests (default true).
    pub only_errors: Option<bool>,
}

impl Params for NetworkPullParams {}

#[derive(Debug, Serialize, JsonSchema)]
pub struct NetworkPullResult {
    pub requests: Vec<NetworkEntry>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dropped: Option<u64>,
}

pub fn methods() -> Vec<MethodSpec> {
    vec![
        page_method(
            "logs.pull",
            "Drain the console messages and uncaught page errors seen since the last pull.",
            PULL_TIMEOUT_MS,
            logs_pull,
        )
        .example(r#"{"level":"warning"}"#),
        page_method(
            "network.pull",
            "Drain the finished requests (by default only failed ones) since the last pull.",
            PULL_TIMEOUT_MS,
            network_pull,
        ),
    ]
}

async fn logs_pull(call: Call, page: Page, p: LogsPullParams) -> Result<LogsPullResult, ApiError> {
    let logs = page.pull_logs(p.level.unwrap_or(Level::Debug), call.deadline).await;
    Ok(LogsPullResult {
        console: logs.console,
        page_errors: logs.page_errors,
        dropped: (logs.dropped > 0).then_some(logs.dropped),
    })
}

async fn network_pull(call: Call, page: Page, p: NetworkPullParams) -> Result<NetworkPullResult, ApiError> {
    let (requests, dropped) = page.pull_network(p.only_errors.unwrap_or(true), call.deadline).await;
    Ok(NetworkPullResult { requests, dropped: (dropped > 0).then_some(dropped) })
}
