//! [`Page`]: a cheap, cloneable handle on one session's page, the only way the layers above reach
//! it. It holds the page's [`Core`] (its connection and state; the handle derefs to it) and its
//! [`Locator`] (helper world, listener lookups, refs; see `locate`), kept beside the core so that
//! locating, which works through the core, never depends back on what owns it. What the page can
//! *do* lives in the rooms and capability files next to this one, each an `impl Page` block.

use std::ops::Deref;
use std::sync::Arc;

use chromiumoxide::cdp::browser_protocol::browser::BrowserContextId;
use chromiumoxide::cdp::browser_protocol::target::CreateTargetParams;
use serde_json::json;
use tokio::time::Instant;

use super::core::Core;
use super::locate::answers::{Busy, EarlyRequest, Looked};
use super::locate::scripts::{EarlyRequestsOf, FlushDom};
use super::locate::{Found, Locate, Locator};
use super::siblings::Siblings;
use super::watch::dom::Watcher;
use super::watch::notes::{EarlyCall, Note};
use super::watch::now_ms;
use super::watch::records::Record;
use crate::browser::chromium::Chromium;
use crate::browser::chromium::protocol::runtime;
use crate::browser::error::BrowserError;

/// How long the page gets to run what the input queued before the service looks.
pub(super) const NEXT_TASK_WAIT: std::time::Duration = std::time::Duration::from_millis(500);
/// The time left for a look's answer to reach the service (past it the page reports through the
/// watcher's binding instead, see `js/lib.js` `domReport`).
const ANSWER_MARGIN: std::time::Duration = std::time::Duration::from_millis(100);

/// One session's page. Clones share it.
#[derive(Clone)]
pub struct Page {
    core: Arc<Core>,
    locator: Arc<Locator>,
}

impl Deref for Page {
    type Target = Core;

    fn deref(&self) -> &Core {
        &self.core
    }
}

impl Page {
    /// Opens an about:blank page in the browser context `context_id` and starts its event pump.
    /// `siblings` is what the session's tabs share (its egress failures, downloads, popups).
    pub(in crate::browser) async fn open(
        chromium: &Chromium,
        context_id: &str,
        siblings: &Siblings,
        deadline: Instant,
    ) -> Result<Self, BrowserError> {
        let params = CreateTargetParams::builder()
            .url("about:blank")
            .browser_context_id(BrowserContextId::new(context_id))
            .build()
            .map_err(BrowserError::Unavailable)?;
        let page = chromium.new_page(params, deadline).await?;
        Self::started(Core::start(chromium, page, siblings, Watcher::FromNextDocument, deadline).await?)
    }

    /// Takes on a page Chromium opened by itself (a popup `target_id`), with its event pump. What
    /// the popup did before this — its first load, often — is recovered by `first_load`.
    pub(in crate::browser) async fn adopt(
        chromium: &Chromium,
        target_id: &str,
        siblings: &Siblings,
        deadline: Instant,
    ) -> Result<Self, BrowserError> {
        let page = chromium.page_of(&target_id.into(), deadline).await?;
        Self::started(Core::start(chromium, page, siblings, Watcher::FromThisDocument, deadline).await?)
    }

    fn started(core: Core) -> Result<Self, BrowserError> {
        Ok(Self { core: Arc::new(core), locator: Arc::new(Locator::default()) })
    }

    /// Recovers what this adopted popup did before it was adopted, which happens before its
    /// session adopts it as a tab (see `session::tabs`): what can be recovered is recovered, and
    /// what cannot is said.
    ///
    /// V8 keeps the console messages and uncaught errors of a page and reports them again when the
    /// Runtime domain is enabled anew, so those arrive in the tab's logs as if seen live. The
    /// requests cannot be replayed: the page's resource timing names its fetch/XHR requests (with
    /// their status where Chromium exposes it), and one note in the tab's logs lists them and says
    /// how to see them in full (reload the tab).
    pub async fn recover_first_load(&self, deadline: Instant) -> Result<(), BrowserError> {
        recover_first_load(self, deadline).await
    }

    /// `find.byRole`: a selector the action methods accept for an element found by role and
    /// accessible name (see `locate::find`).
    pub async fn find_by_role(
        &self,
        role: &str,
        name: Option<&str>,
        exact: bool,
        deadline: Instant,
    ) -> Result<Found, BrowserError> {
        self.locate().find_by_role(role, name, exact, deadline).await
    }

    /// Finding elements and calling our scripts in the page (see `locate`).
    pub(in crate::browser) fn locate(&self) -> Locate<'_> {
        Locate::new(&self.core, &self.locator)
    }

    /// Takes what the DOM watcher holds now (`js/flush_dom.js`) into the timeline (the caller then
    /// waits for it with [`Core::settle_events`]); with `since` (an action's start), also whether
    /// the control the action touched is still busy, and where the page is.
    /// `None` when the page did not answer in time (busy in a loop, navigating away).
    pub(super) async fn look(&self, since: Option<f64>, deadline: Instant) -> Option<Looked> {
        let wait = (Instant::now() + NEXT_TASK_WAIT).min(deadline);
        let answer = self.locate().call(FlushDom, &[json!(since), json!(answer_by(wait))], wait).await;
        filed(self, answer)
    }
}

/// A request the page made before it was adopted (status 0: not exposed by the browser).
fn early_call(request: &EarlyRequest) -> EarlyCall {
    let status = (request.status > 0).then(|| request.status.min(u64::from(u16::MAX)) as u16);
    EarlyCall { url: request.url.clone(), status }
}

/// When (ms since the Unix epoch) the page must have answered a look the service waits for until
/// `wait`.
pub(super) fn answer_by(wait: Instant) -> f64 {
    let left = wait.saturating_duration_since(Instant::now()).saturating_sub(ANSWER_MARGIN);
    now_ms() + left.as_secs_f64() * 1000.0
}

/// What a look answered, once the DOM watcher's report it carried is filed (see
/// [`Core::file_dom_report`]).
pub(super) fn filed(core: &Core, answer: Result<Looked, BrowserError>) -> Option<Looked> {
    let mut looked = answer.ok()?;
    if let Some(report) = looked.report.take() {
        core.file_dom_report(&report);
    }
    Some(looked)
}

/// The busy sign of a look, if it shows one.
pub(super) fn busy_of(looked: Option<Looked>) -> Option<Busy> {
    looked?.busy()
}

/// [`Page::recover_first_load`].
async fn recover_first_load(page: &Page, deadline: Instant) -> Result<(), BrowserError> {
    page.send(runtime::Disable {}, deadline).await?;
    page.send(runtime::Enable {}, deadline).await?;
    let early = page.locate().call(EarlyRequestsOf, &[], deadline).await?;
    if early.blank {
        // Adopted before it loaded anything: everything it does is seen live.
        return Ok(());
    }
    let api_calls = early.requests.iter().map(early_call).collect();
    let note = Note::LoadedBeforeAdoption { requests: early.count, api_calls };
    page.watch().store().timeline.push(now_ms(), Record::Note(note));
    Ok(())
}
