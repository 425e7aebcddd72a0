//! Downloads: files the page downloads are saved into its own downloads directory (removed with
//! the session), listed with their size and type, and read back (`downloads.list`,
//! `downloads.read`). Chromium names each file by the download's guid; the name the page gave it
//! is kept beside it (`download_log`).

use tokio::time::Instant;

use super::handle::Page;
use super::watch::download_log::Download;
use super::watch::views::network::mime_of;
use crate::browser::chromium::kinds::DownloadState;
use crate::browser::error::BrowserError;

/// A download as `downloads.list` shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct DownloadView {
    pub name: String,
    pub url: String,
    pub bytes: u64,
    /// The response's content type, or failing that the one the file name implies ("" when neither
    /// says).
    pub mime: String,
    pub state: DownloadState,
}

impl Page {
    /// The downloads this page began, oldest first.
    pub async fn downloads(&self, deadline: Instant) -> Vec<DownloadView> {
        self.settle_events(deadline).await;
        let store = self.watch().store();
        self.watch()
            .env
            .downloads
            .list()
            .into_iter()
            .map(|d: Download| {
                // The response's own type; failing that (Chromium took the download over before its
                // answer was reported), the one its file name implies.
                let mime = mime_of(&store, &d.url).unwrap_or_else(|| {
                    mime_guess::from_path(&d.name).first().map(|m| m.essence_str().to_owned()).unwrap_or_default()
                });
                DownloadView { name: d.name, url: d.url, bytes: d.bytes, mime, state: d.state }
            })
            .collect()
    }

    /// The newest finished download named `name`: its bytes, at most `cap` of them.
    pub async fn read_download(&self, name: &str, cap: usize, deadline: Instant) -> Result<Vec<u8>, BrowserError> {
        self.settle_events(deadline).await;
        let all = self.watch().env.downloads.list();
        let Some(download) = all.iter().rev().find(|d| d.name == name) else {
            let names: Vec<&str> = all.iter().map(|d| d.name.as_str()).collect();
            return Err(BrowserError::InvalidParam {
                param: "name".into(),
                message: format!("no download named {name:?} in this session (it has: {names:?})"),
            });
        };
        match (&download.state, download.over_cap) {
            (DownloadState::Completed, _) => {}
            (DownloadState::Canceled, true) => {
                return Err(BrowserError::DownloadCanceled(format!(
                    "{name} was cancelled at {} bytes: it grew past DOWNLOAD_MAX_BYTES, so there is no file to read",
                    download.bytes
                )));
            }
            (DownloadState::Canceled, false) => {
                return Err(BrowserError::DownloadCanceled(format!(
                    "{name} was cancelled before it finished (by the page or the server), so there is no file to read"
                )));
            }
            (state, _) => {
                return Err(BrowserError::DownloadPending(format!(
                    "{name} is {state} ({} bytes so far): downloads.list shows when it is completed",
                    download.bytes
                )));
            }
        }
        if download.bytes as usize > cap {
            return Err(BrowserError::InvalidParam {
                param: "name".into(),
                message: format!("{name} is {} bytes, over the {cap}-byte limit of downloads.read", download.bytes),
            });
        }
        std::fs::read(self.downloads_dir().join(&download.guid))
            .map_err(|e| BrowserError::Unavailable(format!("cannot read the download {name}: {e}")))
    }
}
