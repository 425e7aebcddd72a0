//! The main frame's documents: which document is current (committed by its first lifecycle
//! event), its milestones, its URL, the service's world in it, the document requests and
//! navigations the page asked for and how they failed, a crash — the [`NavState`] waiting methods
//! subscribe to.

use super::super::cdp_events::PageEvent;
use super::super::clock::Now;
use super::super::nav::{DocumentFailure, NavState};
use super::super::notes::Signal;
use super::super::records::{self, Record};
use super::super::store::Store;
use super::outbox::Outbox;
use crate::browser::chromium::ids::{FrameId, LoaderId, RequestId};
use crate::browser::chromium::kinds::{Disposition, Milestone};

#[derive(Debug)]
pub struct MainFrame {
    id: FrameId,
    nav: NavState,
    dirty: bool,
}

impl MainFrame {
    pub fn new(id: FrameId) -> Self {
        Self { id, nav: NavState::default(), dirty: false }
    }

    pub fn is_main(&self, frame: &FrameId) -> bool {
        *frame == self.id
    }

    pub fn state(&self) -> &NavState {
        &self.nav
    }

    /// The navigation state, when it changed since the last call.
    pub fn changed(&mut self) -> Option<&NavState> {
        std::mem::take(&mut self.dirty).then_some(&self.nav)
    }

    /// How far the page has navigated: main-frame document requests started, navigations asked for.
    pub fn marks(&self) -> (u64, u64) {
        (self.nav.document_requests, self.nav.navigation_requests)
    }

    /// Whether the page navigated since `marks` were taken, or request `id` is the document now
    /// current (a document request's id is its loader's).
    pub fn navigated_since(&self, marks: (u64, u64), id: &RequestId) -> bool {
        self.marks() != marks || self.nav.loader_id == id.document_loader()
    }

    /// A main-frame document request started.
    pub fn document_requested(&mut self, id: &RequestId) {
        self.nav.document_requests += 1;
        self.nav.last_document_request = id.clone();
        self.dirty = true;
    }

    /// A main-frame document request was answered with `status`; `refreshes`: its `Refresh`
    /// header sends the page on within a second.
    pub fn document_answered(&mut self, id: &RequestId, status: u16, refreshes: bool) {
        self.nav.document_status = Some((id.clone(), status));
        self.nav.refreshing = refreshes.then(|| id.document_loader());
        self.dirty = true;
    }

    pub fn document_failed(&mut self, id: &RequestId, failure: DocumentFailure) {
        self.nav.document_failed(id, failure);
        self.dirty = true;
    }

    /// Whether a main-frame lifecycle event is a late one of a document the page is leaving or has
    /// left: one it replaced, or the one a main-frame document request still in flight
    /// (`next_in_flight`: the latest document request is) is about to replace (the initial
    /// `about:blank`'s `networkIdle` can come after the first navigation's request started).
    /// Taken for a commit, it would cut that request off and lose how it ends (a `page.goto` to a
    /// refused port then answered with Chromium's error page). A document's first event, `init`,
    /// always commits.
    pub fn left_behind(&self, loader: &LoaderId, milestone: &Milestone, next_in_flight: bool) -> bool {
        if *loader == self.nav.loader_id || *milestone == Milestone::Init {
            return false;
        }
        let replaced = self.nav.history.contains(loader);
        replaced || (*loader != self.nav.last_document_request.document_loader() && next_in_flight)
    }

    /// Document `loader` committed; true when it is a new one.
    pub fn commit(&mut self, loader: &LoaderId) -> bool {
        let new = self.nav.commit(loader);
        self.dirty |= new;
        new
    }

    /// The current document reached `milestone` at `at` (ms since the Unix epoch).
    pub fn milestone(&mut self, store: &mut Store, milestone: Milestone, at: f64) {
        match milestone {
            Milestone::DomContentLoaded => self.nav.dom_content_loaded = true,
            Milestone::Load => {
                self.nav.dom_content_loaded = true;
                self.nav.loaded = true;
            }
            _ => return,
        }
        store.timeline.push(at, Record::Milestone(milestone));
        self.dirty = true;
    }

    /// The main frame's world, navigation, a navigation it asked for, or a crash.
    pub fn apply(&mut self, store: &mut Store, event: PageEvent, now: Now, out: &mut Outbox) {
        match event {
            PageEvent::WorldCreated { frame_id, context_id } if self.is_main(&frame_id) => {
                self.nav.world = Some(context_id);
                self.dirty = true;
            }
            PageEvent::FrameNavigated { frame_id, parent_id: None, url, .. } if self.is_main(&frame_id) => {
                let url = records::url(url);
                out.live.push(Signal::Navigated { url: url.clone() });
                store.timeline.push(now.wall, Record::Document { url: url.clone() });
                self.nav.url = url;
                self.dirty = true;
            }
            PageEvent::NavigationRequested { frame_id, disposition: Disposition::CurrentTab, url }
                if self.is_main(&frame_id) =>
            {
                // A link to a fragment of the same document loads nothing.
                let base = |u: &str| u.split('#').next().unwrap_or_default().to_owned();
                let same_document = url.contains('#') && base(&url) == base(&self.nav.url);
                if !same_document {
                    self.nav.navigation_requests += 1;
                    self.dirty = true;
                }
            }
            PageEvent::Crashed => {
                self.nav.crashed = true;
                self.dirty = true;
                out.live.push(Signal::Crashed);
                store.timeline.push(now.wall, Record::Crash);
            }
            _ => {}
        }
    }
}
