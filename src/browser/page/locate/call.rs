//! Calling our scripts (src/js/*.js) in the helper world, an isolated world.
//!
//! The isolated world shares the DOM with the page but not its JavaScript globals, so a page that
//! replaces `Array.prototype.map` or `JSON` cannot break our helpers. Values are always passed as
//! call arguments, never pasted into source. Which context the world is, per document, is
//! `world`'s; finding the elements a target names, outside the page, is `resolve`'s. A script
//! answers `{ok}` or `{error: {kind, …}}`: the `ok` is read into the script's answer type (see
//! `scripts`), an error into the matching [`BrowserError`].

use serde::Deserialize;
use serde_json::Value;
use tokio::time::Instant;

use super::Locate;
use super::scripts::Script;
use crate::browser::chromium::protocol::runtime::{CallArgument, CallFunctionOn, Evaluate, Evaluated, GetProperties};
use crate::browser::error::{BrowserError, Refusal};

impl Locate<'_> {
    /// Calls `script` with `args` in the helper world, awaiting a returned promise, and reads its
    /// answer. A world found gone (its document went) is made anew and the call made again, once.
    pub(in crate::browser) async fn call<S: Script>(
        &self,
        _script: S,
        args: &[Value],
        deadline: Instant,
    ) -> Result<S::Answer, BrowserError> {
        let mut retried = false;
        loop {
            let context = self.context(deadline).await?;
            match self.call_in(context, S::SOURCE, args, &[], deadline).await {
                Err(err) if !retried && err.refusal() == Some(Refusal::ContextGone) => {
                    self.forget(context);
                    retried = true;
                }
                other => return read::<S>(other?),
            }
        }
    }

    /// Calls `function` in the execution context `context` with `args`, then `handles` (object
    /// ids) as trailing arguments; its `ok`.
    pub(super) async fn call_in(
        &self,
        context: i64,
        function: &'static str,
        args: &[Value],
        handles: &[String],
        deadline: Instant,
    ) -> Result<Value, BrowserError> {
        let mut arguments: Vec<CallArgument> = args.iter().map(|a| CallArgument::Value { value: a.clone() }).collect();
        arguments.extend(handles.iter().map(|handle| CallArgument::Object { object_id: handle.clone() }));
        let call = CallFunctionOn {
            function_declaration: function,
            execution_context_id: Some(context),
            arguments,
            return_by_value: true,
            await_promise: true,
            ..CallFunctionOn::default()
        };
        helper_outcome(self.core.send(call, deadline).await?)
    }

    /// The elements of the remote array `array` (an object id) that are objects, as (index, object
    /// id), in index order.
    pub(in crate::browser::page) async fn array_objects(
        &self,
        array: &str,
        deadline: Instant,
    ) -> Result<Vec<(usize, String)>, BrowserError> {
        Ok(self.core.send(GetProperties { object_id: array, own_properties: true }, deadline).await?.objects())
    }

    /// Runs a whole script (such as a library) in the helper world.
    pub(in crate::browser::page) async fn load_into_world(
        &self,
        source: &str,
        deadline: Instant,
    ) -> Result<(), BrowserError> {
        let context = self.context(deadline).await?;
        self.load(context, source, deadline).await
    }

    /// Evaluates `source` in the execution context `context`; an exception is an error.
    pub(super) async fn load(&self, context: i64, source: &str, deadline: Instant) -> Result<(), BrowserError> {
        let load =
            Evaluate { expression: source, context_id: Some(context), return_by_value: true, ..Evaluate::default() };
        match self.core.send(load, deadline).await?.exception_details {
            Some(details) => {
                Err(BrowserError::EvaluationFailed(format!("a script failed to load: {}", details.message())))
            }
            None => Ok(()),
        }
    }
}

/// Reads `script`'s answer into its type.
pub(super) fn read<S: Script>(answer: Value) -> Result<S::Answer, BrowserError> {
    serde_json::from_value(answer)
        .map_err(|e| BrowserError::HelperScript(format!("{} answered something unexpected: {e}", S::FILE)))
}

/// The errors helper scripts answer with (`{error: {kind, …}}`), as the page scripts name them.
#[derive(Debug, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum HelperError {
    InvalidSelector {
        #[serde(default)]
        selector: String,
        #[serde(default)]
        message: String,
    },
    ElementNotFound {
        #[serde(default)]
        selector: String,
    },
    AmbiguousSelector {
        #[serde(default)]
        selector: String,
        #[serde(default)]
        count: u64,
        #[serde(default)]
        candidates: Vec<String>,
    },
    NotActionable {
        #[serde(default)]
        selector: String,
        #[serde(default)]
        message: String,
    },
    /// Acting where the element is, a user would hit `cover` instead.
    ElementCovered {
        #[serde(default)]
        selector: String,
        cover: crate::browser::pointer::PointerTarget,
    },
    ElementOutsideViewport {
        #[serde(default)]
        selector: String,
        #[serde(default)]
        message: String,
    },
    StaleRef {
        #[serde(default)]
        selector: String,
        #[serde(default)]
        message: String,
    },
    AxeUnavailable {
        #[serde(default)]
        message: String,
    },
    /// The service asked for something the scripts do not know (an action name): our bug.
    UnknownAction {
        #[serde(default)]
        message: String,
    },
}

impl From<HelperError> for BrowserError {
    fn from(err: HelperError) -> Self {
        match err {
            HelperError::InvalidSelector { selector, message } => Self::InvalidSelector { selector, reason: message },
            HelperError::ElementNotFound { selector } => Self::ElementNotFound(selector),
            HelperError::AmbiguousSelector { selector, count, candidates } => {
                Self::Ambiguous { selector, count, candidates }
            }
            HelperError::NotActionable { selector, message } => Self::NotActionable { selector, reason: message },
            HelperError::ElementCovered { selector, cover } => Self::Covered { selector, cover: Box::new(cover) },
            HelperError::ElementOutsideViewport { selector, message } => {
                Self::OutsideViewport { selector, reason: message }
            }
            HelperError::StaleRef { selector, message } => Self::StaleRef(format!("{selector}: {message}")),
            HelperError::AxeUnavailable { message } => Self::AxeUnavailable(message),
            HelperError::UnknownAction { message } => Self::HelperScript(message),
        }
    }
}

/// Reads a helper's `{ok}` / `{error}` answer out of a `Runtime.callFunctionOn` response.
fn helper_outcome(answer: Evaluated) -> Result<Value, BrowserError> {
    if let Some(details) = answer.exception_details {
        return Err(BrowserError::EvaluationFailed(format!("a helper script failed: {}", details.message())));
    }
    let mut value = answer.result.value.unwrap_or(Value::Null);
    if let Some(error) = value.get_mut("error").map(Value::take) {
        return Err(match serde_json::from_value::<HelperError>(error.clone()) {
            Ok(known) => known.into(),
            Err(_) => BrowserError::HelperScript(format!("a helper script answered an error of unknown kind: {error}")),
        });
    }
    Ok(value.get_mut("ok").map(Value::take).unwrap_or(Value::Null))
}
#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A `Runtime.callFunctionOn` answer, as Chromium sends it.
    fn outcome(answer: Value) -> Result<Value, BrowserError> {
        helper_outcome(serde_json::from_value(answer).unwrap())
    }

    #[test]
    fn helper_error_kinds_map_to_browser_errors() {
        let answer = json!({"result":{"value":{"error":{"kind":"invalid_selector","selector":"##","message":"bad"}}}});
        assert!(matches!(outcome(answer), Err(BrowserError::InvalidSelector { .. })));
        let answer = json!({"result":{"value":{"error":{"kind":"element_not_found","selector":"#x"}}}});
        assert!(matches!(outcome(answer), Err(BrowserError::ElementNotFound(s)) if s == "#x"));
        let answer = json!({"result":{"value":{"ok":"text"}}});
        assert_eq!(outcome(answer).unwrap(), json!("text"));
    }

    #[test]
    fn an_error_kind_the_service_does_not_know_is_never_mistaken_for_another() {
        let answer = json!({"result":{"value":{"error":{"kind":"brand_new","message":"x"}}}});
        let err = outcome(answer).unwrap_err();
        assert!(matches!(&err, BrowserError::HelperScript(m) if m.contains("brand_new")), "{err:?}");
        let answer =
            json!({"result":{"value":{"error":{"kind":"unknown_action","message":"unknown action \"hover\""}}}});
        assert!(matches!(outcome(answer), Err(BrowserError::HelperScript(_))));
    }
}
