//! The views of a page's timeline: what each answer shows of it, shaped for its reader, masked
//! and bounded — `logs` (logs.pull), `network` (network.pull, network.body), `har`
//! (network.har), `effects` (an action's effects), `lines` (page.timeline), `live`
//! (events.subscribe) — and the signal counts every action and navigation answers with.

pub mod effects;
pub mod har;
pub mod lines;
pub mod live;
pub mod logs;
pub mod network;

use schemars::JsonSchema;
use serde::Serialize;

use super::store::Store;
use super::timeline::Timeline;

/// Counts of error entries waiting in `logs.pull` / `network.pull` since the last pull.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SignalCounts {
    pub console_errors: u64,
    pub page_errors: u64,
    pub failed_requests: u64,
}

pub fn signal_counts(store: &Store) -> SignalCounts {
    let (console_errors, page_errors, failed_requests) = store.timeline.counts();
    SignalCounts { console_errors, page_errors, failed_requests }
}

/// `at` in ms since the document it belongs to started loading.
pub fn ms_since(timeline: &Timeline, at: f64) -> i64 {
    (at - timeline.origin_of(at)).round() as i64
}

/// `scheme://host[:port]` of a URL, or "" when it has none.
pub fn origin_of(url: &str) -> String {
    url::Url::parse(url).map(|u| u.origin().ascii_serialization()).ok().filter(|o| o != "null").unwrap_or_default()
}

/// `url` without `origin` when it starts with it.
pub fn relative(url: &str, origin: &str) -> String {
    match url.strip_prefix(origin) {
        Some(rest) if !origin.is_empty() && rest.starts_with('/') => rest.to_owned(),
        _ => url.to_owned(),
    }
}

/// Every occurrence of `origin` + `/` in `text` shortened to `/`.
pub fn relative_in(text: &str, origin: &str) -> String {
    if origin.is_empty() { text.to_owned() } else { text.replace(&format!("{origin}/"), "/") }
}
