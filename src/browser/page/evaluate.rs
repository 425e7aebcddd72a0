//! `page.evaluate`: run an agent's JavaScript in the page's own world and return JSON.
//!
//! Step one evaluates the expression. A primitive result is returned at once (one round trip).
//! A function is then called with `arg`. An object or promise goes through `js/settle.js`, which
//! awaits a promise and either returns JSON text or says exactly why the value is not JSON. One
//! browser command may wait at most 30 s (chromiumoxide's own limit, which no setting changes), so
//! a promise is awaited in slices of [`SLICE`] until it settles or the call's deadline passes: a
//! `timeout` of up to MAX_CALL_MS is honoured. Results are at most [`MAX_RESULT_BYTES`] of JSON,
//! checked in the page before anything larger is sent. If the deadline passes, the page's script
//! is terminated so the session stays usable.

use std::time::Duration;

use serde_json::{Value, json};
use tokio::time::Instant;

use super::handle::Page;
use super::locate::answers::SettleAnswer;
use super::locate::scripts::{Script, Settle};
use crate::browser::chromium::protocol::runtime::{
    CallArgument, CallFunctionOn, Evaluate, Evaluated, ObjectType, ReleaseObject, RemoteObject, TerminateExecution,
};
use crate::browser::error::BrowserError;

/// Calls a function result with the caller's `arg` (its result, maybe a promise, is settled next).
const CALL_WITH_ARG_JS: &str = "function (arg) { return this(arg); }";

/// Results larger than this are refused (`result_too_large`) rather than shipped through the
/// service: the README's documented limit.
pub const MAX_RESULT_BYTES: usize = 10 * 1024 * 1024;
/// The longest one settle command waits for a promise; well under chromiumoxide's 30 s.
const SLICE: Duration = Duration::from_secs(20);
/// How long before the deadline the last slice ends.
const SLICE_MARGIN: Duration = Duration::from_millis(100);

impl Page {
    pub async fn evaluate(
        &self,
        expression: &str,
        arg: Option<&Value>,
        deadline: Instant,
    ) -> Result<Value, BrowserError> {
        let outcome = evaluate_inner(self, expression, arg, deadline).await;
        if matches!(outcome, Err(BrowserError::Timeout(_) | BrowserError::NoAnswer(_))) {
            terminate_running_script(self);
        }
        // A password this session typed is never handed back, even when asked for.
        outcome.map(|value| self.redact_json(value))
    }
}

async fn evaluate_inner(
    page: &Page,
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
    let evaluate = Evaluate { expression, repl_mode: true, user_gesture: true, ..Evaluate::default() };
    let first = page.send(evaluate, deadline).await.map_err(timeout_says("the expression"))?;
    let mut result = threw(first)?;
    let mut held = Vec::new();
    if let Some(id) = result.object_id.clone() {
        held.push(id.clone());
        if result.kind == ObjectType::Function {
            let call = CallFunctionOn {
                function_declaration: CALL_WITH_ARG_JS,
                object_id: Some(&id),
                arguments: arg.map(|arg| vec![CallArgument::Value { value: arg.clone() }]).unwrap_or_default(),
                user_gesture: true,
                ..CallFunctionOn::default()
            };
            let called = page.send(call, deadline).await.map_err(timeout_says("the expression's function"))?;
            result = threw(called)?;
            held.extend(result.object_id.clone());
        }
    }
    let outcome = match &result.object_id {
        None => primitive(&result),
        Some(id) => settle_result(page, id, deadline).await,
    };
    for id in held {
        page.send_detached(ReleaseObject { object_id: &id });
    }
    outcome
}

/// The JSON of the object `id` (a promise once it settles), awaited in slices of [`SLICE`].
async fn settle_result(page: &Page, id: &str, deadline: Instant) -> Result<Value, BrowserError> {
    loop {
        // A slice ends a little before the deadline, so a promise still pending says so itself.
        let left = crate::browser::chromium::cdp::remaining(deadline).saturating_sub(SLICE_MARGIN);
        let slice = SLICE.min(left).as_millis().max(1) as u64;
        let call = CallFunctionOn {
            function_declaration: Settle::SOURCE,
            object_id: Some(id),
            arguments: vec![
                CallArgument::Value { value: json!(slice) },
                CallArgument::Value { value: json!(MAX_RESULT_BYTES) },
            ],
            return_by_value: true,
            await_promise: true,
            user_gesture: true,
            ..CallFunctionOn::default()
        };
        // The deadline passing during this wait (a busy machine answers the slice late) is
        // still the promise not settling in time.
        let settled = page.send(call, deadline).await.map_err(|err| match err {
            BrowserError::Timeout(_) | BrowserError::NoAnswer(_) => unsettled(),
            other => other,
        })?;
        let value = threw(settled)?.value.unwrap_or_default();
        let settled: SettleAnswer = serde_json::from_value::<Option<SettleAnswer>>(value)
            .map_err(|e| BrowserError::HelperScript(format!("settle.js answered something unexpected: {e}")))?
            .unwrap_or_default();
        if settled.pending {
            if Instant::now() >= deadline {
                return Err(unsettled());
            }
            continue;
        }
        if let Some(reason) = settled.error {
            return Err(BrowserError::NotSerializable(reason));
        }
        if let Some(length) = settled.too_large {
            return Err(too_large(length as usize));
        }
        return match settled.json {
            None => Ok(Value::Null),
            Some(text) if text.len() > MAX_RESULT_BYTES => Err(too_large(text.len())),
            Some(text) => serde_json::from_str(&text)
                .map_err(|e| BrowserError::NotSerializable(format!("the page produced invalid JSON ({e})"))),
        };
    }
}

/// Stops a script stuck in the page (e.g. `while(true){}`) after its call timed out.
fn terminate_running_script(page: &Page) {
    page.send_detached(TerminateExecution {});
}

/// A step's result, or the exception it threw as `evaluation_failed`.
fn threw(answer: Evaluated) -> Result<RemoteObject, BrowserError> {
    match answer.exception_details {
        Some(details) => Err(BrowserError::EvaluationFailed(format!("the expression threw: {}", details.message()))),
        None => Ok(answer.result),
    }
}

fn unsettled() -> BrowserError {
    BrowserError::Timeout("the expression's promise did not settle before the timeout".into())
}

fn too_large(length: usize) -> BrowserError {
    BrowserError::TooLarge(format!(
        "the result is {length} characters of JSON, more than the {} MiB page.evaluate returns; return less \
         (a slice, a count, the fields you need)",
        MAX_RESULT_BYTES / (1024 * 1024)
    ))
}

/// A primitive `RemoteObject` as JSON; values JSON cannot carry are an error, and so is a string
/// past the size limit.
fn primitive(result: &RemoteObject) -> Result<Value, BrowserError> {
    if let Some(text) = result.value.as_ref().and_then(Value::as_str)
        && text.len() + 2 > MAX_RESULT_BYTES
    {
        return Err(too_large(text.len() + 2));
    }
    if let Some(unserializable) = &result.unserializable_value {
        return Err(BrowserError::NotSerializable(format!(
            "the result is {unserializable}, which JSON cannot represent"
        )));
    }
    match result.kind {
        ObjectType::Undefined => Ok(Value::Null),
        ObjectType::Symbol => Err(BrowserError::NotSerializable("the result is a Symbol".into())),
        _ => Ok(result.value.clone().unwrap_or(Value::Null)),
    }
}

fn timeout_says(what: &'static str) -> impl Fn(BrowserError) -> BrowserError {
    move |err| match err {
        BrowserError::Timeout(_) => BrowserError::Timeout(format!("{what} did not finish before the timeout")),
        BrowserError::NoAnswer(why) => BrowserError::Timeout(format!("{what} did not finish: {why}")),
        other => other,
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    fn primitive(result: Value) -> Result<Value, BrowserError> {
        super::primitive(&serde_json::from_value(result).unwrap())
    }

    #[test]
    fn primitives_become_json() {
        assert_eq!(primitive(json!({"type":"number","value":2})).unwrap(), json!(2));
        assert_eq!(primitive(json!({"type":"undefined"})).unwrap(), Value::Null);
        assert_eq!(primitive(json!({"type":"string","value":"x"})).unwrap(), json!("x"));
    }

    #[test]
    fn nan_and_bigint_are_refused_with_the_value_named() {
        let err = primitive(json!({"type":"number","unserializableValue":"NaN"})).unwrap_err();
        assert!(err.to_string().contains("NaN"));
        let err = primitive(json!({"type":"bigint","unserializableValue":"10n"})).unwrap_err();
        assert!(err.to_string().contains("10n"));
    }
}
