//! The Browser domain, as a session uses it on its browser context: where downloads go, which
//! permissions its pages have, and stopping a download that grew too large.

use serde::Serialize;

use super::{Done, command};
use crate::browser::chromium::ids::BrowserContextId;

/// Saves the context's downloads into `download_path`, each named by its guid, and reports them
/// (`Browser.downloadWillBegin`, `Browser.downloadProgress`).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SetDownloadBehavior<'a> {
    pub behavior: DownloadBehavior,
    pub browser_context_id: &'a BrowserContextId,
    pub download_path: String,
    pub events_enabled: bool,
}
command!(SetDownloadBehavior<'a>, "Browser.setDownloadBehavior", Done);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum DownloadBehavior {
    /// Saved, named by the download's guid.
    AllowAndName,
}

/// Grants the context's pages `permissions` (`geolocation` …).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GrantPermissions<'a> {
    pub permissions: Vec<&'static str>,
    pub browser_context_id: &'a BrowserContextId,
}
command!(GrantPermissions<'a>, "Browser.grantPermissions", Done);

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CancelDownload<'a> {
    pub guid: &'a str,
    pub browser_context_id: &'a BrowserContextId,
}
command!(CancelDownload<'a>, "Browser.cancelDownload", Done);
