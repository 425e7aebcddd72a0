//! The Target domain, as a page uses it on its own target.

use serde::Serialize;

use super::{Done, command};

/// Attaches to the workers and frames the page starts, letting each run at once.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SetAutoAttach {
    pub auto_attach: bool,
    pub wait_for_debugger_on_start: bool,
    pub flatten: bool,
}
command!(SetAutoAttach, "Target.setAutoAttach", Done);

/// The target's own description; the page sends it for its answer's round trip alone.
#[derive(Debug, Clone, Serialize)]
pub struct GetTargetInfo {}
command!(GetTargetInfo, "Target.getTargetInfo", Done);
