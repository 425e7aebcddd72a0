//! `logs.pull` and `network.pull`: draining what went wrong in the page.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::error::ApiError;
use super::{MethodSpec, RpcContext, method};
use crate::browser::signals::{ConsoleEntry, Level, NetworkEntry, PageError};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct LogsPullParams {
    #[serde(rename = "session_id")]
    pub session_id: String,
    /// Keep console entries at this level and above: error, warning, info or debug (default).
    pub level: Option<Level>,
}

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

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct NetworkPullParams {
    #[serde(rename = "session_id")]
    pub session_id: String,
    /// Only status >= 400 and failed requests (default true).
    pub only_errors: Option<bool>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct NetworkPullResult {
    pub requests: Vec<NetworkEntry>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dropped: Option<u64>,
}

pub fn methods() -> Vec<MethodSpec> {
    vec![
        method("logs.pull", "Drain the console messages and uncaught page errors seen since the last pull.", logs_pull),
        method(
            "network.pull",
            "Drain the finished requests (by default only failed ones) since the last pull.",
            network_pull,
        ),
    ]
}

async fn logs_pull(ctx: Arc<RpcContext>, p: LogsPullParams) -> Result<LogsPullResult, ApiError> {
    let deadline = ctx.deadline(None, 10_000)?;
    let level = p.level.unwrap_or(Level::Debug);
    let logs = ctx
        .sessions
        .with_session(&p.session_id, deadline, |s| async move { Ok(s.pull_logs(level, deadline).await) })
        .await?;
    Ok(LogsPullResult {
        console: logs.console,
        page_errors: logs.page_errors,
        dropped: (logs.dropped > 0).then_some(logs.dropped),
    })
}

async fn network_pull(ctx: Arc<RpcContext>, p: NetworkPullParams) -> Result<NetworkPullResult, ApiError> {
    let deadline = ctx.deadline(None, 10_000)?;
    let only_errors = p.only_errors.unwrap_or(true);
    let (requests, dropped) = ctx
        .sessions
        .with_session(&p.session_id, deadline, |s| async move { Ok(s.pull_network(only_errors, deadline).await) })
        .await?;
    Ok(NetworkPullResult { requests, dropped: (dropped > 0).then_some(dropped) })
}
