//! Browser-level events that concern one page, forwarded to it: Chromium reports downloads and
//! new targets on the browser, not on the page that caused them. A download goes to the page whose
//! frame began it (see `EventRoutes::dispatch_download`); a popup (`window.open`, a
//! `target=_blank` link) goes to the page that opened it, so that page's session can adopt it as a
//! tab. The task ends when Chromium's event streams end (the browser is gone) and is aborted with
//! the handler pump at shutdown.

use std::sync::Arc;

use chromiumoxide::Browser;
use chromiumoxide::cdp::browser_protocol::browser::{EventDownloadProgress, EventDownloadWillBegin};
use chromiumoxide::cdp::browser_protocol::target::EventTargetCreated;
use futures_util::StreamExt;
use tokio::task::JoinHandle;

use super::event_routes::EventRoutes;
use super::kinds::TargetKind;
use crate::browser::error::BrowserError;

pub(super) async fn forward(browser: &Browser, routes: Arc<EventRoutes>) -> Result<JoinHandle<()>, BrowserError> {
    let listen_failed = |e: chromiumoxide::error::CdpError| BrowserError::Unavailable(format!("browser events: {e}"));
    let mut begun = browser.event_listener::<EventDownloadWillBegin>().await.map_err(listen_failed)?;
    let mut progress = browser.event_listener::<EventDownloadProgress>().await.map_err(listen_failed)?;
    let mut created = browser.event_listener::<EventTargetCreated>().await.map_err(listen_failed)?;
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
                Some(event) = created.next() => {
                    let info = &event.target_info;
                    if TargetKind::parse(&info.r#type) != TargetKind::Page {
                        continue;
                    }
                    let Some(opener) = info.opener_id.as_ref() else { continue };
                    if let Ok(params) = serde_json::to_value(&*event) {
                        routes.dispatch_to_frame(&opener.as_ref().into(), "Target.targetCreated", params);
                    }
                }
                else => break,
            }
        }
    }))
}
