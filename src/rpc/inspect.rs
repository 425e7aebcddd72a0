//! `screenshot`, `find.byRole` and `axe.run`: looking at the page.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::error::ApiError;
use super::target;
use super::{MethodSpec, RpcContext, method};
use crate::browser::BrowserError;
use crate::browser::screenshot::{ImageType, ShotOptions};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ScreenshotParams {
    #[serde(rename = "session_id")]
    pub session_id: String,
    /// The whole scrollable page instead of the viewport (default false).
    pub full_page: Option<bool>,
    /// image/png (default) or image/jpeg.
    pub mime: Option<ImageType>,
    /// Only this element (the first match): any selector form, or ref=e5.
    pub selector: Option<String>,
    /// A ref from page.snapshot (e5); the same as selector ref=e5.
    #[serde(rename = "ref")]
    pub element_ref: Option<String>,
    /// JPEG quality 0-100.
    pub quality: Option<u8>,
    /// Milliseconds (default 30000).
    pub timeout: Option<u64>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ScreenshotResult {
    /// The image, base64-encoded.
    pub base64: String,
    pub mime: ImageType,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct FindByRoleParams {
    #[serde(rename = "session_id")]
    pub session_id: String,
    /// An ARIA role as Chromium computes it: button, link, textbox, heading, checkbox …
    pub role: String,
    /// The accessible name (case-insensitive substring unless exact).
    pub name: Option<String>,
    /// Match the name exactly (default false).
    pub exact: Option<bool>,
    /// Milliseconds (default 30000).
    pub timeout: Option<u64>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct FindByRoleResult {
    /// A selector the action methods accept, matching exactly the first element found.
    pub selector: String,
    /// How many elements matched the role and name (at most 20 are counted).
    pub count: u64,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AxeRunParams {
    #[serde(rename = "session_id")]
    pub session_id: String,
    /// A CSS selector to limit the check to (default: the whole document).
    pub include: Option<String>,
    /// Milliseconds (default 60000).
    pub timeout: Option<u64>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct AxeRunResult {
    /// axe-core violations: {id, impact, help, helpUrl, nodes: [{target, html}]}.
    pub violations: Value,
}

pub fn methods() -> Vec<MethodSpec> {
    vec![
        method("screenshot", "A PNG or JPEG of the viewport, the full page, or one element.", screenshot),
        method("find.byRole", "Find an element by accessible role and name; returns a selector for it.", find_by_role),
        method("axe.run", "Check the page's accessibility with axe-core; returns the violations.", axe_run),
    ]
}

async fn screenshot(ctx: Arc<RpcContext>, p: ScreenshotParams) -> Result<ScreenshotResult, ApiError> {
    let deadline = ctx.deadline(p.timeout, 30_000)?;
    let mime = p.mime.unwrap_or_default();
    if p.quality.is_some_and(|q| q > 100) {
        return Err(ApiError::invalid("quality", "quality must be 0 to 100"));
    }
    if p.quality.is_some() && mime != ImageType::Jpeg {
        return Err(ApiError::invalid("quality", "quality only applies to mime image/jpeg"));
    }
    let selector = target::optional(p.selector, p.element_ref)?;
    if selector.is_some() && p.full_page == Some(true) {
        return Err(ApiError::invalid("fullPage", "give either selector or fullPage, not both"));
    }
    let options = ShotOptions { full_page: p.full_page.unwrap_or(false), mime, quality: p.quality, selector };
    let base64 = ctx
        .sessions
        .with_session(&p.session_id, deadline, |s| async move { s.screenshot(&options, deadline).await })
        .await?;
    Ok(ScreenshotResult { base64, mime })
}

async fn find_by_role(ctx: Arc<RpcContext>, p: FindByRoleParams) -> Result<FindByRoleResult, ApiError> {
    let deadline = ctx.deadline(p.timeout, 30_000)?;
    if p.role.trim().is_empty() {
        return Err(ApiError::invalid("role", "role must not be empty (e.g. button)"));
    }
    let exact = p.exact.unwrap_or(false);
    let found = ctx
        .sessions
        .with_session(&p.session_id, deadline, |s| async move {
            s.find_by_role(&p.role, p.name.as_deref(), exact, deadline).await
        })
        .await?;
    Ok(FindByRoleResult { selector: found.selector, count: found.count })
}

async fn axe_run(ctx: Arc<RpcContext>, p: AxeRunParams) -> Result<AxeRunResult, ApiError> {
    let deadline = ctx.deadline(p.timeout, 60_000)?;
    let source = axe_source()?;
    let violations = ctx
        .sessions
        .with_session(&p.session_id, deadline, |s| async move { s.axe(source, p.include.as_deref(), deadline).await })
        .await?;
    Ok(AxeRunResult { violations })
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
