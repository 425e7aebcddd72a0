//! Console calls and page errors (uncaught exceptions, unhandled rejections), filed as they come,
//! with the source lines around the line an error points at: from the page's source cache, or
//! fetched by a command and filed when found. The state is the timeline's and the source cache's.

use super::super::cdp_events::{CodeLocation, PageEvent};
use super::super::clock::Now;
use super::super::commands::Command;
use super::super::notes::Signal;
use super::super::records::{self, ConsoleRecord, ErrorRecord, Record};
use super::super::sources;
use super::super::store::Store;
use super::outbox::Outbox;
use crate::browser::chromium::kinds::Level;

/// Lines shown each side of the line a page error or console error points at.
const SOURCE_CONTEXT: u32 = 2;

/// A console call or a page error.
pub fn apply(store: &mut Store, event: PageEvent, now: Now, out: &mut Outbox) {
    match event {
        PageEvent::Console { method, text, location, trace, at } => {
            let at = at.map_or(now.wall, |ms| ms as f64);
            let level = method.level();
            let wants_source = level == Level::Error && location.is_some();
            let (text, text_length) = records::message(text);
            out.live.push(Signal::Console {
                text: text.clone(),
                error: level == Level::Error,
                location: location.clone(),
                page_at: at as u64,
            });
            let record = ConsoleRecord {
                method,
                text,
                text_length,
                location: location.clone(),
                trace,
                source: None,
                source_pending: wants_source,
            };
            let seq = store.timeline.push(at, Record::Console(record));
            if let (true, Some(location)) = (wants_source, location) {
                want_source(store, seq, location, out);
            }
        }
        PageEvent::Exception { origin, message, stack, location, trace, at } => {
            let at = at.map_or(now.wall, |ms| ms as f64);
            let (message, message_length) = records::message(message);
            out.live.push(Signal::PageError {
                message: message.clone(),
                location: location.clone(),
                page_at: at as u64,
            });
            let record = ErrorRecord {
                origin,
                message,
                message_length,
                location: location.clone(),
                trace,
                source: None,
                stack: stack.map(records::stack),
                source_pending: location.is_some(),
            };
            let seq = store.timeline.push(at, Record::PageError(record));
            if let Some(location) = location {
                want_source(store, seq, location, out);
            }
        }
        _ => {}
    }
}

/// Adds the source lines around `at` to entry `seq`: from the page's source cache, or asked for.
fn want_source(store: &mut Store, seq: u64, at: CodeLocation, out: &mut Outbox) {
    match store.sources.get(&at.url) {
        Some(lines) => {
            let source = sources::excerpt(&lines, at.line, Some(at.column), SOURCE_CONTEXT);
            set_source(store, seq, source);
        }
        None => out.commands.push(Command::FetchSource { seq, at }),
    }
}

/// Files the text of the script at `at.url` (when it could be had) for entry `seq`.
pub fn found_source(store: &mut Store, seq: u64, at: &CodeLocation, text: Option<String>) {
    let source = text.and_then(|text| {
        let lines = store.sources.insert(&at.url, &text);
        sources::excerpt(&lines, at.line, Some(at.column), SOURCE_CONTEXT)
    });
    set_source(store, seq, source);
}

fn set_source(store: &mut Store, seq: u64, source: Option<String>) {
    store.timeline.update(seq, |record| match record {
        Record::Console(c) => {
            c.source = source;
            c.source_pending = false;
        }
        Record::PageError(e) => {
            e.source = source;
            e.source_pending = false;
        }
        _ => {}
    });
}
