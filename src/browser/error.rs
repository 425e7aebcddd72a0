//! The browser layer's errors: what can go wrong between a session call and Chromium.
//!
//! Each variant says what happened in words a person can act on; the RPC layer maps each to its
//! error kind (`rpc::error`), which owns the wire code and the remediation. What a caller sent
//! (a selector, a URL, a session id) is quoted by at most 200 characters (`crate::quote`).

use crate::quote::{clip, quote};

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BrowserError {
    #[error("no session with id {} (it was closed, expired after its idle TTL, or never existed)", quote(.0))]
    SessionNotFound(String),
    /// The session was closed while the call was running.
    #[error("{0}")]
    SessionClosed(String),
    #[error("{0}")]
    UrlNotAllowed(String),
    #[error("{0}")]
    Timeout(String),
    /// The deadline passed (or chromiumoxide's 30 s per command) while a command waited for the
    /// browser: a timeout that says nothing of what the call was waiting for. Methods that wait for
    /// something (an element, an assertion) report that instead.
    #[error("{0}")]
    NoAnswer(String),
    #[error("all {max} sessions are in use{}", if *.waiting > 0 { format!(" and {} creates are already waiting for one (QUEUE_MAX)", .waiting) } else { String::new() })]
    CapacityExceeded { max: usize, waiting: usize },
    /// A create waited QUEUE_TIMEOUT_MS at the cap and no slot freed.
    #[error("all {max} sessions stayed in use for the {waited_ms} ms this create waited (QUEUE_TIMEOUT_MS)")]
    QueueTimeout { max: usize, waited_ms: u64 },
    #[error("navigation to {} failed: {reason}{}", clip(url), navigation_hint(reason))]
    NavigationFailed { url: String, reason: String },
    #[error("{0}")]
    EvaluationFailed(String),
    #[error("the result cannot be returned as JSON: {0}")]
    NotSerializable(String),
    /// An answer larger than its documented cap; the message says how large and which cap.
    #[error("{0}")]
    TooLarge(String),
    /// `downloads.read` of a download still being received.
    #[error("{0}")]
    DownloadPending(String),
    /// `downloads.read` of a download that ended without its file (cancelled).
    #[error("{0}")]
    DownloadCanceled(String),
    #[error("invalid selector {}: {reason}", quote(selector))]
    InvalidSelector { selector: String, reason: String },
    #[error("no element matches {}", clip(.0))]
    ElementNotFound(String),
    #[error("{} matches {count} elements ({}); make it match exactly one, e.g. role=button[name=\"…\" s] or a more specific CSS selector", clip(selector), .candidates.join(", "))]
    Ambiguous { selector: String, count: u64, candidates: Vec<String> },
    #[error("{} {reason}", clip(selector))]
    NotActionable { selector: String, reason: String },
    /// Acting where the element is (`scroll: false`), a user would hit `cover` instead.
    #[error("{selector} is covered by {}: a user pointing at it where it is now would hit that instead", .cover.describe())]
    Covered { selector: String, cover: Box<crate::browser::pointer::PointerTarget> },
    /// Acting where the element is (`scroll: false`), it is not in the viewport.
    #[error("{selector} {reason}: a user would have to scroll to reach it")]
    OutsideViewport { selector: String, reason: String },
    #[error("{0}")]
    NotAllowed(String),
    #[error("{0}; take a new page.snapshot")]
    StaleRef(String),
    #[error("axe-core is not available: {0}")]
    AxeUnavailable(String),
    #[error("{0}")]
    InvalidOption(String),
    /// Input the browser refused or dropped, traced back to the parameter that carried it.
    #[error("{message}")]
    InvalidParam { param: String, message: String },
    /// An `assert.*` check still failed at its deadline; `actual` is what the page showed last.
    #[error("{}", .0.message)]
    AssertionFailed(Box<Failed>),
    #[error("Chromium is not available: {0}")]
    Unavailable(String),
    /// Chromium refused a command (or answered it with something we cannot read); `refusal` is
    /// what the service acts on, parsed once from Chromium's message where it enters
    /// (`chromium::cdp`).
    #[error("the browser rejected {method}: {message}")]
    Protocol { method: String, message: String, refusal: Refusal },
    /// One of our own page scripts answered something the service does not understand: a bug.
    #[error("{0}")]
    HelperScript(String),
}

/// Why Chromium refused a command, as far as a caller acts on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// The execution context the command named is gone: its document went (make or find the
    /// next one and call again).
    ContextGone,
    /// The page's target navigated or closed while the command ran: for a command that starts a
    /// navigation, the navigation started.
    TargetNavigated,
    /// Anything else: the message says what.
    Other,
}

impl BrowserError {
    /// A command Chromium answered with something the service cannot use (not one of its
    /// refusals).
    pub fn protocol(method: &str, message: impl Into<String>) -> Self {
        Self::Protocol { method: method.to_owned(), message: message.into(), refusal: Refusal::Other }
    }

    /// Why Chromium refused the command, for an error that is such a refusal.
    pub fn refusal(&self) -> Option<Refusal> {
        match self {
            Self::Protocol { refusal, .. } => Some(*refusal),
            _ => None,
        }
    }
}

/// What a failed assertion expected and what the page showed.
#[derive(Debug)]
pub struct Failed {
    pub message: String,
    pub expected: serde_json::Value,
    pub actual: serde_json::Value,
}

impl From<crate::egress::EgressError> for BrowserError {
    fn from(err: crate::egress::EgressError) -> Self {
        Self::UrlNotAllowed(err.to_string())
    }
}

/// What a navigation failure Chromium names tersely means, where it is not the server being down.
fn navigation_hint(reason: &str) -> &'static str {
    match reason {
        "net::ERR_INVALID_AUTH_CREDENTIALS" => {
            " (the site asks for HTTP authentication: create the session with httpCredentials {username, password})"
        }
        _ => "",
    }
}
