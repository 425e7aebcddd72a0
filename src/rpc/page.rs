//! `page.*`: navigating, waiting, reading and evaluating.

use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::error::ApiError;
use super::registry::{Call, MethodSpec, Params, page_method};
use crate::browser::{BrowserError, Landed, Page, SignalCounts, Target, TextFormat, WaitUntil};

const NAV_TIMEOUT_MS: u64 = 45_000;
const TIMEOUT_MS: u64 = 30_000;

/// Navigates and waits. `waitUntil`: `load`, `domcontentloaded` or `networkidle` (default: no
/// request in flight for 500 ms). Only http(s) URLs matching `ALLOW_HOST_REGEX` are loaded
/// (`url_not_allowed` otherwise). An HTTP error status is not a failure: the result carries it. A
/// connection that fails is `navigation_failed` with Chromium's reason
/// (`net::ERR_CONNECTION_REFUSED`).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GotoParams {
    /// An http(s) URL matching ALLOW_HOST_REGEX.
    pub url: String,
    /// When the navigation counts as done (default networkidle: no request in flight for 500 ms).
    pub wait_until: Option<WaitUntil>,
}

impl Params for GotoParams {}

/// Reloads and waits like `page.goto`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReloadParams {
    /// Default networkidle.
    pub wait_until: Option<WaitUntil>,
}

impl Params for ReloadParams {}

/// Goes one page back in the session's history, like the browser's Back button, and waits for
/// that page to load (it is loaded again: its requests and errors are seen). With nothing to go
/// back to it fails with `invalid_params` and leaves the page as it is.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct BackParams {}

impl Params for BackParams {}

/// Goes one page forward in the session's history, like `page.back` the other way.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ForwardParams {}

impl Params for ForwardParams {}

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

/// Waits for the current document to reach `state`: `load`, `domcontentloaded`, `networkidle`,
/// or `idleFor` (no network activity for `ms` milliseconds; `ms` is required then).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WaitForParams {
    /// load, domcontentloaded, networkidle, or idleFor (with `ms`).
    pub state: WaitState,
    /// For idleFor: how long the network must be quiet, in milliseconds.
    pub ms: Option<u64>,
}

impl Params for WaitForParams {}

#[derive(Debug, Serialize, JsonSchema)]
pub struct WaitForResult {
    pub state: WaitState,
}

/// The visible text of the first element matching `selector` (any selector form, default
/// `body`) or `ref` (from `page.snapshot`), with innerText semantics: `display:none` and
/// `visibility:hidden` content is left out. With `normalize` (default true) `\r` is removed,
/// trailing spaces before line ends are dropped, 3+ newlines collapse to 2 and the ends are
/// trimmed. The text is cut to `maxChars` characters, and then the result has
/// `"truncated": true`. No match: `element_not_found`.
///
/// `"format": "markdown"` returns the same visible text marked up for a model: `#` headings, `-`
/// and `1.` lists (nested lists indented), links as `[text](absolute href)`, tables as pipe
/// tables, `pre` blocks as fenced code (with the `language-…` class as its info string), inline
/// `code`, `**bold**`, `*italic*`, `> quotes`, `![alt](src)` images, form values (`[x]` for a
/// checked box) and open shadow roots in place. Nothing `format: "text"` shows is dropped.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TextParams {
    /// text (default): what innerText shows; markdown: the same text with headings, lists,
    /// [links](href), tables and code blocks marked up.
    pub format: Option<TextFormat>,
    /// Upper bound on the returned characters, 1 to 10000000 (default 90000).
    pub max_chars: Option<u64>,
    /// Tidy whitespace (default true).
    pub normalize: Option<bool>,
}

impl Params for TextParams {}

#[derive(Debug, Serialize, JsonSchema)]
pub struct TextResult {
    pub text: String,
    /// Present and true when the text was cut to maxChars.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
}

/// The document's current HTML (after JavaScript), with its doctype.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ContentParams {}

impl Params for ContentParams {}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ContentResult {
    pub html: String,
}

/// Runs `expression` in the page. A value is returned as JSON; a promise is awaited; top-level
/// `await` works. With `arg`, the expression may use `arg` as a variable (`"arg.x + 1"`), and a
/// function expression is called with it (`"(sel) => document.querySelector(sel).textContent"`);
/// `arg: null` arrives as `null`. An exception becomes `evaluation_failed`
/// carrying the page's message. A result JSON cannot carry (a DOM node, a cycle, `NaN`, a
/// function) is `result_not_serializable`, saying what it was. A script still running at
/// `timeout` is terminated, so the session stays usable.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct EvaluateParams {
    /// A JavaScript expression, or a function (called with `arg`); promises are awaited.
    pub expression: String,
    /// Any JSON value: a variable `arg` of the expression, or the argument of a function expression.
    #[serde(default, deserialize_with = "present")]
    pub arg: Option<Value>,
}

impl Params for EvaluateParams {}

/// A param that is present, `null` included (which `Option` alone would read as absent).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct EvaluateResult {
    pub result: Value,
}

pub fn methods() -> Vec<MethodSpec> {
    vec![
        page_method("page.goto", "Navigate to a URL and wait until it has loaded.", NAV_TIMEOUT_MS, goto)
            .example(r#"{"url":"http://127.0.0.1:3338/projects","waitUntil":"networkidle"}"#)
            .tool("navigate"),
        page_method("page.waitFor", "Wait for a load state or for the network to be idle.", TIMEOUT_MS, wait_for)
            .example(r#"{"state":"idleFor","ms":1000}"#)
            .tool("wait_for"),
        page_method("page.reload", "Reload the page and wait until it has loaded.", NAV_TIMEOUT_MS, reload)
            .example(r#"{"waitUntil":"load"}"#)
            .tool("reload"),
        page_method("page.back", "Go back one page in the session's history.", NAV_TIMEOUT_MS, back),
        page_method("page.forward", "Go forward one page in the session's history.", NAV_TIMEOUT_MS, forward),
        page_method("page.text", "The visible text of the page or of one element.", TIMEOUT_MS, text)
            .example(r##"{"selector":"#project-list","maxChars":2000}"##)
            .tool("text"),
        page_method("page.content", "The page's current HTML, after JavaScript.", TIMEOUT_MS, content),
        page_method("page.evaluate", "Run JavaScript in the page and return its JSON result.", TIMEOUT_MS, evaluate)
            .example(r#"{"expression":"(sel) => document.querySelector(sel).textContent","arg":"h1"}"#)
            .tool("evaluate"),
    ]
}

async fn goto(call: Call, page: Page, p: GotoParams) -> Result<NavigationResult, ApiError> {
    call.ctx.sessions.policy().check(&p.url).map_err(BrowserError::from)?;
    navigate(&page, &p.url, p.wait_until.unwrap_or_default(), call.deadline).await
}

/// Navigates (the URL already checked against the policy) and says where the page ended up.
pub(super) async fn navigate(
    page: &Page,
    url: &str,
    wait_until: WaitUntil,
    deadline: tokio::time::Instant,
) -> Result<NavigationResult, ApiError> {
    let landed = page.goto(url, wait_until, deadline).await?;
    Ok(NavigationResult::new(landed, page.signal_counts()))
}

async fn reload(call: Call, page: Page, p: ReloadParams) -> Result<NavigationResult, ApiError> {
    let landed = page.reload(p.wait_until.unwrap_or_default(), call.deadline).await?;
    Ok(NavigationResult::new(landed, page.signal_counts()))
}

async fn back(call: Call, page: Page, _: BackParams) -> Result<NavigationResult, ApiError> {
    history(call, page, -1).await
}

async fn forward(call: Call, page: Page, _: ForwardParams) -> Result<NavigationResult, ApiError> {
    history(call, page, 1).await
}

async fn history(call: Call, page: Page, step: i64) -> Result<NavigationResult, ApiError> {
    match page.go_history(step, call.deadline).await? {
        Some(landed) => Ok(NavigationResult::new(landed, page.signal_counts())),
        None => {
            let way = if step < 0 { "back to: this is the first page" } else { "forward to: this is the last page" };
            Err(ApiError::invalid("session_id", format!("the session's history has no page to go {way}")))
        }
    }
}

async fn wait_for(call: Call, page: Page, p: WaitForParams) -> Result<WaitForResult, ApiError> {
    let deadline = call.deadline;
    match (p.state, p.ms) {
        (WaitState::IdleFor, Some(ms)) if (1..=600_000).contains(&ms) => {
            page.wait_for_quiet_network(Duration::from_millis(ms), deadline, "page.waitFor(idleFor)").await?
        }
        (WaitState::IdleFor, Some(_)) => return Err(ApiError::invalid("ms", "ms must be 1 to 600000")),
        (WaitState::IdleFor, None) => {
            return Err(ApiError::invalid("ms", "state idleFor needs ms: how long the network must be quiet"));
        }
        (_, Some(_)) => {
            return Err(ApiError::invalid("ms", "ms only goes with state idleFor; use timeout to bound the wait"));
        }
        (WaitState::Load, None) => page.wait_for_state(WaitUntil::Load, deadline).await?,
        (WaitState::DomContentLoaded, None) => page.wait_for_state(WaitUntil::DomContentLoaded, deadline).await?,
        (WaitState::NetworkIdle, None) => page.wait_for_state(WaitUntil::NetworkIdle, deadline).await?,
    }
    Ok(WaitForResult { state: p.state })
}

async fn text(call: Call, page: Page, (target, p): (Option<Target>, TextParams)) -> Result<TextResult, ApiError> {
    let max_chars = match p.max_chars {
        None => 90_000,
        Some(n) if (1..=10_000_000).contains(&n) => n as usize,
        Some(_) => return Err(ApiError::invalid("maxChars", "maxChars must be 1 to 10000000")),
    };
    let target = target.unwrap_or_else(Target::body);
    let format = p.format.unwrap_or_default();
    let text = page.text(&target, format, max_chars, p.normalize.unwrap_or(true), call.deadline).await?;
    Ok(TextResult { text: text.text, truncated: text.truncated })
}

async fn content(call: Call, page: Page, _: ContentParams) -> Result<ContentResult, ApiError> {
    Ok(ContentResult { html: page.content(call.deadline).await? })
}

async fn evaluate(call: Call, page: Page, p: EvaluateParams) -> Result<EvaluateResult, ApiError> {
    if p.expression.trim().is_empty() {
        return Err(ApiError::invalid("expression", "expression must not be empty"));
    }
    Ok(EvaluateResult { result: page.evaluate(&p.expression, p.arg.as_ref(), call.deadline).await? })
}
