//! The Storage domain: a browser context's cookies, set and read back as a whole; and the
//! DOMStorage domain's switch for a page's Web Storage writes.

use serde::Serialize;
use serde_json::Value;

use super::network::Cookies;
use super::{Done, command};
use crate::browser::chromium::ids::BrowserContextId;

/// Sets cookies (`Network.CookieParam` objects) in a browser context.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SetCookies<'a> {
    pub cookies: Vec<Value>,
    pub browser_context_id: &'a BrowserContextId,
}
command!(SetCookies<'a>, "Storage.setCookies", Done);

/// Every cookie of a browser context.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GetCookies<'a> {
    pub browser_context_id: &'a BrowserContextId,
}
command!(GetCookies<'a>, "Storage.getCookies", Cookies);

/// Reports the page's Web Storage writes (`DOMStorage.domStorageItem*` events).
#[derive(Debug, Clone, Serialize)]
pub struct DomStorageEnable {}
command!(DomStorageEnable, "DOMStorage.enable", Done);
