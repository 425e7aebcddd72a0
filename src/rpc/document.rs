//! `page.addInitScript`, `page.removeInitScript`, `page.pdf`, `page.metrics`: the document as a
//! whole — what runs before it, how it prints, what it costs.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::error::ApiError;
use super::registry::{Call, MethodSpec, Params, page_method};
use crate::browser::{Page, PdfOptions};

const TIMEOUT_MS: u64 = 10_000;
const PDF_TIMEOUT_MS: u64 = 30_000;
/// Characters of a script shown when init scripts are listed.
const PREVIEW: usize = 80;
/// Longest init script, in bytes.
const MAX_SCRIPT_BYTES: usize = 256 * 1024;

/// Adds a script that runs in every new document of the session — after `page.goto`,
/// `page.reload`, a link — before any of the page's own scripts: stub `Date.now`, record calls to
/// `fetch`, seed state. It does not run in the current document until it is reloaded. Answers
/// with its `scriptId` (for `page.removeInitScript`) and every init script of the session.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct AddInitScriptParams {
    /// JavaScript source (at most 256 KB).
    pub script: String,
}

impl Params for AddInitScriptParams {}

/// Removes an init script added with `page.addInitScript`; later documents no longer run it.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RemoveInitScriptParams {
    /// The id page.addInitScript answered.
    pub script_id: String,
}

impl Params for RemoveInitScriptParams {}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct InitScriptView {
    pub script_id: String,
    /// The script's first 80 characters.
    pub preview: String,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct InitScriptsResult {
    /// The script this call added (page.addInitScript only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub script_id: Option<String>,
    /// Every init script of the session, in the order they run.
    pub scripts: Vec<InitScriptView>,
}

/// Paper sizes for `page.pdf`.
#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema)]
pub enum PaperFormat {
    #[default]
    Letter,
    Legal,
    Tabloid,
    A3,
    A4,
    A5,
}

impl PaperFormat {
    /// Width and height in inches.
    fn inches(self) -> (f64, f64) {
        match self {
            Self::Letter => (8.5, 11.0),
            Self::Legal => (8.5, 14.0),
            Self::Tabloid => (11.0, 17.0),
            Self::A3 => (11.69, 16.54),
            Self::A4 => (8.27, 11.69),
            Self::A5 => (5.83, 8.27),
        }
    }
}

/// Prints the page to PDF as the browser's print dialog would (print media styles apply), and
/// returns it base64-encoded with its size.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PdfParams {
    /// Letter (default), Legal, Tabloid, A3, A4 or A5.
    pub format: Option<PaperFormat>,
    /// Default false.
    pub landscape: Option<bool>,
    /// Print background colours and images (default false, as browsers do).
    pub print_background: Option<bool>,
}

impl Params for PdfParams {}

#[derive(Debug, Serialize, JsonSchema)]
pub struct PdfResult {
    pub base64: String,
    pub bytes: usize,
}

/// Chromium's counters for the page (`Performance.getMetrics`): `JSHeapUsedSize` and
/// `JSHeapTotalSize` (bytes), `Nodes`, `Documents`, `JSEventListeners`, `LayoutCount`,
/// `RecalcStyleCount`, `LayoutDuration`, `ScriptDuration`, `TaskDuration` (seconds) and more —
/// to see a leak grow between two calls or a page laying out too often.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct MetricsParams {}

impl Params for MetricsParams {}

#[derive(Debug, Serialize, JsonSchema)]
pub struct MetricsResult {
    /// Counter name → value.
    pub metrics: BTreeMap<String, f64>,
}

pub fn methods() -> Vec<MethodSpec> {
    vec![
        page_method("page.addInitScript", "Run a script in every new document before the page's own.", TIMEOUT_MS, add)
            .example(r#"{"script":"Date.now = () => 1700000000000"}"#),
        page_method("page.removeInitScript", "Remove a script added with page.addInitScript.", TIMEOUT_MS, remove)
            .example(r#"{"scriptId":"1"}"#),
        page_method("page.pdf", "Print the page to PDF.", PDF_TIMEOUT_MS, pdf).example(r#"{"format":"A4"}"#),
        page_method("page.metrics", "JS heap, DOM nodes, listeners, layouts and script time.", TIMEOUT_MS, metrics),
    ]
}

fn listed(page: &Page, added: Option<String>) -> InitScriptsResult {
    let scripts = page
        .document()
        .init_script_list()
        .into_iter()
        .map(|(script_id, source)| InitScriptView { script_id, preview: source.chars().take(PREVIEW).collect() })
        .collect();
    InitScriptsResult { script_id: added, scripts }
}

async fn add(call: Call, page: Page, p: AddInitScriptParams) -> Result<InitScriptsResult, ApiError> {
    if p.script.trim().is_empty() {
        return Err(ApiError::invalid("script", "script must not be empty"));
    }
    if p.script.len() > MAX_SCRIPT_BYTES {
        return Err(ApiError::invalid("script", format!("script is over {MAX_SCRIPT_BYTES} bytes")));
    }
    let id = page.document().add_init_script(&p.script, call.deadline).await?;
    Ok(listed(&page, Some(id)))
}

async fn remove(call: Call, page: Page, p: RemoveInitScriptParams) -> Result<InitScriptsResult, ApiError> {
    if !page.document().remove_init_script(&p.script_id, call.deadline).await? {
        let known: Vec<String> = page.document().init_script_list().into_iter().map(|(id, _)| id).collect();
        return Err(ApiError::invalid(
            "scriptId",
            format!("no init script {:?} in this session (it has: {known:?})", p.script_id),
        ));
    }
    Ok(listed(&page, None))
}

async fn pdf(call: Call, page: Page, p: PdfParams) -> Result<PdfResult, ApiError> {
    let options = PdfOptions {
        paper: p.format.unwrap_or_default().inches(),
        landscape: p.landscape.unwrap_or(false),
        print_background: p.print_background.unwrap_or(false),
    };
    let base64 = page.document().pdf(options, call.deadline).await?;
    let bytes = base64.len() / 4 * 3 - base64.chars().rev().take_while(|c| *c == '=').count();
    Ok(PdfResult { base64, bytes })
}

async fn metrics(call: Call, page: Page, _: MetricsParams) -> Result<MetricsResult, ApiError> {
    Ok(MetricsResult { metrics: page.document().metrics(call.deadline).await?.into_iter().collect() })
}
