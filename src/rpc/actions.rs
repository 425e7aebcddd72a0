//! `page.click`, `page.fill`, `page.press`: acting like a user, with auto-waiting.
//!
//! Every action is declared with [`action`]: it takes an element (`selector` or `ref`), the
//! shared [`ActionOptions`] and its own params, and answers the same [`ActionResult`], so an
//! action's declaration lists only what is its own.

use std::future::Future;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::error::ApiError;
use super::registry::{Call, MethodSpec, Params, page_method};
use super::snapshot::{PageAfterAction, after_action, max_chars};
use crate::browser::{ClickOptions, KeyCombo, Modifier, MouseButton, Page, SignalCounts, Target};

const ACTION_TIMEOUT_MS: u64 = 15_000;

/// What every action accepts besides its element and its own params.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ActionOptions {
    /// Return the page's snapshot, url and title once the action has settled (default false).
    pub snapshot: Option<bool>,
    /// Upper bound on that snapshot's characters (default 20000).
    pub max_chars: Option<u64>,
}

impl Params for ActionOptions {}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ActionResult {
    pub ok: bool,
    /// New error entries waiting in logs.pull / network.pull since the last pull.
    pub signals: SignalCounts,
    /// The page after the action, when called with `snapshot: true`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page: Option<PageAfterAction>,
}

/// Declares an action: `handler` acts on the element; the result (signals, and the snapshot when
/// asked for) is the same for every action.
fn action<P, F, Fut>(name: &'static str, summary: &'static str, handler: F) -> MethodSpec
where
    P: Params,
    F: Fn(Call, Page, Target, P) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<(), ApiError>> + Send + 'static,
{
    let handler = Arc::new(handler);
    page_method(
        name,
        summary,
        ACTION_TIMEOUT_MS,
        move |call: Call, page: Page, (target, options, p): (Target, ActionOptions, P)| {
            let handler = handler.clone();
            async move {
                let max = max_chars(options.max_chars)?;
                handler(call.clone(), page.clone(), target, p).await?;
                let after = match options.snapshot {
                    Some(true) => Some(after_action(&call, &page, max).await?),
                    _ => None,
                };
                Ok(ActionResult { ok: true, signals: page.signal_counts(), page: after })
            }
        },
    )
}

/// Clicks the element, like a user: first it waits (up to `timeout`) until the element is
/// attached, visible, enabled, stable (not animating) and is what a click at its centre would hit;
/// it is scrolled into view; then real mouse events are dispatched at its centre. A selector
/// matching several elements fails with `ambiguous_selector` listing them; a timeout says what it
/// was waiting for (`#under is covered by div#modal.modal "Cookie notice"`). If the click starts a
/// navigation, the call returns once the new page has loaded.
///
/// Every action (`page.click`, `page.fill`, `page.press`) takes the element as `selector` (any
/// form, see Selectors) or `ref` (from `page.snapshot`), and answers `{"ok": true, "signals"}`;
/// with `"snapshot": true` also the page once the action has settled — `"page": {"url",
/// "title", "snapshot", "refs", "truncated"}` (bounded by `maxChars`) — so an agent needs one
/// call per step.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClickParams {
    /// left (default), right or middle.
    pub button: Option<MouseButton>,
    /// Keys held during the click: Alt, Control, Meta, Shift.
    pub modifiers: Option<Vec<Modifier>>,
    /// 2 for a double click (default 1).
    pub click_count: Option<u32>,
}

impl Params for ClickParams {}

/// Replaces the value of an input, textarea or contenteditable element as a user would: it waits
/// for the element like `page.click`, focuses it, selects the old text and types `value` (`input`
/// events fire), then fires `change`. Date, time, color and range inputs get the value set
/// directly. Checkboxes, radios and read-only fields are refused with `not_actionable`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct FillParams {
    /// The new value.
    pub value: String,
}

impl Params for FillParams {}

/// Focuses the element and presses `key`, named as in Playwright: `Enter`, `Tab`, `Escape`,
/// `ArrowDown`, `Backspace`, `F5`, a character (`a`), or a combination (`Control+A`, `Shift+Tab`).
#[derive(Debug, Deserialize, JsonSchema)]
pub struct PressParams {
    /// Playwright key names: Enter, Tab, ArrowDown, Control+A, a.
    pub key: String,
}

impl Params for PressParams {}

pub fn methods() -> Vec<MethodSpec> {
    vec![
        action("page.click", "Click an element once it is visible, enabled, stable and not covered.", click)
            .example(r#"{"selector":"role=button[name=\"New Project\"]"}"#),
        action("page.fill", "Replace an input's value, typing like a user.", fill)
            .example(r##"{"selector":"#project-name","value":"Zephyr"}"##),
        action("page.press", "Press a key or combination (Enter, Control+A) on an element.", press)
            .example(r##"{"selector":"#project-name","key":"Enter"}"##),
    ]
}

async fn click(call: Call, page: Page, target: Target, p: ClickParams) -> Result<(), ApiError> {
    let click_count = p.click_count.unwrap_or(1);
    if !(1..=3).contains(&click_count) {
        return Err(ApiError::invalid("clickCount", "clickCount must be 1, 2 or 3"));
    }
    let options =
        ClickOptions { button: p.button.unwrap_or_default(), modifiers: p.modifiers.unwrap_or_default(), click_count };
    Ok(page.click(&target, &options, call.deadline).await?)
}

async fn fill(call: Call, page: Page, target: Target, p: FillParams) -> Result<(), ApiError> {
    Ok(page.fill(&target, &p.value, call.ctx.refuse_password_fill, call.deadline).await?)
}

async fn press(call: Call, page: Page, target: Target, p: PressParams) -> Result<(), ApiError> {
    let combo: KeyCombo =
        p.key.parse().map_err(|e: crate::browser::BrowserError| ApiError::invalid("key", e.to_string()))?;
    Ok(page.press(&target, &combo, call.deadline).await?)
}
