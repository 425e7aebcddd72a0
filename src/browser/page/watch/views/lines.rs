//! `page.timeline`: the page's timeline as one compact line per entry, in the order things
//! happened, times in ms since the current document started loading:
//!
//! ```text
//! +0 GET /items 200 38 ms
//! +41 GET /api/items 200 51 ms ← loadItems (:80)
//! +95 DOMContentLoaded
//! +6501 #table: 24 rows added; #loading: hidden set
//! ```
//!
//! Requests of one endpoint from one script location that follow each other are folded after the
//! first two ("… 22 more of the same"), and the facts the service derives (out of order, serial
//! chains) close the answer.

use serde::{Deserialize, Serialize};

use super::super::facts::{self, Span};
use super::super::origin::{origin_of, relative, relative_in};
use super::super::records::{DomRecord, Entry, Outcome, Record, RequestRecord};
use super::super::stacks::{CodeLocation, Stack};
use super::super::store::Store;
use super::places::Places;
use super::reactions::Among;
use super::{dom_cause, wording};
use crate::browser::chromium::kinds::Milestone;

/// What kinds of entries `page.timeline` shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum EntryKind {
    /// Documents committed, DOMContentLoaded, load, a crash.
    Navigation,
    Request,
    Console,
    /// Uncaught exceptions and unhandled rejections.
    Error,
    /// What changed in the DOM.
    Dom,
    /// The caller's actions (page.click …).
    Action,
    /// WebSockets opened, their frames, errors and closes; EventSource messages.
    Socket,
    /// Messages the window got from frames and windows (postMessage), with their listeners.
    Message,
    /// Web Storage writes and getItem reads (localStorage, sessionStorage).
    Storage,
    /// Dialogs, downloads, popups and notes.
    Other,
}

/// Where `page.timeline` starts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Since {
    /// The current document's start (the default).
    Document,
    /// The current document's `load` event.
    Load,
    /// The last action of the session's caller.
    LastAction,
    /// This many ms after the current document started.
    Ms(f64),
}

/// What `page.timeline` returns.
#[derive(Debug, Default)]
pub struct Lines {
    pub text: String,
    pub facts: Vec<String>,
    /// Lines left out past `maxChars`.
    pub more: u64,
    /// Entries that fell off the timeline since the page opened.
    pub dropped: u64,
}

/// Consecutive requests shown before the rest of their run is folded.
const RUN_SHOWN: usize = 2;
/// Characters of a console message or error shown.
const TEXT: usize = 120;

/// The timeline from `since`, of `kinds` (all when empty), requests narrowed to `url_contains`.
pub fn render(
    store: &Store,
    since: Since,
    kinds: &[EntryKind],
    url_contains: Option<&str>,
    (page_url, places): (&str, &Places),
    max_chars: usize,
) -> Lines {
    let timeline = &store.timeline;
    let origin_at = timeline.current_origin();
    let from = start_of(store, since, origin_at);
    let wanted = |kind: EntryKind| kinds.is_empty() || kinds.contains(&kind);
    let mut entries: Vec<&Entry> = timeline
        .iter()
        .filter(|e| e.at >= from)
        .filter(|e| kind_of(&e.record).is_some_and(wanted))
        .filter(|e| match (&e.record, url_contains) {
            (Record::Request(r), Some(part)) => r.url.contains(part),
            _ => true,
        })
        .collect();
    entries.sort_by(|a, b| a.at.total_cmp(&b.at).then(a.seq.cmp(&b.seq)));
    let page = Reading {
        store,
        places,
        origin: origin_of(page_url),
        origin_at,
        document_url: page_url.split(['?', '#']).next().unwrap_or(page_url),
    };
    let lines = page.lines(&entries);
    let facts = page.facts(&entries, from);
    fit(lines, Lines { facts, dropped: timeline.dropped(), ..Lines::default() }, max_chars)
}

/// Where `since` starts, in ms since the Unix epoch (`origin_at`: the current document's start).
fn start_of(store: &Store, since: Since, origin_at: f64) -> f64 {
    let timeline = &store.timeline;
    match since {
        Since::Document => origin_at - 1.0,
        Since::Ms(ms) => origin_at + ms,
        Since::Load => timeline
            .iter()
            .rev()
            .find(|e| matches!(e.record, Record::Milestone(Milestone::Load)) && e.at >= origin_at)
            .map_or(origin_at, |e| e.at),
        Since::LastAction => {
            timeline.iter().rev().find(|e| matches!(e.record, Record::Action(_))).map_or(origin_at, |e| e.at)
        }
    }
}

/// The page the lines are read for: its store, its URL's origin (URLs shown without it), when its
/// document started (times counted from it) and its URL without query and fragment.
struct Reading<'a> {
    store: &'a Store,
    /// The session's maps the places are read through.
    places: &'a Places,
    origin: String,
    origin_at: f64,
    document_url: &'a str,
}

impl Reading<'_> {
    fn t(&self, at: f64) -> i64 {
        (at - self.origin_at).round() as i64
    }

    /// One line per entry; a run of requests to one endpoint from one place folded after its
    /// first few, changes that happened together as one line.
    fn lines(&self, entries: &[&Entry]) -> Vec<String> {
        let mut lines: Vec<String> = Vec::new();
        let mut i = 0;
        while i < entries.len() {
            let entry = entries[i];
            i = match &entry.record {
                Record::Request(r) => {
                    let key = run_key(r);
                    let end = i + entries[i..]
                        .iter()
                        .take_while(|e| matches!(&e.record, Record::Request(next) if run_key(next) == key))
                        .count();
                    self.request_run(&entries[i..end], &mut lines);
                    end
                }
                Record::Dom(_) => {
                    let end = i + entries[i..]
                        .iter()
                        .take_while(|e| matches!(e.record, Record::Dom(_)) && e.at - entry.at <= 2.0)
                        .count();
                    let parts: Vec<String> = entries[i..end]
                        .iter()
                        .filter_map(|e| match &e.record {
                            Record::Dom(d) => Some(dom_part(self, d)),
                            _ => None,
                        })
                        .collect();
                    lines.push(format!("+{} {}", self.t(entry.at), parts.join("; ")));
                    end
                }
                Record::Message(note) => {
                    let line = super::messages::line(self.store, entry, note, &self.origin, &Places::default());
                    lines.push(format!("+{} {line}", self.t(entry.at)));
                    i + 1
                }
                record => {
                    lines.push(format!("+{} {}", self.t(entry.at), other_line(self, record)));
                    i + 1
                }
            };
        }
        lines
    }

    /// A run of requests to one endpoint from one place: the first few, then the rest folded.
    fn request_run(&self, run: &[&Entry], lines: &mut Vec<String>) {
        let folds = run.len() > RUN_SHOWN + 1;
        for e in run.iter().take(if folds { RUN_SHOWN } else { run.len() }) {
            if let Record::Request(r) = &e.record {
                let line = request_line(self, r, e.at);
                lines.push(format!("+{} {line}", self.t(e.at)));
            }
        }
        if !folds {
            return;
        }
        let rest = &run[RUN_SHOWN..];
        let last_end =
            rest.iter().filter_map(|e| request_of(e).and_then(RequestRecord::done_at)).fold(f64::MIN, f64::max);
        let statuses = status_spread(rest.iter().filter_map(|e| request_of(e)));
        let (method, url) = request_of(rest[0]).map(|r| (r.method.clone(), r.url.clone())).unwrap_or_default();
        let ended =
            if last_end > f64::MIN { format!(", the last ended at +{}", self.t(last_end)) } else { String::new() };
        lines.push(format!(
            "+{} … {} more of the same: {} {}{ended}",
            self.t(rest[0].at),
            rest.len(),
            relative_in(&facts::endpoint(&method, &url), &self.origin),
            statuses
        ));
    }

    /// The facts derived from the requests shown and the changes since `from`.
    fn facts(&self, entries: &[&Entry], from: f64) -> Vec<String> {
        let spans: Vec<Span> = entries
            .iter()
            .filter_map(|e| request_of(e).map(|r| Span { request: r, start: e.at, end: r.done_at() }))
            .collect();
        let doms: Vec<&DomRecord> = self
            .store
            .timeline
            .iter()
            .filter(|e| e.at >= from)
            .filter_map(|e| if let Record::Dom(d) = &e.record { Some(d) } else { None })
            .collect();
        let mut facts = facts::out_of_order(&spans, &doms, &self.store.causes, self.origin_at);
        facts.extend(facts::chains(&spans).iter().map(|c| relative_in(&c.line(), &self.origin)));
        facts
    }
}

/// `lines` into `out`'s text, up to `max_chars`; the lines left out counted.
fn fit(lines: Vec<String>, mut out: Lines, max_chars: usize) -> Lines {
    for line in lines {
        if out.more > 0 || out.text.len() + line.len() + 1 > max_chars {
            out.more += 1;
            continue;
        }
        out.text.push_str(&line);
        out.text.push('\n');
    }
    if out.text.ends_with('\n') {
        out.text.pop();
    }
    out
}

fn kind_of(record: &Record) -> Option<EntryKind> {
    Some(match record {
        Record::Document { .. } | Record::Milestone(Milestone::DomContentLoaded | Milestone::Load) | Record::Crash => {
            EntryKind::Navigation
        }
        Record::Milestone(_) => return None,
        Record::Request(r) if r.is_noise() => return None,
        Record::Request(_) => EntryKind::Request,
        Record::Console(_) => EntryKind::Console,
        Record::PageError(_) => EntryKind::Error,
        Record::Dom(_) => EntryKind::Dom,
        Record::Action(_) => EntryKind::Action,
        // The browser's handling of the user's input is news only when a listener changed it.
        Record::Dispatched(note) if note.prevented || !note.bubbled => EntryKind::Action,
        Record::Dispatched(_) => return None,
        Record::Socket(_) => EntryKind::Socket,
        Record::Message(_) => EntryKind::Message,
        Record::Storage(_) => EntryKind::Storage,
        Record::Dialog(_) | Record::Download(_) | Record::Popup { .. } | Record::Note(_) => EntryKind::Other,
    })
}

fn request_of(entry: &Entry) -> Option<&RequestRecord> {
    if let Record::Request(r) = &entry.record { Some(r) } else { None }
}

/// Requests that fold together: one endpoint, one script location.
fn run_key(r: &RequestRecord) -> (String, String) {
    let at = r.initiator.as_ref().map(|i| format!("{}:{}", i.url, i.line)).unwrap_or_default();
    (facts::endpoint(&r.method, &r.url), at)
}

fn status_spread<'a>(requests: impl Iterator<Item = &'a RequestRecord>) -> String {
    let mut counts: Vec<(String, u64)> = Vec::new();
    for r in requests {
        let status = match (r.status(), r.failure(), &r.end) {
            (Some(s), _, _) => s.to_string(),
            (None, Some(why), _) => why.to_owned(),
            (None, None, Some((_, Outcome::Cancelled))) => "cancelled".into(),
            _ => "pending".into(),
        };
        match counts.iter_mut().find(|(s, _)| *s == status) {
            Some((_, n)) => *n += 1,
            None => counts.push((status, 1)),
        }
    }
    counts.iter().map(|(s, n)| format!("{s}×{n}")).collect::<Vec<_>>().join(", ")
}

/// `GET /api/items 200 51 ms ← loadItems (:80)`; read through a map, the chain of the app's
/// frames that sent it (`← request (src/api/http.ts:14) ← submitClaim (src/api/claims.ts:25)`).
fn request_line(page: &Reading<'_>, r: &RequestRecord, start: f64) -> String {
    let (store, origin, document_url) = (page.store, page.origin.as_str(), page.document_url);
    let url = relative(&store.redactor.text(&r.url), origin);
    let outcome = match (&r.end, r.status()) {
        (Some((_, Outcome::Failed(why))), _) => format!("failed {why}"),
        (Some((_, Outcome::Cancelled)), _) => "cancelled (navigated away)".into(),
        (_, Some(status)) if r.body_unread || matches!(r.end, Some((_, Outcome::BodyNotRead))) => {
            format!("{status} (body not read)")
        }
        (_, Some(status)) => match &r.redirected_to {
            Some(to) => format!("{status} → {}", relative(&store.redactor.text(to), origin)),
            None => status.to_string(),
        },
        (None, None) => "pending".into(),
        (Some(_), None) => "ended".into(),
    };
    let took = r.done_at().map(|end| format!(" {} ms", (end - start).max(0.0).round() as i64)).unwrap_or_default();
    let chain = page.places.chain(&r.callers).map(|chain| format!(" ← {chain}"));
    let by = r
        .initiator
        .as_ref()
        .filter(|at| at.line > 0 && chain.is_none())
        .map(|at| {
            let file = if at.url.split(['?', '#']).next() == Some(document_url) {
                String::new()
            } else {
                relative(&at.url, origin)
            };
            let function = if at.function.is_empty() { String::new() } else { format!("{} ", at.function) };
            format!(" ← {function}({file}:{})", at.line)
        })
        .or(chain)
        .unwrap_or_default();
    let cookies = r.wire.as_deref().map(|w| store.redactor.text(&super::wire::short(w))).unwrap_or_default();
    format!("{} {url} {outcome}{took}{by}{cookies}", r.method)
}

fn dom_part(page: &Reading<'_>, dom: &DomRecord) -> String {
    let (store, origin_at) = (page.store, page.origin_at);
    let mut part = dom.change.line();
    if dom.count > 1 {
        part.push_str(&format!(
            " (the last of {} changes, at +{})",
            dom.count,
            (dom.last_at() - origin_at).round() as i64
        ));
    }
    part.push_str(&dom_cause(store, dom.document, &dom.change, dom.last_at(), page.places, Among::Any));
    part
}

fn other_line(page: &Reading<'_>, record: &Record) -> String {
    let (store, origin) = (page.store, page.origin.as_str());
    let redact = |s: &str| store.redactor.text(s);
    // The app's own file and line where a map says (its first app frame), else as served.
    let place = |at: &Option<CodeLocation>, trace: &Stack| {
        let located = page.places.location_of(trace, at.as_ref()).filter(|l| l.original.is_some());
        match (located, at) {
            (Some(located), _) => format!(" ({})", located.spot()),
            (None, Some(at)) => format!(" ({}:{})", relative(&at.url, origin), at.line),
            (None, None) => String::new(),
        }
    };
    match record {
        Record::Document { url } => format!("document {}", relative(&redact(url), origin)),
        Record::Milestone(m) => m.to_string(),
        Record::Console(c) => {
            format!("console.{} {}{}", c.method, quoted(&redact(&c.text)), place(&c.location, &c.trace))
        }
        Record::PageError(e) => format!("page error {}{}", cut(&redact(&e.message)), place(&e.location, &e.trace)),
        Record::Dialog(dialog) => redact(&wording::dialog(dialog)),
        Record::Download(download) => relative_in(&redact(&wording::download(download)), origin),
        Record::Note(learned) => relative_in(&redact(&wording::note(learned)), origin),
        Record::Popup { tab, url } => format!("popup opened as tab {tab}: {}", relative(&redact(url), origin)),
        Record::Action(action) => redact(&wording::action(action)),
        Record::Dispatched(note) => super::effects::dispatched_line(note),
        Record::Crash => "the renderer crashed".into(),
        Record::Socket(note) => super::sockets::line(store, note, origin),
        Record::Storage(note) => super::storage::line(store, note, page.places),
        Record::Request(_) | Record::Dom(_) | Record::Message(_) => String::new(),
    }
}

fn cut(text: &str) -> String {
    let one_line = text.lines().next().unwrap_or_default();
    if one_line.chars().count() <= TEXT {
        one_line.to_owned()
    } else {
        format!("{}…", one_line.chars().take(TEXT - 1).collect::<String>())
    }
}

fn quoted(text: &str) -> String {
    serde_json::Value::from(cut(text)).to_string()
}
