//! `page.*`: navigating, waiting, reading and evaluating.

use std::sync::Arc;
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::error::ApiError;
use super::target;
use super::{MethodSpec, RpcContext, method};
use crate::browser::BrowserError;
use crate::browser::navigation::{Landed, WaitUntil};
use crate::browser::reading::TextFormat;
use crate::browser::signals::SignalCounts;

const DEFAULT_NAV_TIMEOUT_MS: u64 = 45_000;
const DEFAULT_TIMEOUT_MS: u64 = 30_000;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct GotoParams {
    #[serde(rename = "session_id")]
    pub session_id: String,
    /// An http(s) URL matching ALLOW_HOST_REGEX.
    pub url: String,
    /// When the navigation counts as done (default networkidle: no request in flight for 500 ms).
    pub wait_until: Option<WaitUntil>,
    /// Milliseconds (default 45000).
    pub timeout: Option<u64>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ReloadParams {
    #[serde(rename = "session_id")]
    pub session_id: String,
    /// Default networkidle.
    pub wait_until: Option<WaitUntil>,
    /// Milliseconds (default 45000).
    pub timeout: Option<u64>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct NavigationResult {
    pub url: String,
    pub title: String,
    /// HTTP status of the main document (absent for pages not fetched over the network).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// New error entries waiting in logs.pull / network.pull since the last pull.
    pub signals: SignalCounts,
}

impl NavigationResult {
    fn new(landed: Landed, signals: SignalCounts) -> Self {
        Self { url: landed.url, title: landed.title, status: landed.status, signals }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum WaitState {
    #[serde(rename = "load")]
    Load,
    #[serde(rename = "domcontentloaded")]
    DomContentLoaded,
    #[serde(rename = "networkidle")]
    NetworkIdle,
    /// No network activity for `ms` milliseconds.
    #[serde(rename = "idleFor")]
    IdleFor,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct WaitForParams {
    #[serde(rename = "session_id")]
    pub session_id: String,
    pub state: WaitState,
    /// For idleFor: how long the network must be quiet, in milliseconds.
    pub ms: Option<u64>,
    /// Milliseconds (default 30000).
    pub timeout: Option<u64>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct WaitForResult {
    pub state: WaitState,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct TextParams {
    #[serde(rename = "session_id")]
    pub session_id: String,
    /// The element to read (default body; the first match): any selector form, or ref=e5.
    pub selector: Option<String>,
    /// A ref from page.snapshot (e5); the same as selector ref=e5.
    #[serde(rename = "ref")]
    pub element_ref: Option<String>,
    /// text (default): what innerText shows; markdown: the same text with headings, lists,
    /// [links](href), tables and code blocks marked up.
    pub format: Option<TextFormat>,
    /// Upper bound on the returned characters (default 90000).
    pub max_chars: Option<u64>,
    /// Tidy whitespace (default true).
    pub normalize: Option<bool>,
    /// Milliseconds (default 30000).
    pub timeout: Option<u64>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct TextResult {
    pub text: String,
    /// Present and true when the text was cut to maxChars.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ContentParams {
    #[serde(rename = "session_id")]
    pub session_id: String,
    /// Milliseconds (default 30000).
    pub timeout: Option<u64>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ContentResult {
    pub html: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct EvaluateParams {
    #[serde(rename = "session_id")]
    pub session_id: String,
    /// A JavaScript expression, or a function (called with `arg`); promises are awaited.
    pub expression: String,
    /// Passed to the function as its argument.
    pub arg: Option<Value>,
    /// Milliseconds (default 30000).
    pub timeout: Option<u64>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct EvaluateResult {
    pub result: Value,
}

pub fn methods() -> Vec<MethodSpec> {
    vec![
        method("page.goto", "Navigate to a URL and wait until it has loaded.", goto),
        method("page.waitFor", "Wait for a load state or for the network to be idle.", wait_for),
        method("page.reload", "Reload the page and wait until it has loaded.", reload),
        method("page.text", "The visible text of the page or of one element.", text),
        method("page.content", "The page's current HTML, after JavaScript.", content),
        method("page.evaluate", "Run JavaScript in the page and return its JSON result.", evaluate),
    ]
}

async fn goto(ctx: Arc<RpcContext>, p: GotoParams) -> Result<NavigationResult, ApiError> {
    ctx.sessions.policy().check(&p.url).map_err(BrowserError::from)?;
    let deadline = ctx.deadline(p.timeout, DEFAULT_NAV_TIMEOUT_MS)?;
    let wait_until = p.wait_until.unwrap_or_default();
    let result = ctx
        .sessions
        .with_session(&p.session_id, deadline, |s| async move {
            let landed = s.goto(&p.url, wait_until, deadline).await?;
            Ok(NavigationResult::new(landed, s.signal_counts()))
        })
        .await?;
    Ok(result)
}

async fn reload(ctx: Arc<RpcContext>, p: ReloadParams) -> Result<NavigationResult, ApiError> {
    let deadline = ctx.deadline(p.timeout, DEFAULT_NAV_TIMEOUT_MS)?;
    let wait_until = p.wait_until.unwrap_or_default();
    let result = ctx
        .sessions
        .with_session(&p.session_id, deadline, |s| async move {
            let landed = s.reload(wait_until, deadline).await?;
            Ok(NavigationResult::new(landed, s.signal_counts()))
        })
        .await?;
    Ok(result)
}

async fn wait_for(ctx: Arc<RpcContext>, p: WaitForParams) -> Result<WaitForResult, ApiError> {
    let deadline = ctx.deadline(p.timeout, DEFAULT_TIMEOUT_MS)?;
    let state = p.state;
    let idle_ms = match (state, p.ms) {
        (WaitState::IdleFor, Some(ms)) if (1..=600_000).contains(&ms) => ms,
        (WaitState::IdleFor, Some(_)) => return Err(ApiError::invalid("ms", "ms must be 1 to 600000")),
        (WaitState::IdleFor, None) => {
            return Err(ApiError::invalid("ms", "state idleFor needs ms: how long the network must be quiet"));
        }
        (_, Some(_)) => {
            return Err(ApiError::invalid("ms", "ms only goes with state idleFor; use timeout to bound the wait"));
        }
        (_, None) => 0,
    };
    ctx.sessions
        .with_session(&p.session_id, deadline, |s| async move {
            match state {
                WaitState::Load => s.wait_for_state(WaitUntil::Load, deadline).await,
                WaitState::DomContentLoaded => s.wait_for_state(WaitUntil::DomContentLoaded, deadline).await,
                WaitState::NetworkIdle => s.wait_for_state(WaitUntil::NetworkIdle, deadline).await,
                WaitState::IdleFor => {
                    s.wait_for_quiet_network(Duration::from_millis(idle_ms), deadline, "page.waitFor(idleFor)").await
                }
            }
        })
        .await?;
    Ok(WaitForResult { state })
}

async fn text(ctx: Arc<RpcContext>, p: TextParams) -> Result<TextResult, ApiError> {
    let deadline = ctx.deadline(p.timeout, DEFAULT_TIMEOUT_MS)?;
    let selector = target::optional(p.selector, p.element_ref)?.unwrap_or_else(|| "body".into());
    let format = p.format.unwrap_or_default();
    let max_chars = match p.max_chars {
        None => 90_000,
        Some(n) if (1..=10_000_000).contains(&n) => n as usize,
        Some(_) => return Err(ApiError::invalid("maxChars", "maxChars must be 1 to 10000000")),
    };
    let normalize = p.normalize.unwrap_or(true);
    let text = ctx
        .sessions
        .with_session(&p.session_id, deadline, |s| async move {
            s.text(&selector, format, max_chars, normalize, deadline).await
        })
        .await?;
    Ok(TextResult { text: text.text, truncated: text.truncated })
}

async fn content(ctx: Arc<RpcContext>, p: ContentParams) -> Result<ContentResult, ApiError> {
    let deadline = ctx.deadline(p.timeout, DEFAULT_TIMEOUT_MS)?;
    let html = ctx.sessions.with_session(&p.session_id, deadline, |s| async move { s.content(deadline).await }).await?;
    Ok(ContentResult { html })
}

async fn evaluate(ctx: Arc<RpcContext>, p: EvaluateParams) -> Result<EvaluateResult, ApiError> {
    let deadline = ctx.deadline(p.timeout, DEFAULT_TIMEOUT_MS)?;
    if p.expression.trim().is_empty() {
        return Err(ApiError::invalid("expression", "expression must not be empty"));
    }
    let result =
        ctx.sessions
            .with_session(&p.session_id, deadline, |s| async move {
                s.evaluate(&p.expression, p.arg.as_ref(), deadline).await
            })
            .await?;
    Ok(EvaluateResult { result })
}
