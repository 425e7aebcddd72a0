//! What waiting methods wait on: the main frame's current document ([`NavState`]) and the page's
//! network activity ([`NetState`]), published by the pump on `watch` channels so `page.goto`,
//! `page.waitFor` and an action's settling subscribe instead of polling.

use std::collections::VecDeque;

use tokio::time::Instant;

use super::cdp_events::LoadError;
use crate::browser::chromium::ids::{LoaderId, RequestId};
use crate::egress::failures::BLOCKED_BY_POLICY;

/// Why a main-frame document request failed.
#[derive(Debug, Clone, PartialEq)]
pub enum DocumentFailure {
    /// The egress policy refused it; the proxy's reason, when it gave one.
    BlockedByPolicy(Option<String>),
    /// Cancelled rather than failed (`aborted`, `net::ERR_ABORTED`): a download (the answer was an
    /// attachment), a 204, a refused beforeunload. The page stays where it was.
    Cancelled(String),
    /// A network error (`net::ERR_CONNECTION_REFUSED` …), as Chromium or the proxy reported it.
    Network(String),
}

impl DocumentFailure {
    /// From the failure the egress proxy named (`blocked_by_policy`, or the net error a direct
    /// connection would have met), and the proxy's detail.
    pub fn from_failure(failure: String, detail: Option<String>) -> Self {
        if failure == BLOCKED_BY_POLICY { Self::BlockedByPolicy(detail) } else { Self::failed(failure.into()) }
    }

    /// From why the load failed (read once where it entered, see `cdp_events::LoadError`).
    pub fn failed(error: LoadError) -> Self {
        if error.aborted { Self::Cancelled(error.text) } else { Self::Network(error.text) }
    }
}

/// The main frame's current document.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NavState {
    /// Chromium's id for the current document load; changes on every cross-document navigation.
    pub loader_id: LoaderId,
    pub url: String,
    pub dom_content_loaded: bool,
    pub loaded: bool,
    /// (request id, HTTP status) of the last main-frame document response.
    pub document_status: Option<(RequestId, u16)>,
    /// The last main-frame document response whose `Refresh` header sends the page on within a second
    /// (its document's loader).
    pub refreshing: Option<LoaderId>,
    /// The renderer process died.
    pub crashed: bool,
    /// The last few loader ids, oldest first, to tell whether a document was replaced.
    pub history: VecDeque<LoaderId>,
    /// How many main-frame document requests have started, and the latest one's id (which is
    /// also the loader id of the document it will become).
    pub document_requests: u64,
    pub last_document_request: RequestId,
    /// How many navigations of the main frame the page has asked for (links, forms, scripts).
    pub navigation_requests: u64,
    /// Main-frame document requests that failed, newest last.
    pub failed_documents: VecDeque<(RequestId, DocumentFailure)>,
    /// The execution context of the service's world in the main frame's latest document, as
    /// Chromium announced it (made by the DOM watcher's script, the helper library with it). It
    /// is not cleared when the document goes: a call in a context since gone fails and the caller
    /// makes its own (`Page::helper_context`).
    pub world: Option<i64>,
}

/// How many past loader ids [`NavState::history`] keeps.
const HISTORY: usize = 16;

impl NavState {
    /// True once `loader`'s document was committed and then replaced by a later one.
    pub fn replaced(&self, loader: &str) -> bool {
        self.history.iter().position(|l| *l == loader).is_some_and(|i| i + 1 < self.history.len())
    }

    /// Why the document request `request` failed, if it did.
    pub fn failure_of(&self, request: &str) -> Option<&DocumentFailure> {
        self.failed_documents.iter().find(|(id, _)| *id == request).map(|(_, e)| e)
    }
}

/// Where navigation stood: how many main-frame document requests had started and how many
/// navigations of the main frame the page had asked for. An input compares them after it to tell
/// whether it started a navigation (`page::act`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NavMarks {
    pub documents: u64,
    pub navigations: u64,
}

impl NavState {
    /// Where navigation stands now.
    pub fn marks(&self) -> NavMarks {
        NavMarks { documents: self.document_requests, navigations: self.navigation_requests }
    }

    /// The HTTP status of the current document, when its response came from the network.
    pub fn status(&self) -> Option<u16> {
        let current = self.loader_id.document_request();
        self.document_status.as_ref().filter(|(request, _)| *request == current).map(|(_, status)| *status)
    }
}

/// Network activity of the page.
#[derive(Debug, Clone, PartialEq)]
pub struct NetState {
    pub in_flight: usize,
    /// When a request last started or ended.
    pub last_activity: Instant,
}

impl NavState {
    /// A document committed (`loader`); true when it is a new one.
    pub fn commit(&mut self, loader: &LoaderId) -> bool {
        if self.loader_id == *loader {
            return false;
        }
        if self.history.len() == HISTORY {
            self.history.pop_front();
        }
        self.history.push_back(loader.clone());
        self.loader_id = loader.clone();
        self.dom_content_loaded = false;
        self.loaded = false;
        true
    }

    pub fn document_failed(&mut self, request_id: &RequestId, failure: DocumentFailure) {
        if self.failed_documents.len() == HISTORY {
            self.failed_documents.pop_front();
        }
        self.failed_documents.push_back((request_id.clone(), failure));
    }
}
