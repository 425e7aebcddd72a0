//! The downloads a page began, kept by the pump as Chromium reports them and read by
//! `downloads.list` / `downloads.read` (see `downloads`). Knows neither side.

use std::sync::{Arc, Mutex};

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
    /// inProgress, completed or canceled.
    pub state: String,
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
        list.push(Download { guid, name, url, bytes: 0, state: "inProgress".into(), over_cap: false });
    }

    /// Records progress; returns the download when this event ended it.
    pub fn progress(&self, guid: &str, bytes: u64, state: &str) -> Option<Download> {
        let mut list = self.list_mut();
        let download = list.iter_mut().find(|d| d.guid == guid)?;
        download.bytes = bytes.max(download.bytes);
        let ended = download.state == "inProgress" && state != "inProgress";
        download.state = state.to_owned();
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
        assert_eq!(log.progress("g", 10, "inProgress"), None);
        let done = log.progress("g", 20, "completed").unwrap();
        assert_eq!((done.bytes, done.state.as_str()), (20, "completed"));
        assert_eq!(log.progress("g", 20, "completed"), None, "only once");
        assert_eq!(log.progress("unknown", 1, "completed"), None);
    }
}
