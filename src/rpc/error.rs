//! The RPC layer's error, and the one table mapping every error kind to its wire code and remediation.
//!
//! Agents read `data.kind` (stable snake_case) and `data.remediation` (what to do next); people
//! read `message`. The README's error table is checked against [`KINDS`] by a test.

use jsonrpsee::types::ErrorObjectOwned;
use serde_json::json;

use crate::browser::BrowserError;

/// One row of the error table.
pub struct ErrorKind {
    pub kind: &'static str,
    pub code: i32,
    pub remediation: &'static str,
}

/// Every error kind the service returns.
pub const KINDS: &[ErrorKind] = &[
    ErrorKind {
        kind: "invalid_params",
        code: -32602,
        remediation: "Fix the named parameter (see rpc.discover or the README for this method's params) and call again.",
    },
    ErrorKind {
        kind: "session_not_found",
        code: -32001,
        remediation: "Create a new session with session.create and use the session_id it returns.",
    },
    ErrorKind {
        kind: "url_not_allowed",
        code: -32002,
        remediation: "Use an http(s) URL whose host matches ALLOW_HOST_REGEX, or ask the operator to widen it.",
    },
    ErrorKind {
        kind: "timeout",
        code: -32003,
        remediation: "Retry with a larger timeout, or inspect the page (page.text, page.evaluate) to see what it is stuck on.",
    },
    ErrorKind {
        kind: "capacity_exceeded",
        code: -32004,
        remediation: "Close a session you no longer need with session.close, or retry in a few seconds.",
    },
    ErrorKind {
        kind: "navigation_failed",
        code: -32005,
        remediation: "Check that the server behind the URL is running and reachable from the service, then retry.",
    },
    ErrorKind {
        kind: "evaluation_failed",
        code: -32006,
        remediation: "Fix the JavaScript; the message carries the exception the page threw.",
    },
    ErrorKind {
        kind: "result_not_serializable",
        code: -32007,
        remediation: "Return plain JSON data from the expression, e.g. el.textContent instead of el.",
    },
    ErrorKind {
        kind: "invalid_selector",
        code: -32008,
        remediation: "Fix the selector: CSS by default, or role=button[name=\"Save\"], text=Sign in, xpath=//button.",
    },
    ErrorKind {
        kind: "element_not_found",
        code: -32009,
        remediation: "Check the selector against page.content, or wait for the element (page.waitFor) and retry.",
    },
    ErrorKind {
        kind: "not_allowed",
        code: -32015,
        remediation: "Do not retry: the operator's policy forbids this action (e.g. REFUSE_PASSWORD_FILL); ask a person to do it.",
    },
    ErrorKind {
        kind: "stale_ref",
        code: -32016,
        remediation: "Take a new page.snapshot and act on the ref it shows for that element; never reuse refs across navigations.",
    },
    ErrorKind {
        kind: "ambiguous_selector",
        code: -32012,
        remediation: "Make the selector match one element: add a name (role=button[name=\"Save\" s]) or use a candidate's id.",
    },
    ErrorKind {
        kind: "not_actionable",
        code: -32013,
        remediation: "Act on a different element: the message says why this one cannot take this action.",
    },
    ErrorKind {
        kind: "axe_unavailable",
        code: -32014,
        remediation: "Install axe-core (bash .ci/setup, or npm install axe-core) or point AXE_CORE_PATH at axe.min.js.",
    },
    ErrorKind {
        kind: "browser_unavailable",
        code: -32010,
        remediation: "Create a new session with session.create; if that fails too, retry in a few seconds.",
    },
    ErrorKind {
        kind: "browser_error",
        code: -32011,
        remediation: "Retry the call; if it keeps failing, close the session and create a new one.",
    },
    ErrorKind {
        kind: "unauthorized",
        code: -32020,
        remediation: "Send the service's API key in the x-api-key header (or ?api_key= on a WebSocket upgrade).",
    },
    ErrorKind {
        kind: "payload_too_large",
        code: -32021,
        remediation: "Send a smaller request body (the limit is MAX_BODY_BYTES); split large batches.",
    },
    ErrorKind {
        kind: "rate_limited",
        code: -32022,
        remediation: "Wait the number of seconds in the Retry-After header, then retry.",
    },
    ErrorKind {
        kind: "internal_error",
        code: -32603,
        remediation: "Retry the call; if it keeps failing, report it with the x-request-id of the response.",
    },
];

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("invalid params: {message}")]
    InvalidParams { message: String, param: Option<String> },
    #[error(transparent)]
    Browser(#[from] BrowserError),
    #[error("internal error: {0}")]
    Internal(String),
}

impl ApiError {
    pub fn invalid(param: impl Into<String>, message: impl Into<String>) -> Self {
        Self::InvalidParams { message: message.into(), param: Some(param.into()) }
    }

    pub fn kind(&self) -> &'static str {
        match self {
            Self::InvalidParams { .. } => "invalid_params",
            Self::Internal(_) => "internal_error",
            Self::Browser(err) => match err {
                BrowserError::SessionNotFound(_) => "session_not_found",
                BrowserError::UrlNotAllowed(_) => "url_not_allowed",
                BrowserError::Timeout(_) => "timeout",
                BrowserError::CapacityExceeded { .. } => "capacity_exceeded",
                BrowserError::NavigationFailed { .. } => "navigation_failed",
                BrowserError::EvaluationFailed(_) => "evaluation_failed",
                BrowserError::NotSerializable(_) => "result_not_serializable",
                BrowserError::InvalidSelector { .. } => "invalid_selector",
                BrowserError::ElementNotFound(_) => "element_not_found",
                BrowserError::Ambiguous { .. } => "ambiguous_selector",
                BrowserError::NotActionable { .. } => "not_actionable",
                BrowserError::AxeUnavailable(_) => "axe_unavailable",
                BrowserError::NotAllowed(_) => "not_allowed",
                BrowserError::StaleRef(_) => "stale_ref",
                BrowserError::InvalidOption(_) => "invalid_params",
                BrowserError::Unavailable(_) => "browser_unavailable",
                BrowserError::Protocol { .. } => "browser_error",
            },
        }
    }

    pub fn to_error_object(&self) -> ErrorObjectOwned {
        let kind = self.kind();
        let row = KINDS.iter().find(|row| row.kind == kind).unwrap_or(&KINDS[KINDS.len() - 1]);
        let mut data = json!({ "kind": kind, "remediation": row.remediation });
        if let Self::InvalidParams { param: Some(param), .. } = self {
            data["param"] = json!(param);
        }
        ErrorObjectOwned::owned(row.code, self.to_string(), Some(data))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_and_codes_are_unique() {
        for (i, a) in KINDS.iter().enumerate() {
            for b in &KINDS[i + 1..] {
                assert_ne!(a.kind, b.kind);
                assert_ne!(a.code, b.code, "{} and {}", a.kind, b.kind);
            }
        }
    }

    #[test]
    fn every_kind_has_a_one_sentence_remediation() {
        for row in KINDS {
            assert!(row.remediation.ends_with('.'), "{}", row.kind);
            assert!(row.kind.chars().all(|c| c.is_ascii_lowercase() || c == '_'), "{}", row.kind);
        }
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
}
