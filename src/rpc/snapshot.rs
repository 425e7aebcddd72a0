//! `page.snapshot`: the page as a compact accessibility tree with refs, and the same snapshot
//! returned by actions that ask for it (`snapshot: true`), so an agent needs one call per step.

use std::sync::Arc;
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio::time::Instant;

use super::error::ApiError;
use super::target;
use super::{MethodSpec, RpcContext, method};
use crate::browser::session::Session;
use crate::browser::snapshot::{Snapshot, SnapshotOptions};

const DEFAULT_MAX_CHARS: u64 = 20_000;
const MIN_MAX_CHARS: u64 = 200;
const MAX_MAX_CHARS: u64 = 2_000_000;
/// Time a snapshot taken after an action gets, on top of the action's own.
const AFTER_ACTION_MS: u64 = 10_000;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SnapshotParams {
    #[serde(rename = "session_id")]
    pub session_id: String,
    /// Only the subtree of the first element this selector matches (any selector form, or ref=e5).
    pub selector: Option<String>,
    /// A ref from page.snapshot (e5); the same as selector ref=e5.
    #[serde(rename = "ref")]
    pub element_ref: Option<String>,
    /// Only elements with refs, plus headings and landmarks for context (default false).
    pub interactive_only: Option<bool>,
    /// Upper bound on the snapshot's characters (default 20000, at least 200).
    pub max_chars: Option<u64>,
    /// Levels of nesting to show (default: all).
    pub depth: Option<u32>,
    /// Milliseconds (default 30000).
    pub timeout: Option<u64>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct SnapshotResult {
    /// One node per line: `- role "name" [states] [ref=e5]: value`, indented by nesting.
    pub snapshot: String,
    /// How many refs the snapshot shows.
    pub refs: usize,
    /// True when the snapshot was cut to maxChars (its last line says so).
    pub truncated: bool,
}

impl From<Snapshot> for SnapshotResult {
    fn from(s: Snapshot) -> Self {
        Self { snapshot: s.snapshot, refs: s.refs, truncated: s.truncated }
    }
}

/// The page after an action, when the action was called with `snapshot: true`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct PageAfterAction {
    pub url: String,
    pub title: String,
    pub snapshot: String,
    pub refs: usize,
    pub truncated: bool,
}

pub fn methods() -> Vec<MethodSpec> {
    vec![method(
        "page.snapshot",
        "The page as a compact accessibility tree; elements you can act on carry refs (e5) usable as ref=e5.",
        snapshot,
    )]
}

/// Checks maxChars (default 20000).
pub fn max_chars(value: Option<u64>) -> Result<usize, ApiError> {
    let n = value.unwrap_or(DEFAULT_MAX_CHARS);
    if !(MIN_MAX_CHARS..=MAX_MAX_CHARS).contains(&n) {
        return Err(ApiError::invalid("maxChars", format!("maxChars must be {MIN_MAX_CHARS} to {MAX_MAX_CHARS}")));
    }
    Ok(n as usize)
}

async fn snapshot(ctx: Arc<RpcContext>, p: SnapshotParams) -> Result<SnapshotResult, ApiError> {
    let deadline = ctx.deadline(p.timeout, 30_000)?;
    let options = SnapshotOptions {
        selector: target::optional(p.selector, p.element_ref)?,
        interactive_only: p.interactive_only.unwrap_or(false),
        max_chars: max_chars(p.max_chars)?,
        depth: p.depth.map(|d| d as usize),
    };
    let snap = ctx
        .sessions
        .with_session(&p.session_id, deadline, |s| async move { s.snapshot(&options, deadline).await })
        .await?;
    Ok(snap.into())
}

/// Takes the snapshot an action returns with `snapshot: true`.
pub async fn after_action(
    ctx: &RpcContext,
    session: &Session,
    max_chars: usize,
) -> Result<PageAfterAction, crate::browser::BrowserError> {
    let deadline = Instant::now() + Duration::from_millis(AFTER_ACTION_MS).min(ctx.max_call);
    let options = SnapshotOptions { selector: None, interactive_only: false, max_chars, depth: None };
    let snap = session.snapshot(&options, deadline).await?;
    let landed = session.landed(deadline).await?;
    Ok(PageAfterAction {
        url: landed.url,
        title: landed.title,
        snapshot: snap.snapshot,
        refs: snap.refs,
        truncated: snap.truncated,
    })
}
