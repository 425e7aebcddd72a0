//! The Network and Fetch domains: the browser context's cookies, holding requests the service
//! answers itself, and loading a resource through the page's network stack (a source map).

use base64::Engine;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Done, command};
use crate::browser::chromium::ids::{FetchRequestId, RequestId};

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

/// The body of a finished response, while Chromium still has it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GetResponseBody<'a> {
    pub request_id: &'a RequestId,
}
command!(GetResponseBody<'a>, "Network.getResponseBody", Content);

/// Text as Chromium hands it over: as it is, or base64-encoded bytes.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Content {
    #[serde(default, alias = "content")]
    pub body: Option<String>,
    #[serde(default)]
    pub base64_encoded: bool,
}

impl Content {
    /// The text, decoded when it came base64-encoded (bytes that are not UTF-8 replaced).
    pub fn text(self) -> Option<String> {
        let body = self.body?;
        if !self.base64_encoded {
            return Some(body);
        }
        let bytes = base64::engine::general_purpose::STANDARD.decode(body).ok()?;
        Some(String::from_utf8_lossy(&bytes).into_owned())
    }
}

/// Posted data Chromium left out of a request's event (large bodies).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GetRequestPostData<'a> {
    pub request_id: &'a RequestId,
}
command!(GetRequestPostData<'a>, "Network.getRequestPostData", PostData);

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PostData {
    #[serde(default)]
    pub post_data: Option<String>,
}

/// Headers sent with every request of the page.
#[derive(Debug, Clone, Serialize)]
pub struct SetExtraHttpHeaders<'a> {
    pub headers: &'a serde_json::Map<String, Value>,
}
command!(SetExtraHttpHeaders<'a>, "Network.setExtraHTTPHeaders", Done);

/// Lets a held request go on untouched.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ContinueRequest<'a> {
    pub request_id: &'a FetchRequestId,
}
command!(ContinueRequest<'a>, "Fetch.continueRequest", Done);

/// Fails a held request as the page's client blocking it would.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FailRequest<'a> {
    pub request_id: &'a FetchRequestId,
    pub error_reason: ErrorReason,
}
command!(FailRequest<'a>, "Fetch.failRequest", Done);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum ErrorReason {
    BlockedByClient,
}

/// Answers a held request with a response of the service's.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FulfillRequest<'a> {
    pub request_id: &'a FetchRequestId,
    pub response_code: u16,
    pub response_headers: Vec<HeaderEntry<'a>>,
    /// Base64.
    pub body: String,
}
command!(FulfillRequest<'a>, "Fetch.fulfillRequest", Done);

#[derive(Debug, Clone, Serialize)]
pub struct HeaderEntry<'a> {
    pub name: &'a str,
    pub value: &'a str,
}

/// Loads `url` the way DevTools loads a source map: through the page's network stack (so through
/// the session's egress proxy and its allow-list), outside the page's own network events. The
/// body is read through a stream (`io::Read`).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LoadNetworkResource<'a> {
    pub frame_id: &'a str,
    pub url: &'a str,
    pub options: LoadOptions,
}
command!(LoadNetworkResource<'a>, "Network.loadNetworkResource", Loaded);

#[derive(Debug, Clone, Copy, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LoadOptions {
    pub disable_cache: bool,
    pub include_credentials: bool,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub struct Loaded {
    #[serde(default)]
    pub resource: LoadedResource,
}

/// How the load went: on success, a stream to read the body from.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LoadedResource {
    #[serde(default)]
    pub success: bool,
    /// Chromium's error name (`net::ERR_HTTP_RESPONSE_CODE_FAILURE`, `net::ERR_UNSAFE_PORT` …).
    pub net_error_name: Option<String>,
    pub http_status_code: Option<u16>,
    pub stream: Option<String>,
    /// Response headers (the egress proxy names why it refused in `x-text-browser-failure`).
    #[serde(default)]
    pub headers: serde_json::Map<String, Value>,
}
