//! One session: its own browser context (cookies, storage, cache) with one page.
//!
//! Calls on one session run in order (the `turn` mutex); calls on different sessions run in
//! parallel. The page's event pump runs in its own task and ends with the page; it is aborted when
//! the session is dropped. What each method does with the page lives in its own module
//! (`navigation`, `reading`, `evaluate`); this file only owns the session's life.

use std::sync::{Arc, Mutex};

use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::browser::BrowserContextId;
use chromiumoxide::cdp::browser_protocol::target::CreateTargetParams;
use futures_util::StreamExt;
use futures_util::stream::{self, BoxStream, SelectAll};
use serde_json::{Value, json};
use tokio::sync::{OwnedSemaphorePermit, mpsc};
use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::cdp;
use super::chromium::{Chromium, EventRoutes};
use super::error::BrowserError;
use super::events::PageEvent;
use super::options::{SessionOptions, Viewport};
use super::page_state::{PageTracker, PageWatch};
use super::refs::RefTable;
use crate::egress::EgressPolicy;
use crate::egress::proxy::{EgressProxy, Upstream};

pub struct Session {
    pub id: String,
    pub(super) context_id: String,
    pub(super) page: Page,
    pub(super) watch: PageWatch,
    /// Held for the length of one call: calls on a session never interleave.
    pub(super) turn: tokio::sync::Mutex<()>,
    /// Last time a call started or ended; the janitor closes sessions idle past the TTL.
    last_used: Mutex<Instant>,
    /// The isolated world our helper scripts run in, for the document it was made for:
    /// (loader id, execution context id).
    pub(super) helper_world: Mutex<Option<(String, i64)>>,
    /// The refs page.snapshot issued (see `refs`).
    pub(super) refs: Mutex<RefTable>,
    routes: Arc<EventRoutes>,
    /// Asks the pump to apply every event delivered so far (see [`Session::settle_events`]).
    barrier: mpsc::UnboundedSender<tokio::sync::oneshot::Sender<()>>,
    pump: JoinHandle<()>,
    /// The proxy all of this context's traffic goes through; stops when the session is dropped.
    _egress: EgressProxy,
    capacity: Option<OwnedSemaphorePermit>,
}

impl Session {
    /// Creates the context and page, starts the event pump, then applies the options.
    /// On any failure the context is disposed again: nothing is left behind.
    pub(super) async fn open(
        chromium: &Chromium,
        policy: &Arc<EgressPolicy>,
        options: &SessionOptions,
        capacity: OwnedSemaphorePermit,
        deadline: Instant,
    ) -> Result<Self, BrowserError> {
        let upstream = options.proxy.as_ref().map(|p| p.upstream()).transpose().map_err(BrowserError::InvalidOption)?;
        Self::open_blank(chromium, policy, upstream, capacity, deadline)
            .await?
            .prepare(chromium, options, deadline)
            .await
    }

    /// Creates the context and its about:blank page with the event pump running and the default
    /// viewport, and no other options applied yet: what the warm pool keeps ready.
    pub(super) async fn open_blank(
        chromium: &Chromium,
        policy: &Arc<EgressPolicy>,
        upstream: Option<Upstream>,
        capacity: OwnedSemaphorePermit,
        deadline: Instant,
    ) -> Result<Self, BrowserError> {
        let egress = EgressProxy::start(policy.clone(), upstream)
            .await
            .map_err(|e| BrowserError::Unavailable(format!("cannot start the session's egress proxy: {e}")))?;
        // `<-loopback>` removes Chromium's implicit bypass for localhost: loopback goes through the
        // proxy (and its policy) like every other host.
        let ctx_params = json!({
            "disposeOnDetach": true,
            "proxyServer": egress.server(),
            "proxyBypassList": "<-loopback>",
        });
        let created = chromium.call("Target.createBrowserContext", ctx_params, deadline).await?;
        let context_id = created
            .get("browserContextId")
            .and_then(Value::as_str)
            .ok_or_else(|| BrowserError::Protocol {
                method: "Target.createBrowserContext".into(),
                message: "no browserContextId in the answer".into(),
            })?
            .to_owned();
        let opened = match Self::open_page(chromium, &context_id, egress, capacity, deadline).await {
            Ok(session) => session.set_viewport(Viewport::default(), deadline).await.map(|()| session),
            Err(err) => Err(err),
        };
        match opened {
            Ok(session) => Ok(session),
            Err(err) => {
                let _ = dispose_context(chromium, &context_id).await;
                Err(err)
            }
        }
    }

    /// Applies the options to a blank session and starts its idle clock; on failure the context
    /// is disposed.
    pub(super) async fn prepare(
        self,
        chromium: &Chromium,
        options: &SessionOptions,
        deadline: Instant,
    ) -> Result<Self, BrowserError> {
        match self.apply_options(chromium, options, deadline).await {
            Ok(()) => {
                self.touch();
                Ok(self)
            }
            Err(err) => {
                let _ = self.dispose(chromium).await;
                Err(err)
            }
        }
    }

    async fn open_page(
        chromium: &Chromium,
        context_id: &str,
        egress: EgressProxy,
        capacity: OwnedSemaphorePermit,
        deadline: Instant,
    ) -> Result<Self, BrowserError> {
        let params = CreateTargetParams::builder()
            .url("about:blank")
            .browser_context_id(BrowserContextId::new(context_id))
            .build()
            .map_err(BrowserError::Unavailable)?;
        let page = chromium.new_page(params, deadline).await?;

        // Subscribe before anything navigates, so no event of the first load is missed.
        let (tracker, watch) = PageTracker::new(page.target_id().as_ref().to_owned());
        let (raw_tx, raw_rx) = mpsc::unbounded_channel();
        let cdp_session = page.session_id().as_ref().to_owned();
        chromium.routes().add(cdp_session, raw_tx);
        let events = subscribe(&page, raw_rx).await?;
        let (barrier, barriers) = mpsc::unbounded_channel();
        let tracker = tracker.with_page(page.clone()).with_egress(egress.log().clone());
        let pump = tokio::spawn(tracker.run(events, barriers));

        Ok(Self {
            id: uuid::Uuid::new_v4().simple().to_string(),
            context_id: context_id.to_owned(),
            page,
            watch,
            turn: tokio::sync::Mutex::new(()),
            last_used: Mutex::new(Instant::now()),
            helper_world: Mutex::new(None),
            refs: Mutex::new(RefTable::default()),
            routes: chromium.routes().clone(),
            barrier,
            pump,
            _egress: egress,
            capacity: Some(capacity),
        })
    }

    /// Gives back this session's MAX_SESSIONS permit, for a warm session that is being replaced
    /// by one with its own context options.
    pub(super) fn take_permit(&mut self) -> Option<OwnedSemaphorePermit> {
        self.capacity.take()
    }

    async fn apply_options(
        &self,
        chromium: &Chromium,
        options: &SessionOptions,
        deadline: Instant,
    ) -> Result<(), BrowserError> {
        // A blank session already has the default viewport (see `open_blank`).
        if options.viewport != Viewport::default() {
            self.set_viewport(options.viewport, deadline).await?;
        }
        if let Some(user_agent) = &options.user_agent {
            self.cdp("Emulation.setUserAgentOverride", json!({ "userAgent": user_agent }), deadline).await?;
        }
        if let Some(state) = &options.storage_state {
            if !state.cookies.is_empty() {
                let cookies: Vec<Value> = state.cookies.iter().map(|c| c.to_cdp()).collect();
                chromium
                    .call(
                        "Storage.setCookies",
                        json!({ "cookies": cookies, "browserContextId": self.context_id }),
                        deadline,
                    )
                    .await?;
            }
            for origin in state.origins.iter().filter(|o| !o.local_storage.is_empty()) {
                self.seed_local_storage(origin, deadline).await?;
            }
        }
        Ok(())
    }

    async fn set_viewport(&self, viewport: Viewport, deadline: Instant) -> Result<(), BrowserError> {
        let metrics =
            json!({ "width": viewport.width, "height": viewport.height, "deviceScaleFactor": 1, "mobile": false });
        self.cdp("Emulation.setDeviceMetricsOverride", metrics, deadline).await.map(|_| ())
    }

    /// Sends a command to this session's page.
    pub(super) async fn cdp(
        &self,
        method: &'static str,
        params: Value,
        deadline: Instant,
    ) -> Result<Value, BrowserError> {
        if self.watch.nav.borrow().crashed {
            return Err(BrowserError::Unavailable("this session's page crashed (its renderer process died)".into()));
        }
        cdp::call(&self.page, method, params, deadline).await
    }

    /// Returns once the pump has applied every event Chromium sent before now.
    ///
    /// chromiumoxide answers a command as soon as its response arrives but hands the events that
    /// came before it to listeners on its handler's next turn. One more round trip (answered by the
    /// browser process, so a page stuck in a loop cannot hold it up) guarantees that turn has
    /// happened; then the pump drains its channels before it answers the barrier.
    pub(super) async fn settle_events(&self, deadline: Instant) {
        let tick_deadline = deadline.min(Instant::now() + std::time::Duration::from_secs(1));
        if cdp::call(&self.page, "Target.getTargetInfo", json!({}), tick_deadline).await.is_err() {
            tokio::time::sleep(std::time::Duration::from_millis(3)).await;
        }
        let (done, applied) = tokio::sync::oneshot::channel();
        if self.barrier.send(done).is_ok() {
            let _ = tokio::time::timeout_at(deadline, applied).await;
        }
    }

    pub fn touch(&self) {
        *self.last_used.lock().unwrap_or_else(|p| p.into_inner()) = Instant::now();
    }

    pub fn last_used(&self) -> Instant {
        *self.last_used.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// True while a call holds this session's turn.
    pub fn is_busy(&self) -> bool {
        self.turn.try_lock().is_err()
    }

    /// Disposes the context: its page and renderer go with it, and the pump's streams end.
    pub(super) async fn dispose(&self, chromium: &Chromium) -> Result<(), BrowserError> {
        self.routes.remove(self.page.session_id().as_ref());
        dispose_context(chromium, &self.context_id).await
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        self.routes.remove(self.page.session_id().as_ref());
        self.pump.abort();
    }
}

async fn dispose_context(chromium: &Chromium, context_id: &str) -> Result<(), BrowserError> {
    let deadline = Instant::now() + std::time::Duration::from_secs(10);
    chromium.call("Target.disposeBrowserContext", json!({ "browserContextId": context_id }), deadline).await.map(|_| ())
}

/// One stream of [`PageEvent`]s from the page's typed listeners plus the raw rescue channel.
async fn subscribe(
    page: &Page,
    raw: mpsc::UnboundedReceiver<PageEvent>,
) -> Result<SelectAll<BoxStream<'static, PageEvent>>, BrowserError> {
    use chromiumoxide::cdp::browser_protocol::inspector::EventTargetCrashed;
    use chromiumoxide::cdp::browser_protocol::network::{
        EventLoadingFailed, EventLoadingFinished, EventRequestWillBeSent, EventResponseReceived,
    };
    use chromiumoxide::cdp::browser_protocol::page::{EventFrameNavigated, EventLifecycleEvent};

    let mut all = SelectAll::new();
    all.push(typed::<EventLifecycleEvent>(page).await?);
    all.push(typed::<EventFrameNavigated>(page).await?);
    all.push(typed::<EventRequestWillBeSent>(page).await?);
    all.push(typed::<EventResponseReceived>(page).await?);
    all.push(typed::<EventLoadingFinished>(page).await?);
    all.push(typed::<EventLoadingFailed>(page).await?);
    all.push(typed::<EventTargetCrashed>(page).await?);
    all.push(typed::<chromiumoxide::cdp::browser_protocol::page::EventFrameRequestedNavigation>(page).await?);
    all.push(typed::<chromiumoxide::cdp::js_protocol::runtime::EventConsoleApiCalled>(page).await?);
    all.push(typed::<chromiumoxide::cdp::js_protocol::runtime::EventExceptionThrown>(page).await?);
    all.push(typed::<chromiumoxide::cdp::browser_protocol::fetch::EventRequestPaused>(page).await?);
    let mut raw = raw;
    all.push(stream::poll_fn(move |cx| raw.poll_recv(cx)).boxed());
    Ok(all)
}

/// A typed chromiumoxide listener, re-read through our lenient parser.
async fn typed<T>(page: &Page) -> Result<BoxStream<'static, PageEvent>, BrowserError>
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
