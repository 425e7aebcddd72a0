//! Applying a `storageState` at session.create: cookies into the context, localStorage per origin.
//!
//! Chromium only writes storage for an origin that a frame has open, and a new session has never
//! visited it. So, as Playwright does, the page navigates to the origin with Fetch interception
//! on, the request is answered with a blank document (the real server never sees it), the items
//! are written, and the page returns to about:blank.

use base64::Engine;
use serde_json::{Value, json};
use tokio::time::Instant;

use super::options::{Cookie, OriginStorage, StorageState};
use crate::browser::chromium::Chromium;
use crate::browser::chromium::ids::{BrowserContextId, FetchRequestId};
use crate::browser::chromium::protocol::network::{
    FetchDisable, FetchEnable, FulfillRequest, HeaderEntry, RequestPattern, RequestStage,
};
use crate::browser::chromium::protocol::page::Navigate;
use crate::browser::chromium::protocol::storage::{GetCookies, SetCookies};
use crate::browser::error::BrowserError;
use crate::browser::page::{Page, SetLocalStorage, WaitUntil};

/// Sets `state`'s cookies in the context `context_id` and its localStorage through `page`.
pub(super) async fn apply(
    chromium: &Chromium,
    context_id: &BrowserContextId,
    page: &Page,
    state: &StorageState,
    deadline: Instant,
) -> Result<(), BrowserError> {
    if !state.cookies.is_empty() {
        set_cookies(chromium, context_id, &state.cookies, deadline).await?;
    }
    for origin in state.origins.iter().filter(|o| !o.local_storage.is_empty()) {
        seed_local_storage(page, origin, deadline).await?;
    }
    Ok(())
}

/// Sets the cookies and reads them back: a cookie Chromium refuses or drops is the caller's error,
/// named by its index, never lost without a word.
async fn set_cookies(
    chromium: &Chromium,
    context_id: &BrowserContextId,
    cookies: &[Cookie],
    deadline: Instant,
) -> Result<(), BrowserError> {
    let params: Vec<Value> = cookies.iter().map(Cookie::to_cdp).collect();
    chromium.send(SetCookies { cookies: params, browser_context_id: context_id }, deadline).await.map_err(|err| {
        match err {
            BrowserError::Protocol { message, .. } => BrowserError::InvalidParam {
                param: "storageState.cookies".into(),
                message: format!("Chromium refused the cookies: {message}; check each cookie's fields"),
            },
            err => err,
        }
    })?;
    let kept = chromium.send(GetCookies { browser_context_id: context_id }, deadline).await?.cookies;
    match cookies.iter().position(|c| !kept.iter().any(|k| c.is(k))) {
        None => Ok(()),
        Some(i) => {
            let c = &cookies[i];
            Err(BrowserError::InvalidParam {
                param: format!("storageState.cookies[{i}]"),
                message: format!(
                    "Chromium did not keep storageState.cookies[{i}] ({:?} for domain {:?}, path {:?}): \
                     it sets cookies only for a host name or IP address it can reach, so give the site's \
                     own host (e.g. localhost, 127.0.0.1 or .example.com)",
                    c.name, c.domain, c.path
                ),
            })
        }
    }
}

async fn seed_local_storage(page: &Page, origin: &OriginStorage, deadline: Instant) -> Result<(), BrowserError> {
    let url = format!("{}/", origin.origin.trim_end_matches('/'));
    if !(url.starts_with("http://") || url.starts_with("https://")) {
        return Err(BrowserError::InvalidOption(format!(
            "storageState origin {:?} is not an http(s) origin such as http://localhost:3000",
            origin.origin
        )));
    }
    let mut paused = page.watch().paused.clone();
    paused.mark_unchanged();
    let every = RequestPattern { url_pattern: "*", request_stage: RequestStage::Request };
    page.send(FetchEnable { patterns: vec![every] }, deadline).await?;
    let seeded = seed_with_interception(page, &url, origin, &mut paused, deadline).await;
    let _ = page.send(FetchDisable {}, deadline).await;
    seeded?;
    // Back to a blank page. (Page.navigate is fine here: no other navigation is pending.)
    page.send(Navigate { url: "about:blank" }, deadline).await.map(|_| ())
}

async fn seed_with_interception(
    page: &Page,
    url: &str,
    origin: &OriginStorage,
    paused: &mut tokio::sync::watch::Receiver<Option<(FetchRequestId, String)>>,
    deadline: Instant,
) -> Result<(), BrowserError> {
    // The navigation waits on the paused request, so fulfil while it waits.
    let navigate = page.nav().goto(url, WaitUntil::Load, deadline);
    let fulfil = async {
        let request_id = loop {
            tokio::time::timeout_at(deadline, paused.changed())
                .await
                .map_err(|_| BrowserError::Timeout("timed out preparing the storageState origin".into()))?
                .map_err(|_| BrowserError::Unavailable("this session's page is gone".into()))?;
            if let Some((request_id, _)) = paused.borrow_and_update().clone() {
                break request_id;
            }
        };
        let body = base64::engine::general_purpose::STANDARD.encode("<!doctype html><title></title>");
        let blank = FulfillRequest {
            request_id: &request_id,
            response_code: 200,
            response_headers: vec![HeaderEntry { name: "Content-Type", value: "text/html" }],
            body,
        };
        page.send(blank, deadline).await.map(|_| ())
    };
    let (navigated, fulfilled) = futures_util::future::join(navigate, fulfil).await;
    fulfilled?;
    navigated?;
    let items: Vec<_> = origin.local_storage.iter().map(|i| json!({ "name": i.name, "value": i.value })).collect();
    page.locate().call(SetLocalStorage, &[json!(items)], deadline).await.map(|_| ())
}
