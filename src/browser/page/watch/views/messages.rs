//! Messages between windows in an answer: each message the window got as a line — from which frame
//! and origin to which, its outline, and which `message` listeners it was dispatched to, each with
//! where it is (read through the source maps) and what it started: the requests and DOM changes
//! whose stacks run through it, or nothing — and a fact for a message every listener let go
//! without starting anything. Effects, the load report and `page.timeline` show them; the words are
//! `wording::message`'s.

use super::super::exchanged::MessageNote;
use super::super::origin::relative;
use super::super::records::{Entry, Record};
use super::super::stacks::CodeLocation;
use super::super::store::Store;
use super::places::{Places, parts_of};
use super::wording::{self, Started};

/// Message lines an action's effects or a load report lists before "… N more".
pub const MAX_LINES: usize = 12;
/// What one listener started, named at most.
const STARTED: usize = 3;

/// A listener as it can be recognised in a stack: its name and, when known, where it is.
struct Listener<'a> {
    name: &'a str,
    at: Option<&'a CodeLocation>,
}

impl Listener<'_> {
    /// `frame` runs in this listener's function (by its name, `Widget.onMessage` too, in its
    /// script when known).
    fn runs(&self, frame: &CodeLocation) -> bool {
        let named = frame.function == self.name
            || frame.function.strip_suffix(self.name).is_some_and(|head| head.ends_with('.'));
        named && self.at.is_none_or(|at| at.url == frame.url)
    }
}

/// One message entry as a line, masked (`origin`: the page's, for short URLs; `places`: where the
/// current document's numbered functions are).
pub fn line(store: &Store, entry: &Entry, note: &MessageNote, origin: &str, places: &Places) -> String {
    let listeners = listeners(store, entry, note, origin, places);
    store.redactor.text(&wording::message(note, origin, &listeners))
}

/// The message entries among `entries` as lines timed from `t0` (ms since the Unix epoch), the
/// first [`MAX_LINES`], how many more there were, and the facts they imply.
pub fn lines<'a>(
    store: &Store,
    entries: impl Iterator<Item = &'a Entry>,
    (origin, t0): (&str, f64),
    places: &Places,
) -> (Vec<String>, u64, Vec<String>) {
    let (mut lines, mut more, mut facts) = (Vec::new(), 0, Vec::new());
    for entry in entries {
        let Record::Message(note) = &entry.record else { continue };
        if lines.len() == MAX_LINES {
            more += 1;
            continue;
        }
        let listeners = listeners(store, entry, note, origin, places);
        lines.push(format!("+{} {}", (entry.at - t0).round() as i64, wording::message(note, origin, &listeners)));
        if facts.len() < MAX_LINES
            && !listeners.is_empty()
            && listeners.iter().all(|(_, started)| *started == Started::Nothing)
        {
            facts.push(wording::message_ignored(note, &listeners));
        }
    }
    let mask = |texts: Vec<String>| -> Vec<String> { texts.iter().map(|t| store.redactor.text(t)).collect() };
    (mask(lines), more, mask(facts))
}

/// The listeners `note` was dispatched to, named, with what each started.
fn listeners(
    store: &Store,
    entry: &Entry,
    note: &MessageNote,
    origin: &str,
    places: &Places,
) -> Vec<(String, Started)> {
    let current = note.document == store.timeline.generation();
    note.listeners
        .iter()
        .map(|(name, fid)| {
            let at = places.functions.get(fid).filter(|_| current && *fid != 0);
            let shown = match at {
                Some(at) => {
                    let named = CodeLocation { function: name.clone(), ..at.clone() };
                    let (function, spot) = parts_of(&named, &places.resolve(&named));
                    let function = if function.is_empty() { "a listener".to_owned() } else { function };
                    format!("{function} ({spot})")
                }
                None if name.is_empty() => "a listener".to_owned(),
                None => name.clone(),
            };
            (shown, started(store, entry.at, &Listener { name: name.as_str(), at }, origin))
        })
        .collect()
}

/// What ran through `listener` from `at` (the message's dispatch) on, in the same document: the
/// requests whose stacks, and the DOM changes whose causes' stacks, have a frame in it. An
/// anonymous listener's frames cannot be told from the script's other anonymous functions: not known.
fn started(store: &Store, at: f64, listener: &Listener, origin: &str) -> Started {
    if listener.name.is_empty() {
        return Started::Unknown;
    }
    let mut things: Vec<String> = Vec::new();
    let mut add = |thing: String| {
        if !things.contains(&thing) {
            things.push(thing);
        }
    };
    for entry in store.timeline.iter().filter(|e| e.at >= at - 1.0) {
        match &entry.record {
            Record::Document { .. } if entry.at > at => break,
            Record::Request(r)
                if !r.is_noise() && r.initiator.iter().chain(r.callers.frames()).any(|f| listener.runs(f)) =>
            {
                add(format!("{} {}", r.method, relative(&r.url, origin)))
            }
            Record::Dom(dom) => {
                for change in &dom.recent {
                    let stacks = change.causes.iter().filter_map(|id| store.causes.get(dom.document, *id));
                    if stacks.flat_map(|s| s.frames()).any(|f| listener.runs(f)) {
                        add(format!("a change of {}", change.element));
                    }
                }
            }
            _ => {}
        }
    }
    match things.len() {
        0 if store.causes.pending_since(at - 1.0) => Started::Unknown,
        0 => Started::Nothing,
        n => {
            things.truncate(STARTED);
            Started::Things(things, n.saturating_sub(STARTED))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::browser::page::watch::exchanged::Shape;

    fn note(listeners: Vec<(String, u32)>) -> MessageNote {
        MessageNote {
            origin: "http://h:1".into(),
            from: "iframe#scheduler (/support/scheduler/)".into(),
            shape: Shape::Json {
                outline: "{type: string, height: number}".into(),
                tags: vec![("type".into(), "\"scheduler:ready\"".into())],
            },
            listeners,
            ports: 0,
            unread: 0,
            document: 0,
        }
    }

    #[test]
    fn a_message_its_listener_let_go_reads_with_its_origin_and_a_fact() {
        let mut store = Store::new(0.0);
        store.timeline.push(100.0, Record::Message(note(vec![("onSchedulerMessage".into(), 3)])));
        let mut places = Places::default();
        let at =
            CodeLocation { url: "http://h:1/support/embed.js".into(), line: 7, column: 37, function: String::new() };
        places.functions.insert(3, at);
        let (lines, more, facts) = lines(&store, store.timeline.iter(), ("http://h:1", 0.0), &places);
        assert_eq!(more, 0);
        assert_eq!(
            lines,
            vec![
                "+100 message from iframe#scheduler (/support/scheduler/) at http://h:1 to http://h:1: \
                 {type: \"scheduler:ready\"} ({type: string, height: number}); onSchedulerMessage \
                 (/support/embed.js:7) started nothing"
            ]
        );
        assert_eq!(
            facts,
            vec![
                "the message {type: \"scheduler:ready\"} from http://h:1 (iframe#scheduler (/support/scheduler/)) \
                 reached onSchedulerMessage (/support/embed.js:7), which started nothing: no request, no DOM change"
            ]
        );
    }

    #[test]
    fn a_request_made_in_the_listener_is_what_it_started() {
        let mut store = Store::new(0.0);
        store.timeline.push(100.0, Record::Message(note(vec![("onHello".into(), 0)])));
        let stack = serde_json::json!({"callFrames": [{"functionName": "onHello", "url": "http://h:1/a.js", "lineNumber": 3, "columnNumber": 2}]});
        let request = crate::browser::page::watch::records::RequestRecord {
            id: "R".into(),
            method: "GET".into(),
            url: "http://h:1/api/slots".into(),
            resource_type: crate::browser::chromium::kinds::ResourceType::Fetch,
            initiator: None,
            callers: crate::browser::page::watch::stacks::Stack::parse(&stack),
            posted: None,
            browser_own: false,
            response: None,
            end: None,
            body_pending: false,
            body_unread: false,
            pulled: false,
            redirected_to: None,
            wire: None,
        };
        store.timeline.push(101.0, Record::Request(Box::new(request)));
        let (lines, _, facts) = lines(&store, store.timeline.iter(), ("http://h:1", 0.0), &Places::default());
        assert!(lines[0].ends_with("; onHello started GET /api/slots"), "{lines:?}");
        assert!(facts.is_empty());
    }
}
