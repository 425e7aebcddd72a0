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
        Err(_) => Err(BrowserError::Timeout(format!("the browser did not answer {method} in time"))),
    }
}

/// Turns a chromiumoxide error into ours, keeping the protocol's message.
pub fn map_cdp_error(method: &str, err: CdpError) -> BrowserError {
    match err {
        CdpError::Chrome(e) => BrowserError::Protocol { method: method.to_string(), message: e.message },
        CdpError::Timeout => BrowserError::Timeout(format!("the browser did not answer {method} in time")),
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
