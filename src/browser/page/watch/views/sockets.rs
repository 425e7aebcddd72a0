//! Sockets and streams in an answer: their entries as lines with times (`+3 ← error frame
//! {op: "error", code: "unknown_topic"} on /ops/socket (131 B; …)`), and the facts they imply
//! (an error frame answering what the page sent). Effects, the load report and `page.timeline`
//! show them; the words are `wording::socket`'s.

use super::super::exchanged::{FrameNote, SocketNote, SocketWhat};
use super::super::origin::{relative, relative_socket};
use super::super::records::{Entry, Record};
use super::super::store::Store;
use super::wording;

/// Socket lines an action's effects or a load report lists before "… N more".
pub const MAX_LINES: usize = 12;

/// One socket entry as a line, masked (`origin`: the page's, for short URLs).
pub fn line(store: &Store, note: &SocketNote, origin: &str) -> String {
    let url = relative_socket(&note.url, origin);
    let place = match &note.what {
        SocketWhat::Opened { initiator: Some(at), .. } if at.line > 0 => {
            let function = if at.function.is_empty() { String::new() } else { format!("{} ", at.function) };
            Some(format!("{function}({}:{})", relative(&at.url, origin), at.line))
        }
        _ => None,
    };
    store.redactor.text(&wording::socket(note, &url, place))
}

/// The socket entries among `entries` as lines timed from `t0` (ms since the Unix epoch), the
/// first [`MAX_LINES`], and how many more there were.
pub fn lines<'a>(store: &Store, entries: impl Iterator<Item = &'a Entry>, origin: &str, t0: f64) -> (Vec<String>, u64) {
    let mut lines = Vec::new();
    let mut more = 0;
    for (entry, note) in in_order(entries) {
        if lines.len() == MAX_LINES {
            more += 1;
            continue;
        }
        lines.push(format!("+{} {}", (entry.at - t0).round() as i64, line(store, note, origin)));
    }
    (lines, more)
}

/// Each error frame among `entries`, with what the page had sent on that socket before it.
pub fn facts<'a>(store: &Store, entries: impl Iterator<Item = &'a Entry>, origin: &str) -> Vec<String> {
    let mut last_sent: Vec<(&str, &FrameNote, f64)> = Vec::new();
    let mut facts = Vec::new();
    for (entry, note) in in_order(entries) {
        let SocketWhat::Frame(frame) = &note.what else { continue };
        if frame.sent {
            last_sent.retain(|(url, ..)| *url != note.url);
            last_sent.push((&note.url, frame, entry.at));
        } else if frame.error_like && facts.len() < MAX_LINES {
            let sent = last_sent.iter().find(|(url, ..)| *url == note.url);
            let ms = sent.map_or(0, |(.., at)| (entry.at - at).round() as i64);
            let url = relative_socket(&note.url, origin);
            facts.push(store.redactor.text(&wording::socket_error(sent.map(|(_, f, _)| *f), frame, &url, ms)));
        }
    }
    facts
}

/// The socket entries among `entries` in the order things happened: frames sent and received
/// arrive on channels of their own, so an answer can be filed before the frame it answers.
fn in_order<'a>(entries: impl Iterator<Item = &'a Entry>) -> Vec<(&'a Entry, &'a SocketNote)> {
    let mut found: Vec<(&Entry, &SocketNote)> =
        entries.filter_map(|e| if let Record::Socket(note) = &e.record { Some((e, note)) } else { None }).collect();
    found.sort_by(|(a, _), (b, _)| a.at.total_cmp(&b.at).then(a.seq.cmp(&b.seq)));
    found
}
