//! `session.*`: creating and closing sessions.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::error::ApiError;
use super::{MethodSpec, RpcContext, method};
use crate::browser::manager::CloseReason;
use crate::browser::options::{Proxy, SessionOptions, StorageState, Viewport};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SessionCreateParams {
    /// Must match the service's HEADLESS setting if given (all sessions share one Chromium).
    pub headless: Option<bool>,
    /// Default 1280x800.
    pub viewport: Option<Viewport>,
    /// Overrides the browser's user agent for this session.
    pub user_agent: Option<String>,
    /// Cookies and localStorage to start with (Playwright's storageState format).
    pub storage_state: Option<StorageState>,
    /// A proxy for all of this session's traffic.
    pub proxy: Option<Proxy>,
    /// Milliseconds to wait for the browser to open the session (default 30000).
    pub timeout: Option<u64>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct SessionCreateResult {
    pub session_id: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SessionIdParams {
    pub session_id: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct OkResult {
    pub ok: bool,
}

pub fn methods() -> Vec<MethodSpec> {
    vec![
        method(
            "session.create",
            "Open an isolated session (its own cookies, storage and cache) with one page.",
            create,
        ),
        method("session.close", "Close a session and free everything it held.", close),
    ]
}

async fn create(ctx: Arc<RpcContext>, p: SessionCreateParams) -> Result<SessionCreateResult, ApiError> {
    if let Some(headless) = p.headless.filter(|h| *h != ctx.headless) {
        return Err(ApiError::invalid(
            "headless",
            format!(
                "headless={headless} is not available: all sessions share one Chromium started with HEADLESS={}; \
                 omit the param",
                ctx.headless
            ),
        ));
    }
    let viewport = p.viewport.unwrap_or_default();
    viewport.validate().map_err(|m| ApiError::invalid("viewport", m))?;
    if let Some(proxy) = &p.proxy {
        proxy.validate().map_err(|m| ApiError::invalid("proxy", m))?;
    }
    if p.user_agent.as_deref().is_some_and(|ua| ua.trim().is_empty()) {
        return Err(ApiError::invalid("userAgent", "userAgent must not be empty"));
    }
    let deadline = ctx.deadline(p.timeout, 30_000)?;
    let options = SessionOptions { viewport, user_agent: p.user_agent, storage_state: p.storage_state, proxy: p.proxy };
    let session_id = ctx.sessions.create(&options, deadline).await?;
    Ok(SessionCreateResult { session_id })
}

async fn close(ctx: Arc<RpcContext>, p: SessionIdParams) -> Result<OkResult, ApiError> {
    ctx.sessions.close(&p.session_id, CloseReason::Closed).await?;
    Ok(OkResult { ok: true })
}
