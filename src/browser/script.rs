//! Running our helper scripts (src/js/*.js) in an isolated world.
//!
//! The isolated world shares the DOM with the page but not its JavaScript globals, so a page that
//! replaces `Array.prototype.map` or `JSON` cannot break our helpers. Values are always passed as
//! call arguments, never pasted into source. The world is made once per document and re-made when
//! the page navigates (its execution context dies with the document).

use serde_json::{Value, json};
use tokio::time::Instant;

use super::error::BrowserError;
use super::selector::{RoleSelector, Selector};
use super::session::Session;

const WORLD_NAME: &str = "text-browser";
const LIB_JS: &str = include_str!("../js/lib.js");
/// The first element a selector spec matches, as an object (or null).
const FIRST_MATCH_JS: &str = include_str!("../js/first_match.js");

/// Role-selector matches handed to a script, at most this many.
const MAX_HANDLES: usize = 20;
/// The object group role-selector handles live in, released after each call.
const HANDLE_GROUP: &str = "text-browser-handles";

impl Session {
    /// Calls `function` (the source of a JS function) with `args` in the helper world, awaiting a
    /// returned promise, and returns its JSON result.
    ///
    /// Helpers return `{ok: value}` or `{error: {kind, message}}`; an `error` becomes the matching
    /// [`BrowserError`] (`invalid_selector`, `element_not_found`, `ambiguous_selector` …).
    pub async fn call_helper(
        &self,
        function: &'static str,
        args: &[Value],
        deadline: Instant,
    ) -> Result<Value, BrowserError> {
        self.call_helper_on(function, None, args, deadline).await
    }

    /// Like [`Session::call_helper`], for a selector resolved outside the page: the elements a
    /// role selector matches (through Chromium's accessibility tree) or a ref's element are passed
    /// as trailing arguments. A ref's script runs in its element's frame.
    pub async fn call_helper_on(
        &self,
        function: &'static str,
        selector: Option<&Selector>,
        args: &[Value],
        deadline: Instant,
    ) -> Result<Value, BrowserError> {
        let mut retried = false;
        let resolved_outside = matches!(selector, Some(Selector::Role(_) | Selector::Ref(_)));
        loop {
            let (context, handles) = match selector {
                Some(Selector::Role(role)) => {
                    let context = self.helper_context(deadline).await?;
                    (context, self.role_handles(role, context, deadline).await?)
                }
                Some(Selector::Ref(name)) => {
                    let (context, handle) = self.ref_handle(name, HANDLE_GROUP, deadline).await?;
                    (context, vec![handle])
                }
                _ => (self.helper_context(deadline).await?, Vec::new()),
            };
            let mut arguments: Vec<Value> = args.iter().map(|a| json!({ "value": a })).collect();
            arguments.extend(handles.into_iter().map(|handle| json!({ "objectId": handle })));
            let params = json!({
                "functionDeclaration": function,
                "executionContextId": context,
                "arguments": arguments,
                "returnByValue": true,
                "awaitPromise": true,
            });
            let answer = self.cdp("Runtime.callFunctionOn", params, deadline).await;
            if resolved_outside {
                let _ = self.cdp("Runtime.releaseObjectGroup", json!({ "objectGroup": HANDLE_GROUP }), deadline).await;
            }
            match answer {
                // The document changed between making the world and using it: make a new one.
                Err(BrowserError::Protocol { message, .. }) if !retried && message.contains("context") => {
                    self.forget_helper_context();
                    retried = true;
                }
                Err(err) => return Err(err),
                Ok(answer) => return helper_outcome(answer),
            }
        }
    }

    /// The backend node id of the first element `selector` matches (refs resolve without the page).
    pub(super) async fn element_backend_id(&self, selector: &str, deadline: Instant) -> Result<i64, BrowserError> {
        let parsed = Selector::parse(selector)?;
        if let Selector::Ref(name) = &parsed {
            let loader = self.watch.nav.borrow().loader_id.clone();
            let refs = self.refs.lock().unwrap_or_else(|p| p.into_inner());
            return refs.resolve(&loader, name).map(|t| t.backend_node_id).map_err(BrowserError::StaleRef);
        }
        let context = self.helper_context(deadline).await?;
        let mut arguments = vec![json!({ "value": parsed.spec(selector) })];
        if let Selector::Role(role) = &parsed {
            for handle in self.role_handles(role, context, deadline).await? {
                arguments.push(json!({ "objectId": handle }));
            }
        }
        let params = json!({
            "functionDeclaration": FIRST_MATCH_JS,
            "executionContextId": context,
            "arguments": arguments,
            "objectGroup": HANDLE_GROUP,
        });
        let answer = self.cdp("Runtime.callFunctionOn", params, deadline).await;
        let found = async {
            let answer = answer?;
            if let Some(details) = answer.get("exceptionDetails") {
                return Err(BrowserError::InvalidSelector {
                    selector: selector.to_owned(),
                    reason: exception_message(details),
                });
            }
            let Some(object) = answer.pointer("/result/objectId").and_then(Value::as_str) else {
                return Err(BrowserError::ElementNotFound(selector.to_owned()));
            };
            let node = self.cdp("DOM.describeNode", json!({ "objectId": object }), deadline).await?;
            node.pointer("/node/backendNodeId")
                .and_then(Value::as_i64)
                .ok_or_else(|| BrowserError::ElementNotFound(selector.to_owned()))
        }
        .await;
        let _ = self.cdp("Runtime.releaseObjectGroup", json!({ "objectGroup": HANDLE_GROUP }), deadline).await;
        found
    }

    /// The elements matching a role selector, as object ids in the helper world.
    async fn role_handles(
        &self,
        role: &RoleSelector,
        context: i64,
        deadline: Instant,
    ) -> Result<Vec<String>, BrowserError> {
        let document = self.cdp("DOM.getDocument", json!({ "depth": 0 }), deadline).await?;
        let root = document.pointer("/root/backendNodeId").cloned().unwrap_or(Value::Null);
        let answer = self
            .cdp("Accessibility.queryAXTree", json!({ "backendNodeId": root, "role": role.role }), deadline)
            .await?;
        let nodes = answer.get("nodes").and_then(Value::as_array).cloned().unwrap_or_default();
        let mut handles = Vec::new();
        for node in nodes.iter().filter(|n| role.matches(n)).take(MAX_HANDLES) {
            let Some(backend) = node.get("backendDOMNodeId").and_then(Value::as_i64) else { continue };
            let params =
                json!({ "backendNodeId": backend, "executionContextId": context, "objectGroup": HANDLE_GROUP });
            if let Ok(resolved) = self.cdp("DOM.resolveNode", params, deadline).await
                && let Some(id) = resolved.pointer("/object/objectId").and_then(Value::as_str)
            {
                handles.push(id.to_owned());
            }
        }
        Ok(handles)
    }

    /// Runs a whole script (such as a library) in the helper world.
    pub(super) async fn evaluate_in_helper_world(&self, source: &str, deadline: Instant) -> Result<(), BrowserError> {
        let context = self.helper_context(deadline).await?;
        self.load_script(context, source, deadline).await
    }

    /// Evaluates `source` in the execution context `context`; an exception is an error.
    async fn load_script(&self, context: i64, source: &str, deadline: Instant) -> Result<(), BrowserError> {
        let params = json!({ "expression": source, "contextId": context, "returnByValue": true });
        let answer = self.cdp("Runtime.evaluate", params, deadline).await?;
        match answer.get("exceptionDetails") {
            Some(details) => {
                Err(BrowserError::EvaluationFailed(format!("a script failed to load: {}", exception_message(details))))
            }
            None => Ok(()),
        }
    }

    async fn helper_context(&self, deadline: Instant) -> Result<i64, BrowserError> {
        let loader = self.watch.nav.borrow().loader_id.clone();
        if let Some((_, context)) = self.cached_world().filter(|(cached, _)| *cached == loader) {
            return Ok(context);
        }
        let frame_id = self.page.target_id().as_ref().to_owned();
        let context = self.new_world(&frame_id, deadline).await?;
        *self.helper_world.lock().unwrap_or_else(|p| p.into_inner()) = Some((loader, context));
        Ok(context)
    }

    /// The helper world of a frame: the main frame's cached one, or a fresh one in a child frame
    /// (child frames are only reached through refs, so the cost is paid per action there).
    pub(super) async fn frame_context(&self, frame_id: &str, deadline: Instant) -> Result<i64, BrowserError> {
        if frame_id == self.page.target_id().as_ref() {
            return self.helper_context(deadline).await;
        }
        self.new_world(frame_id, deadline).await
    }

    /// Makes an isolated world in `frame_id` with lib.js loaded, and returns its context id.
    async fn new_world(&self, frame_id: &str, deadline: Instant) -> Result<i64, BrowserError> {
        let answer = self
            .cdp(
                "Page.createIsolatedWorld",
                json!({ "frameId": frame_id, "worldName": WORLD_NAME, "grantUniveralAccess": true }),
                deadline,
            )
            .await?;
        let context =
            answer.get("executionContextId").and_then(Value::as_i64).ok_or_else(|| BrowserError::Protocol {
                method: "Page.createIsolatedWorld".into(),
                message: "no executionContextId in the answer".into(),
            })?;
        self.load_script(context, LIB_JS, deadline).await?;
        Ok(context)
    }

    fn cached_world(&self) -> Option<(String, i64)> {
        self.helper_world.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    fn forget_helper_context(&self) {
        *self.helper_world.lock().unwrap_or_else(|p| p.into_inner()) = None;
    }
}

/// Reads a helper's `{ok}` / `{error}` answer out of a `Runtime.callFunctionOn` response.
fn helper_outcome(mut answer: Value) -> Result<Value, BrowserError> {
    if let Some(details) = answer.get("exceptionDetails") {
        return Err(BrowserError::EvaluationFailed(format!("a helper script failed: {}", exception_message(details))));
    }
    let mut value = answer["result"]["value"].take();
    if let Some(error) = value.get("error") {
        let kind = error["kind"].as_str().unwrap_or_default();
        let message = error["message"].as_str().unwrap_or_default().to_owned();
        let subject = error["selector"].as_str().unwrap_or_default().to_owned();
        return Err(match kind {
            "invalid_selector" => BrowserError::InvalidSelector { selector: subject, reason: message },
            "element_not_found" => BrowserError::ElementNotFound(subject),
            "ambiguous_selector" => BrowserError::Ambiguous {
                selector: subject,
                count: error["count"].as_u64().unwrap_or_default(),
                candidates: error["candidates"]
                    .as_array()
                    .map(|c| c.iter().filter_map(Value::as_str).map(str::to_owned).collect())
                    .unwrap_or_default(),
            },
            "not_actionable" => BrowserError::NotActionable { selector: subject, reason: message },
            "stale_ref" => BrowserError::StaleRef(format!("{subject}: {message}")),
            "axe_unavailable" => BrowserError::AxeUnavailable(message),
            _ => BrowserError::EvaluationFailed(message),
        });
    }
    Ok(value.get_mut("ok").map(Value::take).unwrap_or(Value::Null))
}

/// The most useful one-line description of a CDP `exceptionDetails`.
pub fn exception_message(details: &Value) -> String {
    let description = details["exception"]["description"].as_str();
    let value = details["exception"]["value"].as_str();
    let text = details["text"].as_str().unwrap_or("exception");
    let message = description.or(value).unwrap_or(text);
    let mut message: String = message.chars().take(2000).collect();
    if message.is_empty() {
        message = text.to_owned();
    }
    message
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helper_error_kinds_map_to_browser_errors() {
        let answer = json!({"result":{"value":{"error":{"kind":"invalid_selector","selector":"##","message":"bad"}}}});
        assert!(matches!(helper_outcome(answer), Err(BrowserError::InvalidSelector { .. })));
        let answer = json!({"result":{"value":{"error":{"kind":"element_not_found","selector":"#x"}}}});
        assert!(matches!(helper_outcome(answer), Err(BrowserError::ElementNotFound(s)) if s == "#x"));
        let answer = json!({"result":{"value":{"ok":"text"}}});
        assert_eq!(helper_outcome(answer).unwrap(), json!("text"));
    }

    #[test]
    fn exception_message_prefers_the_description() {
        let details = json!({"text":"Uncaught","exception":{"description":"Error: boom\n    at x"}});
        assert_eq!(exception_message(&details), "Error: boom\n    at x");
        let details = json!({"text":"Uncaught","exception":{"value":"a thrown string"}});
        assert_eq!(exception_message(&details), "a thrown string");
        let details = json!({"text":"Uncaught"});
        assert_eq!(exception_message(&details), "Uncaught");
    }
}
