//! `screenshot`, `find.byRole` and `axe.run`: looking at the page.

use std::path::PathBuf;
use std::sync::OnceLock;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::error::ApiError;
use super::registry::{Call, Hints, MethodSpec, Params, page_method};
use crate::browser::{BrowserError, ImageType, Inspection, Page, ShotOptions, SourceAsk, SourceView, Target};

/// A PNG (default) or JPEG (`mime: "image/jpeg"`, `quality` 0–100) of the viewport, of the whole
/// page (`fullPage: true`), or of one element (`selector`, or `ref` from `page.snapshot`; the
/// first match). The session's viewport is left as it was.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScreenshotParams {
    /// The whole scrollable page instead of the viewport (default false).
    pub full_page: Option<bool>,
    /// image/png (default) or image/jpeg.
    pub mime: Option<ImageType>,
    /// JPEG quality 0-100.
    pub quality: Option<u8>,
}

impl Params for ScreenshotParams {}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ScreenshotResult {
    /// The image, base64-encoded.
    pub base64: String,
    pub mime: ImageType,
}

/// Finds an element by its accessible `role` and `name` (case-insensitive substring, or `exact`)
/// in Chromium's accessibility tree and returns a `selector` that the action methods accept and
/// that matches exactly that element: the role selector itself when it is unique, otherwise a CSS
/// path to the first match. `count` says how many elements matched.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct FindByRoleParams {
    /// An ARIA role as Chromium computes it: button, link, textbox, heading, checkbox …
    pub role: String,
    /// The accessible name (case-insensitive substring unless exact).
    pub name: Option<String>,
    /// Match the name exactly (default false).
    pub exact: Option<bool>,
}

impl Params for FindByRoleParams {}

#[derive(Debug, Serialize, JsonSchema)]
pub struct FindByRoleResult {
    /// A selector the action methods accept, matching exactly the first element found.
    pub selector: String,
    /// How many elements matched the role and name (at most 20 are counted).
    pub count: u64,
}

/// Runs [axe-core](https://github.com/dequelabs/axe-core) in the page (in an isolated world, so
/// page scripts cannot interfere) and returns its violations, optionally only under `include` (a
/// CSS selector). axe-core is installed by `.ci/setup` into `./node_modules`; elsewhere set
/// `AXE_CORE_PATH` to `axe.min.js` (`axe_unavailable` otherwise).
#[derive(Debug, Deserialize, JsonSchema)]
pub struct AxeRunParams {
    /// A CSS selector to limit the check to (default: the whole document).
    pub include: Option<String>,
}

impl Params for AxeRunParams {}

#[derive(Debug, Serialize, JsonSchema)]
pub struct AxeRunResult {
    /// axe-core violations: {id, impact, help, helpUrl, nodes: [{target, html}]}.
    pub violations: Value,
}

/// Why an element is as it is, in one answer (the `Inspection` schema): role and name, key
/// attributes, value (passwords masked), visible (or `hiddenBecause`; `catchesPointer` when it is
/// invisible yet takes clicks; `coveredBy`), enabled (or `disabledBecause`), validity, the
/// `listeners` its events reach (with `at` and `source`), and who changed it: recent `changes`
/// (`+815 #send: disabled set by checkInvite (/invite/invite.js:14) ← input on #friend-email`)
/// and, when a render replaced it, `replaced` with the `detachedListeners` left on its predecessor.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct InspectParams {}

impl Params for InspectParams {}

/// Lines of a script (or document) the page loaded, or of an app source file its source maps
/// hold: follow any place an answer names.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SourceParams {
    /// A script's URL or an app file's path (a unique suffix); `src/a.tsx:18` works.
    pub url: String,
    /// 1-based line to show, with `context` lines each side; without it, the whole file (up to 300
    /// lines).
    pub line: Option<u32>,
    /// 1-based: a long line is cut around it.
    pub column: Option<u32>,
    /// Lines shown each side of `line` (default 15 in an app source file, 3 in a served script; at most 50).
    pub context: Option<u32>,
}

impl Params for SourceParams {}

pub fn methods() -> Vec<MethodSpec> {
    vec![
        page_method(
            "page.inspect",
            "Why an element is as it is: visibility, enabled state, validity, listeners.",
            30_000,
            inspect,
        )
        .example(r#"{"selector":"role=button[name=\"Create account\"]"}"#)
        .tool("inspect", Hints::READ),
        page_method("page.source", "Lines of a script or app source file.", 30_000, source)
            .example(r#"{"url":"/order/app.js","line":24,"context":5}"#)
            .tool("source", Hints::READ),
        page_method("screenshot", "A PNG or JPEG of the viewport, the full page, or one element.", 30_000, screenshot)
            .example(r#"{"fullPage":true}"#)
            .tool("screenshot", Hints::READ),
        page_method(
            "find.byRole",
            "Find an element by accessible role and name; returns a selector for it.",
            30_000,
            find_by_role,
        )
        .example(r#"{"role":"button","name":"New Project"}"#),
        page_method(
            "axe.run",
            "Check the page's accessibility with axe-core; returns the violations.",
            60_000,
            axe_run,
        )
        .tool("axe", Hints::READ),
    ]
}

async fn screenshot(
    call: Call,
    page: Page,
    (element, p): (Option<Target>, ScreenshotParams),
) -> Result<ScreenshotResult, ApiError> {
    let mime = p.mime.unwrap_or_default();
    if p.quality.is_some_and(|q| q > 100) {
        return Err(ApiError::invalid("quality", "quality must be 0 to 100"));
    }
    if p.quality.is_some() && mime != ImageType::Jpeg {
        return Err(ApiError::invalid("quality", "quality only applies to mime image/jpeg"));
    }
    if element.is_some() && p.full_page == Some(true) {
        return Err(ApiError::invalid("fullPage", "give either selector or fullPage, not both"));
    }
    let options = ShotOptions { full_page: p.full_page.unwrap_or(false), mime, quality: p.quality, element };
    let base64 = page.screenshot(&options, call.deadline).await?;
    Ok(ScreenshotResult { base64, mime })
}

async fn find_by_role(call: Call, page: Page, p: FindByRoleParams) -> Result<FindByRoleResult, ApiError> {
    if p.role.trim().is_empty() {
        return Err(ApiError::invalid("role", "role must not be empty (e.g. button)"));
    }
    let found = page.find_by_role(&p.role, p.name.as_deref(), p.exact.unwrap_or(false), call.deadline).await?;
    Ok(FindByRoleResult { selector: found.selector, count: found.count })
}

async fn axe_run(call: Call, page: Page, p: AxeRunParams) -> Result<AxeRunResult, ApiError> {
    let source = axe_source()?;
    let violations = page.axe(source, p.include.as_deref(), call.deadline).await?;
    Ok(AxeRunResult { violations: serde_json::to_value(violations).unwrap_or_default() })
}

/// axe.min.js, read once from AXE_CORE_PATH or the places `npm install axe-core` puts it.
fn axe_source() -> Result<&'static str, ApiError> {
    static SOURCE: OnceLock<String> = OnceLock::new();
    if let Some(source) = SOURCE.get() {
        return Ok(source);
    }
    let candidates: Vec<PathBuf> = std::env::var_os("AXE_CORE_PATH")
        .map(PathBuf::from)
        .into_iter()
        .chain([
            PathBuf::from("node_modules/axe-core/axe.min.js"),
            PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/node_modules/axe-core/axe.min.js")),
            PathBuf::from("/usr/lib/node_modules/axe-core/axe.min.js"),
            PathBuf::from("/usr/local/lib/node_modules/axe-core/axe.min.js"),
        ])
        .collect();
    for path in &candidates {
        if let Ok(source) = std::fs::read_to_string(path) {
            return Ok(SOURCE.get_or_init(|| source));
        }
    }
    let looked: Vec<String> = candidates.iter().map(|p| p.display().to_string()).collect();
    Err(BrowserError::AxeUnavailable(format!("axe.min.js was not found (looked in {})", looked.join(", "))).into())
}

async fn inspect(call: Call, page: Page, (target, _): (Target, InspectParams)) -> Result<Inspection, ApiError> {
    Ok(page.inspect(&target, call.deadline).await?)
}

async fn source(call: Call, page: Page, p: SourceParams) -> Result<SourceView, ApiError> {
    if p.context.is_some_and(|n| n > 50) {
        return Err(ApiError::invalid("context", "context must be 0 to 50"));
    }
    if p.line == Some(0) {
        return Err(ApiError::invalid("line", "line is 1-based: the first line is 1"));
    }
    if p.column == Some(0) {
        return Err(ApiError::invalid("column", "column is 1-based: the first column is 1"));
    }
    let ask = SourceAsk::parse(&p.url, p.line, p.column, p.context);
    page.source(&ask, call.deadline).await.map_err(|err| match err {
        BrowserError::InvalidOption(message) if message.starts_with("line ") => ApiError::invalid("line", message),
        BrowserError::InvalidOption(message) => ApiError::invalid("url", message),
        other => other.into(),
    })
}
