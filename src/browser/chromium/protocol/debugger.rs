//! The Debugger domain, turned on only for a moment: Chromium then replays every script's
//! `scriptParsed`, which names the scripts a listener's location gives by id; and the stacks behind
//! async parents Chromium keeps by id.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Done, command};

#[derive(Debug, Clone, Serialize)]
pub struct Enable {}
command!(Enable, "Debugger.enable", Done);

#[derive(Debug, Clone, Serialize)]
pub struct Disable {}
command!(Disable, "Debugger.disable", Done);

/// Breakpoints and `debugger` statements are passed over while on.
#[derive(Debug, Clone, Serialize)]
pub struct SetSkipAllPauses {
    pub skip: bool,
}
command!(SetSkipAllPauses, "Debugger.setSkipAllPauses", Done);

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
