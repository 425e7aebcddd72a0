//! The Debugger domain, off until needed: on for a moment, Chromium replays every script's
//! `scriptParsed`, which names the scripts a location gives by id; the stacks behind async parents
//! Chromium keeps by id; and, on while a page's Web Storage calls are followed (from an action in
//! a document, or for good once the page used storage), the pauses of those calls, each read (the
//! caller's frame, a side-effect-free evaluation on it) and resumed at once (see `watch::pauses`).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Done, command};

#[derive(Debug, Clone, Serialize)]
pub struct Enable {}
command!(Enable, "Debugger.enable", Done);

/// The stack behind a `Runtime.StackTraceId` (an async parent Chromium keeps by id).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GetStackTrace<'a> {
    pub stack_trace_id: &'a Value,
}
command!(GetStackTrace<'a>, "Debugger.getStackTrace", StackTrace);

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StackTrace {
    #[serde(default)]
    pub stack_trace: Option<Value>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Disable {}
command!(Disable, "Debugger.disable", Done);

/// Breakpoints and `debugger` statements are passed over while on.
#[derive(Debug, Clone, Serialize)]
pub struct SetSkipAllPauses {
    pub skip: bool,
}
command!(SetSkipAllPauses, "Debugger.setSkipAllPauses", Done);

/// Lets the paused page run on.
#[derive(Debug, Clone, Serialize)]
pub struct Resume {}
command!(Resume, "Debugger.resume", Done);

/// Removes a breakpoint (one `debug()` armed, by the id a pause named it by).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RemoveBreakpoint<'a> {
    pub breakpoint_id: &'a str,
}
command!(RemoveBreakpoint<'a>, "Debugger.removeBreakpoint", Done);

/// A script's source text, by id.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GetScriptSource<'a> {
    pub script_id: &'a str,
}
command!(GetScriptSource<'a>, "Debugger.getScriptSource", ScriptSource);

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScriptSource {
    #[serde(default)]
    pub script_source: String,
}

/// Evaluates `expression` on a paused frame, refused if it could have any side effect.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EvaluateOnCallFrame<'a> {
    pub call_frame_id: &'a str,
    pub expression: &'a str,
    pub throw_on_side_effect: bool,
    pub return_by_value: bool,
    pub silent: bool,
    /// Milliseconds the evaluation may take.
    pub timeout: u32,
}
command!(EvaluateOnCallFrame<'a>, "Debugger.evaluateOnCallFrame", Evaluated);

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Evaluated {
    #[serde(default)]
    pub result: Value,
    #[serde(default)]
    pub exception_details: Option<Value>,
}
