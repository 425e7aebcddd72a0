//! The Target domain: a page on its own target, and a session on the browser's targets and
//! contexts.

use serde::{Deserialize, Serialize};

use super::{Done, command};
use crate::browser::chromium::ids::{BrowserContextId, TargetId};
use crate::browser::chromium::kinds::TargetKind;

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

/// A new isolated browser context (a session's), its traffic through `proxy_server`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateBrowserContext<'a> {
    pub dispose_on_detach: bool,
    pub proxy_server: &'a str,
    pub proxy_bypass_list: &'a str,
}
command!(CreateBrowserContext<'a>, "Target.createBrowserContext", ContextCreated);

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContextCreated {
    #[serde(default)]
    pub browser_context_id: Option<BrowserContextId>,
}

/// Closes a browser context and every page in it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DisposeBrowserContext<'a> {
    pub browser_context_id: &'a BrowserContextId,
}
command!(DisposeBrowserContext<'a>, "Target.disposeBrowserContext", Done);

/// Every target of the browser.
#[derive(Debug, Clone, Serialize)]
pub struct GetTargets {}
command!(GetTargets, "Target.getTargets", Targets);

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Targets {
    #[serde(default)]
    pub target_infos: Vec<TargetInfo>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TargetInfo {
    #[serde(default)]
    pub target_id: TargetId,
    #[serde(default, rename = "type")]
    pub kind: TargetKind,
    #[serde(default)]
    pub browser_context_id: Option<BrowserContextId>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CloseTarget<'a> {
    pub target_id: &'a str,
}
command!(CloseTarget<'a>, "Target.closeTarget", Done);
