//! `page.click`, `page.fill`, `page.press`: acting like a user, with auto-waiting. Each takes a
//! selector or a ref, and can return the page's snapshot afterwards (`snapshot: true`).

use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::error::ApiError;
use super::snapshot::{PageAfterAction, after_action, max_chars};
use super::target;
use super::{MethodSpec, RpcContext, method};
use crate::browser::BrowserError;
use crate::browser::actions::{ClickOptions, Modifier, MouseButton};
use crate::browser::session::Session;
use crate::browser::signals::SignalCounts;

const DEFAULT_ACTION_TIMEOUT_MS: u64 = 15_000;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ClickParams {
    #[serde(rename = "session_id")]
    pub session_id: String,
    /// CSS (default), role=button[name="Save"], text=Save, xpath=//button, or ref=e5. Give this or `ref`.
    pub selector: Option<String>,
    /// A ref from page.snapshot (e5); the same as selector ref=e5.
    #[serde(rename = "ref")]
    pub element_ref: Option<String>,
    /// left (default), right or middle.
    pub button: Option<MouseButton>,
    /// Keys held during the click: Alt, Control, Meta, Shift.
    pub modifiers: Option<Vec<Modifier>>,
    /// 2 for a double click (default 1).
    pub click_count: Option<u32>,
    /// Milliseconds to wait for the element to be actionable (default 15000).
    pub timeout: Option<u64>,
    /// Return the page's snapshot, url and title once the action has settled (default false).
    pub snapshot: Option<bool>,
    /// Upper bound on that snapshot's characters (default 20000).
    pub max_chars: Option<u64>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct FillParams {
    #[serde(rename = "session_id")]
    pub session_id: String,
    /// The input, textarea or contenteditable element: any selector form, or ref=e5. Give this or `ref`.
    pub selector: Option<String>,
    /// A ref from page.snapshot (e5); the same as selector ref=e5.
    #[serde(rename = "ref")]
    pub element_ref: Option<String>,
    /// Replaces the current value, typed like a user (input and change events fire).
    pub value: String,
    /// Milliseconds (default 15000).
    pub timeout: Option<u64>,
    /// Return the page's snapshot, url and title once the action has settled (default false).
    pub snapshot: Option<bool>,
    /// Upper bound on that snapshot's characters (default 20000).
    pub max_chars: Option<u64>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PressParams {
    #[serde(rename = "session_id")]
    pub session_id: String,
    /// The element that gets keyboard focus first: any selector form, or ref=e5. Give this or `ref`.
    pub selector: Option<String>,
    /// A ref from page.snapshot (e5); the same as selector ref=e5.
    #[serde(rename = "ref")]
    pub element_ref: Option<String>,
    /// Playwright key names: Enter, Tab, ArrowDown, Control+A, a.
    pub key: String,
    /// Milliseconds (default 15000).
    pub timeout: Option<u64>,
    /// Return the page's snapshot, url and title once the action has settled (default false).
    pub snapshot: Option<bool>,
    /// Upper bound on that snapshot's characters (default 20000).
    pub max_chars: Option<u64>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ActionResult {
    pub ok: bool,
    /// New error entries waiting in logs.pull / network.pull since the last pull.
    pub signals: SignalCounts,
    /// The page after the action, when called with `snapshot: true`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page: Option<PageAfterAction>,
}

/// Signals, plus the page's snapshot when asked for.
async fn outcome(
    ctx: &RpcContext,
    s: &Session,
    snapshot: Option<bool>,
    max: usize,
) -> Result<ActionResult, BrowserError> {
    let page = match snapshot {
        Some(true) => Some(after_action(ctx, s, max).await?),
        _ => None,
    };
    Ok(ActionResult { ok: true, signals: s.signal_counts(), page })
}

pub fn methods() -> Vec<MethodSpec> {
    vec![
        method("page.click", "Click an element once it is visible, enabled, stable and not covered.", click),
        method("page.fill", "Replace an input's value, typing like a user.", fill),
        method("page.press", "Press a key or combination (Enter, Control+A) on an element.", press),
    ]
}

async fn click(ctx: Arc<RpcContext>, p: ClickParams) -> Result<ActionResult, ApiError> {
    let deadline = ctx.deadline(p.timeout, DEFAULT_ACTION_TIMEOUT_MS)?;
    let click_count = p.click_count.unwrap_or(1);
    if !(1..=3).contains(&click_count) {
        return Err(ApiError::invalid("clickCount", "clickCount must be 1, 2 or 3"));
    }
    let options =
        ClickOptions { button: p.button.unwrap_or_default(), modifiers: p.modifiers.unwrap_or_default(), click_count };
    let selector = target::required(p.selector, p.element_ref)?;
    let max = max_chars(p.max_chars)?;
    let c = ctx.clone();
    let result = ctx
        .sessions
        .with_session(&p.session_id, deadline, |s| async move {
            s.click(&selector, &options, deadline).await?;
            outcome(&c, &s, p.snapshot, max).await
        })
        .await?;
    Ok(result)
}

async fn fill(ctx: Arc<RpcContext>, p: FillParams) -> Result<ActionResult, ApiError> {
    let deadline = ctx.deadline(p.timeout, DEFAULT_ACTION_TIMEOUT_MS)?;
    let refuse_password = ctx.refuse_password_fill;
    let selector = target::required(p.selector, p.element_ref)?;
    let max = max_chars(p.max_chars)?;
    let c = ctx.clone();
    let result = ctx
        .sessions
        .with_session(&p.session_id, deadline, |s| async move {
            s.fill(&selector, &p.value, refuse_password, deadline).await?;
            outcome(&c, &s, p.snapshot, max).await
        })
        .await?;
    Ok(result)
}

async fn press(ctx: Arc<RpcContext>, p: PressParams) -> Result<ActionResult, ApiError> {
    let deadline = ctx.deadline(p.timeout, DEFAULT_ACTION_TIMEOUT_MS)?;
    crate::browser::keys::parse(&p.key).map_err(|e| ApiError::invalid("key", e.to_string()))?;
    let selector = target::required(p.selector, p.element_ref)?;
    let max = max_chars(p.max_chars)?;
    let c = ctx.clone();
    let result = ctx
        .sessions
        .with_session(&p.session_id, deadline, |s| async move {
            s.press(&selector, &p.key, deadline).await?;
            outcome(&c, &s, p.snapshot, max).await
        })
        .await?;
    Ok(result)
}
