//! `page.click`, `page.fill`, `page.press`, `page.fillForm`: acting like a user, with
//! auto-waiting, and reporting what the action caused.
//!
//! Every action is declared with [`action`]: it takes an element (`selector` or `ref`), the
//! shared [`ActionOptions`] and its own params, and answers the same [`ActionResult`] — `ok`,
//! `signals`, the action's `effects` (requests it started, errors it raised, the page it led to,
//! what is still pending) and, when asked, the page's snapshot — so an action's declaration lists
//! only what is its own.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::error::ApiError;
use super::registry::{Block, BlockRole, Call, Hints, MethodSpec, ParamSet, Params, page_method};
use super::snapshot::{PageAfterAction, after_action, max_chars};
use super::target::TargetParams;
use crate::browser::pointer::{Offset, PointerTarget};
use crate::browser::{
    Acted, ActionNote, ActionRun, ActionTarget, BrowserError, ClickOptions, Effects, FieldValue, KeyCombo, Modifier,
    MouseButton, Page, SignalCounts, Target,
};

pub(super) const ACTION_TIMEOUT_MS: u64 = 15_000;
/// Default and bounds of `settleMs`.
const SETTLE_MS: u64 = 2_000;
const MAX_SETTLE_MS: u64 = 60_000;

/// Which snapshot an action returns.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum SnapshotWanted {
    /// true: the whole page; false: none.
    Whole(bool),
    /// "diff": only the lines that changed since this page's previous snapshot, marked + / -.
    Mode(SnapshotMode),
    /// Only this element's subtree: {"selector": …} or {"ref": …}.
    Element(TargetParams),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SnapshotMode {
    Diff,
}

/// What every action accepts besides its element and its own params.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ActionOptions {
    /// After the input, wait until the requests the action started have finished and the
    /// network has been quiet for 100 ms, at most this long (default 2000; 0 returns at once).
    /// An action that starts nothing never waits.
    pub settle_ms: Option<u64>,
    /// Also return the page once settled: true (whole), "diff" (changed lines since the previous
    /// snapshot), or {"selector"|"ref"} (one element's subtree). Default none.
    pub snapshot: Option<SnapshotWanted>,
    /// Upper bound on that snapshot's characters (default 20000).
    pub max_chars: Option<u64>,
}

impl Params for ActionOptions {
    const ROLE: BlockRole = BlockRole::Shared;
}

/// The snapshot an action should return: its element (None = whole page) and whether as a diff.
struct ShotWanted {
    element: Option<Target>,
    diff: bool,
}

impl ActionOptions {
    fn settle(&self) -> Result<Duration, ApiError> {
        match self.settle_ms {
            None => Ok(Duration::from_millis(SETTLE_MS)),
            Some(ms) if ms <= MAX_SETTLE_MS => Ok(Duration::from_millis(ms)),
            Some(_) => Err(ApiError::invalid("settleMs", format!("settleMs must be 0 to {MAX_SETTLE_MS}"))),
        }
    }

    fn shot(self) -> Result<Option<ShotWanted>, ApiError> {
        Ok(match self.snapshot {
            None | Some(SnapshotWanted::Whole(false)) => None,
            Some(SnapshotWanted::Whole(true)) => Some(ShotWanted { element: None, diff: false }),
            Some(SnapshotWanted::Mode(SnapshotMode::Diff)) => Some(ShotWanted { element: None, diff: true }),
            Some(SnapshotWanted::Element(target)) => {
                let element = target.into_target().map_err(|e| rename(e, "snapshot"))?;
                let element = element
                    .ok_or_else(|| ApiError::invalid("snapshot", "snapshot as an object needs selector or ref"))?;
                Some(ShotWanted { element: Some(element), diff: false })
            }
        })
    }
}

/// Where a pointer action (`page.click`, `page.dblclick`, `page.hover`) acts: on an element, or at a
/// point of the viewport.
#[derive(Debug)]
pub enum Aim {
    /// The element; `keep_scroll`: where it is now (`scroll: false`).
    Element { target: Target, keep_scroll: bool },
    /// Viewport coordinates, on whatever is there.
    Point { x: f64, y: f64 },
}

impl std::fmt::Display for Aim {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Element { target, .. } => write!(f, "{target}"),
            Self::Point { x, y } => write!(f, "at ({x}, {y})"),
        }
    }
}

/// How a pointer action reaches its element, or the point it acts at instead.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct AimParams {
    /// Act at this viewport x (CSS px) on whatever is there, instead of on an element; with `y`.
    pub x: Option<f64>,
    /// Viewport y (CSS px), with `x`.
    pub y: Option<f64>,
    /// Scroll the element to the middle first (default true). false: act where it is now, failing
    /// with `element_covered` or `element_outside_viewport`.
    pub scroll: Option<bool>,
}

impl Params for AimParams {
    const ROLE: BlockRole = BlockRole::Shared;
}

/// An element (`selector` or `ref`, with `scroll`) or a point (`x` and `y`).
impl ParamSet for Aim {
    fn blocks() -> Vec<Block> {
        let mut blocks = <Option<Target> as ParamSet>::blocks();
        blocks.extend(AimParams::blocks());
        blocks
    }
    fn parse(params: &serde_json::Value) -> Result<Self, ApiError> {
        let target = <Option<Target> as ParamSet>::parse(params)?;
        let aim = AimParams::parse(params)?;
        let coordinate = |name: &str, value: f64| {
            if value.is_finite() && (0.0..=100_000.0).contains(&value) {
                Ok(value)
            } else {
                Err(ApiError::invalid(name, format!("{name} must be a number of CSS pixels from 0 to 100000")))
            }
        };
        match (target, aim.x, aim.y) {
            (Some(_), Some(_), _) | (Some(_), _, Some(_)) => {
                Err(ApiError::invalid("x", "give an element (selector or ref) or a point (x and y), not both"))
            }
            (Some(target), None, None) => Ok(Self::Element { target, keep_scroll: aim.scroll == Some(false) }),
            (None, Some(x), Some(y)) if aim.scroll.is_none() => {
                Ok(Self::Point { x: coordinate("x", x)?, y: coordinate("y", y)? })
            }
            (None, Some(_), Some(_)) => Err(ApiError::invalid(
                "scroll",
                "scroll goes with an element; a point is always where the viewport is now",
            )),
            (None, Some(_), None) => Err(ApiError::invalid("y", "give y with x")),
            (None, None, Some(_)) => Err(ApiError::invalid("x", "give x with y")),
            (None, None, None) => Err(ApiError::invalid("selector", "missing selector (or ref, or x and y)")),
        }
    }
}

/// What every action answers.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ActionResult {
    pub ok: bool,
    /// What a user at the scroll position before would have hit there instead of the element.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user_would_hit: Option<PointerTarget>,
    /// How far the action scrolled to bring its element to the middle.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scrolled_by: Option<Offset>,
    /// For an action at `x`/`y`: the element that was there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hit: Option<PointerTarget>,
    /// New error entries waiting in logs.pull / network.pull since the last pull.
    pub signals: SignalCounts,
    /// What the action caused, and why.
    pub effects: Effects,
    /// The page after the action, when asked for with `snapshot`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page: Option<PageAfterAction>,
}

/// Runs an action's input (`body`, given the action's run) between its beginning and its
/// finish, and answers with what it caused.
pub(super) async fn act<F, Fut>(
    call: &Call,
    page: &Page,
    what: ActionNote,
    options: ActionOptions,
    body: F,
) -> Result<ActionResult, ApiError>
where
    F: FnOnce(ActionRun) -> Fut,
    Fut: Future<Output = Result<Acted, ApiError>>,
{
    let settle = options.settle()?;
    let max = max_chars(options.max_chars)?;
    let shot = options.shot()?;
    let run = page.begin_action(what, call.deadline).await;
    let acted = body(run.clone()).await?;
    let effects = run.finish(&acted, settle).await?;
    let after = match shot {
        Some(shot) => Some(after_action(call, page, max, shot.element, shot.diff).await?),
        None => None,
    };
    Ok(ActionResult {
        ok: true,
        user_would_hit: acted.approach.user_would_hit,
        scrolled_by: acted.approach.scrolled_by,
        hit: acted.hit,
        signals: page.seen().signal_counts(),
        effects,
        page: after,
    })
}

/// Declares an action: `handler` acts on the element (a [`Target`], or an [`Aim`] for pointer
/// actions); the result is the same for every action.
pub(super) fn action<E, P, F, Fut>(name: &'static str, summary: &'static str, handler: F) -> MethodSpec
where
    E: ParamSet + std::fmt::Display,
    P: Params,
    F: Fn(Call, ActionRun, E, P) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Acted, ApiError>> + Send + 'static,
{
    let handler = Arc::new(handler);
    page_method(
        name,
        summary,
        ACTION_TIMEOUT_MS,
        move |call: Call, page: Page, (target, options, p): (E, ActionOptions, P)| {
            let handler = handler.clone();
            async move {
                let what = ActionNote { method: name.into(), target: Some(ActionTarget::On(target.to_string())) };
                act(&call, &page, what, options, |run| handler(call.clone(), run, target, p)).await
            }
        },
    )
}

/// Clicks the element like a user: waits (up to `timeout`) until it is attached, visible, enabled,
/// stable and what a click at its centre would hit, scrolls it to the middle of the viewport, then
/// dispatches real mouse events there. Several matches fail with `ambiguous_selector`; a timeout
/// says what was missing (`#under is covered by div#modal.modal "Cookie notice"`). A click that
/// navigates returns once the new page has loaded.
///
/// Before scrolling it checks what a user at the current scroll position would hit there; when
/// that is something else the answer says so (`userWouldHit`, `scrolledBy`). `scroll: false` acts
/// in place, failing with `element_covered` or `element_outside_viewport`; `x` and `y` click a
/// viewport point (`hit`).
///
/// Every action answers `{"ok", "signals", "effects"}`: what it caused within `settleMs` and why
/// (the `Effects` schema). `snapshot` adds the page once settled.
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
/// directly. Checkboxes, radios and read-only fields are refused with `not_actionable`. A value
/// typed into a password field never appears in anything the service returns.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct FillParams {
    /// The new value.
    pub value: String,
    /// true: the value is a secret (an API key, a one-time code) though the field is no password
    /// field: masked like a password in every answer and event of the session, in every encoding.
    pub secret: Option<bool>,
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

/// A field's value in `page.fillForm`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum FieldInput {
    /// true / false: check or uncheck a checkbox or radio.
    Flag(bool),
    /// Text to type, or the value or label of a select's option.
    Text(String),
    /// A number, typed as text.
    Number(serde_json::Number),
    /// The options of a multiple select.
    Choices(Vec<String>),
}

/// One field of `page.fillForm`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct FormField {
    /// The field: any selector form. Give this or `ref`.
    pub selector: Option<String>,
    /// A ref from page.snapshot (e5).
    #[serde(rename = "ref")]
    pub element_ref: Option<String>,
    pub value: FieldInput,
}

/// Another element a method names (`page.fillForm`'s `submit`, `page.drag`'s `to`): a selector,
/// or {"selector"|"ref"}.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum OtherElement {
    Selector(String),
    Element(TargetParams),
}

impl OtherElement {
    /// The element, or an invalid-params error naming `param`.
    pub(super) fn into_target(self, param: &str) -> Result<Target, ApiError> {
        match self {
            Self::Selector(s) => Target::parse(&s).map_err(|e| ApiError::invalid(param, format!("{param}: {e}"))),
            Self::Element(t) => t
                .into_target()
                .map_err(|e| rename(e, param))?
                .ok_or_else(|| ApiError::invalid(param, format!("{param} needs selector or ref"))),
        }
    }
}

/// Fills a whole form in one call, in order: text fields are typed into (like `page.fill`),
/// selects get the option with that value or label (an array for a multiple select), checkboxes and
/// radios are set by a real click; `submit` is clicked last. `effects` cover the whole form. A field
/// that cannot take its value fails the call naming it (`fields[2]`); those before it stay set.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct FillFormParams {
    /// The fields, in order: [{"selector" or "ref", "value"}].
    pub fields: Vec<FormField>,
    /// Clicked once every field is set.
    pub submit: Option<OtherElement>,
}

impl Params for FillFormParams {}

pub fn methods() -> Vec<MethodSpec> {
    vec![
        action("page.click", "Click an element once it is visible, enabled, stable and not covered.", click)
            .example(r#"{"selector":"role=button[name=\"New Project\"]"}"#)
            .tool("click", Hints::ACT),
        action("page.fill", "Replace an input's value, typing like a user.", fill)
            .example(r##"{"selector":"#project-name","value":"Zephyr"}"##)
            .tool("fill", Hints::ACT),
        action("page.press", "Press a key or combination (Enter, Control+A) on an element.", press)
            .example(r##"{"selector":"#project-name","key":"Enter"}"##)
            .tool("press", Hints::ACT),
        page_method(
            "page.fillForm",
            "Fill text fields, selects, checkboxes and radios in one call, optionally submit; returns the effects.",
            ACTION_TIMEOUT_MS * 2,
            fill_form,
        )
        .example(
            r##"{"fields":[{"selector":"#email","value":"ada@example.com"},{"selector":"#plan","value":"Pro"},{"selector":"#terms","value":true}],"submit":"role=button[name=\"Sign up\"]"}"##,
        )
        .tool("fill_form", Hints::ACT),
    ]
}

async fn click(_call: Call, run: ActionRun, aim: Aim, p: ClickParams) -> Result<Acted, ApiError> {
    let click_count = p.click_count.unwrap_or(1);
    if !(1..=3).contains(&click_count) {
        return Err(ApiError::invalid("clickCount", "clickCount must be 1, 2 or 3"));
    }
    let options = ClickOptions {
        button: p.button.unwrap_or_default(),
        modifiers: p.modifiers.unwrap_or_default(),
        click_count,
        keep_scroll: false,
    };
    click_aim(&run, aim, options).await
}

/// Clicks where `aim` says.
pub(super) async fn click_aim(run: &ActionRun, aim: Aim, options: ClickOptions) -> Result<Acted, ApiError> {
    Ok(match aim {
        Aim::Element { target, keep_scroll } => run.click(&target, &ClickOptions { keep_scroll, ..options }).await?,
        Aim::Point { x, y } => run.click_point(x, y, &options).await?,
    })
}

async fn fill(call: Call, run: ActionRun, target: Target, p: FillParams) -> Result<Acted, ApiError> {
    if p.secret == Some(true) {
        run.keep_secret(&p.value);
    }
    Ok(run.fill(&target, &p.value, call.ctx.refuse_password_fill).await?)
}

async fn press(_call: Call, run: ActionRun, target: Target, p: PressParams) -> Result<Acted, ApiError> {
    let combo: KeyCombo = p.key.parse().map_err(|e: BrowserError| ApiError::invalid("key", e.to_string()))?;
    Ok(run.press(&target, &combo).await?)
}

async fn fill_form(
    call: Call,
    page: Page,
    (options, p): (ActionOptions, FillFormParams),
) -> Result<ActionResult, ApiError> {
    if p.fields.is_empty() && p.submit.is_none() {
        return Err(ApiError::invalid("fields", "give at least one field (or submit)"));
    }
    let mut fields = Vec::new();
    for (i, field) in p.fields.into_iter().enumerate() {
        let name = format!("fields[{i}]");
        let target = TargetParams { selector: field.selector, element_ref: field.element_ref }
            .into_target()
            .map_err(|e| rename(e, &name))?
            .ok_or_else(|| ApiError::invalid(&name, format!("{name} needs selector or ref")))?;
        let value = match field.value {
            FieldInput::Flag(b) => FieldValue::Flag(b),
            FieldInput::Text(t) => FieldValue::Text(t),
            FieldInput::Number(n) => FieldValue::Text(n.to_string()),
            FieldInput::Choices(c) => FieldValue::Choices(c),
        };
        fields.push((name, target, value));
    }
    let submit = p.submit.map(|s| s.into_target("submit")).transpose()?;
    let refuse_password = call.ctx.refuse_password_fill;
    let body = |run: ActionRun| async move {
        let mut acted = Acted::default();
        for (name, target, value) in &fields {
            let field = run.set_field(target, value, refuse_password).await.map_err(|err| match err {
                BrowserError::InvalidOption(message) => ApiError::invalid(name.as_str(), format!("{name}: {message}")),
                other => ApiError::Browser(other),
            })?;
            acted = acted.then(field);
        }
        if let Some(submit) = &submit {
            let clicked = run.click(submit, &ClickOptions { click_count: 1, ..ClickOptions::default() }).await?;
            acted = acted.then(clicked);
        }
        Ok(acted)
    };
    let what = ActionNote { method: "page.fillForm".into(), target: None };
    act(&call, &page, what, options, body).await
}

/// An invalid-params error about a target, renamed to the param it came in (`fields[2]`, `submit`).
fn rename(err: ApiError, param: &str) -> ApiError {
    match err {
        ApiError::InvalidParams { message, .. } => ApiError::invalid(param, format!("{param}: {message}")),
        other => other,
    }
}
