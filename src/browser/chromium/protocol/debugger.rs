//! The Debugger domain, turned on only for a moment: Chromium then replays every script's
//! `scriptParsed`, which names the scripts a listener's location gives by id.

use serde::Serialize;

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
