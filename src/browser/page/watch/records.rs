//! What the timeline keeps of each thing that happened on a page: internal records, never sent as
//! they are (the views in `views/` shape, mask and cut them for each answer).
//!
//! Text from the page is bounded here, once: console text and error messages to [`TEXT_LIMIT`]
//! (the original length kept), stacks to [`STACK_LIMIT`], URLs to [`URL_LIMIT`], posted bodies to
//! [`POSTED_LIMIT`]. Every record knows its size, which the timeline's byte cap counts.

use super::bodies::cut;
use super::cdp_events::{CodeLocation, ErrorOrigin};
use super::dom::{DomChange, EventNote};
use super::exchanged::{MessageNote, SocketNote, StorageNote};
use super::notes::{ActionNote, DialogNote, DownloadNote, Note};
use super::stacks::Stack;
use super::wire::Wire;
use crate::browser::chromium::ids::RequestId;
use crate::browser::chromium::kinds::{ConsoleMethod, Level, Milestone, ResourceType};

/// Bytes of a console message or page error message kept (the rest is counted, not kept).
pub const TEXT_LIMIT: usize = 4096;
/// Bytes of an error's stack kept.
pub const STACK_LIMIT: usize = 8192;
/// Bytes of a URL kept (data: URLs run to megabytes).
pub const URL_LIMIT: usize = 2048;
/// Bytes of a posted request body kept.
pub const POSTED_LIMIT: usize = 2048;
/// A record's fixed overhead, for the byte cap.
const OVERHEAD: usize = 96;

/// `text` cut to `limit` bytes; with the original length when it was cut.
pub fn bounded(text: String, limit: usize) -> (String, Option<usize>) {
    if text.len() <= limit {
        return (text, None);
    }
    let len = text.len();
    (cut(&text, limit).0.to_owned(), Some(len))
}

/// One thing that happened, when, and its place in the timeline.
#[derive(Debug, Clone)]
pub struct Entry {
    /// Its place: later entries have larger numbers.
    pub seq: u64,
    /// When it happened (a request: when it started): ms since the Unix epoch.
    pub at: f64,
    pub record: Record,
}

#[derive(Debug, Clone)]
pub enum Record {
    /// A main-frame document committed.
    Document {
        url: String,
    },
    /// The main frame's document reached a milestone (DOMContentLoaded, load).
    Milestone(Milestone),
    Request(Box<RequestRecord>),
    Console(ConsoleRecord),
    PageError(ErrorRecord),
    /// A dialog, file chooser or authentication challenge, and how it was answered.
    Dialog(DialogNote),
    /// A download began, finished or was cancelled.
    Download(DownloadNote),
    /// A popup opened as a tab of the session.
    Popup {
        tab: String,
        url: String,
    },
    /// Something the service learned about the page that no event said (a popup's first load).
    Note(Note),
    /// An action of the session's caller (`page.click e5`).
    Action(ActionNote),
    Dom(DomRecord),
    /// How the browser treated a click, submission or Enter key of the user's (its default, and
    /// whether a listener prevented it).
    Dispatched(EventNote),
    /// The page's renderer crashed.
    Crash,
    /// A WebSocket's opening, frames, error or close; an EventSource stream's messages.
    Socket(SocketNote),
    /// A message the window got from a frame, a window or itself (`postMessage`).
    Message(MessageNote),
    /// A write to the page's Web Storage.
    Storage(StorageNote),
}

impl Record {
    /// A rough size in bytes, for the timeline's byte cap.
    pub fn bytes(&self) -> usize {
        OVERHEAD
            + match self {
                Self::Document { url } => url.len(),
                Self::Milestone(_) | Self::Crash => 0,
                Self::Request(r) => r.bytes(),
                Self::Console(c) => {
                    c.text.len() + c.location.as_ref().map_or(0, |l| l.url.len()) + c.source_bytes() + c.trace.bytes()
                }
                Self::PageError(e) => {
                    e.message.len()
                        + e.stack.as_ref().map_or(0, String::len)
                        + e.location.as_ref().map_or(0, |l| l.url.len())
                        + e.source.as_ref().map_or(0, String::len)
                        + e.trace.bytes()
                }
                Self::Dialog(note) => note.bytes(),
                Self::Download(note) => note.bytes(),
                Self::Note(note) => note.bytes(),
                Self::Action(note) => note.bytes(),
                Self::Popup { tab, url } => tab.len() + url.len(),
                Self::Dom(d) => d.recent.iter().map(DomChange::bytes).sum::<usize>() + d.times.len() * 8,
                Self::Dispatched(note) => note.on.len() + note.default.as_ref().map_or(0, String::len),
                Self::Socket(note) => note.bytes(),
                Self::Message(note) => note.bytes(),
                Self::Storage(note) => note.bytes(),
            }
    }
}

/// A request, from its start to its end, updated in place as its events arrive.
#[derive(Debug, Clone)]
pub struct RequestRecord {
    /// Chromium's request id (network.body takes it).
    pub id: RequestId,
    pub method: String,
    pub url: String,
    pub resource_type: ResourceType,
    /// The script location (or document line) that started it.
    pub initiator: Option<CodeLocation>,
    /// The initiator's whole stack, async parents included (what an error or a render that reads
    /// its answer is matched by, see `causes`).
    pub callers: Stack,
    /// The first [`POSTED_LIMIT`] bytes it posted.
    pub posted: Option<String>,
    /// The browser's own request (the favicon): never a failure, never the page's doing.
    pub browser_own: bool,
    /// Its answer, once the headers arrived.
    pub response: Option<Answer>,
    /// How and when it ended.
    pub end: Option<(f64, Outcome)>,
    /// Its body is being captured.
    pub body_pending: bool,
    /// The page has not read its body for a while after the answer (a `no-store` response the
    /// page only checked `res.ok` of): answered, and no longer waited for.
    pub body_unread: bool,
    /// `network.pull` returned it already.
    pub pulled: bool,
    /// A redirect hop: its answer sent the request on to this URL (the next hop is its own record).
    pub redirected_to: Option<String>,
    /// Its headers and cookies, once any were seen.
    pub wire: Option<Box<Wire>>,
}

/// A request's answer.
#[derive(Debug, Clone)]
pub struct Answer {
    pub status: u16,
    pub mime: String,
    /// When its headers arrived: ms since the Unix epoch.
    pub at: f64,
}

/// How a request ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Its body was received in full.
    Finished,
    /// No answer: refused, blocked, aborted … (Chromium's or the egress proxy's reason).
    Failed(String),
    /// Answered, and its body given up (the page navigated away without reading it): the answer
    /// stands, nothing failed.
    BodyNotRead,
    /// Cut off unanswered because the page navigated away.
    Cancelled,
}

impl RequestRecord {
    pub fn status(&self) -> Option<u16> {
        self.response.as_ref().map(|r| r.status)
    }

    pub fn failure(&self) -> Option<&str> {
        match &self.end {
            Some((_, Outcome::Failed(why))) => Some(why),
            _ => None,
        }
    }

    /// A failure worth an agent's attention (the browser's own requests and noise never are).
    pub fn is_error(&self) -> bool {
        !self.is_noise() && (self.failure().is_some() || self.status().is_some_and(|s| s >= 400))
    }

    /// Not the app's doing, kept out of effects, facts, signals and the timeline (network.pull
    /// shows it when asked, the HAR always): the browser's own requests, and [`is_noise_url`]'s.
    pub fn is_noise(&self) -> bool {
        self.browser_own || is_noise_url(&self.url)
    }

    pub fn is_data(&self) -> bool {
        self.resource_type.is_data()
    }

    /// A redirect hop (its body, if any, was never the page's).
    pub fn is_hop(&self) -> bool {
        self.redirected_to.is_some()
    }

    /// Answered (or ended unanswered), whether or not its body is read: what views list as done.
    pub fn is_answered(&self) -> bool {
        self.end.is_some() || self.response.is_some()
    }

    /// Settled for good: ended, or answered with a body the page is not reading. What a pull
    /// returns (a body still arriving would be missed by a pull that took it earlier).
    pub fn is_settled(&self) -> bool {
        self.end.is_some() || self.body_unread
    }

    /// When it ended — or, while its body is not (or never) finished, when its answer came.
    pub fn done_at(&self) -> Option<f64> {
        match (&self.end, &self.response) {
            (Some((at, _)), _) => Some(*at),
            (None, Some(answer)) => Some(answer.at),
            _ => None,
        }
    }

    fn bytes(&self) -> usize {
        self.id.as_str().len()
            + self.method.len()
            + self.url.len()
            + self.initiator.as_ref().map_or(0, |i| i.url.len() + i.function.len())
            + self.callers.bytes()
            + self.posted.as_ref().map_or(0, String::len)
            + self.response.as_ref().map_or(0, |r| r.mime.len() + 16)
            + self.redirected_to.as_ref().map_or(0, String::len)
            + self.wire.as_ref().map_or(0, |w| w.bytes())
            + match &self.end {
                Some((_, Outcome::Failed(why))) => why.len(),
                _ => 0,
            }
    }
}

/// A `console.*` call.
#[derive(Debug, Clone)]
pub struct ConsoleRecord {
    pub method: ConsoleMethod,
    pub text: String,
    /// The message's length when it was longer than [`TEXT_LIMIT`].
    pub text_length: Option<usize>,
    pub location: Option<CodeLocation>,
    /// The call's stack, async parents included.
    pub trace: Stack,
    /// For errors: the calling line and one each side.
    pub source: Option<String>,
    pub source_pending: bool,
}

impl ConsoleRecord {
    pub fn level(&self) -> Level {
        self.method.level()
    }

    fn source_bytes(&self) -> usize {
        self.source.as_ref().map_or(0, String::len)
    }
}

/// An uncaught exception or unhandled rejection.
#[derive(Debug, Clone)]
pub struct ErrorRecord {
    pub origin: ErrorOrigin,
    pub message: String,
    pub message_length: Option<usize>,
    pub location: Option<CodeLocation>,
    /// Where it was thrown from, async parents included.
    pub trace: Stack,
    pub source: Option<String>,
    pub stack: Option<String>,
    pub source_pending: bool,
}

/// Changes of one element, merged while they keep coming (a page re-rendering ten times a second
/// is one entry a second, not ten).
#[derive(Debug, Clone)]
pub struct DomRecord {
    /// The latest change (what it did), dated by the first.
    pub change: DomChange,
    /// When each merged change happened (ms since the Unix epoch), the latest [`MAX_TIMES`].
    pub times: Vec<f64>,
    /// How many changes were merged in all.
    pub count: u32,
    /// The document it happened in (the timeline's count of documents then): whose causes its
    /// cause ids are.
    pub document: u64,
    /// The latest [`MAX_RECENT`] changes merged, each as it was (with its own time and causes):
    /// what `page.inspect` lists for the element.
    pub recent: Vec<DomChange>,
}

/// Change times a merged DOM record keeps.
pub const MAX_TIMES: usize = 32;
/// Changes a merged DOM record keeps whole.
pub const MAX_RECENT: usize = 6;

impl DomRecord {
    pub fn new(change: DomChange, document: u64) -> Self {
        Self { times: vec![change.at], recent: vec![change.clone()], change, count: 1, document }
    }

    pub fn last_at(&self) -> f64 {
        self.times.last().copied().unwrap_or(self.change.at)
    }

    /// Takes in a later change of the same element: what it did now is what reads best (the text
    /// the page ends up showing, and what it showed just before).
    pub fn merge(&mut self, change: &DomChange) {
        if self.times.len() == MAX_TIMES {
            self.times.remove(0);
        }
        self.times.push(change.at);
        self.count += 1;
        if self.recent.len() == MAX_RECENT {
            self.recent.remove(0);
        }
        self.recent.push(change.clone());
        let first = self.change.at;
        self.change = DomChange { at: first, ..change.clone() };
    }
}

/// A console entry or page error's message: bounded, with its original length.
pub fn message(text: String) -> (String, Option<usize>) {
    bounded(text, TEXT_LIMIT)
}

/// A URL as kept.
pub fn url(text: String) -> String {
    bounded(text, URL_LIMIT).0
}

/// A stack as kept.
pub fn stack(text: String) -> String {
    bounded(text, STACK_LIMIT).0
}

/// A posted body as kept.
pub fn posted(text: String) -> String {
    bounded(text, POSTED_LIMIT).0
}

/// A URL whose request is noise to an agent: `data:` and `blob:` (what the page already holds:
/// an inlined image, a generated file) and the Vite dev server's own client, its HMR ping and
/// React's refresh runtime, which every dev page loads and none of its bugs is in.
pub fn is_noise_url(url: &str) -> bool {
    const DEV_SERVER: [&str; 3] = ["/@vite/", "/@react-refresh", "/__vite_ping"];
    if url.starts_with("data:") || url.starts_with("blob:") {
        return true;
    }
    // Under any base path the app is served from.
    url::Url::parse(url).is_ok_and(|u| DEV_SERVER.iter().any(|p| u.path().contains(p)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_text_is_cut_with_its_length_said() {
        let (kept, len) = message("x".repeat(TEXT_LIMIT + 10));
        assert_eq!((kept.len(), len), (TEXT_LIMIT, Some(TEXT_LIMIT + 10)));
        assert_eq!(message("short".into()), ("short".into(), None));
    }
}
