//! `page.*`: navigating, waiting, reading and evaluating.

use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::time::Instant;

use super::answers::{MAX_ANSWER_BYTES, fits};
use super::error::ApiError;
use super::registry::{Call, Hints, MethodSpec, Params, page_method};
use crate::browser::{
    BrowserError, Effects, ElementState, EntryKind, Landed, Load, Page, ScrollPosition, SignalCounts, Since, Target,
    TextFormat,
};

const NAV_TIMEOUT_MS: u64 = 45_000;
const TIMEOUT_MS: u64 = 30_000;
/// How long `settled` waits after the load for the page's own requests, at most.
const SETTLE_AFTER_LOAD: Duration = Duration::from_secs(2);
/// What an agent's `navigate` and `reload` wait for when it does not say: the page as it reads
/// once its data has arrived, without the fixed idle time of `networkidle`.
const MCP_NAVIGATION: &str = r#"{"waitUntil":"settled"}"#;

/// When a navigation counts as done.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, JsonSchema)]
pub enum WaitUntil {
    /// The load event.
    #[serde(rename = "load")]
    Load,
    /// The DOMContentLoaded event.
    #[serde(rename = "domcontentloaded")]
    DomContentLoaded,
    /// Loaded, then no request in flight for 500 ms.
    #[default]
    #[serde(rename = "networkidle")]
    NetworkIdle,
    /// Loaded, then the page's own requests settled: those in flight at the load (the data its
    /// scripts fetch) and those they lead to have ended and nothing started for 100 ms; at most
    /// 2 s more. A page that fetches nothing returns at its load.
    #[serde(rename = "settled")]
    Settled,
}

impl WaitUntil {
    /// The state the browser waits for before any settling.
    fn browser(self) -> crate::browser::WaitUntil {
        match self {
            Self::Load | Self::Settled => crate::browser::WaitUntil::Load,
            Self::DomContentLoaded => crate::browser::WaitUntil::DomContentLoaded,
            Self::NetworkIdle => crate::browser::WaitUntil::NetworkIdle,
        }
    }

    /// After the browser's state: for `settled`, waits for the page's own requests (see the
    /// variant) and says where the page is then; otherwise `landed` as it is.
    async fn finish(self, page: &Page, landed: Landed, deadline: Instant) -> Result<Landed, BrowserError> {
        if self != Self::Settled {
            return Ok(landed);
        }
        let until = (Instant::now() + SETTLE_AFTER_LOAD).min(deadline);
        let mark = page.mark();
        // The load event does not wait for fetches: the ones in flight now end first (a page
        // holding a stream open keeps this waiting until `until`, and then it is no error).
        let _ = page.nav().wait_for_quiet_network(Duration::ZERO, until, "settling").await;
        // Then what the page started since the load, answers to that data included, settles like
        // an action's requests; nothing started means no wait.
        page.settle(&mark, until.saturating_duration_since(Instant::now()), until).await;
        page.nav().arrived(deadline).await
    }
}

/// Navigates and waits. `waitUntil`: `load`, `domcontentloaded`, `networkidle` (default: no
/// request in flight for 500 ms) or `settled` (the page's own requests ended, then 100 ms quiet).
/// Only http(s) URLs matching `ALLOW_HOST_REGEX` load (else `url_not_allowed`). An HTTP error status
/// is not a failure: the result carries it; a failed connection is `navigation_failed` with
/// Chromium's reason. `load` says how the page loaded: DOMContentLoaded, load, network quiet, its
/// last DOM change, its requests and the longest chain awaited one after another.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GotoParams {
    /// An http(s) URL matching ALLOW_HOST_REGEX.
    pub url: String,
    /// When the navigation counts as done: load, domcontentloaded, networkidle (default) or settled.
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
    /// How the document loaded: milestones, network quiet, content settled (ms since navigation
    /// start), request count, longest serial chain, facts.
    pub load: Load,
    /// Reload/back/forward: the scroll the browser restored, if not the top.
    #[serde(rename = "scrollRestored", skip_serializing_if = "Option::is_none")]
    pub scroll_restored: Option<ScrollPosition>,
}

impl NavigationResult {
    /// Where the page landed (as [`Page::arrived`] says), how it loaded, and the signals waiting.
    pub(super) async fn of(page: &Page, landed: Landed, deadline: Instant) -> Self {
        let seen = page.seen();
        let load = seen.load(deadline).await;
        Self {
            url: landed.url,
            title: landed.title,
            status: landed.status,
            signals: seen.signal_counts(),
            load,
            scroll_restored: None,
        }
    }

    /// [`NavigationResult::of`] a document the browser restored (a reload, a history move): with
    /// where it restored the scroll to.
    async fn restored(page: &Page, landed: Landed, deadline: Instant) -> Self {
        let scroll_restored = landed.scrolled.map(|(x, y)| ScrollPosition { x, y });
        Self { scroll_restored, ..Self::of(page, landed, deadline).await }
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
    /// The element (`selector` or `ref`) is visible.
    #[serde(rename = "visible")]
    Visible,
    /// No match of the element is visible (none matching counts).
    #[serde(rename = "hidden")]
    Hidden,
    /// The element is in the DOM.
    #[serde(rename = "attached")]
    Attached,
    /// No element matches any more.
    #[serde(rename = "detached")]
    Detached,
}

impl WaitState {
    fn element(self) -> Option<ElementState> {
        match self {
            Self::Visible => Some(ElementState::Visible),
            Self::Hidden => Some(ElementState::Hidden),
            Self::Attached => Some(ElementState::Attached),
            Self::Detached => Some(ElementState::Detached),
            Self::Load | Self::DomContentLoaded | Self::NetworkIdle | Self::IdleFor => None,
        }
    }
}

/// Waits for the document to reach `state` (`load`, `domcontentloaded`, `networkidle`, or
/// `idleFor`: no network activity for `ms`) or, with `selector` or `ref`, for the element to be
/// `visible`, `hidden`, `attached` or `detached`. The answer has `elapsedMs` and `t`, when it
/// happened in ms since the document started loading. Running out is `timeout`, saying what the
/// page showed.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WaitForParams {
    /// load, domcontentloaded, networkidle, idleFor (with `ms`); with selector or ref: visible,
    /// hidden, attached or detached.
    pub state: WaitState,
    /// For idleFor: how long the network must be quiet, in milliseconds.
    pub ms: Option<u64>,
}

impl Params for WaitForParams {}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WaitForResult {
    pub state: WaitState,
    /// How long the wait took, ms.
    pub elapsed_ms: u64,
    /// When the state was reached: ms since the document started loading.
    pub t: i64,
}

/// Where `page.timeline` starts: `load` (the document's load event), `lastAction` (the session's
/// last action) or a number of ms after the document started loading.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum TimelineSince {
    Named(SinceName),
    Ms(f64),
}

#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum SinceName {
    Load,
    LastAction,
}

/// The page's timeline: one line per thing that happened, in order, in ms since the document
/// started loading — requests with status, duration and sender (`+41 GET /api/items 200 51 ms ←
/// loadItems (:80)`), console messages, errors, DOMContentLoaded and load, DOM changes (`+6501
/// #table: 24 rows added`), dialogs, downloads, popups, your actions; repeats folded (`… 22 more of
/// the same`), then `facts` (out of order, serial chains). It keeps the newest 5,000 entries (4 MiB)
/// per page (`dropped` counts the rest). Nothing is drained.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TimelineParams {
    /// load, lastAction, or ms after the document started (default: the whole document).
    pub since: Option<TimelineSince>,
    /// Only these kinds: navigation, request, console, error, dom, action, socket, message, storage, other.
    pub kinds: Option<Vec<EntryKind>>,
    /// Only requests whose URL contains this (other kinds are kept).
    pub url_contains: Option<String>,
    /// Upper bound on the lines' characters, 200 to 100000 (default 4000); `more` counts the rest.
    pub max_chars: Option<u64>,
}

impl Params for TimelineParams {}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TimelineResult {
    /// One line per entry: `+ms what`.
    pub timeline: String,
    /// Derived facts: out of order, serial chains.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub facts: Vec<String>,
    /// Lines left out past maxChars.
    #[serde(skip_serializing_if = "is_zero")]
    pub more: u64,
    /// Entries that fell off the page's timeline (its cap) since the page opened.
    #[serde(skip_serializing_if = "is_zero")]
    pub dropped: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// The visible text of the first element matching `selector` (default `body`) or `ref`, as
/// innerText shows it (`display:none` and `visibility:hidden` left out), whitespace tidied unless
/// `normalize: false`, cut to `maxChars` (then `"truncated": true`). No match: `element_not_found`.
/// `"format": "markdown"` marks the same text up for a model (headings, lists, `[text](href)`
/// links, tables, code blocks, form values).
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

/// The document's current HTML (after JavaScript), with its doctype. With `maxChars` it is cut
/// to that many characters (and `truncated` says so). An answer holds at most 16 MiB of JSON: a
/// larger document is `result_too_large` unless `maxChars` cuts it.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ContentParams {
    /// Cut the HTML to this many characters, 1 to 10000000 (default: all of it; a document
    /// too large for one answer is `result_too_large`).
    pub max_chars: Option<u64>,
}

impl Params for ContentParams {}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ContentResult {
    pub html: String,
    /// Present and true when the HTML was cut to maxChars.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
}

/// Runs `expression` in the page: the value comes back as JSON, a promise is awaited, top-level
/// `await` works. With `arg`, the expression may use `arg` (`"arg.x + 1"`), and a function
/// expression is called with it (`"(sel) => document.querySelector(sel).textContent"`). An
/// exception is `evaluation_failed` with the page's message; a value JSON cannot carry (a node, a
/// cycle, `NaN`) is `result_not_serializable`. A script still running at `timeout` is terminated.
/// Code that causes something (a request, an error, a navigation) also answers with `effects`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct EvaluateParams {
    /// A JavaScript expression, or a function (called with `arg`); promises are awaited.
    pub expression: String,
    /// Any JSON value: `arg` in the expression, or the argument of a function expression.
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
    /// What the code caused, as an action's `effects`; absent when it only read the page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub effects: Option<Effects>,
}

pub fn methods() -> Vec<MethodSpec> {
    vec![
        page_method("page.goto", "Navigate to a URL and wait until it has loaded.", NAV_TIMEOUT_MS, goto)
            .example(r#"{"url":"http://127.0.0.1:3338/projects","waitUntil":"networkidle"}"#)
            .tool("navigate", Hints::LOAD)
            .tool_defaults(MCP_NAVIGATION),
        page_method(
            "page.waitFor",
            "Wait for a load state, an idle network, or an element to show or go.",
            TIMEOUT_MS,
            wait_for,
        )
        .example(r##"{"selector":"#report","state":"visible"}"##)
        .tool("wait_for", Hints::READ),
        page_method(
            "page.timeline",
            "What happened on the page, when: requests, errors, DOM changes, as lines.",
            TIMEOUT_MS,
            timeline,
        )
        .example(r#"{"since":"lastAction","kinds":["request","dom"]}"#)
        .tool("timeline", Hints::READ),
        page_method("page.reload", "Reload the page and wait until it has loaded.", NAV_TIMEOUT_MS, reload)
            .example(r#"{"waitUntil":"load"}"#)
            .tool("reload", Hints::LOAD)
            .tool_defaults(MCP_NAVIGATION),
        page_method("page.back", "Go back one page in the session's history.", NAV_TIMEOUT_MS, back)
            .tool("back", Hints::LOAD.repeating()),
        page_method("page.forward", "Go forward one page in the session's history.", NAV_TIMEOUT_MS, forward)
            .tool("forward", Hints::LOAD.repeating()),
        page_method("page.text", "The visible text of the page or of one element.", TIMEOUT_MS, text)
            .example(r##"{"selector":"#project-list","maxChars":2000}"##)
            .tool("text", Hints::READ),
        page_method("page.content", "The page's current HTML, after JavaScript.", TIMEOUT_MS, content),
        page_method("page.evaluate", "Run JavaScript in the page and return its JSON result.", TIMEOUT_MS, evaluate)
            .example(r#"{"expression":"(sel) => document.querySelector(sel).textContent","arg":"h1"}"#)
            .tool("evaluate", Hints::ACT),
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
    deadline: Instant,
) -> Result<NavigationResult, ApiError> {
    let landed = page.nav().goto(url, wait_until.browser(), deadline).await?;
    let landed = wait_until.finish(page, landed, deadline).await?;
    Ok(NavigationResult::of(page, landed, deadline).await)
}

async fn reload(call: Call, page: Page, p: ReloadParams) -> Result<NavigationResult, ApiError> {
    let wait_until = p.wait_until.unwrap_or_default();
    let landed = page.nav().reload(wait_until.browser(), call.deadline).await?;
    let landed = wait_until.finish(&page, landed, call.deadline).await?;
    Ok(NavigationResult::restored(&page, landed, call.deadline).await)
}

async fn back(call: Call, page: Page, _: BackParams) -> Result<NavigationResult, ApiError> {
    history(call, page, -1).await
}

async fn forward(call: Call, page: Page, _: ForwardParams) -> Result<NavigationResult, ApiError> {
    history(call, page, 1).await
}

async fn history(call: Call, page: Page, step: i64) -> Result<NavigationResult, ApiError> {
    match page.nav().go_history(step, call.deadline).await? {
        Some(landed) => Ok(NavigationResult::restored(&page, landed, call.deadline).await),
        None => {
            let way = if step < 0 { "back to: this is the first page" } else { "forward to: this is the last page" };
            Err(ApiError::invalid("session_id", format!("the session's history has no page to go {way}")))
        }
    }
}

async fn wait_for(
    call: Call,
    page: Page,
    (target, p): (Option<Target>, WaitForParams),
) -> Result<WaitForResult, ApiError> {
    let deadline = call.deadline;
    let started = tokio::time::Instant::now();
    match (target, p.state.element()) {
        (Some(target), Some(state)) => {
            if p.ms.is_some() {
                return Err(ApiError::invalid("ms", "ms only goes with state idleFor; use timeout to bound the wait"));
            }
            let waited = page.wait_for_element(&target, state, deadline).await?;
            return Ok(WaitForResult { state: p.state, elapsed_ms: waited.elapsed_ms, t: waited.t });
        }
        (None, Some(_)) => {
            return Err(ApiError::invalid(
                "state",
                "visible, hidden, attached and detached are states of an element: give selector or ref",
            ));
        }
        (Some(_), None) => {
            return Err(ApiError::invalid(
                "state",
                "with selector or ref, state is visible, hidden, attached or detached",
            ));
        }
        (None, None) => {}
    }
    match (p.state, p.ms) {
        (WaitState::IdleFor, Some(ms)) if (1..=600_000).contains(&ms) => {
            page.nav().wait_for_quiet_network(Duration::from_millis(ms), deadline, "page.waitFor(idleFor)").await?
        }
        (WaitState::IdleFor, Some(_)) => return Err(ApiError::invalid("ms", "ms must be 1 to 600000")),
        (WaitState::IdleFor, None) => {
            return Err(ApiError::invalid("ms", "state idleFor needs ms: how long the network must be quiet"));
        }
        (_, Some(_)) => {
            return Err(ApiError::invalid("ms", "ms only goes with state idleFor; use timeout to bound the wait"));
        }
        (WaitState::Load, None) => page.nav().wait_for_state(WaitUntil::Load.browser(), deadline).await?,
        (WaitState::DomContentLoaded, None) => {
            page.nav().wait_for_state(WaitUntil::DomContentLoaded.browser(), deadline).await?
        }
        (WaitState::NetworkIdle, None) => page.nav().wait_for_state(WaitUntil::NetworkIdle.browser(), deadline).await?,
        (WaitState::Visible | WaitState::Hidden | WaitState::Attached | WaitState::Detached, None) => {
            return Err(ApiError::invalid("state", "element states need selector or ref"));
        }
    }
    Ok(WaitForResult {
        state: p.state,
        elapsed_ms: started.elapsed().as_millis() as u64,
        t: page.seen().document_time(),
    })
}

async fn timeline(call: Call, page: Page, p: TimelineParams) -> Result<TimelineResult, ApiError> {
    let max_chars = match p.max_chars {
        None => 4000,
        Some(n) if (200..=100_000).contains(&n) => n as usize,
        Some(_) => return Err(ApiError::invalid("maxChars", "maxChars must be 200 to 100000")),
    };
    let since = match p.since {
        None => Since::Document,
        Some(TimelineSince::Named(SinceName::Load)) => Since::Load,
        Some(TimelineSince::Named(SinceName::LastAction)) => Since::LastAction,
        Some(TimelineSince::Ms(ms)) if ms.is_finite() && ms >= 0.0 => Since::Ms(ms),
        Some(TimelineSince::Ms(_)) => {
            return Err(ApiError::invalid("since", "since is load, lastAction or a number of ms ≥ 0"));
        }
    };
    let kinds = p.kinds.unwrap_or_default();
    let url_contains = p.url_contains.filter(|s| !s.is_empty());
    let settled = page.settled(true, call.deadline).await;
    let view = settled.timeline((since, &kinds), url_contains.as_deref(), max_chars, call.deadline).await;
    Ok(TimelineResult { timeline: view.text, facts: view.facts, more: view.more, dropped: view.dropped })
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
    if !fits(&text.text, MAX_ANSWER_BYTES - 1024) {
        return Err(too_large("page.text", text.text.chars().count()));
    }
    Ok(TextResult { text: text.text, truncated: text.truncated })
}

async fn content(call: Call, page: Page, p: ContentParams) -> Result<ContentResult, ApiError> {
    let max_chars = match p.max_chars {
        None => None,
        Some(n) if (1..=10_000_000).contains(&n) => Some(n as usize),
        Some(_) => return Err(ApiError::invalid("maxChars", "maxChars must be 1 to 10000000")),
    };
    // No document larger than an answer is read; what is read is measured exactly below.
    let limit = MAX_ANSWER_BYTES;
    let html = page.content(max_chars, limit, call.deadline).await?;
    let result = ContentResult { html: html.text, truncated: html.truncated };
    if !fits(&result.html, MAX_ANSWER_BYTES - 1024) {
        return Err(too_large("page.content", result.html.chars().count()));
    }
    Ok(result)
}

/// A text answer too large for one answer: how to ask for less.
fn too_large(method: &str, chars: usize) -> ApiError {
    ApiError::from(BrowserError::TooLarge(format!(
        "{method} would answer {chars} characters, more than the {} MiB of JSON one answer may hold; pass a \
         smaller maxChars, or a selector for one part of the page",
        MAX_ANSWER_BYTES / (1024 * 1024)
    )))
}

async fn evaluate(call: Call, page: Page, p: EvaluateParams) -> Result<EvaluateResult, ApiError> {
    if p.expression.trim().is_empty() {
        return Err(ApiError::invalid("expression", "expression must not be empty"));
    }
    let mark = page.mark_effects();
    let result = page.evaluate(&p.expression, p.arg.as_ref(), call.deadline).await?;
    Ok(EvaluateResult { result, effects: page.caused(&mark, call.deadline).await })
}
