//! Running our helper scripts (src/js/*.js) in an isolated world.
//!
//! The isolated world shares the DOM with the page but not its JavaScript globals, so a page that
//! replaces `Array.prototype.map` or `JSON` cannot break our helpers. Values are always passed as
//! call arguments, never pasted into source. The world is made once per document and re-made when
//! the page navigates (its execution context dies with the document).

use serde_json::{Value, json};
use tokio::time::Instant;

use super::error::BrowserError;
use super::session::Session;

const WORLD_NAME: &str = "text-browser";

impl Session {
    /// Calls `function` (the source of a JS function) with `args` in the helper world, awaiting a
    /// returned promise, and returns its JSON result.
    ///
    /// Helpers return `{ok: value}` or `{error: {kind, message}}`; an `error` becomes the matching
    /// [`BrowserError`] (`invalid_selector`, `element_not_found`).
    pub async fn call_helper(
        &self,
        function: &'static str,
        args: &[Value],
        deadline: Instant,
    ) -> Result<Value, BrowserError> {
        let arguments: Vec<Value> = args.iter().map(|a| json!({ "value": a })).collect();
        let mut retried = false;
        loop {
            let context = self.helper_context(deadline).await?;
            let params = json!({
                "functionDeclaration": function,
                "executionContextId": context,
                "arguments": arguments,
                "returnByValue": true,
                "awaitPromise": true,
            });
            match self.cdp("Runtime.callFunctionOn", params, deadline).await {
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

    async fn helper_context(&self, deadline: Instant) -> Result<i64, BrowserError> {
        let loader = self.watch.nav.borrow().loader_id.clone();
        if let Some((_, context)) = self.cached_world().filter(|(cached, _)| *cached == loader) {
            return Ok(context);
        }
        let frame_id = self.page.target_id().as_ref().to_owned();
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
        *self.helper_world.lock().unwrap_or_else(|p| p.into_inner()) = Some((loader, context));
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
