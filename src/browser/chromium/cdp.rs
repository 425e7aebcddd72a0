//! Raw CDP commands with deadlines.
//!
//! chromiumoxide's typed commands and responses are pinned to an older protocol revision and its
//! enums are strict, so a field Chromium renamed makes a response unparseable. We send every
//! command as `{method, params}` JSON and read the response as `serde_json::Value`, taking only
//! what we need. Every call carries a deadline: a page stuck in a JS loop never hangs a call.

use std::borrow::Cow;
use std::time::Duration;

use chromiumoxide::Page;
use chromiumoxide::error::CdpError;
use chromiumoxide::types::{Command, Method, MethodId};
use serde::Serialize;
use serde_json::Value;
use tokio::time::Instant;

use crate::browser::error::BrowserError;

/// A CDP command given by name, with JSON params, whose response is kept as JSON.
#[derive(Debug, Clone)]
pub struct Raw {
    method: &'static str,
    params: Value,
}

impl Raw {
    pub fn new(method: &'static str, params: Value) -> Self {
        Self { method, params }
    }
}

impl Serialize for Raw {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.params.serialize(serializer)
    }
}

impl Method for Raw {
    fn identifier(&self) -> MethodId {
        Cow::Borrowed(self.method)
    }
}

impl Command for Raw {
    type Response = Value;
}

/// Sends `method` with `params` to the page's target and waits at most until `deadline`.
pub async fn call(page: &Page, method: &'static str, params: Value, deadline: Instant) -> Result<Value, BrowserError> {
    let fut = page.execute(Raw::new(method, params));
    let _timer = crate::metrics::CDP_DURATION.with_label_values(&[method]).start_timer();
    match tokio::time::timeout_at(deadline, fut).await {
        Ok(Ok(resp)) => Ok(resp.result),
        Ok(Err(err)) => Err(map_cdp_error(method, err)),
        Err(_) => Err(deadline_passed(method)),
    }
}

/// The deadline passed while `method` was waiting for its answer. The message says what that
/// means for the page, not which command it was (that is logged): callers that wait for
/// something replace it with what they were waiting for.
pub fn deadline_passed(method: &str) -> BrowserError {
    tracing::debug!(cdp_method = method, "the deadline passed while a command waited for the browser");
    BrowserError::NoAnswer("the page did not answer before the deadline (a script may be keeping it busy)".into())
}

/// Turns a chromiumoxide error into ours, keeping the protocol's message.
pub fn map_cdp_error(method: &str, err: CdpError) -> BrowserError {
    match err {
        CdpError::Chrome(e) => BrowserError::Protocol { method: method.to_string(), message: e.message },
        // chromiumoxide gives every command of a page at most 30 s, whatever our deadline.
        CdpError::Timeout => {
            tracing::debug!(cdp_method = method, "a command waited 30 s, chromiumoxide's limit");
            BrowserError::NoAnswer(
                "the page did not answer for 30 s, the longest one browser command may wait: a script kept its \
                 main thread busy that long"
                    .into(),
            )
        }
        CdpError::ChannelSendError(_) | CdpError::NoResponse | CdpError::Ws(_) | CdpError::Io(_) => {
            BrowserError::Unavailable(format!("lost the connection to Chromium during {method}"))
        }
        other => BrowserError::Protocol { method: method.to_string(), message: other.to_string() },
    }
}

/// Milliseconds left until `deadline` (0 when past), for messages.
pub fn remaining(deadline: Instant) -> Duration {
    deadline.saturating_duration_since(Instant::now())
}
