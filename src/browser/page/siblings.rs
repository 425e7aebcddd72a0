//! What the tabs of one session share, handed to every page the session opens or adopts: its
//! egress proxy's failure log (one proxy per browser context), the directory Chromium saves the
//! context's downloads into (download behaviour is set per context, not per page) and the size a
//! download may reach, the popups waiting to be adopted as tabs, the session's secrets (one
//! redactor for all its tabs, outliving any of them) and the source maps of the scripts its pages
//! run (`originals`). Knows no page.

use std::sync::Arc;

use super::adoption::PopupLog;
use super::originals::Originals;
use super::scratch::ScratchDir;
use crate::browser::chromium::ids::BrowserContextId;
use crate::browser::error::BrowserError;
use crate::browser::redact::Redactor;
use crate::egress::failures::FailureLog;

#[derive(Clone)]
pub struct Siblings {
    pub egress: Arc<FailureLog>,
    pub downloads_dir: Arc<ScratchDir>,
    /// DOWNLOAD_MAX_BYTES: a download is cancelled past this size.
    pub download_cap: u64,
    /// The browser context, which Chromium names when cancelling a download.
    pub context_id: BrowserContextId,
    pub popups: PopupLog,
    /// What the session typed into password fields, masked in every tab's answers and events.
    pub redactor: Redactor,
    /// The session's source maps: every tab's answers read their locations through them.
    pub originals: Arc<Originals>,
}

impl Siblings {
    /// A new session's: `egress` is what its proxy failed to deliver.
    pub fn new(
        egress: Arc<FailureLog>,
        context_id: &BrowserContextId,
        download_cap: u64,
    ) -> Result<Self, BrowserError> {
        Ok(Self {
            egress,
            downloads_dir: Arc::new(ScratchDir::create("download")?),
            download_cap,
            context_id: context_id.clone(),
            popups: PopupLog::default(),
            redactor: Redactor::default(),
            originals: Arc::new(Originals::default()),
        })
    }

    /// Takes the popups filed since the last call, as target ids.
    pub fn take_popups(&self) -> Vec<String> {
        self.popups.take()
    }
}
