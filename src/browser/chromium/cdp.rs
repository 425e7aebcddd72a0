//! CDP commands with deadlines, typed as our own small structs.
//!
//! chromiumoxide's typed commands and responses are pinned to an older protocol revision and its
//! enums are strict, so a field Chromium renamed makes a response unparseable. We declare the
//! commands we send ourselves (`protocol`): each a [`Command`] naming its method and the answer it
//! reads, only the fields we use, each with a default, so drift in what we do not read never
//! fails a call. A command goes out as `{method, params}` JSON and its answer is deserialized
//! once, here ([`send`]). Every call carries a deadline: a page stuck in a JS loop never hangs a
//! call. Chromium's refusals are parsed here too, once, into [`Refusal`]s.

use std::borrow::Cow;
use std::time::Duration;

use chromiumoxide::Page;
use chromiumoxide::error::CdpError;
use chromiumoxide::types::{Method, MethodId};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use tokio::time::Instant;

use crate::browser::error::{BrowserError, Refusal};

/// A CDP command the service sends: the struct is its params, [`Command::METHOD`] its name and
/// [`Command::Answer`] what the service reads of its answer (lenient: every field defaulted, the
/// rest ignored). Declared by domain in `protocol`.
pub trait Command: Serialize {
    const METHOD: &'static str;
    type Answer: DeserializeOwned;
}

/// Sends `command` to the page's target and reads its answer, waiting at most until `deadline`.
pub async fn send<C: Command>(page: &Page, command: C, deadline: Instant) -> Result<C::Answer, BrowserError> {
    let answer = call(page, C::METHOD, params_of(&command)?, deadline).await?;
    answer_of::<C>(answer)
}

/// A command's params as JSON (for a command sent by another path: the page's task set, a
/// browser-level session).
pub fn params_of<C: Command>(command: &C) -> Result<Value, BrowserError> {
    serde_json::to_value(command).map_err(|e| BrowserError::protocol(C::METHOD, format!("its params: {e}")))
}

/// Reads a command's answer into its type.
pub fn answer_of<C: Command>(answer: Value) -> Result<C::Answer, BrowserError> {
    serde_json::from_value(answer).map_err(|e| BrowserError::protocol(C::METHOD, format!("an unexpected answer: {e}")))
}

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

impl chromiumoxide::types::Command for Raw {
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
        CdpError::Chrome(e) => refused(method, e.message),
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
        other => refused(method, other.to_string()),
    }
}

/// Chromium refused `method` with `message`: the one place its words are read for what a caller
/// acts on.
fn refused(method: &str, message: String) -> BrowserError {
    let refusal = if message.contains("Inspected target navigated or closed") {
        Refusal::TargetNavigated
    } else if message.contains("context") {
        // "Cannot find context with specified id", "Execution context was destroyed."
        Refusal::ContextGone
    } else {
        Refusal::Other
    };
    BrowserError::Protocol { method: method.to_owned(), message, refusal }
}

/// Milliseconds left until `deadline` (0 when past), for messages.
pub fn remaining(deadline: Instant) -> Duration {
    deadline.saturating_duration_since(Instant::now())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chromiums_refusals_are_read_once_into_what_callers_act_on() {
        let refusal = |message: &str| refused("Runtime.callFunctionOn", message.into()).refusal();
        assert_eq!(refusal("Cannot find context with specified id"), Some(Refusal::ContextGone));
        assert_eq!(refusal("Execution context was destroyed."), Some(Refusal::ContextGone));
        assert_eq!(refusal("Inspected target navigated or closed"), Some(Refusal::TargetNavigated));
        assert_eq!(refusal("Could not find node with given id"), Some(Refusal::Other));
    }

    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Probe {
        object_id: &'static str,
    }

    #[derive(Debug, serde::Deserialize, PartialEq)]
    struct Probed {
        #[serde(default)]
        count: u64,
    }

    impl Command for Probe {
        const METHOD: &'static str = "Test.probe";
        type Answer = Probed;
    }

    #[test]
    fn a_command_is_its_params_and_its_answer_is_read_leniently() {
        assert_eq!(params_of(&Probe { object_id: "o1" }).unwrap(), serde_json::json!({ "objectId": "o1" }));
        let answer = answer_of::<Probe>(serde_json::json!({ "count": 3, "renamed": true })).unwrap();
        assert_eq!(answer, Probed { count: 3 });
        assert_eq!(answer_of::<Probe>(serde_json::json!({})).unwrap(), Probed { count: 0 });
        let err = answer_of::<Probe>(serde_json::json!({ "count": "three" })).unwrap_err();
        assert!(err.to_string().contains("Test.probe"), "{err}");
    }
}
