//! Download events: Chromium reports downloads on the browser, not on the page that started them,
//! so this task forwards each `Browser.downloadWillBegin` / `Browser.downloadProgress` to the page
//! whose frame began it (see `EventRoutes::dispatch_download`). It ends when Chromium's event
//! streams end (the browser is gone) and is aborted with the handler pump at shutdown.

use std::sync::Arc;

use chromiumoxide::Browser;
use chromiumoxide::cdp::browser_protocol::browser::{EventDownloadProgress, EventDownloadWillBegin};
use futures_util::StreamExt;
use tokio::task::JoinHandle;

use super::routes::EventRoutes;
use crate::browser::error::BrowserError;

pub(super) async fn forward(browser: &Browser, routes: Arc<EventRoutes>) -> Result<JoinHandle<()>, BrowserError> {
    let listen_failed = |e: chromiumoxide::error::CdpError| BrowserError::Unavailable(format!("download events: {e}"));
    let mut begun = browser.event_listener::<EventDownloadWillBegin>().await.map_err(listen_failed)?;
    let mut progress = browser.event_listener::<EventDownloadProgress>().await.map_err(listen_failed)?;
    Ok(tokio::spawn(async move {
        loop {
            tokio::select! {
                Some(event) = begun.next() => {
                    if let Ok(params) = serde_json::to_value(&*event) {
                        routes.dispatch_download("Browser.downloadWillBegin", params);
                    }
                }
                Some(event) = progress.next() => {
                    if let Ok(params) = serde_json::to_value(&*event) {
                        routes.dispatch_download("Browser.downloadProgress", params);
                    }
                }
                else => break,
            }
        }
    }))
}
