//! The downloads a page began, kept by the pump as Chromium reports them and read by
//! `downloads.list` / `downloads.read` (see `downloads`). Knows neither side.

use std::sync::{Arc, Mutex};

use crate::browser::chromium::kinds::DownloadState;

/// Downloads remembered per page; older ones are forgotten (their files stay until the page goes).
const MAX_DOWNLOADS: usize = 100;

#[derive(Debug, Clone, PartialEq)]
pub struct Download {
    /// Chromium's id, also the file's name in the page's downloads directory.
    pub guid: String,
    /// The name the page suggested (`report.csv`).
    pub name: String,
    pub url: String,
    /// Bytes received so far.
    pub bytes: u64,
    pub state: DownloadState,
    /// Cancelled by us for growing past DOWNLOAD_MAX_BYTES.
    pub over_cap: bool,
}

#[derive(Debug, Clone, Default)]
pub struct DownloadLog(Arc<Mutex<Vec<Download>>>);

impl DownloadLog {
    fn list_mut(&self) -> std::sync::MutexGuard<'_, Vec<Download>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn begun(&self, guid: String, name: String, url: String) {
        let mut list = self.list_mut();
        if list.len() == MAX_DOWNLOADS {
            list.remove(0);
        }
        list.push(Download { guid, name, url, bytes: 0, state: DownloadState::InProgress, over_cap: false });
    }

    /// Records progress; returns the download when this event ended it.
    pub fn progress(&self, guid: &str, bytes: u64, state: DownloadState) -> Option<Download> {
        let mut list = self.list_mut();
        let download = list.iter_mut().find(|d| d.guid == guid)?;
        download.bytes = bytes.max(download.bytes);
        let ended = download.state == DownloadState::InProgress && state != DownloadState::InProgress;
        download.state = state;
        ended.then(|| download.clone())
    }

    /// Marks a download as over the size cap; true the first time (when it is to be cancelled).
    pub fn mark_over_cap(&self, guid: &str) -> bool {
        let mut list = self.list_mut();
        match list.iter_mut().find(|d| d.guid == guid) {
            Some(download) if !download.over_cap => {
                download.over_cap = true;
                true
            }
            _ => false,
        }
    }

    pub fn list(&self) -> Vec<Download> {
        self.list_mut().clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_download_is_reported_once_when_it_ends() {
        let log = DownloadLog::default();
        log.begun("g".into(), "a.csv".into(), "http://h/a".into());
        assert_eq!(log.progress("g", 10, DownloadState::InProgress), None);
        let done = log.progress("g", 20, DownloadState::Completed).unwrap();
        assert_eq!((done.bytes, done.state), (20, DownloadState::Completed));
        assert_eq!(log.progress("g", 20, DownloadState::Completed), None, "only once");
        assert_eq!(log.progress("unknown", 1, DownloadState::Completed), None);
    }
}
