//! [`Page`]: a cheap, cloneable handle on one session's page, the only way the layers above reach
//! it.
//!
//! It owns the chromiumoxide page, the watch that folds the page's events into its timeline
//! (`watch`), the helper world our scripts run in and the refs page.snapshot handed out. What the
//! page can *do* lives in one file per capability next to this one (`navigation`, `actions`,
//! `reading` …), each an `impl Page` block; this file only opens the page, sends it commands and
//! keeps its event pipeline running. The pump stops when the last handle is dropped.

use std::sync::{Arc, Mutex};
use std::task::Poll;
use std::time::Duration;

use chromiumoxide::cdp::browser_protocol::browser::BrowserContextId;
use chromiumoxide::cdp::browser_protocol::target::CreateTargetParams;
use futures_util::StreamExt;
use futures_util::future;
use futures_util::stream::{self, BoxStream, SelectAll};
use serde_json::Value;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::helper_world::HelperWorld;
use super::popup_log;
use super::refs::RefTable;
use super::siblings::Siblings;
use super::upload_dir::UploadDir;
use super::viewport::Viewport;
use super::watch::dom::{self, Watcher};
use super::watch::{Command, Env, LiveEvent, PageEvent, Watch};
use crate::browser::chromium::ids::TargetId;
use crate::browser::chromium::protocol::target::{GetTargetInfo, SetAutoAttach};
use crate::browser::chromium::{Chromium, EventRoutes, cdp};
use crate::browser::error::BrowserError;

/// How long subscribing to a page's events and installing its DOM watcher may take.
const WATCH_SETUP: Duration = Duration::from_secs(10);

/// One session's page. Clones share it.
#[derive(Clone)]
pub struct Page {
    inner: Arc<Inner>,
}

struct Inner {
    page: chromiumoxide::Page,
    /// The page's target id, which is also its main frame's id.
    target_id: String,
    watch: Watch,
    /// The isolated world our helper scripts run in when the service had to make it.
    helper_world: Mutex<HelperWorld>,
    /// The function in the page's own world that looks up listeners (see `reach`), for the document
    /// it was made for, with the script locations of the functions it has named.
    lister: Mutex<Option<super::reach::Lister>>,
    /// The refs page.snapshot issued (see `refs`).
    refs: Mutex<RefTable>,
    /// The latest snapshot lines per scope, for `snapshot: "diff"` (a few scopes at most).
    snapshots: Mutex<Vec<(String, Vec<String>)>>,
    /// Scripts added with `page.addInitScript`: (Chromium's identifier, the script).
    init_scripts: Mutex<Vec<(String, String)>>,
    /// Files given to `page.upload`, kept until the page goes (it reads them when it sends them).
    uploads: Mutex<Option<UploadDir>>,
    /// Where Chromium saves the page's downloads (see `downloads`).
    downloads_dir: Arc<UploadDir>,
    /// The viewport last set, which a tab this page opens starts with.
    viewport: Mutex<Viewport>,
    /// Failed calls' evidence includes a small screenshot (`session.create({evidence: true})`).
    evidence_shots: std::sync::atomic::AtomicBool,
    routes: Arc<EventRoutes>,
    /// The DOM watcher's reports the service took with a call's answer, on their way to the pump
    /// (the rest come through the watcher's binding). Bounded by what sends on it: one report of
    /// at most 256 KiB per look the service makes, each drained by the pump before the barrier
    /// the look then waits on.
    reports: mpsc::UnboundedSender<PageEvent>,
    pump: JoinHandle<()>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        self.routes.remove(self.page.session_id().as_ref());
        self.routes.remove_frame(&TargetId::from(self.target_id.as_str()).main_frame());
        self.watch.stop();
        self.pump.abort();
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
        Self::start(chromium, page, siblings, Watcher::FromNextDocument, deadline).await
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
        Self::start(chromium, page, siblings, Watcher::FromThisDocument, deadline).await
    }

    /// Subscribes to the page's events, installs the DOM watcher and starts the pump that folds
    /// them into its timeline.
    async fn start(
        chromium: &Chromium,
        page: chromiumoxide::Page,
        siblings: &Siblings,
        watcher: Watcher,
        deadline: Instant,
    ) -> Result<Self, BrowserError> {
        let target_id = page.target_id().as_ref().to_owned();
        // chromiumoxide asks Chromium to hold each worker the page starts until a debugger lets it
        // run, and lets it run itself; a service worker it missed stayed "starting" for ever, and
        // the page's `navigator.serviceWorker.ready` with it. Workers start at once instead (their
        // requests pass the session's egress proxy like the page's own).
        let no_wait = SetAutoAttach { auto_attach: true, wait_for_debugger_on_start: false, flatten: true };
        cdp::send(&page, no_wait, deadline).await?;

        // Subscribe before anything navigates, so no event of the first load is missed.
        let (raw_tx, raw_rx) = mpsc::unbounded_channel();
        let (reports, reports_rx) = mpsc::unbounded_channel();
        let main_frame = TargetId::from(target_id.as_str()).main_frame();
        chromium.routes().add_frame(main_frame.clone(), raw_tx.clone());
        chromium.routes().add(page.session_id().as_ref().into(), raw_tx);
        let subscribed = async {
            let events = subscribe(&page, raw_rx, reports_rx).await?;
            dom::install(&page, watcher, Instant::now() + WATCH_SETUP).await?;
            Ok::<_, BrowserError>(events)
        };
        let events = match subscribed.await {
            Ok(events) => events,
            Err(err) => {
                chromium.routes().remove(page.session_id().as_ref());
                chromium.routes().remove_frame(&main_frame);
                return Err(err);
            }
        };
        let env = Env {
            egress: siblings.egress.clone(),
            popups: siblings.popups.clone(),
            download_cap: Some(siblings.download_cap),
            context_id: siblings.context_id.clone(),
            ..Env::default()
        };
        let (watch, pump) = Watch::start(page.clone(), main_frame, env, events);
        Ok(Self {
            inner: Arc::new(Inner {
                page,
                target_id,
                watch,
                helper_world: Mutex::new(HelperWorld::default()),
                lister: Mutex::new(None),
                refs: Mutex::new(RefTable::default()),
                snapshots: Mutex::new(Vec::new()),
                init_scripts: Mutex::new(Vec::new()),
                uploads: Mutex::new(None),
                downloads_dir: siblings.downloads_dir.clone(),
                viewport: Mutex::new(Viewport::default()),
                evidence_shots: std::sync::atomic::AtomicBool::new(false),
                routes: chromium.routes().clone(),
                reports,
                pump,
            }),
        })
    }

    /// A new subscription to what the page does from now on (see `watch::views::live`).
    pub fn live_events(&self) -> tokio::sync::broadcast::Receiver<LiveEvent> {
        self.inner.watch.subscribe()
    }

    /// The tab id this page goes by in `tabs.list` and `tab_id` params.
    pub fn tab_id(&self) -> String {
        popup_log::tab_id(&self.inner.target_id)
    }

    /// The page's target id, for closing it.
    pub(in crate::browser) fn tab_target(&self) -> &str {
        &self.inner.target_id
    }

    /// True if this is the page of target `target_id`.
    pub(in crate::browser) fn target_id_is(&self, target_id: &str) -> bool {
        self.inner.target_id == target_id
    }

    /// The viewport last set on the page.
    pub fn viewport(&self) -> Viewport {
        *self.inner.viewport.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(super) fn remember_viewport(&self, viewport: Viewport) {
        *self.inner.viewport.lock().unwrap_or_else(|p| p.into_inner()) = viewport;
    }

    /// The tab id of the page that opened this one, for a popup.
    pub fn opener_tab_id(&self) -> Option<String> {
        self.inner.page.opener_id().as_ref().map(|id| popup_log::tab_id(id.as_ref()))
    }

    /// The chromiumoxide page, for the few helpers that take one.
    pub(super) fn cdp_page(&self) -> &chromiumoxide::Page {
        &self.inner.page
    }

    /// The page's target id, which is also its main frame's id.
    pub(super) fn target_id(&self) -> &str {
        &self.inner.target_id
    }

    /// What the pump keeps current about the page.
    pub(in crate::browser) fn watch(&self) -> &Watch {
        &self.inner.watch
    }

    /// The main frame's current document (its loader id).
    pub(super) fn loader_id(&self) -> String {
        self.inner.watch.nav.borrow().loader_id.to_string()
    }

    pub(super) fn helper_world(&self) -> std::sync::MutexGuard<'_, HelperWorld> {
        self.inner.helper_world.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(super) fn lister(&self) -> std::sync::MutexGuard<'_, Option<super::reach::Lister>> {
        self.inner.lister.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(super) fn refs(&self) -> std::sync::MutexGuard<'_, RefTable> {
        self.inner.refs.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// `text` with every password this session typed masked (see `redact`).
    pub(super) fn redact(&self, text: &str) -> String {
        self.inner.watch.store().redactor.text(text)
    }

    /// `value` with every password this session typed masked in its strings; as it is when the
    /// session typed none. Every answer about this page passes here (see `rpc::registry`).
    pub fn redact_json(&self, value: Value) -> Value {
        let redactor = self.inner.watch.store().redactor.clone();
        if redactor.is_empty() { value } else { redactor.json(value) }
    }

    /// Where Chromium saves this page's downloads.
    pub fn downloads_dir(&self) -> &std::path::Path {
        self.inner.downloads_dir.path()
    }

    /// Whether failed calls' evidence includes a screenshot.
    pub fn set_evidence_shots(&self, on: bool) {
        self.inner.evidence_shots.store(on, std::sync::atomic::Ordering::Relaxed);
    }

    pub(super) fn evidence_shots(&self) -> bool {
        self.inner.evidence_shots.load(std::sync::atomic::Ordering::Relaxed)
    }

    pub(super) fn uploads(&self) -> std::sync::MutexGuard<'_, Option<UploadDir>> {
        self.inner.uploads.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(super) fn init_scripts(&self) -> std::sync::MutexGuard<'_, Vec<(String, String)>> {
        self.inner.init_scripts.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Keeps `lines` as the latest snapshot of `scope`; returns the one it replaces.
    pub(super) fn remember_snapshot(&self, scope: &str, lines: Vec<String>) -> Option<Vec<String>> {
        /// Scopes remembered (the page snapshot, a few element snapshots).
        const SCOPES: usize = 4;
        let mut snapshots = self.inner.snapshots.lock().unwrap_or_else(|p| p.into_inner());
        let previous = snapshots.iter().position(|(s, _)| s == scope).map(|i| snapshots.remove(i).1);
        if snapshots.len() == SCOPES {
            snapshots.remove(0);
        }
        snapshots.push((scope.to_owned(), lines));
        previous
    }

    /// Sends a command given as JSON to the page, failing at once if its renderer crashed (for
    /// callers not yet on typed commands: [`Page::send`]).
    pub(in crate::browser) async fn cdp(
        &self,
        method: &'static str,
        params: Value,
        deadline: Instant,
    ) -> Result<Value, BrowserError> {
        if self.inner.watch.nav.borrow().crashed {
            return Err(crashed());
        }
        cdp::call(&self.inner.page, method, params, deadline).await
    }

    /// Sends a command to the page and reads its answer, failing at once if its renderer crashed.
    pub(in crate::browser) async fn send<C: cdp::Command>(
        &self,
        command: C,
        deadline: Instant,
    ) -> Result<C::Answer, BrowserError> {
        let answer = self.cdp(C::METHOD, cdp::params_of(&command)?, deadline).await?;
        cdp::answer_of::<C>(answer)
    }

    /// Sends `method` once with each of `each`, all at once and in order, and waits for every
    /// answer (the first error is returned). For input: Chromium queues a page's input in the
    /// order it was sent and dispatches each event only after the listeners of the one before have
    /// run, so sending a gesture's events together only saves the wait for each answer before the
    /// next (Puppeteer sends a click's press and release the same way). What does change: a task a
    /// listener queued (a zero timer) may now run after the next event instead of before it, as
    /// it may for a quick user; a typed text's characters therefore still go one after another.
    pub(super) async fn send_in_order<C: cdp::Command>(
        &self,
        each: Vec<C>,
        deadline: Instant,
    ) -> Result<(), BrowserError> {
        let mut answers = Vec::with_capacity(each.len());
        for command in each {
            let mut answer = Box::pin(future::maybe_done(self.send(command, deadline)));
            // Its first poll sends the command: each leaves before the next is made.
            let _sent = std::future::poll_fn(|cx| Poll::Ready(answer.as_mut().poll(cx))).await;
            answers.push(answer);
        }
        let mut first_error = None;
        for mut answer in answers {
            answer.as_mut().await;
            if let Some(Err(err)) = answer.as_mut().take_output() {
                first_error.get_or_insert(err);
            }
        }
        first_error.map_or(Ok(()), Err)
    }

    /// Sends a command without the crash check, for clean-up after a failure or timeout.
    pub(super) async fn send_unchecked<C: cdp::Command>(&self, command: C, deadline: Instant) {
        let _ = cdp::send(&self.inner.page, command, deadline).await;
    }

    /// Sends a command from a task of the page's own (clean-up that must not delay the caller).
    pub(super) fn send_detached<C: cdp::Command>(&self, command: C) {
        if let Ok(params) = cdp::params_of(&command) {
            self.inner.watch.run(Command::Send { method: C::METHOD, params });
        }
    }

    /// Returns once the pump has applied every event Chromium sent before now.
    ///
    /// chromiumoxide answers a command as soon as its response arrives but hands the events that
    /// came before it to listeners on its handler's next turn. One more round trip (answered by the
    /// browser process, so a page stuck in a loop cannot hold it up) guarantees that turn has
    /// happened; then the pump drains its channels before it answers the barrier. If the round
    /// trip fails the connection is gone, and the barrier alone is the best there is.
    pub(in crate::browser) async fn settle_events(&self, deadline: Instant) {
        let tick_deadline = deadline.min(Instant::now() + Duration::from_secs(1));
        let _ = cdp::send(&self.inner.page, GetTargetInfo {}, tick_deadline).await;
        self.inner.watch.applied(deadline).await;
    }

    /// Files a report of the DOM watcher the page answered a call with, as if it had come through
    /// the watcher's binding (`watch::dom::parse_payload`; one that is not a report is dropped).
    /// [`Page::settle_events`] waits for it like for any event.
    pub(super) fn file_dom_report(&self, payload: &str) {
        if let Some(report) = dom::parse_payload(payload) {
            let _ = self.inner.reports.send(PageEvent::DomChanged(report));
        }
    }

    /// Stops routing rescued events to this page (its context is being disposed).
    pub(in crate::browser) fn detach(&self) {
        self.inner.routes.remove(self.inner.page.session_id().as_ref());
    }
}

pub(super) fn crashed() -> BrowserError {
    BrowserError::Unavailable("this session's page crashed (its renderer process died)".into())
}

pub(super) fn page_gone() -> BrowserError {
    BrowserError::Unavailable("this session's page is gone".into())
}

/// One stream of [`PageEvent`]s from the page's typed listeners, the raw rescue channel and the
/// DOM watcher's reports taken with a call's answer.
async fn subscribe(
    page: &chromiumoxide::Page,
    raw: mpsc::UnboundedReceiver<crate::browser::chromium::RawEvent>,
    reports: mpsc::UnboundedReceiver<PageEvent>,
) -> Result<SelectAll<BoxStream<'static, PageEvent>>, BrowserError> {
    use chromiumoxide::cdp::browser_protocol::fetch::EventAuthRequired;
    use chromiumoxide::cdp::browser_protocol::fetch::EventRequestPaused;
    use chromiumoxide::cdp::browser_protocol::inspector::EventTargetCrashed;
    use chromiumoxide::cdp::browser_protocol::network::{
        EventLoadingFailed, EventLoadingFinished, EventRequestWillBeSent, EventResponseReceived,
    };
    use chromiumoxide::cdp::browser_protocol::page::{
        EventFileChooserOpened, EventFrameNavigated, EventFrameRequestedNavigation, EventJavascriptDialogOpening,
        EventLifecycleEvent, EventWindowOpen,
    };
    use chromiumoxide::cdp::js_protocol::debugger::EventScriptParsed;
    use chromiumoxide::cdp::js_protocol::runtime::{
        EventBindingCalled, EventConsoleApiCalled, EventExceptionThrown, EventExecutionContextCreated,
    };

    let mut all = SelectAll::new();
    all.push(typed::<EventLifecycleEvent>(page).await?);
    all.push(typed::<EventFrameNavigated>(page).await?);
    all.push(typed::<EventRequestWillBeSent>(page).await?);
    all.push(typed::<EventResponseReceived>(page).await?);
    all.push(typed::<EventLoadingFinished>(page).await?);
    all.push(typed::<EventLoadingFailed>(page).await?);
    all.push(typed::<EventTargetCrashed>(page).await?);
    all.push(typed::<EventFrameRequestedNavigation>(page).await?);
    all.push(typed::<EventConsoleApiCalled>(page).await?);
    all.push(typed::<EventExceptionThrown>(page).await?);
    all.push(typed::<EventRequestPaused>(page).await?);
    all.push(typed::<EventAuthRequired>(page).await?);
    all.push(typed::<EventScriptParsed>(page).await?);
    all.push(typed::<EventJavascriptDialogOpening>(page).await?);
    all.push(typed::<EventFileChooserOpened>(page).await?);
    all.push(typed::<EventWindowOpen>(page).await?);
    all.push(typed::<EventBindingCalled>(page).await?);
    all.push(typed::<EventExecutionContextCreated>(page).await?);
    let mut raw = raw;
    let rescued = stream::poll_fn(move |cx| raw.poll_recv(cx))
        .filter_map(|event| std::future::ready(PageEvent::parse(&event.method, event.params)));
    all.push(rescued.boxed());
    let mut reports = reports;
    all.push(stream::poll_fn(move |cx| reports.poll_recv(cx)).boxed());
    Ok(all)
}

/// A typed chromiumoxide listener, re-read through our lenient parser.
async fn typed<T>(page: &chromiumoxide::Page) -> Result<BoxStream<'static, PageEvent>, BrowserError>
where
    T: chromiumoxide::cdp::IntoEventKind
        + chromiumoxide::types::MethodType
        + serde::Serialize
        + Unpin
        + Send
        + Sync
        + 'static,
{
    let method = T::method_id();
    let listener = page.event_listener::<T>().await.map_err(|e| cdp::map_cdp_error(&method, e))?;
    Ok(listener
        .filter_map(move |event| {
            let parsed = serde_json::to_value(&*event).ok().and_then(|v| PageEvent::parse(&method, v));
            std::future::ready(parsed)
        })
        .boxed())
}
