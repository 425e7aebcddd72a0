//! One session's life: its own browser context (cookies, storage, cache) with its tabs (see `tabs`).
//!
//! Calls on one session run in order (the `turn`); calls on different sessions run in parallel.
//! Closing is orderly: the session is marked closing, the call in flight ends with
//! `session_closed`, and only then is the context disposed. Everything a page can do is the
//! [`Page`] handle's; a session only hands one of its tabs to the call whose turn it is.

use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::json;
use tokio::sync::OwnedSemaphorePermit;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::options::{Emulation, SessionOptions};
use super::storage;
use crate::browser::chromium::ids::{BrowserContextId, TargetId};
use crate::browser::chromium::protocol::browser::{DownloadBehavior, GrantPermissions, SetDownloadBehavior};
use crate::browser::chromium::protocol::emulation::{
    SetGeolocationOverride, SetLocaleOverride, SetScriptExecutionDisabled, SetTimezoneOverride, SetUserAgentOverride,
};
use crate::browser::chromium::protocol::network::SetExtraHttpHeaders;
use crate::browser::chromium::protocol::target::{CreateBrowserContext, DisposeBrowserContext, GetTargetInfo};
use crate::browser::chromium::{Chromium, Lifeline};
use crate::browser::error::BrowserError;
use crate::browser::page::{Media, Page, Siblings, Viewport};
use crate::egress::EgressPolicy;
use crate::egress::Upstream;
use crate::egress::proxy::{EgressProxy, ProxyAddress};

/// How long closing waits for the call in flight to let go of the session.
const CLOSE_GRACE: Duration = Duration::from_secs(5);

/// Why a session ended, for metrics, logs and the error a call in flight gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CloseReason {
    Closed,
    Expired,
    Shutdown,
    /// Chromium died and took the session's context with it.
    BrowserLost,
}

impl CloseReason {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Closed => "closed",
            Self::Expired => "expired",
            Self::Shutdown => "shutdown",
            Self::BrowserLost => "browser_lost",
        }
    }

    /// What happened, in words, for the error of a call that was cut short.
    fn says(self) -> &'static str {
        match self {
            Self::Closed => "session.close closed this session",
            Self::Expired => "this session expired after its idle TTL",
            Self::Shutdown => "the service is shutting down",
            Self::BrowserLost => "Chromium stopped unexpectedly and took this session with it",
        }
    }
}

/// How a session's traffic leaves: the policy, where its proxy listens, and the upstream proxy
/// its allowed requests go on to, if it has one.
pub(super) struct EgressSetup<'a> {
    pub policy: &'a Arc<EgressPolicy>,
    pub at: &'a ProxyAddress,
    pub upstream: Option<Upstream>,
}

pub struct Session {
    id: String,
    pub(super) context_id: BrowserContextId,
    /// The pages, and which one page methods act on by default (see `tabs`).
    pub(super) tabs: Mutex<Tabs>,
    /// What the tabs share: egress failures, the downloads directory, popups to adopt.
    pub(super) siblings: Siblings,
    /// What every tab is set up with (without the storage state, which is the context's).
    pub(super) options: Mutex<SessionOptions>,
    pub(super) policy: Arc<EgressPolicy>,
    /// Held for the length of one call: calls on a session never interleave.
    turn: tokio::sync::Mutex<()>,
    /// Last time a call started or ended; the janitor closes sessions idle past the TTL.
    last_used: Mutex<Instant>,
    /// Cancelled when the session starts closing; why is in `close_reason`.
    closing: CancellationToken,
    close_reason: Mutex<Option<CloseReason>>,
    /// The Chromium this session's context lives in: when it dies, the call in flight ends at once
    /// (`browser_unavailable`) instead of waiting out its timeout.
    lifeline: Lifeline,
    /// The proxy all of this context's traffic goes through; stops when the session is dropped.
    _egress: EgressProxy,
    /// Its MAX_SESSIONS slot: given back when it is closed, not when the last handle to it goes
    /// (a call's future or a page task may hold one a moment longer).
    capacity: Mutex<Option<OwnedSemaphorePermit>>,
}

/// The list of a session's tabs and which one is active: the state `tabs` works on, held here so
/// the session does not depend on `tabs`.
pub(super) struct Tabs {
    pub(super) list: Vec<Page>,
    pub(super) active: usize,
    /// Targets of tabs the session closed itself, newest last: Chromium may still list one for a
    /// moment, and it must not be adopted again as a popup.
    closed: Vec<TargetId>,
}

/// Closed targets remembered.
const CLOSED_REMEMBERED: usize = 16;

impl Tabs {
    pub(super) fn new(first: Page) -> Self {
        Self { list: vec![first], active: 0, closed: Vec::new() }
    }

    /// Remembers that the session closed the tab of `target`.
    pub(super) fn remember_closed(&mut self, target: &str) {
        if self.closed.len() == CLOSED_REMEMBERED {
            self.closed.remove(0);
        }
        self.closed.push(TargetId::new(target));
    }

    /// Whether the session closed the tab of `target` itself.
    pub(super) fn was_closed(&self, target: &str) -> bool {
        self.closed.iter().any(|t| t == target)
    }
}

impl Session {
    /// Creates the context and its about:blank page with the event pump running and the default
    /// viewport, and no other options applied yet: what the warm pool keeps ready. On failure the
    /// context is disposed again: nothing is left behind.
    pub(super) async fn open_blank(
        id: String,
        chromium: &Chromium,
        egress: EgressSetup<'_>,
        download_cap: u64,
        capacity: OwnedSemaphorePermit,
        deadline: Instant,
    ) -> Result<Self, BrowserError> {
        let EgressSetup { policy, at, upstream } = egress;
        let egress = EgressProxy::start(policy.clone(), upstream, at, download_cap)
            .await
            .map_err(|e| BrowserError::Unavailable(format!("cannot start the session's egress proxy: {e}")))?;
        // `<-loopback>` removes Chromium's implicit bypass for localhost: loopback goes through the
        // proxy (and its policy) like every other host.
        let proxy_server = egress.server();
        let create = CreateBrowserContext {
            dispose_on_detach: true,
            proxy_server: &proxy_server,
            proxy_bypass_list: "<-loopback>",
        };
        let context_id = chromium.send(create, deadline).await?.browser_context_id.ok_or_else(|| {
            BrowserError::protocol("Target.createBrowserContext", "no browserContextId in the answer")
        })?;
        let opened = async {
            let siblings = Siblings::new(egress.log().clone(), &context_id, download_cap)?;
            let page = Page::open(chromium, context_id.as_str(), &siblings, deadline).await?;
            page.set_viewport(Viewport::default(), deadline).await?;
            // Downloads are saved into the session's own directory and reported to the tab that
            // began them.
            let downloads = SetDownloadBehavior {
                behavior: DownloadBehavior::AllowAndName,
                browser_context_id: &context_id,
                download_path: siblings.downloads_dir.path().display().to_string(),
                events_enabled: true,
            };
            chromium.send(downloads, deadline).await?;
            Ok::<_, BrowserError>((page, siblings))
        }
        .await;
        match opened {
            Ok((page, siblings)) => Ok(Self {
                id,
                context_id,
                tabs: Mutex::new(Tabs::new(page)),
                siblings,
                options: Mutex::new(SessionOptions::default()),
                policy: policy.clone(),
                turn: tokio::sync::Mutex::new(()),
                last_used: Mutex::new(Instant::now()),
                closing: CancellationToken::new(),
                close_reason: Mutex::new(None),
                lifeline: chromium.lifeline(),
                _egress: egress,
                capacity: Mutex::new(Some(capacity)),
            }),
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

    async fn apply_options(
        &self,
        chromium: &Chromium,
        options: &SessionOptions,
        deadline: Instant,
    ) -> Result<(), BrowserError> {
        let page = self.active_tab();
        // A blank session already has the default viewport (see `open_blank`).
        if options.viewport != Viewport::default() {
            page.set_viewport(options.viewport, deadline).await?;
        }
        if let Some(state) = &options.storage_state {
            storage::apply(chromium, &self.context_id, &page, state, deadline).await?;
        }
        if options.emulation.geolocation.is_some() {
            let grant = GrantPermissions { permissions: vec!["geolocation"], browser_context_id: &self.context_id };
            chromium.send(grant, deadline).await?;
        }
        *self.options.lock().unwrap_or_else(|p| p.into_inner()) =
            SessionOptions { storage_state: None, ..options.clone() };
        apply_to_tab(&page, options, deadline).await
    }
}

/// What every tab of a session is set up with: user agent, evidence screenshots, locale, time
/// zone, position, colour scheme, scripts and extra headers, each refused by Chromium reported as
/// the param that carried it. (The viewport of the first tab is set by the caller; the context's
/// own settings — storage state, permissions — are applied once.)
pub(super) async fn apply_to_tab(page: &Page, options: &SessionOptions, deadline: Instant) -> Result<(), BrowserError> {
    if let Some(user_agent) = &options.user_agent {
        page.send(SetUserAgentOverride { user_agent }, deadline).await?;
    }
    page.set_evidence_shots(options.evidence_screenshots);
    page.set_source_maps(!options.served_locations);
    apply_emulation(page, &options.emulation, deadline).await
}

async fn apply_emulation(page: &Page, emulation: &Emulation, deadline: Instant) -> Result<(), BrowserError> {
    let refused = |param: &'static str| {
        move |err: BrowserError| match err {
            BrowserError::Protocol { message, .. } => BrowserError::InvalidParam {
                param: param.into(),
                message: format!("Chromium refused {param}: {message}"),
            },
            other => other,
        }
    };
    if let Some(locale) = &emulation.locale {
        page.send(SetLocaleOverride { locale }, deadline).await.map_err(refused("locale"))?;
    }
    if let Some(zone) = &emulation.timezone_id {
        page.send(SetTimezoneOverride { timezone_id: zone }, deadline).await.map_err(refused("timezoneId"))?;
    }
    if let Some(at) = &emulation.geolocation {
        let position = SetGeolocationOverride {
            latitude: at.latitude,
            longitude: at.longitude,
            accuracy: at.accuracy.unwrap_or(10.0),
        };
        page.send(position, deadline).await.map_err(refused("geolocation"))?;
    }
    if let Some(scheme) = emulation.color_scheme {
        page.emulate_media(Media { color_scheme: Some(scheme), ..Media::default() }, deadline).await?;
    }
    if emulation.java_script_enabled == Some(false) {
        page.send(SetScriptExecutionDisabled { value: true }, deadline).await?;
    }
    if !emulation.extra_http_headers.is_empty() {
        let headers: serde_json::Map<String, serde_json::Value> =
            emulation.extra_http_headers.iter().map(|(k, v)| (k.clone(), json!(v))).collect();
        page.send(SetExtraHttpHeaders { headers: &headers }, deadline).await.map_err(refused("extraHTTPHeaders"))?;
    }
    if let Some(credentials) = &emulation.http_credentials {
        page.interception().set_http_credentials(credentials.clone()).await.map_err(refused("httpCredentials"))?;
    }
    Ok(())
}

impl Session {
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Gives back this session's MAX_SESSIONS permit, for a warm session that is being replaced
    /// by one with its own context options.
    pub(super) fn take_permit(&mut self) -> Option<OwnedSemaphorePermit> {
        self.capacity.lock().unwrap_or_else(|p| p.into_inner()).take()
    }

    /// Gives back its MAX_SESSIONS slot once it is closed, so the next `session.create` finds it
    /// free as soon as `session.close` has answered.
    pub(super) fn release_slot(&self) {
        drop(self.capacity.lock().unwrap_or_else(|p| p.into_inner()).take());
    }

    /// Runs `op` on a tab (`tab`, or the active one) once it is this call's turn (calls on one
    /// session run in order), after adopting the popups opened since the last call. If the session
    /// starts closing meanwhile, the call ends at once with `session_closed`.
    pub async fn run<T, E, F, Fut>(
        &self,
        chromium: &Chromium,
        tab: Option<&str>,
        deadline: Instant,
        op: F,
    ) -> Result<T, E>
    where
        F: FnOnce(Page) -> Fut,
        Fut: Future<Output = Result<T, E>>,
        E: From<BrowserError>,
    {
        self.in_turn(deadline, async {
            self.sync_tabs(chromium, deadline).await;
            let page = self.tab(tab)?;
            op(page).await
        })
        .await
    }

    /// Runs `op` on the session itself (its tabs) once it is this call's turn, after adopting the
    /// popups opened since the last call.
    pub async fn run_on_session<T, E, Fut>(&self, chromium: &Chromium, deadline: Instant, op: Fut) -> Result<T, E>
    where
        Fut: Future<Output = Result<T, E>>,
        E: From<BrowserError>,
    {
        self.in_turn(deadline, async {
            self.sync_tabs(chromium, deadline).await;
            op.await
        })
        .await
    }

    async fn in_turn<T, E, Fut>(&self, deadline: Instant, op: Fut) -> Result<T, E>
    where
        Fut: Future<Output = Result<T, E>>,
        E: From<BrowserError>,
    {
        let lost = self.lifeline.lost();
        tokio::pin!(lost);
        let turn = tokio::select! {
            turn = tokio::time::timeout_at(deadline, self.turn.lock()) => turn.map_err(|_| {
                BrowserError::Timeout("timed out waiting for this session's previous call to finish".into())
            })?,
            _ = self.closing.cancelled() => return Err(self.closed_error().into()),
            _ = &mut lost => return Err(browser_lost().into()),
        };
        self.touch();
        let result = tokio::select! {
            biased;
            _ = self.closing.cancelled() => Err(self.closed_error().into()),
            _ = &mut lost => Err(browser_lost().into()),
            result = op => result,
        };
        self.touch();
        drop(turn);
        result
    }

    fn closed_error(&self) -> BrowserError {
        let reason = self.close_reason.lock().unwrap_or_else(|p| p.into_inner()).unwrap_or(CloseReason::Closed);
        BrowserError::SessionClosed(format!("{} while this call was running", reason.says()))
    }

    /// Marks the session closing (the call in flight ends with `session_closed`) and waits, for a
    /// bounded time, until that call has let go of the page.
    pub(super) async fn stop_calls(&self, reason: CloseReason) {
        *self.close_reason.lock().unwrap_or_else(|p| p.into_inner()) = Some(reason);
        self.closing.cancel();
        let _ = tokio::time::timeout(CLOSE_GRACE, self.turn.lock()).await;
    }

    /// One round trip to the browser through the session's page: an error if its Chromium is gone.
    pub(super) async fn ping(&self, deadline: Instant) -> Result<(), BrowserError> {
        self.active_tab().send(GetTargetInfo {}, deadline).await.map(|_| ())
    }

    /// Whether the Chromium this session lives in is still up.
    pub fn browser_alive(&self) -> bool {
        self.lifeline.is_alive()
    }

    /// The Chromium this session lives in, as a handle that says when it dies.
    pub fn lifeline(&self) -> Lifeline {
        self.lifeline.clone()
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
        for page in self.all_tabs() {
            page.detach();
        }
        dispose_context(chromium, &self.context_id).await
    }
}

/// What a call on a session gets once the Chromium it lived in is gone.
pub(super) fn browser_lost() -> BrowserError {
    BrowserError::Unavailable(
        "the browser went away (Chromium stopped, or the connection to it broke) and this session's browser \
         context went with it (browser_lost)"
            .into(),
    )
}

async fn dispose_context(chromium: &Chromium, context_id: &BrowserContextId) -> Result<(), BrowserError> {
    let deadline = Instant::now() + Duration::from_secs(10);
    chromium.send(DisposeBrowserContext { browser_context_id: context_id }, deadline).await.map(|_| ())
}
