//! `logs.pull`: the console messages, page errors and notes (dialogs, downloads, popups) the
//! timeline holds after the pull's cursor, masked and bounded, oldest first. The cursor moves past
//! what the pull returned and nothing else: an answer cut at [`PULL_BUDGET`] leaves the rest for
//! the next pull (`more`), and entries that fell off the timeline before any pull saw them are
//! counted (`dropped`).

use schemars::JsonSchema;
use serde::Serialize;

use super::super::cdp_events::{CodeLocation, ErrorOrigin};
use super::super::records::{Entry, Record};
use super::super::shape;
use super::super::stacks::Stack;
use super::super::store::Store;
use super::ms_since;
use super::places::{Location, Places};
use super::{reactions, wording};
use crate::browser::chromium::kinds::{ConsoleMethod, Level};

/// Bytes of entries one pull returns at most; the rest waits for the next pull.
pub const PULL_BUDGET: usize = 1024 * 1024;

/// Where a console entry came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Origin {
    /// A `console.*` call.
    Console,
    /// A dialog, file chooser or authentication challenge the page met, and how it was answered.
    Dialog,
    /// A download the page began or finished.
    Download,
    /// A popup (new tab) the page opened.
    Popup,
    /// Something the service learned about the page (a popup's first load).
    Note,
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConsoleEntry {
    /// The console method: log, info, warning, error, debug, assert, …
    #[serde(rename = "type")]
    pub method: ConsoleMethod,
    /// `console`; `dialog`, `download`, `popup` or `note` for what the page did besides logging.
    pub kind: Origin,
    pub text: String,
    /// The message's length when it was longer than the 4 KB kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text_length: Option<usize>,
    /// Where the call was made: its first frame of the app's own code.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<Location>,
    /// For errors: the calling line and two each side.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// For errors: the response (or failure) the code was handling, as for page errors.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub during: Option<String>,
    /// When: ms since the document (in effects: the action) began.
    pub t: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PageError {
    /// exception or unhandledrejection.
    pub kind: ErrorOrigin,
    /// The error's first line, e.g. `TypeError: Cannot read properties of undefined (reading 'id')`.
    pub message: String,
    /// The message's length when it was longer than the 4 KB kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message_length: Option<usize>,
    /// Where it was thrown: its first frame of the app's own code.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<Location>,
    /// The throwing line and two each side, the column marked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// The response being handled when it threw, and its JSON's outline.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub during: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stack: Option<String>,
    /// When: ms since the document (in effects: the action) began.
    pub t: i64,
}

/// What `logs.pull` returns.
#[derive(Debug, Default)]
pub struct Logs {
    pub console: Vec<ConsoleEntry>,
    pub page_errors: Vec<PageError>,
    /// Entries that fell off the timeline before a pull returned them.
    pub dropped: u64,
    /// Entries left for the next pull (this one reached its size budget).
    pub more: u64,
}

/// A console entry as shown (masked); `None` for entries that are not log entries.
pub fn console_entry(store: &Store, entry: &Entry, places: &Places) -> Option<ConsoleEntry> {
    let t = ms_since(&store.timeline, entry.at);
    let note = |kind: Origin, method: ConsoleMethod, text: &str| ConsoleEntry {
        method,
        kind,
        text: store.redactor.text(text),
        text_length: None,
        location: None,
        source: None,
        during: None,
        t,
    };
    Some(match &entry.record {
        Record::Console(c) => ConsoleEntry {
            method: c.method.clone(),
            kind: Origin::Console,
            text: store.redactor.text(&c.text),
            text_length: c.text_length,
            location: places.location_of(&c.trace, c.location.as_ref()),
            source: excerpt(places, &c.trace, c.location.as_ref(), 1).or_else(|| c.source.clone()),
            during: (c.level() == Level::Error)
                .then(|| during_outlined(&c.trace, store, entry.at, false))
                .flatten()
                .map(|d| store.redactor.text(&d)),
            t,
        },
        Record::Dialog(dialog) => note(Origin::Dialog, ConsoleMethod::Warning, &wording::dialog(dialog)),
        Record::Download(download) => note(Origin::Download, ConsoleMethod::Warning, &wording::download(download)),
        Record::Popup { tab, url } => note(Origin::Popup, ConsoleMethod::Warning, &wording::popup(tab, url)),
        Record::Note(learned) => note(Origin::Note, ConsoleMethod::Info, &wording::note(learned)),
        _ => return None,
    })
}

/// A page error as shown (masked; without its stack unless asked).
pub fn page_error(store: &Store, entry: &Entry, with_stack: bool, places: &Places) -> Option<PageError> {
    let Record::PageError(e) = &entry.record else { return None };
    let stack = match e.trace.is_empty() {
        true => e.stack.clone(),
        false => Some(format!("{}\n{}", e.message.lines().next().unwrap_or_default(), places.stack_text(&e.trace))),
    };
    Some(PageError {
        kind: e.origin,
        message: store.redactor.text(&e.message),
        message_length: e.message_length,
        location: places.location_of(&e.trace, e.location.as_ref()),
        source: excerpt(places, &e.trace, e.location.as_ref(), 2).or_else(|| e.source.clone()),
        during: during_outlined(&e.trace, store, entry.at, e.origin == ErrorOrigin::UnhandledRejection)
            .map(|d| store.redactor.text(&d)),
        stack: stack.filter(|_| with_stack).map(|s| store.redactor.text(&s)),
        t: ms_since(&store.timeline, entry.at),
    })
}

/// The original lines where code with `trace` ran (its first app frame, else `given`), when its
/// script's map carries them.
fn excerpt(places: &Places, trace: &Stack, given: Option<&CodeLocation>, context: u32) -> Option<String> {
    let at = places.first_app(trace.frames()).map(|(at, _)| at).or(given)?;
    places.original_excerpt(at, context)
}

/// The response code with `stack` was handling at `at` (`reactions::handled`), and for a JSON answer
/// whose body was captured its outline (`response of GET /releases/older.json 200: {page: number,
/// items: [3 × {tag, notes}]}`, see `shape`): what an error reading a field the answer does not
/// have needs beside it.
fn during_outlined(stack: &Stack, store: &Store, at: f64, reported_late: bool) -> Option<String> {
    let answers = reactions::handled(stack, &store.timeline, at, reported_late, reactions::Among::Any);
    let line = (!answers.is_empty()).then(|| reactions::handling(stack, &answers))?;
    // The outline when the code handled one answer (of several, which it read is not known).
    let outline = match answers.as_slice() {
        [r] => r.status().and_then(|_| store.bodies.get(&r.id)).and_then(|body| shape::outline(&body.text)),
        _ => None,
    };
    Some(match outline {
        Some(outline) => format!("{line}: {outline}"),
        None => line,
    })
}

/// Takes the log entries after the cursor (console entries at `level` and above), at most
/// [`PULL_BUDGET`] bytes of them, and moves the cursor past what it returned.
pub fn pull(store: &mut Store, level: Level, places: &Places) -> Logs {
    let mut logs = Logs::default();
    let mut budget = PULL_BUDGET;
    let mut last = store.timeline.logs_cursor();
    let mut stopped = false;
    for entry in store.timeline.since(store.timeline.logs_cursor()) {
        let is_log = matches!(
            entry.record,
            Record::Console(_)
                | Record::PageError(_)
                | Record::Dialog(_)
                | Record::Download(_)
                | Record::Popup { .. }
                | Record::Note(_)
        );
        if stopped {
            logs.more += u64::from(is_log);
            continue;
        }
        if is_log {
            let cost = entry.record.bytes();
            if cost > budget && (!logs.console.is_empty() || !logs.page_errors.is_empty()) {
                stopped = true;
                logs.more += 1;
                continue;
            }
            budget = budget.saturating_sub(cost);
            if let Some(error) = page_error(store, entry, true, places) {
                logs.page_errors.push(error);
            } else if let Some(console) = console_entry(store, entry, places)
                && (console.kind != Origin::Console || console.method.level() >= level)
            {
                logs.console.push(console);
            }
        }
        last = entry.seq;
    }
    logs.dropped = store.timeline.logs_pulled(last);
    logs
}
