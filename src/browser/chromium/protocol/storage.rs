//! The Storage domain: a browser context's cookies, set and read back as a whole; and the
//! DOMStorage domain's switch for a page's Web Storage writes, and its items read once (the
//! service's mirror of a page's storage starts from them).

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

/// The items of one origin's `localStorage` (else `sessionStorage`), read without the page.
#[derive(Debug, Clone, Serialize)]
pub struct GetDomStorageItems<'a> {
    #[serde(rename = "storageId")]
    pub storage_id: StorageId<'a>,
}
command!(GetDomStorageItems<'a>, "DOMStorage.getDOMStorageItems", DomStorageItems);

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StorageId<'a> {
    pub security_origin: &'a str,
    pub is_local_storage: bool,
}

/// `[key, value]` pairs.
#[derive(Debug, Clone, Default, serde::Deserialize)]
pub struct DomStorageItems {
    #[serde(default)]
    pub entries: Vec<Vec<String>>,
}
