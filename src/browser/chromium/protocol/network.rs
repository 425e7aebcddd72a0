//! The Network and Fetch domains: the browser context's cookies, and holding requests the
//! service answers itself.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Done, command};

/// Every cookie of the page's browser context, as `Network.Cookie` objects.
#[derive(Debug, Clone, Serialize)]
pub struct GetAllCookies {}
command!(GetAllCookies, "Network.getAllCookies", Cookies);

#[derive(Debug, Clone, Default, Deserialize)]
pub struct Cookies {
    #[serde(default)]
    pub cookies: Vec<Value>,
}

/// Sets cookies (`Network.CookieParam` objects).
#[derive(Debug, Clone, Serialize)]
pub struct SetCookies {
    pub cookies: Vec<Value>,
}
command!(SetCookies, "Network.setCookies", Done);

#[derive(Debug, Clone, Serialize)]
pub struct ClearBrowserCookies {}
command!(ClearBrowserCookies, "Network.clearBrowserCookies", Done);

/// Holds the requests matching `patterns` (`Fetch.requestPaused`) until the service answers.
#[derive(Debug, Clone, Serialize)]
pub struct FetchEnable<'a> {
    pub patterns: Vec<RequestPattern<'a>>,
}
command!(FetchEnable<'a>, "Fetch.enable", Done);

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestPattern<'a> {
    pub url_pattern: &'a str,
    pub request_stage: RequestStage,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum RequestStage {
    /// Before the request is sent.
    Request,
}

#[derive(Debug, Clone, Serialize)]
pub struct FetchDisable {}
command!(FetchDisable, "Fetch.disable", Done);
