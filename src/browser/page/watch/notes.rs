//! What the watch notes about a page besides its requests, logs and changes — dialogs, file
//! choosers, authentication challenges, downloads, popups, the caller's actions, what the service
//! learned by itself — and what it tells live subscribers ([`Signal`]): typed facts, filed by the
//! reducer and the page handle, never prose. Each reads as a line only in a view
//! (`views::wording`).

use super::stacks::CodeLocation;
use crate::browser::chromium::kinds::{DialogKind, DownloadState};
use crate::browser::page::route_table::AuthAnswer;

/// The answer given to one dialog.
#[derive(Debug, Clone, PartialEq)]
pub struct DialogAnswer {
    pub accept: bool,
    pub prompt_text: Option<String>,
    /// An arm chose it (otherwise the dialog got the default answer).
    pub armed: bool,
}

/// Something the page waited on an answer for, and the answer it got.
#[derive(Debug, Clone, PartialEq)]
pub enum DialogNote {
    /// `alert`, `confirm`, `prompt` or `beforeunload`.
    Dialog { kind: DialogKind, message: String, answer: DialogAnswer },
    /// A file chooser: answered with the armed files' `names`, or nothing chosen.
    Chooser(ChooserNote),
    /// An HTTP authentication challenge for `url`.
    Auth { scheme: String, url: String, realm: String, answer: AuthAnswer },
}

/// How a file chooser was answered.
#[derive(Debug, Clone, PartialEq)]
pub enum ChooserNote {
    /// With the armed files (their names).
    Armed { names: Vec<String> },
    /// Armed, but the chooser was not for a file input: nothing chosen.
    NotForFileInput,
    /// Nothing armed: nothing chosen.
    Unarmed,
}

/// A download began or ended.
#[derive(Debug, Clone, PartialEq)]
pub enum DownloadNote {
    Started {
        name: String,
    },
    /// Ended in `state` with `bytes`; `over_cap`: cancelled by the service past `cap` bytes
    /// (DOWNLOAD_MAX_BYTES).
    Ended {
        name: String,
        bytes: u64,
        state: DownloadState,
        over_cap: bool,
        cap: u64,
    },
}

/// An action of the session's caller: its method and what it acted on (`page.click` `e5`).
#[derive(Debug, Clone, PartialEq)]
pub struct ActionNote {
    pub method: String,
    pub target: Option<ActionTarget>,
}

/// What an action acted on.
#[derive(Debug, Clone, PartialEq)]
pub enum ActionTarget {
    /// The element it acted on (`page.click e5`).
    On(String),
    /// The element it typed into (`page.type into #email`).
    Into(String),
}

/// Something the service learned about the page that no event said.
#[derive(Debug, Clone, PartialEq)]
pub enum Note {
    /// A popup had loaded before its session adopted it: its console messages and errors are in
    /// its logs, its `requests` so far are not in network.pull; `api_calls`: the fetch/XHR ones.
    LoadedBeforeAdoption { requests: u64, api_calls: Vec<EarlyCall> },
}

/// A request a page made before the service watched it, as the page's own records tell.
#[derive(Debug, Clone, PartialEq)]
pub struct EarlyCall {
    pub url: String,
    /// Its status, when the browser exposed it.
    pub status: Option<u16>,
}

/// How a request reached its live subscribers.
#[derive(Debug, Clone, PartialEq)]
pub enum RequestOutcome {
    Status(u16),
    /// No answer: Chromium's or the egress proxy's reason.
    Failed(String),
    /// Cut off unanswered because the page navigated away.
    Cancelled,
}

/// One thing that happened, as live subscribers are told (`events.subscribe`). `page_at`: when it
/// happened by the browser's own clock (ms since the Unix epoch), when it says.
#[derive(Debug, Clone, PartialEq)]
pub enum Signal {
    /// A request was answered, or ended without an answer.
    Request {
        method: String,
        url: String,
        outcome: RequestOutcome,
        page_at: Option<u64>,
    },
    /// The main frame committed a document at `url`.
    Navigated {
        url: String,
    },
    Console {
        text: String,
        error: bool,
        location: Option<CodeLocation>,
        page_at: u64,
    },
    PageError {
        message: String,
        location: Option<CodeLocation>,
        page_at: u64,
    },
    Dialog(DialogNote),
    Download(DownloadNote),
    /// A popup opened as tab `tab`.
    Popup {
        tab: String,
        url: String,
    },
    Crashed,
}

impl DialogNote {
    /// Its size in bytes, for the timeline's byte cap.
    pub fn bytes(&self) -> usize {
        match self {
            Self::Dialog { message, answer, .. } => {
                32 + message.len() + answer.prompt_text.as_ref().map_or(0, String::len)
            }
            Self::Chooser(ChooserNote::Armed { names }) => 32 + names.iter().map(String::len).sum::<usize>(),
            Self::Chooser(_) => 48,
            Self::Auth { scheme, url, realm, .. } => 64 + scheme.len() + url.len() + realm.len(),
        }
    }
}

impl DownloadNote {
    /// Its size in bytes, for the timeline's byte cap.
    pub fn bytes(&self) -> usize {
        match self {
            Self::Started { name } | Self::Ended { name, .. } => 24 + name.len(),
        }
    }
}

impl ActionNote {
    /// Its size in bytes, for the timeline's byte cap.
    pub fn bytes(&self) -> usize {
        self.method.len()
            + match &self.target {
                Some(ActionTarget::On(target) | ActionTarget::Into(target)) => target.len() + 5,
                None => 0,
            }
    }
}

impl Note {
    /// Its size in bytes, for the timeline's byte cap.
    pub fn bytes(&self) -> usize {
        match self {
            Self::LoadedBeforeAdoption { api_calls, .. } => {
                200 + api_calls.iter().map(|c| c.url.len() + 8).sum::<usize>()
            }
        }
    }
}
