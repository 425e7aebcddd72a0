//! [`Core`]: the one owner of a page's connection and state — the chromiumoxide page and its target
//! id, the watch that folds the page's events into its timeline (`watch`), the routes its events
//! come by and the pump — with the typed commands sent to the page and the barrier that waits for
//! the events before an answer (`settle_events`). Also what the page remembers across calls
//! (init scripts, uploads, the viewport, snapshots for diffs). The handle (`handle`) derefs to it;
//! everything below the handle (`locate`, `act` …) works through it. The pump stops when the core
//! is dropped.

use std::sync::{Arc, Mutex, MutexGuard};
use std::task::Poll;
use std::time::Duration;

use futures_util::StreamExt;
use futures_util::future;
use futures_util::stream::{self, BoxStream, SelectAll};
use serde_json::Value;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::adoption;
use super::originals::Originals;
use super::scratch::ScratchDir;
use super::siblings::Siblings;
use super::viewport::Viewport;
use super::watch::dom::{self, Watcher};
use super::watch::pauses;
use super::watch::{Arm, Command, DialogArm, Env, LiveEvent, MAX_ARM, PageEvent, Shared, Watch};
use crate::browser::chromium::ids::{LoaderId, TargetId};
use crate::browser::chromium::protocol::storage::DomStorageEnable;
use crate::browser::chromium::protocol::target::{GetTargetInfo, SetAutoAttach};
use crate::browser::chromium::{Chromium, EventRoutes, Listened, cdp, listen};
use crate::browser::error::BrowserError;

/// How long subscribing to a page's events and installing its DOM watcher may take.
const WATCH_SETUP: Duration = Duration::from_secs(10);

/// Everything one page is, owned once (see the module doc).
pub struct Core {
    pub(super) page: chromiumoxide::Page,
    /// The page's target (whose id its main frame's id is too).
    pub(super) target_id: TargetId,
    watch: Watch,
    /// The latest snapshot lines per scope, for `snapshot: "diff"` (a few scopes at most).
    snapshots: Mutex<Vec<(String, Vec<String>)>>,
    /// Scripts added with `page.addInitScript`: (Chromium's identifier, the script).
    pub(super) init_scripts: Mutex<Vec<(String, String)>>,
    /// Files given to `page.upload`, kept until the page goes (it reads them when it sends them).
    pub(super) uploads: Mutex<Option<ScratchDir>>,
    /// Where Chromium saves the page's downloads (see `settled`).
    pub(super) downloads_dir: Arc<ScratchDir>,
    /// The session's source maps (see `originals`).
    pub(super) originals: Arc<Originals>,
    /// The viewport last set, which a tab this page opens starts with.
    pub(super) viewport: Mutex<Viewport>,
    /// Failed calls' evidence includes a small screenshot (`session.create({evidence: true})`).
    pub(super) evidence_shots: std::sync::atomic::AtomicBool,
    routes: Arc<EventRoutes>,
    /// The DOM watcher's reports the service took with a call's answer, on their way to the pump
    /// (the rest come through the watcher's binding), and what the pauses task read (`watch::pauses`,
    /// bounded like the page's own events). Bounded by what sends on it: one report of at most
    /// 256 KiB per look the service makes, each drained by the pump before the barrier the look
    /// then waits on.
    reports: mpsc::UnboundedSender<PageEvent>,
    pump: JoinHandle<()>,
    /// The task answering the Debugger's pauses (`watch::pauses`).
    pauses: JoinHandle<()>,
    /// How far the page's storage calls are followed, and so whether the Debugger is on; held
    /// while the Debugger is turned on or off.
    pub(super) debugger: tokio::sync::Mutex<Following>,
}

/// How far a page's Web Storage calls are followed (`Core::follow_storage`, `watch::pauses`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Following {
    /// The Debugger is off: no call is seen (a write still is, without its line).
    Off,
    /// The Debugger is on and this document's calls are followed (an action ran in it).
    Document(LoaderId),
    /// The page used storage: every document's calls are followed from its start.
    Always,
}

impl Following {
    /// Whether the Debugger domain is on.
    pub(super) fn debugger_on(&self) -> bool {
        !matches!(self, Self::Off)
    }
}

impl Drop for Core {
    fn drop(&mut self) {
        self.routes.remove(self.page.session_id().as_ref());
        self.routes.remove_frame(&self.target_id.main_frame());
        self.watch.stop();
        self.pump.abort();
        self.pauses.abort();
    }
}

impl Core {
    /// Subscribes to the page's events, installs the DOM watcher and starts the pump that folds
    /// them into its timeline.
    pub(super) async fn start(
        chromium: &Chromium,
        page: chromiumoxide::Page,
        siblings: &Siblings,
        watcher: Watcher,
        deadline: Instant,
    ) -> Result<Self, BrowserError> {
        let target_id = TargetId::from(page.target_id().as_ref());
        // chromiumoxide asks Chromium to hold each worker the page starts until a debugger lets it
        // run, and lets it run itself; a service worker it missed stayed "starting" for ever, and
        // the page's `navigator.serviceWorker.ready` with it. Workers start at once instead (their
        // requests pass the session's egress proxy like the page's own).
        let no_wait = SetAutoAttach { auto_attach: true, wait_for_debugger_on_start: false, flatten: true };
        cdp::send(&page, no_wait, deadline).await?;

        // Subscribe before anything navigates, so no event of the first load is missed.
        let (raw_tx, raw_rx) = mpsc::unbounded_channel();
        let (reports, reports_rx) = mpsc::unbounded_channel();
        let main_frame = target_id.main_frame();
        chromium.routes().add_frame(main_frame.clone(), raw_tx.clone());
        chromium.routes().add(page.session_id().as_ref().into(), raw_tx);
        let (to_pauses, pauses_rx) = mpsc::unbounded_channel();
        let subscribed = async {
            let events = subscribe(&page, raw_rx, reports_rx, to_pauses).await?;
            // Its listeners are there before the Debugger can be on: no pause goes unanswered.
            let pauses = pauses::start(&page, pauses_rx, reports.clone()).await?;
            let installed = async {
                dom::install(&page, watcher, Instant::now() + WATCH_SETUP).await?;
                cdp::send(&page, DomStorageEnable {}, Instant::now() + WATCH_SETUP).await
            };
            if let Err(err) = installed.await {
                pauses.abort();
                return Err(err);
            }
            Ok::<_, BrowserError>((events, pauses))
        };
        let (events, pauses) = match subscribed.await {
            Ok(started) => started,
            Err(err) => {
                chromium.routes().remove(page.session_id().as_ref());
                chromium.routes().remove_frame(&main_frame);
                return Err(err);
            }
        };
        let env = Env { download_cap: Some(siblings.download_cap), context_id: siblings.context_id.clone() };
        let shared = Shared { egress: siblings.egress.clone(), popups: siblings.popups.clone() };
        let (watch, pump) = Watch::start(page.clone(), main_frame, env, shared, events);
        watch.store().redactor = siblings.redactor.clone();
        Ok(Self {
            page,
            target_id,
            watch,
            snapshots: Mutex::new(Vec::new()),
            init_scripts: Mutex::new(Vec::new()),
            uploads: Mutex::new(None),
            downloads_dir: siblings.downloads_dir.clone(),
            originals: siblings.originals.clone(),
            viewport: Mutex::new(Viewport::default()),
            evidence_shots: std::sync::atomic::AtomicBool::new(false),
            routes: chromium.routes().clone(),
            reports,
            pump,
            pauses,
            debugger: tokio::sync::Mutex::new(Following::Off),
        })
    }

    /// A new subscription to what the page does from now on (see `watch::views::live`).
    pub fn live_events(&self) -> tokio::sync::broadcast::Receiver<LiveEvent> {
        self.watch.subscribe()
    }

    /// The tab id this page goes by in `tabs.list` and `tab_id` params.
    pub fn tab_id(&self) -> String {
        adoption::tab_id(self.target_id.as_str())
    }

    /// The page's target id, for closing it.
    pub(in crate::browser) fn tab_target(&self) -> &str {
        self.target_id.as_str()
    }

    /// True if this is the page of target `target_id`.
    pub(in crate::browser) fn target_id_is(&self, target_id: &str) -> bool {
        self.target_id == target_id
    }

    /// The viewport last set on the page.
    pub fn viewport(&self) -> Viewport {
        *lock(&self.viewport)
    }

    /// The tab id of the page that opened this one, for a popup.
    pub fn opener_tab_id(&self) -> Option<String> {
        self.page.opener_id().as_ref().map(|id| adoption::tab_id(id.as_ref()))
    }

    /// `value` with every password this session typed (in any tab) and every secret-named query
    /// value masked in its strings. Every answer about this page passes here (see `rpc::registry`).
    pub fn redact_json(&self, value: Value) -> Value {
        let redactor = self.watch.store().redactor.clone();
        redactor.json(value)
    }

    /// Where Chromium saves this page's downloads.
    pub fn downloads_dir(&self) -> &std::path::Path {
        self.downloads_dir.path()
    }

    /// Arms the answer to the page's next dialog, for `within` (at most [`MAX_ARM`]): `alert`,
    /// `confirm`, `prompt` and `beforeunload` never wedge a page. While a dialog is open the page's
    /// scripts stop, and with them every call into the page, so the pump answers each dialog the
    /// moment it opens (`watch::arms`): as armed (accept or dismiss, the text a prompt returns), or
    /// else dismissed — except `beforeunload`, which is accepted, so a navigation is never held up.
    /// The last arm wins; an arm is used once and expires.
    pub fn arm_dialog(&self, accept: bool, prompt_text: Option<String>, within: std::time::Duration) {
        let expires = Instant::now() + within.min(MAX_ARM);
        self.watch.arm(Arm::Dialog(DialogArm { accept, prompt_text, expires }));
    }

    /// Whether failed calls' evidence includes a screenshot.
    pub fn set_evidence_shots(&self, on: bool) {
        self.evidence_shots.store(on, std::sync::atomic::Ordering::Relaxed);
    }

    /// Whether the session's answers read locations through source maps (on unless turned off).
    pub fn set_source_maps(&self, on: bool) {
        self.originals.set_on(on);
    }

    /// What the pump keeps current about the page.
    pub(in crate::browser) fn watch(&self) -> &Watch {
        &self.watch
    }

    /// The main frame's current document (its loader id).
    pub(super) fn loader_id(&self) -> LoaderId {
        self.watch.nav.borrow().loader_id.clone()
    }

    /// `text` with every password this session typed masked (see `redact`).
    pub(super) fn redact(&self, text: &str) -> String {
        self.watch.store().redactor.text(text)
    }

    /// Keeps `lines` as the latest snapshot of `scope`; returns the one it replaces.
    pub(super) fn remember_snapshot(&self, scope: &str, lines: Vec<String>) -> Option<Vec<String>> {
        /// Scopes remembered (the page snapshot, a few element snapshots).
        const SCOPES: usize = 4;
        let mut snapshots = lock(&self.snapshots);
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
        if self.watch.nav.borrow().crashed {
            return Err(crashed());
        }
        cdp::call(&self.page, method, params, deadline).await
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
        let _ = cdp::send(&self.page, command, deadline).await;
    }

    /// Sends a command from a task of the page's own (clean-up that must not delay the caller).
    pub(super) fn send_detached<C: cdp::Command>(&self, command: C) {
        if let Ok(params) = cdp::params_of(&command) {
            self.watch.run(Command::Send { method: C::METHOD, params });
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
        let _ = cdp::send(&self.page, GetTargetInfo {}, tick_deadline).await;
        self.watch.applied(deadline).await;
    }

    /// Follows the page's Web Storage calls for what the service is about to do. Before an action
    /// (`navigating` false) the current document's calls are followed; once the page has used
    /// storage (the pump filed a write or a followed call), every document's from its start, for
    /// good. Before a navigation of a page that has not, the Debugger is turned off again: a load
    /// with it on costs the page's time (see `watch::pauses`). Failing to arm is not the action's
    /// failure: its calls are then unseen, as on a page that has not used storage.
    pub(in crate::browser) async fn follow_storage(&self, navigating: bool, deadline: Instant) {
        let used = self.watch.store().storage_used;
        let mut following = self.debugger.lock().await;
        let loader = self.loader_id();
        match &*following {
            Following::Always => {}
            Following::Document(armed) if used => {
                let current = *armed == loader;
                if pauses::arm(&self.page, !current, deadline).await.is_ok() {
                    *following = Following::Always;
                }
            }
            Following::Off if used => {
                if pauses::arm(&self.page, true, deadline).await.is_ok() {
                    *following = Following::Always;
                }
            }
            Following::Document(_) if navigating => {
                pauses::disarm(&self.page, deadline).await;
                *following = Following::Off;
            }
            Following::Document(armed) if *armed == loader => {}
            Following::Off if navigating => {}
            Following::Document(_) | Following::Off => {
                if pauses::arm_document(&self.page, deadline).await.is_ok() {
                    *following = Following::Document(loader);
                }
            }
        }
    }

    /// Files a report of the DOM watcher the page answered a call with, as if it had come through
    /// the watcher's binding (`watch::dom::parse_payload`; one that is not a report is dropped).
    /// [`Page::settle_events`] waits for it like for any event.
    pub(super) fn file_dom_report(&self, payload: &str) {
        if let Some(report) = dom::parse_payload(payload) {
            let _ = self.reports.send(PageEvent::DomChanged(report));
        }
    }

    /// Stops routing rescued events to this page (its context is being disposed).
    pub(in crate::browser) fn detach(&self) {
        self.routes.remove(self.page.session_id().as_ref());
    }
}

/// The lock of `mutex`, also when a thread panicked holding it (what it guards stays usable: every
/// change under these locks is one assignment or push).
pub(super) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|p| p.into_inner())
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
    to_pauses: mpsc::UnboundedSender<crate::browser::chromium::RawEvent>,
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
    subscribe_exchanged(page, &mut all).await?;
    let mut raw = raw;
    // Pauses are the pauses task's (`watch::pauses`), storage writes its too (its mirror), whichever
    // way they come.
    let rescued = stream::poll_fn(move |cx| raw.poll_recv(cx)).filter_map(move |event| {
        if event.method == "Debugger.paused" {
            let _ = to_pauses.send(event);
            return std::future::ready(None);
        }
        if pauses::wants(&event.method) {
            let _ = to_pauses.send(event.clone());
        }
        std::future::ready(PageEvent::parse(&event.method, event.params))
    });
    all.push(rescued.boxed());
    let mut reports = reports;
    all.push(stream::poll_fn(move |cx| reports.poll_recv(cx)).boxed());
    Ok(all)
}

/// The listeners of what the page exchanged beyond requests: sockets, streams, storage, and the
/// headers and cookies of each hop.
async fn subscribe_exchanged(
    page: &chromiumoxide::Page,
    all: &mut SelectAll<BoxStream<'static, PageEvent>>,
) -> Result<(), BrowserError> {
    use chromiumoxide::cdp::browser_protocol::dom_storage::{
        EventDomStorageItemAdded, EventDomStorageItemRemoved, EventDomStorageItemUpdated, EventDomStorageItemsCleared,
    };
    use chromiumoxide::cdp::browser_protocol::network::{
        EventEventSourceMessageReceived, EventRequestWillBeSentExtraInfo, EventResponseReceivedExtraInfo,
        EventWebSocketClosed, EventWebSocketCreated, EventWebSocketFrameError, EventWebSocketFrameReceived,
        EventWebSocketFrameSent, EventWebSocketHandshakeResponseReceived,
    };
    all.push(typed::<EventWebSocketCreated>(page).await?);
    all.push(typed::<EventWebSocketHandshakeResponseReceived>(page).await?);
    all.push(typed::<EventWebSocketFrameSent>(page).await?);
    all.push(typed::<EventWebSocketFrameReceived>(page).await?);
    all.push(typed::<EventWebSocketFrameError>(page).await?);
    all.push(typed::<EventWebSocketClosed>(page).await?);
    all.push(typed::<EventEventSourceMessageReceived>(page).await?);
    all.push(typed::<EventDomStorageItemAdded>(page).await?);
    all.push(typed::<EventDomStorageItemUpdated>(page).await?);
    all.push(typed::<EventDomStorageItemRemoved>(page).await?);
    all.push(typed::<EventDomStorageItemsCleared>(page).await?);
    // Most requestWillBeSentExtraInfo fail chromiumoxide's parse (a renamed field): those come raw.
    all.push(typed::<EventRequestWillBeSentExtraInfo>(page).await?);
    all.push(typed::<EventResponseReceivedExtraInfo>(page).await?);
    Ok(())
}

/// A typed chromiumoxide listener, re-read through our lenient parser.
async fn typed<T: Listened>(page: &chromiumoxide::Page) -> Result<BoxStream<'static, PageEvent>, BrowserError> {
    let events = listen::<T>(page).await?;
    Ok(events.filter_map(|event| std::future::ready(PageEvent::parse(&event.method, event.params))).boxed())
}
