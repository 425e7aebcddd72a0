//! `session.*`: creating and closing sessions.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::RpcContext;
use super::error::ApiError;
use super::registry::{MethodSpec, Params, method};
use crate::browser::{CloseReason, Proxy, SessionOptions, StorageState, Viewport};

/// Opens an isolated session (own cookies, localStorage, cache) with one page.
///
/// The service keeps `WARM_SESSIONS` (default 1) blank sessions ready — a browser context with
/// its page, opened ahead of time and never used — so `session.create` only applies the options
/// and answers in a few milliseconds instead of waiting ~200 ms for Chromium; the pool refills in
/// the background. A warm session is exactly as fresh and isolated as a new one (no cookies,
/// storage or cache from anyone). Warm sessions count toward `MAX_SESSIONS`, and when the cap is
/// reached a `session.create` takes a warm session rather than failing. A session with its own
/// `proxy` is always made fresh (the upstream is fixed when the context is created). Beyond
/// `MAX_SESSIONS` open sessions: `capacity_exceeded` (or a wait of up to `QUEUE_TIMEOUT_MS`).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
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

impl Params for SessionCreateParams {}

#[derive(Debug, Serialize, JsonSchema)]
pub struct SessionCreateResult {
    pub session_id: String,
}

/// Closes the session and disposes its browser context. A call still running on the session
/// ends at once with `session_closed`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SessionIdParams {
    /// The session, from session.create.
    pub session_id: String,
}

impl Params for SessionIdParams {}

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
        )
        .example(r#"{"viewport":{"width":1024,"height":768}}"#),
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
