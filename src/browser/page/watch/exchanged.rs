//! The typed notes of what a page exchanged besides requests — a WebSocket's opening, its frames
//! (whole, or counted together when they keep coming), its errors and close, an EventSource
//! stream's messages, the messages its window got from frames and windows — as the timeline keeps
//! them. Never a payload: a JSON frame or message is its outline and the values that name it
//! (`{op: "error", code: "unknown_topic"}`), any other text frame its first [`HEAD_CHARS`]
//! characters, masked when stored. `views::wording` puts them into words.

use serde::Deserialize;
use serde_json::Value;

use super::stacks::CodeLocation;

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

/// A message the page's window got (`postMessage` from a frame, a window or itself), as the page's
/// own world noted it at its dispatch (`js/reach_watch.js`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct MessageSeen {
    /// When it was dispatched: ms since the Unix epoch, by the page's clock.
    #[serde(rename = "t")]
    pub at: f64,
    /// The sender's origin, as the event gives it.
    #[serde(default)]
    pub origin: String,
    /// The frame it came from (`iframe#scheduler (/support/scheduler/)`), `this window`, `another
    /// window`.
    #[serde(default)]
    pub from: String,
    /// The data's outline: keys and types.
    #[serde(default)]
    pub outline: String,
    /// The values of its naming keys (`type`, `op` …), to be checked again and masked.
    #[serde(default)]
    pub tags: Vec<(String, Value)>,
    /// The window's `message` listeners when it was dispatched.
    #[serde(default)]
    pub listeners: Vec<MessageListener>,
    /// Message ports it carried.
    #[serde(default)]
    pub ports: u32,
    /// Messages before it not noted (past the page world's budget a second).
    #[serde(default)]
    pub unread: u32,
}

/// A `message` listener of the window, as the page's world listed it: its function's name and
/// number in the document (0: none).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct MessageListener {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub fid: u32,
}

/// The page world's notes (JSON texts, each a [`MessageSeen`]); those that are not one are left out.
pub fn messages_from_text<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Vec<MessageSeen>, D::Error> {
    let texts: Vec<String> = Deserialize::deserialize(deserializer)?;
    Ok(texts.iter().filter_map(|text| serde_json::from_str::<MessageSeen>(text).ok()).collect())
}

/// A message the window got, as the timeline keeps it (masked, bounded).
#[derive(Debug, Clone)]
pub struct MessageNote {
    /// The sender's origin.
    pub origin: String,
    /// The frame or window it came from.
    pub from: String,
    /// Its outline and naming values (a [`Shape::Json`]; any other data as its type).
    pub shape: Shape,
    /// The `message` listeners it was dispatched to: (function name, its number in the document).
    pub listeners: Vec<(String, u32)>,
    pub ports: u32,
    pub unread: u32,
    /// The document it was dispatched in (the timeline's count of documents then): whose function
    /// numbers the listeners' are.
    pub document: u64,
}

impl MessageNote {
    /// A rough size in bytes, for the timeline's byte cap.
    pub fn bytes(&self) -> usize {
        let shape = match &self.shape {
            Shape::Json { outline, tags } => outline.len() + tags.iter().map(|(k, v)| k.len() + v.len()).sum::<usize>(),
            Shape::Text(text) => text.len(),
            Shape::Binary => 0,
        };
        self.origin.len()
            + self.from.len()
            + shape
            + self.listeners.iter().map(|(name, _)| name.len() + 4).sum::<usize>()
    }
}

/// A Web Storage write or `getItem` read, as the timeline keeps it (a value as its outline only).
#[derive(Debug, Clone)]
pub struct StorageNote {
    /// `localStorage` (else `sessionStorage`).
    pub local: bool,
    pub what: StorageWhat,
    /// The script line that made the call, when its pause was read (see `pauses`).
    pub by: Option<CodeLocation>,
}

#[derive(Debug, Clone)]
pub enum StorageWhat {
    /// `key` set; `value`: its outline (`{size: string}`, `string (12 chars)`).
    Set {
        key: String,
        value: String,
    },
    Removed {
        key: String,
    },
    Cleared,
    /// `getItem(key)` (`None`: the key's expression could not be read without side effects).
    Read {
        key: Option<String>,
        found: Found,
        /// A similar key this session wrote, and where, when nothing wrote this one.
        similar: Option<(String, Option<CodeLocation>)>,
    },
    /// Writes and reads past the budget a second, counted.
    More(u64),
    /// The document called storage more often than the service follows: the rest unseen.
    Unfollowed(u32),
}

/// What a read found, from the service's own mirror of the page's storage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Found {
    /// The key held a value (its outline is not kept with the read).
    Value,
    /// `null`: the key was written, then removed or cleared.
    Null,
    /// `null`: nothing in this session ever wrote the key.
    NeverWritten,
    /// The mirror does not know (the storage could not be read).
    Unknown,
}

impl StorageNote {
    /// A rough size in bytes, for the timeline's byte cap.
    pub fn bytes(&self) -> usize {
        let by = self.by.as_ref().map_or(0, |at| at.url.len() + at.function.len() + 8);
        by + match &self.what {
            StorageWhat::Set { key, value } => key.len() + value.len(),
            StorageWhat::Removed { key } => key.len(),
            StorageWhat::Read { key, similar, .. } => {
                key.as_ref().map_or(0, String::len)
                    + similar.as_ref().map_or(0, |(k, at)| k.len() + at.as_ref().map_or(0, |at| at.url.len() + 8))
            }
            StorageWhat::Cleared | StorageWhat::More(_) | StorageWhat::Unfollowed(_) => 8,
        }
    }
}
