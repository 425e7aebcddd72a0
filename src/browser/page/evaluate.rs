//! `page.evaluate`: run an agent's JavaScript in the page's own world and return JSON.
//!
//! Step one evaluates the expression. A primitive result is returned at once (one round trip).
//! An object, function or promise goes through `js/settle.js`, which calls a function with `arg`,
//! awaits a promise and either returns JSON text or says exactly why the value is not JSON.
//! If the deadline passes, the page's script is terminated so the session stays usable.

use serde_json::{Value, json};
use tokio::time::Instant;

use super::handle::Page;
use super::script::exception_message;
use crate::browser::error::BrowserError;

const SETTLE_JS: &str = include_str!("../../js/settle.js");

/// Results larger than this are refused rather than shipped through the service.
const MAX_RESULT_BYTES: usize = 10 * 1024 * 1024;

impl Page {
    pub async fn evaluate(
        &self,
        expression: &str,
        arg: Option<&Value>,
        deadline: Instant,
    ) -> Result<Value, BrowserError> {
        let outcome = self.evaluate_inner(expression, arg, deadline).await;
        if matches!(outcome, Err(BrowserError::Timeout(_))) {
            self.terminate_running_script();
        }
        // A password this session typed is never handed back, even when asked for.
        outcome.map(|value| self.redact_json(value))
    }

    async fn evaluate_inner(
        &self,
        expression: &str,
        arg: Option<&Value>,
        deadline: Instant,
    ) -> Result<Value, BrowserError> {
        // With an argument, the expression is the body of a function of `arg` (as in the v1
        // contract's `new Function('arg', 'return (' + expression + ')')`): a plain expression
        // sees `arg`, and a function expression is called with it.
        let wrapped;
        let expression = match arg {
            Some(_) => {
                wrapped = format!(
                    "(async function (arg) {{ const __textBrowserValue = (\n{expression}\n); \
                     return typeof __textBrowserValue === 'function' ? __textBrowserValue(arg) : __textBrowserValue; }})"
                );
                wrapped.as_str()
            }
            None => expression,
        };
        let first = self
            .cdp(
                "Runtime.evaluate",
                json!({ "expression": expression, "replMode": true, "userGesture": true, "awaitPromise": false }),
                deadline,
            )
            .await
            .map_err(timeout_says("the expression"))?;
        if let Some(details) = first.get("exceptionDetails") {
            return Err(BrowserError::EvaluationFailed(format!(
                "the expression threw: {}",
                exception_message(details)
            )));
        }
        let result = &first["result"];
        let Some(object_id) = result.get("objectId").and_then(Value::as_str) else {
            return primitive(result);
        };
        let mut params = json!({
            "functionDeclaration": SETTLE_JS,
            "objectId": object_id,
            "returnByValue": true,
            "awaitPromise": true,
            "userGesture": true,
        });
        if let Some(arg) = arg {
            params["arguments"] = json!([{ "value": arg }]);
        }
        let settled = self
            .cdp("Runtime.callFunctionOn", params, deadline)
            .await
            .map_err(timeout_says("the expression's function or promise"))?;
        let _ = self.cdp("Runtime.releaseObject", json!({ "objectId": object_id }), deadline).await;
        if let Some(details) = settled.get("exceptionDetails") {
            return Err(BrowserError::EvaluationFailed(format!(
                "the expression threw: {}",
                exception_message(details)
            )));
        }
        let value = &settled["result"]["value"];
        if let Some(reason) = value.get("error").and_then(Value::as_str) {
            return Err(BrowserError::NotSerializable(reason.to_owned()));
        }
        match value.get("json").and_then(Value::as_str) {
            None => Ok(Value::Null),
            Some(text) if text.len() > MAX_RESULT_BYTES => Err(BrowserError::NotSerializable(format!(
                "it is {} bytes of JSON, more than the {} MiB limit; return less",
                text.len(),
                MAX_RESULT_BYTES / (1024 * 1024)
            ))),
            Some(text) => serde_json::from_str(text)
                .map_err(|e| BrowserError::NotSerializable(format!("the page produced invalid JSON ({e})"))),
        }
    }

    /// Stops a script stuck in the page (e.g. `while(true){}`) after its call timed out.
    fn terminate_running_script(&self) {
        self.cdp_detached("Runtime.terminateExecution", json!({}));
    }
}

/// A primitive `RemoteObject` as JSON; values JSON cannot carry are an error.
fn primitive(result: &Value) -> Result<Value, BrowserError> {
    if let Some(unserializable) = result.get("unserializableValue").and_then(Value::as_str) {
        return Err(BrowserError::NotSerializable(format!(
            "the result is {unserializable}, which JSON cannot represent"
        )));
    }
    match result["type"].as_str() {
        Some("undefined") => Ok(Value::Null),
        Some("symbol") => Err(BrowserError::NotSerializable("the result is a Symbol".into())),
        _ => Ok(result.get("value").cloned().unwrap_or(Value::Null)),
    }
}

fn timeout_says(what: &'static str) -> impl Fn(BrowserError) -> BrowserError {
    move |err| match err {
        BrowserError::Timeout(_) => BrowserError::Timeout(format!("{what} did not finish before the timeout")),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn primitives_become_json() {
        assert_eq!(primitive(&json!({"type":"number","value":2})).unwrap(), json!(2));
        assert_eq!(primitive(&json!({"type":"undefined"})).unwrap(), Value::Null);
        assert_eq!(primitive(&json!({"type":"string","value":"x"})).unwrap(), json!("x"));
    }

    #[test]
    fn nan_and_bigint_are_refused_with_the_value_named() {
        let err = primitive(&json!({"type":"number","unserializableValue":"NaN"})).unwrap_err();
        assert!(err.to_string().contains("NaN"));
        let err = primitive(&json!({"type":"bigint","unserializableValue":"10n"})).unwrap_err();
        assert!(err.to_string().contains("10n"));
    }
}
