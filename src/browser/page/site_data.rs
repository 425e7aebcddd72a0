//! The session's cookies and the current origin's web storage, read and written from its page
//! (`storage.state`, `cookies.*`, `storage.local`, `storage.session`).
//!
//! Cookies go through the page's own `Network` domain, which works on its browser context's
//! cookie jar: a session never sees another's. Web storage is read and written by a helper script
//! in the page's origin, so it is exactly what the page's scripts see.

use serde_json::{Value, json};
use tokio::time::Instant;

use super::handle::Page;
use super::locate::scripts::WebStorageOf;
use crate::browser::chromium::protocol::network::{ClearBrowserCookies, GetAllCookies, SetCookies};
use crate::browser::error::BrowserError;

/// localStorage or sessionStorage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum WebStorage {
    Local,
    Session,
}

/// An origin's items, as the page sees them.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredItems {
    pub origin: String,
    pub items: Vec<(String, String)>,
}

/// The session's cookies and the current origin's web storage (see the module doc): `page.site_data()`.
#[derive(Clone, Copy)]
pub struct SiteData<'a> {
    page: &'a Page,
}

impl Page {
    /// The session's cookies and the current origin's web storage.
    pub fn site_data(&self) -> SiteData<'_> {
        SiteData { page: self }
    }
}

impl<'a> SiteData<'a> {
    /// Every cookie of the session (CDP `Network.Cookie` objects).
    pub async fn cookies(self, deadline: Instant) -> Result<Vec<Value>, BrowserError> {
        Ok(self.page.send(GetAllCookies {}, deadline).await?.cookies)
    }

    /// Sets cookies (CDP `Network.CookieParam` objects).
    pub async fn set_cookies(self, cookies: Vec<Value>, deadline: Instant) -> Result<(), BrowserError> {
        self.page.send(SetCookies { cookies }, deadline).await.map(|_| ())
    }

    /// Deletes every cookie of the session.
    pub async fn clear_cookies(self, deadline: Instant) -> Result<(), BrowserError> {
        self.page.send(ClearBrowserCookies {}, deadline).await.map(|_| ())
    }

    /// Optionally clears, then writes `set` into, the current origin's `which` storage; returns
    /// what it holds then.
    pub async fn web_storage(
        self,
        which: WebStorage,
        clear: bool,
        set: &[(String, String)],
        deadline: Instant,
    ) -> Result<StoredItems, BrowserError> {
        let set: serde_json::Map<String, Value> = set.iter().map(|(k, v)| (k.clone(), json!(v))).collect();
        let args = [json!(which), json!(clear), Value::Object(set)];
        let stored = self.page.locate().call(WebStorageOf, &args, deadline).await?;
        let items = stored.items.into_iter().map(|item| (item.name, item.value)).collect();
        Ok(StoredItems { origin: stored.origin, items })
    }
}
