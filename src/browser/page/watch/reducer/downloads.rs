//! The downloads a page began, as Chromium reports them: kept here (the last [`MAX_DOWNLOADS`]),
//! published by the pump for `downloads.list` / `downloads.read` (`Watch::downloads`), noted when
//! they begin and end, and cancelled by a command when one grows past DOWNLOAD_MAX_BYTES.

use super::super::cdp_events::PageEvent;
use super::super::clock::Now;
use super::super::commands::Command;
use super::super::notes::{DownloadNote, Signal};
use super::super::records::Record;
use super::super::store::Store;
use super::outbox::{Outbox, note};
use crate::browser::chromium::ids::BrowserContextId;
use crate::browser::chromium::kinds::DownloadState;

/// The session's limits the reducer applies.
#[derive(Debug, Clone, Default)]
pub struct Env {
    /// DOWNLOAD_MAX_BYTES, and the browser context Chromium cancels an oversized download in.
    pub download_cap: Option<u64>,
    pub context_id: BrowserContextId,
}

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

#[derive(Debug, Default)]
pub struct Downloads {
    list: Vec<Download>,
    dirty: bool,
    env: Env,
}

impl Downloads {
    pub fn new(env: Env) -> Self {
        Self { list: Vec::new(), dirty: false, env }
    }

    /// The downloads, when they changed since the last call.
    pub fn changed(&mut self) -> Option<&[Download]> {
        std::mem::take(&mut self.dirty).then_some(self.list.as_slice())
    }

    pub fn apply(&mut self, store: &mut Store, event: PageEvent, now: Now, out: &mut Outbox) {
        match event {
            PageEvent::DownloadBegun { guid, url, name } => {
                noted(store, DownloadNote::Started { name: name.clone() }, now, out);
                self.begun(guid, name, url);
            }
            PageEvent::DownloadProgress { guid, received, state } => {
                let cap = self.env.download_cap.unwrap_or(u64::MAX);
                if state == DownloadState::InProgress && received > cap && self.mark_over_cap(&guid) {
                    let context_id = self.env.context_id.clone();
                    out.commands.push(Command::CancelDownload { guid: guid.clone(), context_id });
                }
                if let Some(done) = self.progress(&guid, received, state) {
                    let ended = DownloadNote::Ended {
                        name: done.name,
                        bytes: done.bytes,
                        state: done.state,
                        over_cap: done.over_cap,
                        cap,
                    };
                    noted(store, ended, now, out);
                }
            }
            _ => {}
        }
    }

    fn begun(&mut self, guid: String, name: String, url: String) {
        if self.list.len() == MAX_DOWNLOADS {
            self.list.remove(0);
        }
        self.list.push(Download { guid, name, url, bytes: 0, state: DownloadState::InProgress, over_cap: false });
        self.dirty = true;
    }

    /// Records progress; returns the download when this event ended it.
    fn progress(&mut self, guid: &str, bytes: u64, state: DownloadState) -> Option<Download> {
        let download = self.list.iter_mut().find(|d| d.guid == guid)?;
        download.bytes = bytes.max(download.bytes);
        let ended = download.state == DownloadState::InProgress && state != DownloadState::InProgress;
        download.state = state;
        self.dirty = true;
        ended.then(|| download.clone())
    }

    /// Marks a download as over the size cap; true the first time (when it is to be cancelled).
    fn mark_over_cap(&mut self, guid: &str) -> bool {
        match self.list.iter_mut().find(|d| d.guid == guid) {
            Some(download) if !download.over_cap => {
                download.over_cap = true;
                self.dirty = true;
                true
            }
            _ => false,
        }
    }
}

fn noted(store: &mut Store, download: DownloadNote, now: Now, out: &mut Outbox) {
    note(store, Record::Download(download.clone()), Signal::Download(download), now, out);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_download_is_reported_once_when_it_ends() {
        let mut log = Downloads::default();
        log.begun("g".into(), "a.csv".into(), "http://h/a".into());
        assert_eq!(log.progress("g", 10, DownloadState::InProgress), None);
        let done = log.progress("g", 20, DownloadState::Completed).unwrap();
        assert_eq!((done.bytes, done.state), (20, DownloadState::Completed));
        assert_eq!(log.progress("g", 20, DownloadState::Completed), None, "only once");
        assert_eq!(log.progress("unknown", 1, DownloadState::Completed), None);
    }
}
