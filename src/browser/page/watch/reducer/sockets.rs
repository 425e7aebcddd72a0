//! Sockets and streams: each WebSocket from its creation to its close, each EventSource stream's
//! messages, filed in the timeline bounded however fast they come. The first [`WHOLE`] frames
//! of a socket, and again of each action of the caller, are kept whole (an outline, the values
//! that name them, masked); error-like answers up to [`ERRORS_WHOLE`] a window; the rest are
//! counted per direction and kind in one entry per [`GROUP_MS`] (`← 52 × {type: "quote"}`). A
//! page sending 10,000 frames a second costs a few entries a second, and a JSON parse for at most
//! [`PARSED_PER_SECOND`] of them; the others are counted unread.

use std::collections::HashMap;
use std::collections::hash_map::Entry;

use super::super::cdp_events::SocketEvent;
use super::super::clock::{Clock, Now};
use super::super::exchanged::{FrameGroup, FrameNote, HEAD_CHARS, Shape, SocketNote, SocketWhat};
use super::super::records::{self, Record};
use super::super::shape;
use super::super::store::Store;
use crate::browser::chromium::ids::RequestId;

/// Frames of a socket kept whole at its start and after each action.
const WHOLE: u32 = 8;
/// Error-like frames kept whole per window.
const ERRORS_WHOLE: u32 = 16;
/// How long one entry counts frames of one kind.
const GROUP_MS: f64 = 1000.0;
/// Kinds counted apart per socket; frames of further kinds are counted together.
const KINDS: usize = 8;
/// Frames read (parsed) per socket and second past the whole ones; the rest counted unread.
const PARSED_PER_SECOND: u32 = 200;
/// Payloads larger than this are never parsed (their size only).
const MAX_PARSED: usize = 64 * 1024;
/// Sockets and streams followed at once; past it the oldest are forgotten.
const MAX_SOCKETS: usize = 256;
/// Words that make a frame's `type`, `op`, `event` or `status` read as an error answer.
const ERROR_WORDS: [&str; 6] = ["error", "fail", "denied", "rejected", "refused", "invalid"];

#[derive(Debug, Default)]
pub struct Sockets {
    open: HashMap<RequestId, Socket>,
    /// Sockets opened so far (their order, for forgetting the oldest).
    opened: u64,
}

#[derive(Debug)]
struct Socket {
    order: u64,
    url: String,
    stream: bool,
    /// The opening's entry, updated with the handshake's status.
    opened_seq: Option<u64>,
    /// The action whose window the budgets below are of.
    action: u64,
    whole_left: u32,
    errors_left: u32,
    /// Frames parsed in the current second, and when it began.
    parsed: (u32, f64),
    /// The entries counting frames now: (sent, key) → (seq, first frame's time).
    groups: HashMap<(bool, Option<String>), (u64, f64)>,
}

impl Socket {
    fn new(order: u64, url: String, stream: bool, action: u64) -> Self {
        Self {
            order,
            url,
            stream,
            opened_seq: None,
            action,
            whole_left: WHOLE,
            errors_left: ERRORS_WHOLE,
            parsed: (0, 0.0),
            groups: HashMap::new(),
        }
    }

    fn note(&self, what: SocketWhat) -> Record {
        Record::Socket(SocketNote { url: self.url.clone(), stream: self.stream, what })
    }
}

impl Sockets {
    pub fn apply(&mut self, store: &mut Store, clock: &mut Clock, event: SocketEvent, now: Now) {
        match event {
            SocketEvent::Created { request_id, url, initiator } => {
                // A dev server's own socket (Vite's HMR client) is noise, like its requests: not
                // followed, so its frames are in no answer and no action waits on them.
                if records::is_noise_url(&url) || initiator.as_ref().is_some_and(|i| records::is_noise_url(&i.url)) {
                    return;
                }
                let socket = self.follow(store, request_id, records::url(store.redactor.text(&url)), false);
                let seq = store.timeline.push(now.wall, socket.note(SocketWhat::Opened { initiator, status: None }));
                socket.opened_seq = Some(seq);
            }
            SocketEvent::Handshake { request_id, status, .. } => {
                let Some(seq) = self.open.get(&request_id).and_then(|s| s.opened_seq) else { return };
                store.timeline.update(seq, |record| {
                    if let Record::Socket(SocketNote { what: SocketWhat::Opened { status: s, .. }, .. }) = record {
                        *s = Some(status);
                    }
                });
            }
            SocketEvent::Frame { request_id, sent, binary, payload, timestamp } => {
                let at = clock.wall(timestamp, now.wall);
                let Some(socket) = self.open.get_mut(&request_id) else { return };
                frame(store, socket, Arrived { sent, binary, payload: &payload, event: None, at });
            }
            SocketEvent::Message { request_id, event, data, timestamp } => {
                let at = clock.wall(timestamp, now.wall);
                if !self.open.contains_key(&request_id) {
                    let url = stream_url(store, &request_id);
                    self.follow(store, request_id.clone(), url, true);
                }
                let Some(socket) = self.open.get_mut(&request_id) else { return };
                let event = (event != "message" && !event.is_empty()).then_some(event);
                frame(store, socket, Arrived { sent: false, binary: false, payload: &data, event, at });
            }
            SocketEvent::Error { request_id, message, timestamp } => {
                let at = clock.wall(timestamp, now.wall);
                let Some(socket) = self.open.get(&request_id) else { return };
                let (message, _) = records::message(store.redactor.text(&message));
                store.timeline.push(at, socket.note(SocketWhat::Error(message)));
            }
            SocketEvent::Closed { request_id, timestamp } => {
                let at = clock.wall(timestamp, now.wall);
                if let Some(socket) = self.open.remove(&request_id) {
                    store.timeline.push(at, socket.note(SocketWhat::Closed { left: false }));
                }
            }
        }
    }

    /// The main frame's document was replaced: its sockets closed with it (the browser reports no
    /// close for them), its streams ended.
    pub fn document_left(&mut self, store: &mut Store, now: Now) {
        let mut left: Vec<Socket> = self.open.drain().map(|(_, s)| s).collect();
        left.sort_by_key(|s| s.order);
        for socket in left.iter().filter(|s| !s.stream) {
            store.timeline.push(now.wall, socket.note(SocketWhat::Closed { left: true }));
        }
    }

    /// Starts following a socket (or stream), forgetting the oldest past [`MAX_SOCKETS`].
    fn follow(&mut self, store: &Store, id: RequestId, url: String, stream: bool) -> &mut Socket {
        if self.open.len() >= MAX_SOCKETS
            && let Some(oldest) = self.open.iter().min_by_key(|(_, s)| s.order).map(|(id, _)| id.clone())
        {
            self.open.remove(&oldest);
        }
        self.opened += 1;
        let socket = Socket::new(self.opened, url, stream, store.timeline.last_action());
        match self.open.entry(id) {
            Entry::Occupied(mut known) => {
                known.insert(socket);
                known.into_mut()
            }
            Entry::Vacant(new) => new.insert(socket),
        }
    }
}

/// A frame as it arrived.
struct Arrived<'a> {
    sent: bool,
    binary: bool,
    payload: &'a str,
    event: Option<String>,
    at: f64,
}

/// Files one frame: whole while the socket's budgets last, else counted in its kind's entry.
fn frame(store: &mut Store, socket: &mut Socket, frame: Arrived) {
    let action = store.timeline.last_action();
    if socket.action != action {
        socket.action = action;
        socket.whole_left = WHOLE;
        socket.errors_left = ERRORS_WHOLE;
        socket.groups.clear();
    }
    if frame.at - socket.parsed.1 >= 1000.0 {
        socket.parsed = (0, frame.at);
    }
    let bytes = if frame.binary { frame.payload.len() / 4 * 3 } else { frame.payload.len() };
    let read = !frame.binary && bytes <= MAX_PARSED && (socket.whole_left > 0 || socket.parsed.0 < PARSED_PER_SECOND);
    let shape = if read { Some(shape_of(store, frame.payload)) } else { None };
    if read {
        socket.parsed.0 += 1;
    }
    let error_like = !frame.sent && shape.as_ref().is_some_and(is_error_like);
    let whole = socket.whole_left > 0 || (error_like && socket.errors_left > 0);
    if whole {
        if error_like && socket.whole_left == 0 {
            socket.errors_left -= 1;
        }
        socket.whole_left = socket.whole_left.saturating_sub(1);
        let shape = shape.unwrap_or(if frame.binary { Shape::Binary } else { Shape::Text(String::new()) });
        let note = FrameNote { sent: frame.sent, shape, bytes, error_like, event: frame.event };
        store.timeline.push(frame.at, socket.note(SocketWhat::Frame(note)));
        return;
    }
    let mut key = (frame.sent, shape.as_ref().and_then(Shape::key));
    if !socket.groups.contains_key(&key) && socket.groups.len() >= KINDS {
        key.1 = None;
    }
    count(store, socket, key, bytes, frame.at);
}

/// Counts a frame in its kind's entry, or starts one when there is none or it is a window old.
fn count(store: &mut Store, socket: &mut Socket, key: (bool, Option<String>), bytes: usize, at: f64) {
    if let Some(&(seq, first)) = socket.groups.get(&key)
        && at - first < GROUP_MS
        && store.timeline.update(seq, |record| {
            if let Record::Socket(SocketNote { what: SocketWhat::Frames(group), .. }) = record {
                group.count += 1;
                group.bytes += bytes as u64;
                group.last_at = group.last_at.max(at);
            }
        })
    {
        return;
    }
    let group = FrameGroup { sent: key.0, key: key.1.clone(), count: 1, bytes: bytes as u64, last_at: at };
    let seq = store.timeline.push(at, socket.note(SocketWhat::Frames(group)));
    socket.groups.insert(key, (seq, at));
}

/// A text payload as kept: a JSON one's outline and naming values, any other's first characters,
/// masked.
fn shape_of(store: &Store, payload: &str) -> Shape {
    match shape::message(payload) {
        Some((outline, tags)) => Shape::Json {
            outline,
            tags: tags.into_iter().map(|(key, value)| (key, store.redactor.text(&value))).collect(),
        },
        None => {
            let head: String = payload.chars().take(HEAD_CHARS).collect();
            Shape::Text(store.redactor.body(&head))
        }
    }
}

fn is_error_like(shape: &Shape) -> bool {
    let Shape::Json { tags, .. } = shape else { return false };
    tags.iter().any(|(key, value)| {
        let value = value.to_ascii_lowercase();
        key == "error"
            || (matches!(key.as_str(), "type" | "op" | "event" | "status")
                && ERROR_WORDS.iter().any(|word| value.contains(word)))
    })
}

/// The URL of the stream requested as `id`, from its request in the timeline.
fn stream_url(store: &Store, id: &RequestId) -> String {
    store
        .timeline
        .iter()
        .rev()
        .find_map(|e| match &e.record {
            Record::Request(r) if &r.id == id => Some(r.url.clone()),
            _ => None,
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::browser::page::watch::notes::ActionNote;

    fn frame(sent: bool, payload: &str, timestamp: f64) -> SocketEvent {
        SocketEvent::Frame { request_id: "W".into(), sent, binary: false, payload: payload.into(), timestamp }
    }

    fn notes(store: &Store) -> Vec<SocketWhat> {
        store
            .timeline
            .iter()
            .filter_map(|e| if let Record::Socket(n) = &e.record { Some(n.what.clone()) } else { None })
            .collect()
    }

    fn opened() -> (Sockets, Store, Clock) {
        let (mut sockets, mut store, mut clock) = (Sockets::default(), Store::new(0.0), Clock::default());
        let created = SocketEvent::Created { request_id: "W".into(), url: "ws://h/feed".into(), initiator: None };
        sockets.apply(&mut store, &mut clock, created, Now::read());
        let answered = SocketEvent::Handshake { request_id: "W".into(), status: 101, timestamp: 0.0 };
        sockets.apply(&mut store, &mut clock, answered, Now::read());
        (sockets, store, clock)
    }

    #[test]
    fn a_flood_of_frames_is_a_few_entries_after_the_first_ones_kept_whole() {
        let (mut sockets, mut store, mut clock) = opened();
        clock.learn(1.0, 1000.0);
        for i in 0..10_000 {
            let event = frame(false, r#"{"type":"quote","px":1.5}"#, 1.0 + f64::from(i) / 10_000.0 * 3.0);
            sockets.apply(&mut store, &mut clock, event, Now::read());
        }
        let notes = notes(&store);
        assert!(matches!(notes[0], SocketWhat::Opened { status: Some(101), .. }));
        assert_eq!(notes.iter().filter(|n| matches!(n, SocketWhat::Frame(_))).count(), WHOLE as usize);
        let groups: Vec<&FrameGroup> =
            notes.iter().filter_map(|n| if let SocketWhat::Frames(g) = n { Some(g) } else { None }).collect();
        // A second of frames: those read by kind, those past the reading budget unread.
        assert!((3..=8).contains(&groups.len()), "two entries a second for 3 s: {groups:?}");
        assert_eq!(groups.iter().map(|g| g.count).sum::<u64>(), 10_000 - u64::from(WHOLE));
        assert!(groups.iter().filter(|g| g.key.is_some()).all(|g| g.key.as_deref() == Some("{type: \"quote\"}")));
    }

    #[test]
    fn an_error_answer_is_kept_whole_past_the_budget_and_an_action_renews_it() {
        let (mut sockets, mut store, mut clock) = opened();
        for i in 0..20 {
            sockets.apply(&mut store, &mut clock, frame(false, r#"{"type":"tick"}"#, f64::from(i)), Now::read());
        }
        sockets.apply(&mut store, &mut clock, frame(false, r#"{"op":"error","code":"nope"}"#, 30.0), Now::read());
        let whole = |store: &Store| notes(store).into_iter().filter(|n| matches!(n, SocketWhat::Frame(_))).count();
        assert_eq!(whole(&store), WHOLE as usize + 1, "the error frame is whole");
        store.timeline.push(40_000.0, Record::Action(ActionNote { method: "page.click".into(), target: None }));
        sockets.apply(&mut store, &mut clock, frame(true, r#"{"op":"subscribe"}"#, 41.0), Now::read());
        assert_eq!(whole(&store), WHOLE as usize + 2, "the action's frame is whole again");
    }

    #[test]
    fn leaving_the_document_closes_its_sockets() {
        let (mut sockets, mut store, _) = opened();
        sockets.document_left(&mut store, Now::read());
        assert!(matches!(notes(&store).last(), Some(SocketWhat::Closed { left: true })));
        assert!(sockets.open.is_empty());
    }
}
