//! Running our helper scripts (src/js/*.js) in an isolated world.
//!
//! The isolated world shares the DOM with the page but not its JavaScript globals, so a page that
//! replaces `Array.prototype.map` or `JSON` cannot break our helpers. Values are always passed as
//! call arguments, never pasted into source. The world is the DOM watcher's: its script, with the
//! helper library, makes it at every document's first moment and Chromium announces its context
//! (`NavState::world`), so a call needs no round trip to find it. A document the watcher missed
//! (the first about:blank, a child frame) gets it made on first use, the library loaded into it.
//! Finding the elements a target names, outside the page, is `resolve`'s job.

use serde::Deserialize;
use serde_json::Value;
use tokio::time::Instant;

use super::handle::Page;
use crate::browser::chromium::protocol::page::CreateIsolatedWorld;
use crate::browser::chromium::protocol::runtime::{CallArgument, CallFunctionOn, Evaluate, Evaluated, GetProperties};
use crate::browser::error::{BrowserError, Refusal};

/// The world the DOM watcher already runs in (made with the document): making it again only
/// finds it.
const WORLD_NAME: &str = super::watch::dom::WORLD;
const LIB_JS: &str = concat!(include_str!("../../js/watch_name.js"), include_str!("../../js/lib.js"));

impl Page {
    /// The elements of the remote array `array` (an object id) that are objects, as (index, object
    /// id), in index order.
    pub(super) async fn array_objects(
        &self,
        array: &str,
        deadline: Instant,
    ) -> Result<Vec<(usize, String)>, BrowserError> {
        Ok(self.send(GetProperties { object_id: array, own_properties: true }, deadline).await?.objects())
    }

    /// Calls `function` (the source of a JS function) with `args` in the helper world, awaiting a
    /// returned promise, and returns its JSON result.
    ///
    /// Helpers return `{ok: value}` or `{error: {kind, message}}`; an `error` becomes the matching
    /// [`BrowserError`] (`invalid_selector`, `element_not_found`, `ambiguous_selector` …).
    pub(in crate::browser) async fn call_helper(
        &self,
        function: &'static str,
        args: &[Value],
        deadline: Instant,
    ) -> Result<Value, BrowserError> {
        let mut retried = false;
        loop {
            let context = self.helper_context(deadline).await?;
            match self.call_in(context, function, args, &[], deadline).await {
                Err(err) if !retried && err.refusal() == Some(Refusal::ContextGone) => {
                    self.forget_helper_context(context);
                    retried = true;
                }
                other => return other,
            }
        }
    }

    /// Calls `function` in the execution context `context` with `args`, then `handles` (object
    /// ids) as trailing arguments.
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
        helper_outcome(self.send(call, deadline).await?)
    }

    /// Runs a whole script (such as a library) in the helper world.
    pub(super) async fn evaluate_in_helper_world(&self, source: &str, deadline: Instant) -> Result<(), BrowserError> {
        let context = self.helper_context(deadline).await?;
        self.load_script(context, source, deadline).await
    }

    /// Evaluates `source` in the execution context `context`; an exception is an error.
    async fn load_script(&self, context: i64, source: &str, deadline: Instant) -> Result<(), BrowserError> {
        let load =
            Evaluate { expression: source, context_id: Some(context), return_by_value: true, ..Evaluate::default() };
        match self.send(load, deadline).await?.exception_details {
            Some(details) => {
                Err(BrowserError::EvaluationFailed(format!("a script failed to load: {}", details.message())))
            }
            None => Ok(()),
        }
    }

    /// The main frame's helper world for the current document (see `helper_world`).
    pub(super) async fn helper_context(&self, deadline: Instant) -> Result<i64, BrowserError> {
        let announced = self.watch().nav.borrow().world;
        let loader = self.loader_id();
        if let Some(context) = self.helper_world().pick(announced, &loader) {
            return Ok(context);
        }
        let frame_id = self.target_id().to_owned();
        let context = self.new_world(&frame_id, deadline).await?;
        self.helper_world().made(loader, context);
        Ok(context)
    }

    /// `context` failed a call because its document went: find or make the next one next time.
    pub(super) fn forget_helper_context(&self, context: i64) {
        self.helper_world().gone(context);
    }

    /// The helper world of a frame: the main frame's cached one, or a fresh one in a child frame
    /// (child frames are only reached through refs, so the cost is paid per action there).
    pub(super) async fn frame_context(&self, frame_id: &str, deadline: Instant) -> Result<i64, BrowserError> {
        if frame_id == self.target_id() {
            return self.helper_context(deadline).await;
        }
        self.new_world(frame_id, deadline).await
    }

    /// Makes an isolated world in `frame_id` with lib.js loaded, and returns its context id.
    async fn new_world(&self, frame_id: &str, deadline: Instant) -> Result<i64, BrowserError> {
        let world = CreateIsolatedWorld { frame_id, world_name: WORLD_NAME, grant_univeral_access: true };
        let context =
            self.send(world, deadline).await?.execution_context_id.ok_or_else(|| {
                BrowserError::protocol("Page.createIsolatedWorld", "no executionContextId in the answer")
            })?;
        self.load_script(context, LIB_JS, deadline).await?;
        Ok(context)
    }
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
