//! `page.snapshot`: the page as a compact accessibility tree with refs, and the same snapshot
//! returned by actions that ask for it (`snapshot: true`), so an agent needs one call per step.

use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio::time::Instant;

use super::error::ApiError;
use super::registry::{Call, Hints, MethodSpec, Params, page_method};
use crate::browser::{BrowserError, Page, SignalCounts, Snapshot, SnapshotOptions, Target};

const DEFAULT_MAX_CHARS: u64 = 20_000;
const MIN_MAX_CHARS: u64 = 200;
const MAX_MAX_CHARS: u64 = 2_000_000;
/// Time a snapshot taken after an action gets, on top of the action's own.
const AFTER_ACTION_MS: u64 = 10_000;

/// The page as a compact accessibility tree, one node per line: `- role "name" [states]
/// [ref=e5]: value`, indented by nesting, with Chromium's roles, names and states. Elements you
/// can act on (links, buttons, inputs, anything with a click listener or a pointer cursor) carry a
/// ref: pass it as `ref` or the selector `ref=e5`. iframes and open shadow roots are shown in place
/// with refs too. Wrappers are folded, runs of over 10 similar siblings cut to 5 plus a count, and
/// the text is cut at `maxChars`, saying how much was left out. `selector` or `ref` shows one
/// subtree.
///
/// A ref belongs to one element of one document: once it navigated or the element was removed or
/// re-rendered, acting on it fails with `stale_ref` (never "the nearest match").
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SnapshotParams {
    /// Only elements with refs, plus headings and landmarks for context (default false).
    pub interactive_only: Option<bool>,
    /// Upper bound on the snapshot's characters (default 20000, at least 200).
    pub max_chars: Option<u64>,
    /// Levels of nesting to show (default: all).
    pub depth: Option<u32>,
    /// "last": only the lines that changed since this page's previous snapshot of the same scope,
    /// `- ` removed and `+ ` added (refs of unchanged elements stay valid).
    pub since: Option<Since>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Since {
    Last,
}

impl Params for SnapshotParams {}

#[derive(Debug, Serialize, JsonSchema)]
pub struct SnapshotResult {
    /// One node per line: `- role "name" [states] [ref=e5]: value`, indented by nesting.
    pub snapshot: String,
    /// How many refs the snapshot shows.
    pub refs: usize,
    /// True when the snapshot was cut to maxChars (its last line says so).
    pub truncated: bool,
    /// For a diff (`since: "last"`): how many lines did not change. Absent when there was no
    /// previous snapshot to compare with (the whole snapshot is returned then).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unchanged: Option<usize>,
    /// Error entries waiting in logs.pull / network.pull: what the page shows may be explained
    /// there.
    pub signals: SignalCounts,
}

impl SnapshotResult {
    fn new(s: Snapshot, signals: SignalCounts) -> Self {
        Self { snapshot: s.snapshot, refs: s.refs, truncated: s.truncated, unchanged: s.diff, signals }
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
    /// For `snapshot: "diff"`: how many lines did not change.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unchanged: Option<usize>,
}

pub fn methods() -> Vec<MethodSpec> {
    vec![
        page_method(
            "page.snapshot",
            "The page as a compact accessibility tree; elements you can act on carry refs (e5) usable as ref=e5.",
            30_000,
            snapshot,
        )
        .example(r#"{"interactiveOnly":true}"#)
        .tool("snapshot", Hints::READ),
    ]
}

/// Checks maxChars (default 20000).
pub fn max_chars(value: Option<u64>) -> Result<usize, ApiError> {
    let n = value.unwrap_or(DEFAULT_MAX_CHARS);
    if !(MIN_MAX_CHARS..=MAX_MAX_CHARS).contains(&n) {
        return Err(ApiError::invalid("maxChars", format!("maxChars must be {MIN_MAX_CHARS} to {MAX_MAX_CHARS}")));
    }
    Ok(n as usize)
}

async fn snapshot(
    call: Call,
    page: Page,
    (element, p): (Option<Target>, SnapshotParams),
) -> Result<SnapshotResult, ApiError> {
    let options = SnapshotOptions {
        element,
        interactive_only: p.interactive_only.unwrap_or(false),
        max_chars: max_chars(p.max_chars)?,
        depth: p.depth.map(|d| d as usize),
        since_last: p.since == Some(Since::Last),
    };
    let taken = page.snapshot(&options, call.deadline).await?;
    Ok(SnapshotResult::new(taken, page.seen().signal_counts()))
}

/// Takes the snapshot an action returns with `snapshot`: the page's or `element`'s, whole or
/// (`diff`) the lines changed since the previous one.
pub async fn after_action(
    call: &Call,
    page: &Page,
    max_chars: usize,
    element: Option<Target>,
    diff: bool,
) -> Result<PageAfterAction, BrowserError> {
    let deadline = Instant::now() + Duration::from_millis(AFTER_ACTION_MS).min(call.ctx.max_call);
    let options = SnapshotOptions { element, interactive_only: false, max_chars, depth: None, since_last: diff };
    let snap = page.snapshot(&options, deadline).await?;
    let landed = page.nav().landed(deadline).await?;
    Ok(PageAfterAction {
        url: landed.url,
        title: landed.title,
        snapshot: snap.snapshot,
        refs: snap.refs,
        truncated: snap.truncated,
        unchanged: snap.diff,
    })
}
