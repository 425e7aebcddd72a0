//! The session's cookies and the current origin's web storage, read and written from its page
//! (`storage.state`, `cookies.*`, `storage.local`, `storage.session`).
//!
//! Cookies go through the page's own `Network` domain, which works on its browser context's
//! cookie jar: a session never sees another's. Web storage is read and written by a helper script
//! in the page's origin, so it is exactly what the page's scripts see.

use serde_json::{Value, json};
use tokio::time::Instant;

use super::handle::Page;
use crate::browser::chromium::protocol::network::{ClearBrowserCookies, GetAllCookies, SetCookies};
use crate::browser::error::BrowserError;

const WEB_STORAGE_JS: &str = include_str!("../../js/web_storage.js");

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

impl Page {
    /// Every cookie of the session (CDP `Network.Cookie` objects).
    pub async fn cookies(&self, deadline: Instant) -> Result<Vec<Value>, BrowserError> {
        Ok(self.send(GetAllCookies {}, deadline).await?.cookies)
    }

    /// Sets cookies (CDP `Network.CookieParam` objects).
    pub async fn set_cookies(&self, cookies: Vec<Value>, deadline: Instant) -> Result<(), BrowserError> {
        self.send(SetCookies { cookies }, deadline).await.map(|_| ())
    }

    /// Deletes every cookie of the session.
    pub async fn clear_cookies(&self, deadline: Instant) -> Result<(), BrowserError> {
        self.send(ClearBrowserCookies {}, deadline).await.map(|_| ())
    }

    /// Optionally clears, then writes `set` into, the current origin's `which` storage; returns
    /// what it holds then.
    pub async fn web_storage(
        &self,
        which: WebStorage,
        clear: bool,
        set: &[(String, String)],
        deadline: Instant,
    ) -> Result<StoredItems, BrowserError> {
        let set: serde_json::Map<String, Value> = set.iter().map(|(k, v)| (k.clone(), json!(v))).collect();
        let answer =
            self.call_helper(WEB_STORAGE_JS, &[json!(which), json!(clear), Value::Object(set)], deadline).await?;
        let items = answer["items"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|i| {
                        (
                            i["name"].as_str().unwrap_or_default().to_owned(),
                            i["value"].as_str().unwrap_or_default().to_owned(),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        Ok(StoredItems { origin: answer["origin"].as_str().unwrap_or_default().to_owned(), items })
    }
}
