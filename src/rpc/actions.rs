//! `page.click`, `page.fill`, `page.press`: acting like a user, with auto-waiting.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::error::ApiError;
use super::{MethodSpec, RpcContext, method};
use crate::browser::actions::{ClickOptions, Modifier, MouseButton};
use crate::browser::signals::SignalCounts;

const DEFAULT_ACTION_TIMEOUT_MS: u64 = 15_000;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ClickParams {
    #[serde(rename = "session_id")]
    pub session_id: String,
    /// CSS (default), role=button[name="Save"], text=Save, or xpath=//button.
    pub selector: String,
    /// left (default), right or middle.
    pub button: Option<MouseButton>,
    /// Keys held during the click: Alt, Control, Meta, Shift.
    pub modifiers: Option<Vec<Modifier>>,
    /// 2 for a double click (default 1).
    pub click_count: Option<u32>,
    /// Milliseconds to wait for the element to be actionable (default 15000).
    pub timeout: Option<u64>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct FillParams {
    #[serde(rename = "session_id")]
    pub session_id: String,
    /// An input, textarea or contenteditable element.
    pub selector: String,
    /// Replaces the current value, typed like a user (input and change events fire).
    pub value: String,
    /// Milliseconds (default 15000).
    pub timeout: Option<u64>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PressParams {
    #[serde(rename = "session_id")]
    pub session_id: String,
    /// The element that gets keyboard focus first.
    pub selector: String,
    /// Playwright key names: Enter, Tab, ArrowDown, Control+A, a.
    pub key: String,
    /// Milliseconds (default 15000).
    pub timeout: Option<u64>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ActionResult {
    pub ok: bool,
    /// New error entries waiting in logs.pull / network.pull since the last pull.
    pub signals: SignalCounts,
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
    let signals = ctx
        .sessions
        .with_session(&p.session_id, deadline, |s| async move {
            s.click(&p.selector, &options, deadline).await?;
            Ok(s.signal_counts())
        })
        .await?;
    Ok(ActionResult { ok: true, signals })
}

async fn fill(ctx: Arc<RpcContext>, p: FillParams) -> Result<ActionResult, ApiError> {
    let deadline = ctx.deadline(p.timeout, DEFAULT_ACTION_TIMEOUT_MS)?;
    let refuse_password = ctx.refuse_password_fill;
    let signals = ctx
        .sessions
        .with_session(&p.session_id, deadline, |s| async move {
            s.fill(&p.selector, &p.value, refuse_password, deadline).await?;
            Ok(s.signal_counts())
        })
        .await?;
    Ok(ActionResult { ok: true, signals })
}

async fn press(ctx: Arc<RpcContext>, p: PressParams) -> Result<ActionResult, ApiError> {
    let deadline = ctx.deadline(p.timeout, DEFAULT_ACTION_TIMEOUT_MS)?;
    crate::browser::keys::parse(&p.key).map_err(|e| ApiError::invalid("key", e.to_string()))?;
    let signals = ctx
        .sessions
        .with_session(&p.session_id, deadline, |s| async move {
            s.press(&p.selector, &p.key, deadline).await?;
            Ok(s.signal_counts())
        })
        .await?;
    Ok(ActionResult { ok: true, signals })
}
