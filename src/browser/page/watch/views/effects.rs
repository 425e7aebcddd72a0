//! An action's effects: what the timeline holds after the action's mark — the requests it started
//! (failed ones with their bodies), the facts about them (out of order, one after another), the
//! DOM changes, the errors the page raised, dialogs, downloads, popups, and what is still in
//! flight — with times relative to the action's start. Nothing is drained: `logs.pull` and
//! `network.pull` still see it all.
//!
//! Compact by rule: up to [`MAX_REQUESTS`] data requests (fetch/XHR/document) are listed; past
//! that the failing ones are still listed and the rest grouped by endpoint (count, statuses,
//! first and last), never hidden behind a count. Other loads that succeeded are counted.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Serialize;

use super::super::bodies::cut;
use super::super::dom::EventNote;
use super::super::facts::{self, Span};
use super::super::origin::{origin_of, relative, relative_in};
use super::super::records::{DomRecord, Outcome, Record, RequestRecord};
use super::super::store::Store;
use super::logs::{ConsoleEntry, PageError, console_entry, page_error};
use super::network::{PendingView, initiator_text, pending};
use super::places::Places;
use super::reached::Reached;
use super::{dom_cause, wording};
use crate::browser::chromium::ids::{LoaderId, RequestId};
use crate::browser::chromium::kinds::Level;

/// Requests listed one by one before the rest are grouped by endpoint.
pub const MAX_REQUESTS: usize = 8;
/// Console errors and page errors listed, each, before "N more".
const MAX_ERRORS: usize = 3;
/// DOM change lines listed before "N more".
const MAX_CHANGES: usize = 6;
/// Bytes of a request or response body shown in an effect.
const EFFECT_EXCERPT: usize = 1024;

/// Where the page stood when an action began.
#[derive(Debug, Clone)]
pub struct Mark {
    /// The newest timeline entry then.
    pub seq: u64,
    /// The document then.
    pub loader: LoaderId,
    /// When: ms since the Unix epoch.
    pub at: f64,
}

/// One request an action started.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RequestEffect {
    pub method: String,
    /// Relative to the page's origin when it is the same.
    pub url: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// Why it failed (net::ERR_…, blocked_by_policy, aborted).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
    /// Cut off unanswered because the page navigated away (not a failure).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub cancelled: bool,
    /// Answered, but the page never read the body.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub body_not_read: bool,
    /// When it started, ms after the action began.
    pub start_ms: i64,
    /// When it ended (or was answered, for a body never read), ms after the action began.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_ms: Option<i64>,
    /// The app's code that started it (with its awaits).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initiator: Option<String>,
    /// For a failed fetch/XHR/document: the first 1 KB it posted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_body: Option<String>,
    /// For a failed fetch/XHR/document: the first 1 KB of the answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response_body: Option<String>,
    /// When responseBody is only the start: the whole body's size in bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response_body_bytes: Option<usize>,
    /// The id network.body takes for the whole response body.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_id: Option<RequestId>,
}

impl RequestEffect {
    /// Failed, or answered with an error status.
    pub fn failed(&self) -> bool {
        self.failure.is_some() || self.status.is_some_and(|s| s >= 400)
    }
}

/// Requests to one endpoint, past the ones listed.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RequestGroup {
    /// Method and path template: `GET /api/items/{id}`.
    pub endpoint: String,
    pub count: u64,
    /// The statuses they got: `200×11, 404×1` (`pending` for those unanswered).
    pub statuses: String,
    /// When the first started, ms after the action began.
    pub first_ms: i64,
    /// When the last ended, ms after the action began.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_ms: Option<i64>,
}

/// The document an action led to.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Navigated {
    pub url: String,
    pub title: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
}

/// What an action caused. Empty lists and zero counts are left out.
#[derive(Debug, Clone, Default, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Effects {
    /// Fetch/XHR/document requests the action started, and any that failed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub requests: Vec<RequestEffect>,
    /// Past eight requests: the rest, grouped by endpoint.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub groups: Vec<RequestGroup>,
    /// Other loads (images, scripts, styles …) that succeeded, counted.
    #[serde(skip_serializing_if = "is_zero")]
    pub other_requests: u64,
    /// Derived from the requests' times: out of order, one after another.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub facts: Vec<String>,
    /// What changed on the page, ms after the action began: `+12 #results: 10 items replaced`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub changes: Vec<String>,
    #[serde(skip_serializing_if = "is_zero")]
    pub more_changes: u64,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub console_errors: Vec<ConsoleEntry>,
    #[serde(skip_serializing_if = "is_zero")]
    pub more_console_errors: u64,
    /// Uncaught exceptions and unhandled rejections, with the throwing line.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub page_errors: Vec<PageError>,
    #[serde(skip_serializing_if = "is_zero")]
    pub more_page_errors: u64,
    /// Dialogs and file choosers opened, and how each was answered (`confirm("Delete?") dismissed`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub dialogs: Vec<String>,
    /// Downloads begun or finished (`download report.csv finished: 812 bytes`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub downloads: Vec<String>,
    /// Popups opened, each a tab of the session (`popup opened as tab 9a3f0c21: /report`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub popups: Vec<String>,
    /// The new document, when the action led to one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub navigated: Option<Navigated>,
    /// Requests still in flight when settling ended.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pending: Vec<PendingView>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reached: Option<Reached>,
    /// Why nothing was reached (e.g. the element was replaced; its listeners stayed on the old one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub no_listener_because: Option<String>,
    /// What the browser did by default (submitted a form, followed a link) or what stopped it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub by_default: Option<String>,
    /// The control stays busy (disabled, aria-busy, a spinner) with nothing pending.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub still_busy: Option<String>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// The effects since `mark`, from the store (`page_url`: the page's URL now, for short URLs), their
/// locations read through `places`.
pub fn collect(store: &Store, mark: &Mark, page_url: &str, now: f64, places: &Places) -> Effects {
    let origin = origin_of(page_url);
    let redactor = &store.redactor;
    let mut effects = Effects::default();
    let mut spans: Vec<Span> = Vec::new();
    let mut doms: Vec<&DomRecord> = Vec::new();
    let mut console: Vec<ConsoleEntry> = Vec::new();
    let mut errors: Vec<PageError> = Vec::new();
    for entry in store.timeline.since(mark.seq) {
        match &entry.record {
            Record::Request(r) if !r.browser_own => spans.push(Span { request: r, start: entry.at, end: r.done_at() }),
            Record::Dom(dom) => doms.push(dom),
            // Timed from the action's start, like its requests and changes.
            Record::Console(c) if c.level() == Level::Error => console
                .extend(console_entry(store, entry, places).map(|e| ConsoleEntry { t: ms(entry.at, mark.at), ..e })),
            Record::PageError(_) => {
                let error = page_error(store, entry, false, places);
                errors.extend(error.map(|e| PageError { t: ms(entry.at, mark.at), ..e }))
            }
            Record::Dialog(dialog) => effects.dialogs.push(redactor.text(&wording::dialog(dialog))),
            Record::Download(download) => effects.downloads.push(redactor.text(&wording::download(download))),
            Record::Popup { .. } => {
                effects.popups.extend(console_entry(store, entry, places).map(|e| relative_in(&e.text, &origin)))
            }
            _ => {}
        }
    }
    requests(store, &spans, (mark.at, &origin), places, &mut effects);
    effects.facts = facts::out_of_order(&spans, &doms, mark.at);
    effects.facts.extend(facts::chains(&spans).iter().map(|chain| relative_in(&chain.line(), &origin)));
    effects.more_changes = doms.len().saturating_sub(MAX_CHANGES) as u64;
    effects.changes = doms.iter().take(MAX_CHANGES).map(|dom| change_line(store, dom, mark.at, places)).collect();
    effects.pending = pending(store, mark.seq, now, |r| !r.browser_own)
        .into_iter()
        .map(|p| PendingView { url: relative(&p.url, &origin), ..p })
        .collect();
    effects.more_console_errors = console.len().saturating_sub(MAX_ERRORS) as u64;
    console.truncate(MAX_ERRORS);
    effects.console_errors = console;
    effects.more_page_errors = errors.len().saturating_sub(MAX_ERRORS) as u64;
    errors.truncate(MAX_ERRORS);
    effects.page_errors = errors;
    effects
}

/// The requests: data ones and failures listed (or, past [`MAX_REQUESTS`], failures listed and the
/// rest grouped), other successful loads counted.
fn requests(store: &Store, spans: &[Span], (origin_at, origin): (f64, &str), places: &Places, effects: &mut Effects) {
    let done: Vec<&Span> = spans.iter().filter(|s| s.request.is_answered()).collect();
    let (listed, counted): (Vec<&Span>, Vec<&Span>) =
        done.into_iter().partition(|s| s.request.is_data() || s.request.is_error());
    effects.other_requests = counted.len() as u64;
    let grouped = listed.len() > MAX_REQUESTS;
    let mut groups: BTreeMap<String, Vec<&Span>> = BTreeMap::new();
    for span in listed {
        if grouped && !span.request.is_error() {
            groups.entry(facts::endpoint(&span.request.method, &span.request.url)).or_default().push(span);
        } else {
            effects.requests.push(request_effect(store, span, (origin_at, origin), places));
        }
    }
    effects.groups = groups
        .into_iter()
        .map(|(endpoint, spans)| {
            let mut statuses: BTreeMap<String, u64> = BTreeMap::new();
            for span in &spans {
                let status = span.request.status().map_or_else(|| "no answer".to_owned(), |s| s.to_string());
                *statuses.entry(status).or_default() += 1;
            }
            RequestGroup {
                endpoint: relative_in(&endpoint, origin),
                count: spans.len() as u64,
                statuses: statuses.iter().map(|(s, n)| format!("{s}×{n}")).collect::<Vec<_>>().join(", "),
                first_ms: spans.iter().map(|s| ms(s.start, origin_at)).min().unwrap_or_default(),
                last_ms: spans.iter().filter_map(|s| s.end).map(|end| ms(end, origin_at)).max(),
            }
        })
        .collect();
}

fn ms(at: f64, origin: f64) -> i64 {
    (at - origin).round() as i64
}

fn request_effect(store: &Store, span: &Span, (origin_at, origin): (f64, &str), places: &Places) -> RequestEffect {
    let r: &RequestRecord = span.request;
    let redactor = &store.redactor;
    let failed_data = r.is_error() && r.is_data();
    let body = failed_data.then(|| store.bodies.get(&r.id)).flatten();
    RequestEffect {
        method: r.method.clone(),
        url: relative(&redactor.text(&r.url), origin),
        status: r.status(),
        failure: r.failure().map(str::to_owned),
        cancelled: matches!(r.end, Some((_, Outcome::Cancelled))),
        body_not_read: r.body_unread || matches!(r.end, Some((_, Outcome::BodyNotRead))),
        start_ms: ms(span.start, origin_at),
        end_ms: span.end.map(|end| ms(end, origin_at)),
        initiator: initiator_text(r, places).map(|i| relative_in(&i, origin)),
        request_body: r.posted.as_deref().filter(|_| failed_data).map(|b| redactor.body(cut(b, EFFECT_EXCERPT).0)),
        response_body: body.map(|b| redactor.body(cut(&b.text, EFFECT_EXCERPT).0)),
        response_body_bytes: body.filter(|b| b.text.len() > EFFECT_EXCERPT || b.truncated).map(|b| b.text.len()),
        request_id: failed_data.then(|| r.id.clone()),
    }
}

/// `click on #link: its default (follows the link to /next) was prevented by a listener`: a note
/// on the user's input the timeline shows (only those a listener changed).
pub fn dispatched_line(note: &EventNote) -> String {
    let listeners = [];
    super::reached::by_default(&[note], &listeners).unwrap_or_else(|| format!("{:?} on {}", note.kind, note.on))
}

/// `+12 #results: 10 items replaced by renderResults (/search:40) ← response of GET /api/search 200`,
/// with how often and until when for merged changes.
pub fn change_line(store: &Store, dom: &DomRecord, origin: f64, places: &Places) -> String {
    let first = ms(dom.change.at, origin);
    let mut line = format!("+{first} {}", dom.change.line());
    if dom.count > 1 {
        line.push_str(&format!(" (the last of {} changes, at +{})", dom.count, ms(dom.last_at(), origin)));
    }
    line.push_str(&dom_cause(store, dom.document, &dom.change, dom.last_at(), places));
    line
}
