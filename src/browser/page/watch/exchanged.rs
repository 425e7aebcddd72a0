//! The typed notes of what a page exchanged besides requests — a WebSocket's opening, its frames
//! (whole, or counted together when they keep coming), its errors and close, an EventSource
//! stream's messages — as the timeline keeps them. Never a payload: a JSON frame is its outline
//! and the values that name it (`{op: "error", code: "unknown_topic"}`), any other text frame its
//! first [`HEAD_CHARS`] characters, masked when stored. `views::wording` puts them into words.

use super::cdp_events::CodeLocation;

/// Characters of a text frame that is not JSON kept (masked).
pub const HEAD_CHARS: usize = 64;

/// One thing a socket or stream did.
#[derive(Debug, Clone)]
pub struct SocketNote {
    /// The socket's (or stream's) URL, bounded.
    pub url: String,
    /// An EventSource stream, not a WebSocket.
    pub stream: bool,
    pub what: SocketWhat,
}

#[derive(Debug, Clone)]
pub enum SocketWhat {
    /// `new WebSocket(url)` ran; `status` once the handshake was answered (101: accepted).
    Opened { initiator: Option<CodeLocation>, status: Option<u16> },
    /// One frame (or stream message) kept whole.
    Frame(FrameNote),
    /// Frames of one kind that kept coming, counted in one entry.
    Frames(FrameGroup),
    /// A refused handshake or an invalid frame, in Chromium's words.
    Error(String),
    /// The socket closed; `left`: because its document went (the browser reports no close then).
    Closed { left: bool },
}

/// A frame sent (`sent`) or received, or a stream message (received).
#[derive(Debug, Clone)]
pub struct FrameNote {
    pub sent: bool,
    pub shape: Shape,
    /// Its payload's size in bytes.
    pub bytes: usize,
    /// It reads as an error answer (`op`/`type`/`event` saying error or failed, or an `error` key).
    pub error_like: bool,
    /// A stream message's event name, when not the default `message`.
    pub event: Option<String>,
}

/// What a frame's payload was, as kept.
#[derive(Debug, Clone)]
pub enum Shape {
    /// A JSON object or list: its outline and its naming values (`op: "error"`).
    Json {
        outline: String,
        tags: Vec<(String, String)>,
    },
    /// Other text: its first [`HEAD_CHARS`] characters, masked.
    Text(String),
    Binary,
}

impl Shape {
    /// The key frames are counted by: direction aside, the values that name them.
    pub fn key(&self) -> Option<String> {
        match self {
            Self::Json { tags, .. } => tags.first().map(|(k, v)| format!("{{{k}: {v}}}")),
            _ => None,
        }
    }
}

/// Frames of one direction and kind that kept coming on one socket.
#[derive(Debug, Clone)]
pub struct FrameGroup {
    pub sent: bool,
    /// What named them (`{type: "quote"}`), or none: frames counted without being read.
    pub key: Option<String>,
    pub count: u64,
    pub bytes: u64,
    /// When the last of them came: ms since the Unix epoch.
    pub last_at: f64,
}

impl SocketNote {
    /// A rough size in bytes, for the timeline's byte cap.
    pub fn bytes(&self) -> usize {
        self.url.len()
            + match &self.what {
                SocketWhat::Opened { initiator, .. } => {
                    initiator.as_ref().map_or(0, |i| i.url.len() + i.function.len())
                }
                SocketWhat::Frame(frame) => {
                    frame.event.as_ref().map_or(0, String::len)
                        + match &frame.shape {
                            Shape::Json { outline, tags } => {
                                outline.len() + tags.iter().map(|(k, v)| k.len() + v.len()).sum::<usize>()
                            }
                            Shape::Text(head) => head.len(),
                            Shape::Binary => 0,
                        }
                }
                SocketWhat::Frames(group) => group.key.as_ref().map_or(0, String::len) + 24,
                SocketWhat::Error(message) => message.len(),
                SocketWhat::Closed { .. } => 0,
            }
    }
}
