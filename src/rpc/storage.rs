//! `storage.state`, `storage.local`, `storage.session`: what a session remembers, to read,
//! change, or carry into a new session (`session.create({storageState})`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::cookies::from_cdp;
use super::error::ApiError;
use super::registry::{Call, MethodSpec, Params, page_method};
use crate::browser::{OriginStorage, Page, StorageItem, StorageState, WebStorage};

const TIMEOUT_MS: u64 = 10_000;

/// The session's cookies and the current origin's localStorage in Playwright's `storageState`
/// shape, so it round-trips: log in once, save this, and start later sessions logged in with
/// `session.create({storageState})`. Cookie values and storage items are returned as they are
/// (they are the session's secrets to carry, not page content): keep the answer safe.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct StorageStateParams {}

impl Params for StorageStateParams {}

/// Reads the current origin's localStorage; with `clear` empties it first, with `set` writes
/// items (`{"name": "value"}`), and answers with what it holds then. The page's own scripts see
/// the same storage at once (a reload picks the values up).
#[derive(Debug, Deserialize, JsonSchema)]
pub struct LocalStorageParams {
    /// Remove every item first (default false).
    pub clear: Option<bool>,
    /// Items to write: {"name": "value"}.
    pub set: Option<std::collections::BTreeMap<String, String>>,
}

impl Params for LocalStorageParams {}

/// Like `storage.local`, for the current tab's sessionStorage.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SessionStorageParams {
    /// Remove every item first (default false).
    pub clear: Option<bool>,
    /// Items to write: {"name": "value"}.
    pub set: Option<std::collections::BTreeMap<String, String>>,
}

impl Params for SessionStorageParams {}

#[derive(Debug, Serialize, JsonSchema)]
pub struct WebStorageResult {
    /// The origin whose storage this is (`http://127.0.0.1:3338`).
    pub origin: String,
    pub items: Vec<StorageItem>,
}

pub fn methods() -> Vec<MethodSpec> {
    vec![
        page_method(
            "storage.state",
            "Cookies and localStorage, to save and pass to session.create.",
            TIMEOUT_MS,
            state,
        ),
        page_method("storage.local", "Read, clear or write the current origin's localStorage.", TIMEOUT_MS, local)
            .example(r#"{"set":{"onboarding-done":"1"}}"#),
        page_method("storage.session", "Read, clear or write the current tab's sessionStorage.", TIMEOUT_MS, session)
            .example(r#"{"clear":true}"#),
    ]
}

async fn state(call: Call, page: Page, _: StorageStateParams) -> Result<StorageState, ApiError> {
    let cookies = page.site_data().cookies(call.deadline).await?.iter().filter_map(from_cdp).collect();
    let mut origins = Vec::new();
    let url = page.nav().landed(call.deadline).await?.url;
    if url.starts_with("http://") || url.starts_with("https://") {
        let stored = page.site_data().web_storage(WebStorage::Local, false, &[], call.deadline).await?;
        if !stored.items.is_empty() {
            let local_storage = stored.items.into_iter().map(|(name, value)| StorageItem { name, value }).collect();
            origins.push(OriginStorage { origin: stored.origin, local_storage });
        }
    }
    Ok(StorageState { cookies, origins })
}

async fn local(call: Call, page: Page, p: LocalStorageParams) -> Result<WebStorageResult, ApiError> {
    web(&call, &page, WebStorage::Local, p.clear, p.set).await
}

async fn session(call: Call, page: Page, p: SessionStorageParams) -> Result<WebStorageResult, ApiError> {
    web(&call, &page, WebStorage::Session, p.clear, p.set).await
}

async fn web(
    call: &Call,
    page: &Page,
    which: WebStorage,
    clear: Option<bool>,
    set: Option<std::collections::BTreeMap<String, String>>,
) -> Result<WebStorageResult, ApiError> {
    let set: Vec<(String, String)> = set.unwrap_or_default().into_iter().collect();
    let stored = page.site_data().web_storage(which, clear.unwrap_or(false), &set, call.deadline).await?;
    let items = stored.items.into_iter().map(|(name, value)| StorageItem { name, value }).collect();
    Ok(WebStorageResult { origin: stored.origin, items })
}
