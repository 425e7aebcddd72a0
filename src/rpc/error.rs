//! The RPC layer's error, and [`ErrorKind`]: every kind of error the service returns, each owning
//! its wire code and remediation.
//!
//! Agents read `data.kind` (stable snake_case) and `data.remediation` (what to do next); people
//! read `message`. The kinds are one table (the `kinds!` invocation below): the enum, its list and
//! every lookup are generated from it with exhaustive matches, so a kind cannot lack a code or a
//! remediation, and nothing is ever looked up by string. The README's error table is checked
//! against [`ErrorKind::ALL`] by a test.

use std::sync::Arc;

use jsonrpsee::types::ErrorObjectOwned;
use serde_json::{Value, json};

use crate::browser::BrowserError;
use crate::replica::ReplicaError;

macro_rules! kinds {
    ($($variant:ident => ($name:literal, $code:literal, $remediation:literal),)+) => {
        /// Every kind of error the service returns.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum ErrorKind {
            $($variant,)+
        }

        impl ErrorKind {
            /// Every kind, in the order of the README's table.
            pub const ALL: &'static [ErrorKind] = &[$(ErrorKind::$variant,)+];

            /// The stable snake_case name agents match on (`data.kind`).
            pub fn as_str(self) -> &'static str {
                match self {
                    $(ErrorKind::$variant => $name,)+
                }
            }

            /// The JSON-RPC error code.
            pub fn code(self) -> i32 {
                match self {
                    $(ErrorKind::$variant => $code,)+
                }
            }

            /// The kind named `name` on the wire (an answer another replica relayed).
            pub fn from_name(name: &str) -> Option<Self> {
                match name {
                    $($name => Some(ErrorKind::$variant),)+
                    _ => None,
                }
            }

            /// One sentence telling an agent what to do next (`data.remediation`).
            pub fn remediation(self) -> &'static str {
                match self {
                    $(ErrorKind::$variant => $remediation,)+
                }
            }
        }
    };
}

kinds! {
    ParseError => ("parse_error", -32700,
        "Send valid JSON: a request object {\"jsonrpc\":\"2.0\",\"method\":…,\"params\":{…},\"id\":1} or an array of them."),
    InvalidRequest => ("invalid_request", -32600,
        "Send a JSON-RPC 2.0 request: \"jsonrpc\":\"2.0\", a string method, an id that is a string or a number, params as an object."),
    MethodNotFound => ("method_not_found", -32601,
        "Call a method rpc.discover lists (the README's method table lists them too)."),
    InvalidParams => ("invalid_params", -32602,
        "Fix the named parameter and call again: data.usage lists the method's params (over MCP, the tool's input schema), rpc.discover {\"methods\": [\"<method>\"]} describes them."),
    SessionNotFound => ("session_not_found", -32001,
        "Create a new session with session.create and use the session_id it returns."),
    SessionClosed => ("session_closed", -32017,
        "The session was closed while this call ran; create a new session with session.create if you still need one."),
    UrlNotAllowed => ("url_not_allowed", -32002,
        "Use a URL ALLOW_HOST_REGEX matches (it tests the whole URL), or ask the operator to widen it."),
    Timeout => ("timeout", -32003,
        "Retry with a larger timeout, or inspect the page (page.text, page.evaluate) to see what it is stuck on."),
    CapacityExceeded => ("capacity_exceeded", -32004,
        "Close a session you no longer need with session.close, or retry in a few seconds."),
    QueueTimeout => ("queue_timeout", -32018,
        "Sessions stayed busy for the whole wait: close sessions you no longer need, or ask the operator for a higher MAX_SESSIONS or QUEUE_TIMEOUT_MS."),
    NavigationFailed => ("navigation_failed", -32005,
        "Check that the server behind the URL is running and reachable from the service, then retry."),
    EvaluationFailed => ("evaluation_failed", -32006,
        "Fix the JavaScript; the message carries the exception the page threw."),
    ResultNotSerializable => ("result_not_serializable", -32026,
        "Return plain JSON data from the expression, e.g. el.textContent instead of el."),
    ResultTooLarge => ("result_too_large", -32023,
        "Ask for less in one answer: a smaller maxChars, a narrower selector or expression, or one call at a time instead of a batch."),
    InvalidSelector => ("invalid_selector", -32008,
        "Fix the selector: CSS by default, or role=button[name=\"Save\"], text=Sign in, xpath=//button."),
    ElementNotFound => ("element_not_found", -32009,
        "Check the selector against page.content, or wait for the element (page.waitFor) and retry."),
    NotAllowed => ("not_allowed", -32015,
        "Ask a person to do it: the operator's policy forbids this action (e.g. REFUSE_PASSWORD_FILL), so the same call gets the same answer."),
    StaleRef => ("stale_ref", -32016,
        "Take a new page.snapshot and act on the ref it shows for that element; never reuse refs across navigations."),
    AmbiguousSelector => ("ambiguous_selector", -32012,
        "Make the selector match one element: add a name (role=button[name=\"Save\" s]) or use a candidate's id."),
    NotActionable => ("not_actionable", -32013,
        "Act on a different element: the message says why this one cannot take this action."),
    ElementCovered => ("element_covered", -32027,
        "A user would hit data.cover there instead: fix or dismiss it in the app, or act without scroll:false."),
    ElementOutsideViewport => ("element_outside_viewport", -32028,
        "Scroll it into view first (page.scroll with its selector), or act without scroll:false."),
    AssertionFailed => ("assertion_failed", -32019,
        "Read data.actual: it is what the page showed until the timeout; fix the app, or the expectation if the page is right."),
    DownloadPending => ("download_pending", -32024,
        "Wait until downloads.list shows the file as completed, then read it."),
    DownloadCanceled => ("download_canceled", -32025,
        "Start the download again if the page cancelled it; one that grew past DOWNLOAD_MAX_BYTES needs a larger limit from the operator."),
    AxeUnavailable => ("axe_unavailable", -32014,
        "Install axe-core (bash .ci/setup, or npm install axe-core) or point AXE_CORE_PATH at axe.min.js."),
    BrowserUnavailable => ("browser_unavailable", -32010,
        "Create a new session with session.create; if that fails too, retry in a few seconds."),
    BrowserError => ("browser_error", -32011,
        "Retry the call; if it keeps failing, close the session and create a new one."),
    Unauthorized => ("unauthorized", -32020,
        "Send the service's API key in the x-api-key header (or ?api_key= on a WebSocket upgrade)."),
    PayloadTooLarge => ("payload_too_large", -32021,
        "Send a smaller request body (the limit is MAX_BODY_BYTES); split large batches."),
    RateLimited => ("rate_limited", -32022,
        "Wait the number of seconds in the Retry-After header (or data.retryAfter), then retry."),
    WrongReplica => ("wrong_replica", -32030,
        "Send calls for this session to the replica that owns it (data.owner, at data.ownerUrl), e.g. open the WebSocket there, or create the session over this connection so it lives on this replica."),
    ReplicaUnavailable => ("replica_unavailable", -32031,
        "The replica holding this session (data.owner) did not answer: retry in a few seconds, and if it still fails its sessions are gone with it, so create a new session with session.create."),
    InternalError => ("internal_error", -32603,
        "Retry the call; if it keeps failing, report it with the x-request-id of the response."),
}

impl ErrorKind {
    /// Whether the caller's input is the cause, so the same call can only fail the same way and the
    /// remediation must say what to change, never to retry. Exhaustive on purpose: a new kind has
    /// to be placed on one side.
    pub fn blames_caller(self) -> bool {
        match self {
            Self::ParseError
            | Self::InvalidRequest
            | Self::MethodNotFound
            | Self::InvalidParams
            | Self::SessionNotFound
            | Self::UrlNotAllowed
            | Self::EvaluationFailed
            | Self::ResultNotSerializable
            | Self::ResultTooLarge
            | Self::DownloadCanceled
            | Self::InvalidSelector
            | Self::NotAllowed
            | Self::StaleRef
            | Self::AmbiguousSelector
            | Self::NotActionable
            | Self::Unauthorized
            | Self::PayloadTooLarge
            | Self::WrongReplica => true,
            // Time, load, the page's own state or the browser: the same call can succeed later.
            Self::SessionClosed
            | Self::Timeout
            | Self::CapacityExceeded
            | Self::QueueTimeout
            | Self::NavigationFailed
            | Self::ElementNotFound
            | Self::AssertionFailed
            | Self::ElementCovered
            | Self::ElementOutsideViewport
            | Self::DownloadPending
            | Self::AxeUnavailable
            | Self::BrowserUnavailable
            | Self::BrowserError
            | Self::RateLimited
            | Self::ReplicaUnavailable
            | Self::InternalError => false,
        }
    }

    /// The kind a browser-layer error is reported as.
    pub fn of(err: &BrowserError) -> Self {
        match err {
            BrowserError::SessionNotFound(_) => Self::SessionNotFound,
            BrowserError::SessionClosed(_) => Self::SessionClosed,
            BrowserError::UrlNotAllowed(_) => Self::UrlNotAllowed,
            BrowserError::Timeout(_) | BrowserError::NoAnswer(_) => Self::Timeout,
            BrowserError::CapacityExceeded { .. } => Self::CapacityExceeded,
            BrowserError::QueueTimeout { .. } => Self::QueueTimeout,
            BrowserError::NavigationFailed { .. } => Self::NavigationFailed,
            BrowserError::EvaluationFailed(_) => Self::EvaluationFailed,
            BrowserError::NotSerializable(_) => Self::ResultNotSerializable,
            BrowserError::TooLarge(_) => Self::ResultTooLarge,
            BrowserError::DownloadPending(_) => Self::DownloadPending,
            BrowserError::DownloadCanceled(_) => Self::DownloadCanceled,
            BrowserError::InvalidSelector { .. } => Self::InvalidSelector,
            BrowserError::ElementNotFound(_) => Self::ElementNotFound,
            BrowserError::Ambiguous { .. } => Self::AmbiguousSelector,
            BrowserError::NotActionable { .. } => Self::NotActionable,
            BrowserError::Covered { .. } => Self::ElementCovered,
            BrowserError::OutsideViewport { .. } => Self::ElementOutsideViewport,
            BrowserError::AssertionFailed(_) => Self::AssertionFailed,
            BrowserError::AxeUnavailable(_) => Self::AxeUnavailable,
            BrowserError::NotAllowed(_) => Self::NotAllowed,
            BrowserError::StaleRef(_) => Self::StaleRef,
            BrowserError::InvalidOption(_) | BrowserError::InvalidParam { .. } => Self::InvalidParams,
            BrowserError::Unavailable(_) => Self::BrowserUnavailable,
            BrowserError::Protocol { .. } => Self::BrowserError,
            BrowserError::HelperScript(_) => Self::InternalError,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("invalid params: {message}")]
    InvalidParams { message: String, param: Option<String> },
    #[error(transparent)]
    Browser(BrowserError),
    #[error("internal error: {0}")]
    Internal(String),
    /// The client's calls are over RATE_LIMIT_MAX; it may call again in `retry_after_s`.
    #[error(
        "too many calls from this address (RATE_LIMIT_MAX a minute; each call of a batch or a WebSocket \
         counts); call again in {retry_after_s} s"
    )]
    RateLimited { retry_after_s: u64 },
    /// A failure the page's state explains, with what the page looked like (`data.evidence`).
    #[error("{error}")]
    WithEvidence { error: Box<ApiError>, evidence: Value },
    /// The session belongs to another replica that could not answer for it.
    #[error(transparent)]
    Replica(ReplicaError),
    /// An `invalid_params` error with the method's params in one line (`data.usage`): the error
    /// itself teaches the call.
    #[error("{error}")]
    WithUsage { error: Box<ApiError>, usage: Arc<str> },
    /// An error already in its wire form, passed on unchanged: the error another replica
    /// answered, or one with the passwords its session typed masked in it (`registry::masked`).
    #[error("{message}")]
    Relayed { kind: ErrorKind, code: i32, message: String, data: Option<Value> },
}

impl From<BrowserError> for ApiError {
    fn from(err: BrowserError) -> Self {
        match err {
            // One shape for every invalid parameter, wherever it was found out.
            BrowserError::InvalidParam { param, message } => Self::invalid(param, message),
            err => Self::Browser(err),
        }
    }
}

impl ApiError {
    pub fn invalid(param: impl Into<String>, message: impl Into<String>) -> Self {
        Self::InvalidParams { message: message.into(), param: Some(param.into()) }
    }

    pub fn kind(&self) -> ErrorKind {
        match self {
            Self::InvalidParams { .. } => ErrorKind::InvalidParams,
            Self::Internal(_) => ErrorKind::InternalError,
            Self::RateLimited { .. } => ErrorKind::RateLimited,
            Self::Browser(err) => ErrorKind::of(err),
            Self::WithEvidence { error, .. } | Self::WithUsage { error, .. } => error.kind(),
            Self::Replica(ReplicaError::Wrong { .. }) => ErrorKind::WrongReplica,
            Self::Replica(ReplicaError::Unavailable { .. }) => ErrorKind::ReplicaUnavailable,
            Self::Relayed { kind, .. } => *kind,
        }
    }

    /// The error another replica answered with, as it was; its kind read once from `data.kind`.
    pub fn relayed(code: i32, message: String, data: Option<Value>) -> Self {
        let name = data.as_ref().and_then(|d| d["kind"].as_str()).unwrap_or_default();
        let kind = ErrorKind::from_name(name).unwrap_or(ErrorKind::InternalError);
        Self::Relayed { kind, code, message, data }
    }

    /// A timeout that only says the browser did not answer in time gets the method and how long
    /// it ran, so the message says what timed out (never which browser command was waiting).
    pub fn with_call_context(self, method: &str, ran: std::time::Duration) -> Self {
        match self {
            Self::Browser(BrowserError::NoAnswer(why)) => {
                Self::Browser(BrowserError::Timeout(format!("{method} timed out after {} ms: {why}", ran.as_millis())))
            }
            Self::WithEvidence { error, evidence } => {
                Self::WithEvidence { error: Box::new(error.with_call_context(method, ran)), evidence }
            }
            other => other,
        }
    }

    /// An `invalid_params` error of the method whose params `usage` lists, carrying that line
    /// (`data.usage`); any other error as it is. An error that has its usage already keeps it (a
    /// step of `session.run` names its own method's params, not the run's).
    pub fn with_usage(self, usage: &Arc<str>) -> Self {
        match self {
            Self::InvalidParams { .. } | Self::Browser(_) if self.kind() == ErrorKind::InvalidParams => {
                Self::WithUsage { error: Box::new(self), usage: usage.clone() }
            }
            other => other,
        }
    }

    /// Whether the page's state explains this failure, so what the page showed belongs in the
    /// error (`data.evidence`): an element missing, not ready, not as asserted, a script throwing.
    pub fn wants_evidence(&self) -> bool {
        matches!(
            self.kind(),
            ErrorKind::Timeout
                | ErrorKind::ElementNotFound
                | ErrorKind::NotActionable
                | ErrorKind::ElementCovered
                | ErrorKind::ElementOutsideViewport
                | ErrorKind::AssertionFailed
                | ErrorKind::StaleRef
                | ErrorKind::EvaluationFailed
        ) && !matches!(self, Self::WithEvidence { .. } | Self::WithUsage { .. } | Self::Relayed { .. })
    }

    pub fn to_error_object(&self) -> ErrorObjectOwned {
        let added = match self {
            Self::WithEvidence { error, evidence } => Some((error, "evidence", evidence.clone())),
            Self::WithUsage { error, usage } => Some((error, "usage", json!(usage))),
            _ => None,
        };
        if let Some((error, key, value)) = added {
            let inner = error.to_error_object();
            let mut data: Value =
                inner.data().and_then(|d| serde_json::from_str(d.get()).ok()).unwrap_or_else(|| json!({}));
            data[key] = value;
            return ErrorObjectOwned::owned(inner.code(), inner.message().to_owned(), Some(data));
        }
        if let Self::Relayed { code, message, data, .. } = self {
            return ErrorObjectOwned::owned(*code, message.clone(), data.clone());
        }
        let kind = self.kind();
        let mut data = json!({ "kind": kind.as_str(), "remediation": kind.remediation() });
        if let Self::Replica(err) = self {
            data["owner"] = json!(err.owner());
            data["ownerUrl"] = json!(err.url());
        }
        if let Self::InvalidParams { param: Some(param), .. } = self {
            data["param"] = json!(param);
        }
        if let Self::RateLimited { retry_after_s } = self {
            data["retryAfter"] = json!(retry_after_s);
        }
        if let Self::Browser(BrowserError::AssertionFailed(failed)) = self {
            data["expected"] = failed.expected.clone();
            data["actual"] = failed.actual.clone();
        }
        if let Self::Browser(BrowserError::Covered { cover, .. }) = self {
            data["cover"] = serde_json::to_value(cover).unwrap_or(Value::Null);
        }
        // Whatever a message quotes, it stays short (the sites that quote input cut it already).
        let message = crate::quote::bounded_message(&self.to_string()).into_owned();
        ErrorObjectOwned::owned(kind.code(), message, Some(data))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_and_codes_are_unique() {
        for (i, a) in ErrorKind::ALL.iter().enumerate() {
            for b in &ErrorKind::ALL[i + 1..] {
                assert_ne!(a.as_str(), b.as_str());
                assert_ne!(a.code(), b.code(), "{a:?} and {b:?}");
            }
        }
    }

    #[test]
    fn every_kind_has_a_one_sentence_remediation() {
        for kind in ErrorKind::ALL {
            assert!(kind.remediation().ends_with('.'), "{kind:?}");
            assert!(kind.as_str().chars().all(|c| c.is_ascii_lowercase() || c == '_'), "{kind:?}");
        }
    }

    #[test]
    fn no_error_the_callers_input_causes_is_told_to_retry() {
        for kind in ErrorKind::ALL.iter().filter(|k| k.blames_caller()) {
            let remediation = kind.remediation().to_lowercase();
            assert!(!remediation.contains("retry") && !remediation.contains("try again"), "{kind:?}: {remediation}");
        }
        // Input Chromium refuses is reported as the caller's to fix, not as a browser failure.
        let refused = BrowserError::InvalidParam { param: "storageState.cookies[0]".into(), message: "dropped".into() };
        assert!(ErrorKind::of(&refused).blames_caller());
        let obj = ApiError::from(refused).to_error_object();
        let data: serde_json::Value = serde_json::from_str(obj.data().unwrap().get()).unwrap();
        assert_eq!((obj.code(), data["param"].as_str()), (-32602, Some("storageState.cookies[0]")));
    }

    #[test]
    fn browser_errors_carry_kind_and_remediation() {
        let err = ApiError::from(BrowserError::SessionNotFound("abc".into()));
        let obj = err.to_error_object();
        assert_eq!(obj.code(), -32001);
        let data: serde_json::Value = serde_json::from_str(obj.data().unwrap().get()).unwrap();
        assert_eq!(data["kind"], "session_not_found");
        assert!(data["remediation"].as_str().unwrap().contains("session.create"));
    }

    #[test]
    fn a_relayed_error_is_passed_on_unchanged() {
        let data = json!({ "kind": "stale_ref", "remediation": "r", "extra": [1] });
        let err = ApiError::relayed(-32016, "gone".into(), Some(data.clone()));
        assert_eq!(err.kind(), ErrorKind::StaleRef);
        let obj = err.to_error_object();
        assert_eq!((obj.code(), obj.message()), (-32016, "gone"));
        assert_eq!(serde_json::from_str::<Value>(obj.data().unwrap().get()).unwrap(), data);
        for kind in ErrorKind::ALL {
            assert_eq!(ErrorKind::from_name(kind.as_str()), Some(*kind));
        }
    }

    #[test]
    fn replica_errors_name_the_owner() {
        let err = ApiError::Replica(ReplicaError::Unavailable {
            owner: "tb-1".into(),
            url: "http://10.0.0.1:3337".into(),
            reason: "connection refused".into(),
        });
        let obj = err.to_error_object();
        assert_eq!(obj.code(), -32031);
        let data: Value = serde_json::from_str(obj.data().unwrap().get()).unwrap();
        assert_eq!((data["kind"].as_str(), data["owner"].as_str()), (Some("replica_unavailable"), Some("tb-1")));
        assert_eq!(data["ownerUrl"], "http://10.0.0.1:3337");
    }

    #[test]
    fn an_invalid_params_error_carries_the_methods_usage_once() {
        let usage: Arc<str> = "page.goto {session_id*, tab_id, url*, timeout: int}".into();
        let other: Arc<str> = "session.run {session_id*, steps*}".into();
        let err = ApiError::invalid("url", "missing required param `url`").with_usage(&usage).with_usage(&other);
        assert_eq!(err.kind(), ErrorKind::InvalidParams);
        let obj = err.to_error_object();
        assert_eq!((obj.code(), obj.message()), (-32602, "invalid params: missing required param `url`"));
        let data: Value = serde_json::from_str(obj.data().unwrap().get()).unwrap();
        assert_eq!((data["param"].as_str(), data["usage"].as_str()), (Some("url"), Some(&*usage)));
        // Other errors are left as they are.
        let timeout = ApiError::from(BrowserError::Timeout("slow".into())).with_usage(&usage);
        assert!(timeout.to_error_object().data().unwrap().get().find("usage").is_none());
    }

    #[test]
    fn a_call_cut_short_by_close_is_session_closed() {
        let err = ApiError::from(BrowserError::SessionClosed("session.close closed this session".into()));
        assert_eq!(err.kind(), ErrorKind::SessionClosed);
        assert_eq!(err.to_error_object().code(), -32017);
    }
}
