//! An action's effects: what the timeline holds after the action's mark — the requests it started
//! (failed ones with their bodies, writes with what they sent), the facts about them (out of order,
//! sent twice, one after another, a write that sent another value than a field was filled with),
//! the DOM changes (each credited to this action's requests, an input or a timer, never an earlier
//! call's response), the errors the page raised, dialogs, downloads, popups, and what is still in
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
use super::super::inputs::FieldInput;
use super::super::origin::{origin_of, relative, relative_in};
use super::super::records::{DomRecord, Outcome, Record, RequestRecord};
use super::super::shape;
use super::super::store::Store;
use super::logs::{ConsoleEntry, PageError, console_entry, page_error};
use super::network::{PendingView, initiator_text, pending};
use super::places::Places;
use super::reached::Reached;
use super::reactions::Among;
use super::{dom_cause, messages, ms_since, sockets, storage, wire, wording};
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
    /// The action's method (`page.click`), when it is an action's mark.
    pub action: Option<String>,
}

impl Mark {
    /// How facts name what the action was: `click`, `fill`, `key press` … (`action` otherwise).
    pub fn what(&self) -> &'static str {
        match self.action.as_deref() {
            Some("page.click" | "page.dblclick") => "click",
            Some("page.fill" | "page.fillForm") => "fill",
            Some("page.press") => "key press",
            Some("page.type") => "typing",
            Some("page.check" | "page.uncheck") => "check",
            Some("page.select") => "choice",
            Some("page.drag") => "drag",
            _ => "action",
        }
    }
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
    /// Writes and failures: the first 1 KB sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_body: Option<String>,
    /// A write's JSON body, keys and types.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_outline: Option<String>,
    /// For a failed fetch/XHR/document: the first 1 KB of the answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response_body: Option<String>,
    /// When responseBody is only the start: the whole body's size in bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response_body_bytes: Option<usize>,
    /// The id network.body takes for the whole response body.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_id: Option<RequestId>,
    /// A redirect hop: where its answer sent the request (each hop is its own entry).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub redirected_to: Option<String>,
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
    /// The redirect hops that led there, when there were any: `POST /login 303`, `GET /home 302`, `GET /login?next=… 200`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub chain: Vec<String>,
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
    /// Out of order, sent twice, chains, stale writes.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub facts: Vec<String>,
    /// Which facts are identical requests sent more than once, and how many times each.
    #[serde(skip)]
    #[schemars(skip)]
    pub sent_twice: Vec<(usize, usize)>,
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
    /// Frames the page's sockets and streams sent and received, their errors and closes: `+3 ← error frame {op: "error"} on /ws`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sockets: Vec<String>,
    #[serde(skip_serializing_if = "is_zero")]
    pub more_sockets: u64,
    /// Messages the window got from frames and windows, and what their listeners started.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub messages: Vec<String>,
    #[serde(skip_serializing_if = "is_zero")]
    pub more_messages: u64,
    /// Web Storage writes and getItem reads with their lines: `+3 localStorage k = {a: string} by /s.js:5`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub storage: Vec<String>,
    #[serde(skip_serializing_if = "is_zero")]
    pub more_storage: u64,
    /// Cookies its answers set or refused, and those withheld from its requests, with why: `not sent: sid — its Path /api does not cover /home (GET /home)`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cookies: Vec<String>,
    #[serde(skip_serializing_if = "is_zero")]
    pub more_cookies: u64,
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
            Record::Request(r) if !r.is_noise() => spans.push(Span { request: r, start: entry.at, end: r.done_at() }),
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
    facts_of(store, &spans, &doms, mark, &origin, &mut effects);
    effects.facts.extend(sockets::facts(store, store.timeline.since(mark.seq), &origin));
    (effects.sockets, effects.more_sockets) = sockets::lines(store, store.timeline.since(mark.seq), &origin, mark.at);
    let (lines, more, found) = messages::lines(store, store.timeline.since(mark.seq), (&origin, mark.at), places);
    (effects.messages, effects.more_messages) = (lines, more);
    effects.facts.extend(found);
    let (lines, more, found) = storage::lines(store, store.timeline.since(mark.seq), mark.at, places);
    (effects.storage, effects.more_storage) = (lines, more);
    effects.facts.extend(found);
    let (cookies, more_cookies, cookie_facts) = wire::effect_lines(store, store.timeline.since(mark.seq), &origin);
    (effects.cookies, effects.more_cookies) = (cookies, more_cookies);
    effects.facts.extend(cookie_facts);
    effects.more_changes = doms.len().saturating_sub(MAX_CHANGES) as u64;
    let among = Among::Since(mark.seq);
    effects.changes =
        doms.iter().take(MAX_CHANGES).map(|dom| change_line(store, dom, mark.at, places, among)).collect();
    effects.pending = pending(store, mark.seq, now, |r| !r.is_noise())
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

/// The facts of an action's requests: out of order, sent twice, one after another, stale values.
fn facts_of(store: &Store, spans: &[Span], doms: &[&DomRecord], mark: &Mark, origin: &str, effects: &mut Effects) {
    let redactor = &store.redactor;
    effects.facts = facts::out_of_order(spans, doms, &store.causes, mark.at);
    for (line, times) in facts::sent_twice(spans, mark.what()) {
        effects.sent_twice.push((effects.facts.len(), times));
        effects.facts.push(redactor.text(&relative_in(&line, origin)));
    }
    effects.facts.extend(facts::chains(spans).iter().map(|chain| relative_in(&chain.line(), origin)));
    let fields: Vec<&FieldInput> = store.inputs.before(f64::INFINITY).collect();
    if !fields.is_empty() {
        for span in spans {
            let stale = facts::stale_values(span, &fields, |at| ms_since(&store.timeline, at));
            effects.facts.extend(stale.iter().map(|line| redactor.text(&relative_in(line, origin))));
        }
    }
}

/// The facts of identical requests sent twice say why when a listener of the action ran as many
/// times (`repeats`: how often each listener that ran more than once ran): `…, both 201: the click
/// reached the same handler twice`.
pub fn same_handler(effects: &mut Effects, repeats: &[usize], what: &str) {
    for &(index, times) in &effects.sent_twice {
        if repeats.contains(&times)
            && let Some(fact) = effects.facts.get_mut(index)
        {
            let how_often = if times == 2 { "twice".to_owned() } else { format!("{times} times") };
            fact.push_str(&format!(": the {what} reached the same handler {how_often}"));
        }
    }
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
    let write = facts::is_write(&r.method);
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
        request_body: r
            .posted
            .as_deref()
            .filter(|_| failed_data || write)
            .map(|b| redactor.body(cut(b, EFFECT_EXCERPT).0)),
        request_outline: r.posted.as_deref().filter(|_| write).and_then(shape::outline),
        response_body: body.map(|b| redactor.body(cut(&b.text, EFFECT_EXCERPT).0)),
        response_body_bytes: body.filter(|b| b.text.len() > EFFECT_EXCERPT || b.truncated).map(|b| b.text.len()),
        request_id: failed_data.then(|| r.id.clone()),
        redirected_to: r.redirected_to.as_ref().map(|to| relative(&redactor.text(to), origin)),
    }
}

/// `click on #link: its default (follows the link to /next) was prevented by a listener`: a note
/// on the user's input the timeline shows (only those a listener changed).
pub fn dispatched_line(note: &EventNote) -> String {
    let listeners = [];
    super::reached::by_default(&[note], &listeners).unwrap_or_else(|| format!("{:?} on {}", note.kind, note.on))
}

/// `+12 #results: 10 items replaced by renderResults (/search:40) ← response of GET /api/search 200`,
/// with how often and until when for merged changes (credited to a response of the requests
/// `among` names).
pub fn change_line(store: &Store, dom: &DomRecord, origin: f64, places: &Places, among: Among) -> String {
    let first = ms(dom.change.at, origin);
    let mut line = format!("+{first} {}", dom.change.line());
    if dom.count > 1 {
        line.push_str(&format!(" (the last of {} changes, at +{})", dom.count, ms(dom.last_at(), origin)));
    }
    line.push_str(&dom_cause(store, dom.document, &dom.change, dom.last_at(), places, among));
    line
}
