//! The session manager: the map of open sessions over the one shared Chromium.
//!
//! It enforces MAX_SESSIONS (a semaphore permit lives inside each session, warm or open, so
//! capacity is freed exactly when a session is gone), hands out warm sessions from the pool,
//! gives each call its session (whose turn orders the calls), and closes sessions on request, on
//! expiry (driven by the janitor) and at shutdown. When Chromium dies, the supervisor swaps in a
//! new one here (it is the supervisor's [`Host`]); the sessions it took with it are remembered as
//! lost so calls on them say what happened.

use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::OwnedSemaphorePermit;
use tokio::task::JoinHandle;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::janitor::{self, Expiring};
use super::opener::{Opener, SessionSetup};
use super::options::SessionOptions;
use super::pool;
use super::pool::WarmPool;
use super::session::{CloseReason, Session};
use crate::browser::chromium::supervisor::Host;
use crate::browser::chromium::{Chromium, Lifeline};
use crate::browser::error::BrowserError;
use crate::browser::page::Page;
use crate::browser::process_state::ProcessState;
use crate::egress::EgressPolicy;
use crate::memory::Trimmer;
use crate::metrics::Metrics;

/// A slot at the cap: capacity freed by a closed session, or a warm session.
enum Slot {
    Free(OwnedSemaphorePermit),
    Warm(Box<Session>),
}

/// How many ended sessions are remembered with their reason (oldest forgotten first).
const ENDED_REMEMBERED: usize = 10_000;

pub struct SessionManager {
    /// Opens sessions on the current Chromium (replaced by the supervisor after a crash).
    opener: Arc<Opener>,
    /// Sessions ended lately and why: calls on those lost with a Chromium that died get
    /// `browser_unavailable`, and event subscriptions say why they ended.
    ended: Mutex<VecDeque<(String, CloseReason)>>,
    sessions: Mutex<HashMap<String, Arc<Session>>>,
    pool: Arc<WarmPool>,
    limits: SessionLimits,
    /// Creates waiting for a slot now; at most `limits.queue_max` may wait.
    queued: AtomicUsize,
    metrics: Metrics,
    /// Told when a session closes, so the memory it held is handed back.
    trimmer: Arc<Trimmer>,
}

/// How many sessions there may be, and how creates wait for one.
#[derive(Debug, Clone, Copy)]
pub struct SessionLimits {
    /// MAX_SESSIONS: open and warm sessions together.
    pub max_sessions: usize,
    /// WARM_SESSIONS: blank sessions kept ready (within max_sessions).
    pub warm_sessions: usize,
    /// QUEUE_TIMEOUT_MS: how long session.create may wait for a slot at the cap.
    pub queue_timeout: Duration,
    /// QUEUE_MAX: how many creates may wait at once.
    pub queue_max: usize,
    /// SESSION_TTL_MS: idle time after which a session is closed.
    pub ttl: Duration,
    /// DOWNLOAD_MAX_BYTES: a download is cancelled past this size.
    pub download_max_bytes: u64,
}

/// What `/readyz` reports.
#[derive(Debug, serde::Serialize)]
pub struct Readiness {
    /// Chromium is connected and session.create would get a slot now.
    pub ready: bool,
    pub browser_connected: bool,
    pub sessions_open: usize,
    pub sessions_warm: usize,
    pub max_sessions: usize,
    /// What the browser lacks of the flags that guard egress (a pool browser used under
    /// ALLOW_UNGUARDED_BROWSER).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// Proves that `session`'s Chromium still runs: a process of ours by what /proc says of it (no
/// round trip, which would queue behind contexts the browser is opening or disposing: 0.3 ms idle,
/// 8 ms while the pool refills), one we attached to by one round trip. A killed one is waited for
/// until its connection is seen closed, so the caller moves on to the next Chromium.
async fn still_runs(chromium: &Chromium, session: &Session, deadline: Instant) -> Result<(), BrowserError> {
    match chromium.process_state() {
        Some(ProcessState::Running) => Ok(()),
        Some(ProcessState::Ending | ProcessState::Gone) => {
            let _ = tokio::time::timeout_at(deadline, chromium.closed()).await;
            Err(BrowserError::Unavailable("Chromium was killed while this session was being opened".into()))
        }
        None => session.ping(deadline).await,
    }
}

impl SessionManager {
    pub fn new(
        chromium: Chromium,
        policy: Arc<EgressPolicy>,
        limits: SessionLimits,
        metrics: Metrics,
        trimmer: Arc<Trimmer>,
        setup: SessionSetup,
    ) -> Self {
        Self {
            trimmer,
            opener: Arc::new(Opener::new(chromium, policy, limits.max_sessions, limits.download_max_bytes, setup)),
            ended: Mutex::new(VecDeque::new()),
            sessions: Mutex::new(HashMap::new()),
            pool: Arc::new(WarmPool::new(
                limits.warm_sessions,
                limits.max_sessions,
                metrics.sessions_warm.clone(),
                metrics.sessions_warm_misses.clone(),
            )),
            limits,
            queued: AtomicUsize::new(0),
            metrics,
        }
    }

    /// Starts the background tasks sessions need (TTL janitor, warm-pool refill); they end when
    /// `shutdown` is cancelled.
    pub fn spawn_tasks(self: &Arc<Self>, shutdown: &CancellationToken) -> Vec<JoinHandle<()>> {
        vec![
            tokio::spawn(janitor::run(self.clone(), shutdown.clone())),
            tokio::spawn(pool::run(self.pool.clone(), self.opener.clone(), shutdown.clone())),
        ]
    }

    /// The current Chromium.
    pub fn chromium(&self) -> Arc<Chromium> {
        self.opener.chromium()
    }

    /// Forgets every session and warm session of the Chromium that went away (their contexts went
    /// with it); calls on them say so.
    fn forget_lost(&self) {
        // Each is recorded lost before it leaves the map: a call looking for it in between finds
        // it in one or the other, never in neither (which would read as session_not_found).
        let lost: Vec<String> = self.map().keys().cloned().collect();
        for id in &lost {
            self.remember_end(id, CloseReason::BrowserLost);
        }
        self.map().retain(|id, _| !lost.contains(id));
        drop(self.pool.drain());
        self.metrics.sessions_open.set(0);
        self.metrics.sessions_closed.with_label_values(&[CloseReason::BrowserLost.as_str()]).inc_by(lost.len() as u64);
        if !lost.is_empty() {
            tracing::warn!(lost = lost.len(), "sessions lost with the browser");
        }
    }

    /// Puts `replacement` in place of the Chromium that went away.
    fn swap_browser(&self, replacement: Chromium) {
        // Anything opened on the old one since it was reported lost is gone too.
        self.forget_lost();
        self.opener.replace(replacement);
        self.metrics.browser_restarts.inc();
        self.pool.wake();
    }

    pub fn policy(&self) -> &Arc<EgressPolicy> {
        self.opener.policy()
    }

    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Session>>> {
        self.sessions.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn open_count(&self) -> usize {
        self.map().len()
    }

    /// Opens a session. While Chromium is down (dead, a new one starting) it waits for the new
    /// one, and it never hands out a session whose Chromium died meanwhile: it opens another.
    pub async fn create(&self, options: &SessionOptions, deadline: Instant) -> Result<String, BrowserError> {
        // Counted by the pool while it runs: refills hold back meanwhile, and creates that
        // overlap see each other.
        let _creating = self.pool.creating();
        loop {
            let chromium = self.opener.live_chromium(deadline).await?;
            // One killed a moment ago may not have been noticed yet, and its warm session needs no
            // command to be handed out: prove it still runs.
            let opened = match self.open(options, deadline).await {
                Ok(session) => match still_runs(&chromium, &session, deadline).await {
                    Ok(()) => Ok(session),
                    Err(err) => {
                        // Nothing half-made stays in a Chromium that is still up.
                        if chromium.is_alive() {
                            let _ = self.opener.dispose(&session).await;
                        }
                        Err(err)
                    }
                },
                Err(err) => Err(err),
            };
            let session = match opened {
                Ok(session) => session,
                // The browser died under this create: the next one will do.
                Err(_) if !chromium.is_alive() && Instant::now() < deadline => continue,
                Err(err) => return Err(err),
            };
            let id = session.id().to_owned();
            {
                // Under the map's lock: a Chromium that dies after this check takes the session
                // out of the map with the others (`swap_browser`).
                let mut map = self.map();
                if !session.browser_alive() {
                    continue;
                }
                map.insert(id.clone(), Arc::new(session));
            }
            self.metrics.sessions_created.inc();
            self.metrics.sessions_open.set(self.open_count() as i64);
            tracing::info!(session_id = %id, "session created");
            return Ok(id);
        }
    }

    /// A session with `options`: a warm one, one made now, or one freed at the cap.
    async fn open(&self, options: &SessionOptions, deadline: Instant) -> Result<Session, BrowserError> {
        let opener = &self.opener;
        // Other creates running now, or sessions open: the pool is too small for demand, not just
        // still refilling after one client's previous create (a create/close loop holds no
        // session when it creates the next).
        let overlapping = self.pool.creates_running() > 1 || self.open_count() > 0;
        let session = if options.proxy.is_some() {
            // An upstream proxy is fixed when the context is created: this one cannot come warm.
            let permit = self.permit(deadline).await?;
            opener.open(options, permit, deadline).await?
        } else if let Some(warm) = self.pool.take() {
            opener.prepare(warm, options, deadline).await?
        } else if overlapping && let Ok(permit) = opener.capacity().clone().try_acquire_owned() {
            // Creates overlap and found no warm session: the pool grows to meet such demand.
            self.pool.missed();
            opener.open(options, permit, deadline).await?
        } else if let Some(warm) = self.wait_for_warm(deadline).await {
            // One create at a time (a client's create/close loop): the warm session being opened
            // since the last create comes sooner than a new one.
            opener.prepare(warm, options, deadline).await?
        } else if let Ok(permit) = opener.capacity().clone().try_acquire_owned() {
            opener.open(options, permit, deadline).await?
        } else {
            match self.queue(deadline).await? {
                Slot::Warm(warm) => opener.prepare(*warm, options, deadline).await?,
                Slot::Free(permit) => opener.open(options, permit, deadline).await?,
            }
        };
        Ok(session)
    }

    /// The warm session being opened, for a create that found none ready; a create that has to
    /// wait for it grows the pool (by two at most, see `pool::SPARE`), so the next ones find one.
    async fn wait_for_warm(&self, deadline: Instant) -> Option<Session> {
        if self.pool.filling() {
            self.pool.fell_behind();
        }
        self.pool.take_or_wait(deadline).await
    }

    /// Waits up to QUEUE_TIMEOUT_MS (and the call's deadline) for a slot at the cap: a freed
    /// permit or a warm session, whichever comes first. At most QUEUE_MAX creates wait at once;
    /// one more is refused at once (`capacity_exceeded`); a wait that ends empty is
    /// `queue_timeout`.
    async fn queue(&self, deadline: Instant) -> Result<Slot, BrowserError> {
        let max = self.limits.max_sessions;
        if self.limits.queue_timeout.is_zero() {
            return Err(BrowserError::CapacityExceeded { max, waiting: 0 });
        }
        let waiting = self.queued.fetch_add(1, Ordering::SeqCst);
        if waiting >= self.limits.queue_max {
            self.queued.fetch_sub(1, Ordering::SeqCst);
            return Err(BrowserError::CapacityExceeded { max, waiting });
        }
        self.metrics.sessions_queued.set(waiting as i64 + 1);
        let started = Instant::now();
        let until = deadline.min(started + self.limits.queue_timeout);
        let slot = tokio::select! {
            permit = tokio::time::timeout_at(until, self.opener.capacity().clone().acquire_owned()) => {
                permit.ok().and_then(Result::ok).map(Slot::Free)
            }
            warm = self.pool.take_when_ready(until) => warm.map(|w| Slot::Warm(Box::new(w))),
        };
        let left = self.queued.fetch_sub(1, Ordering::SeqCst) - 1;
        self.metrics.sessions_queued.set(left as i64);
        slot.ok_or_else(|| BrowserError::QueueTimeout { max, waited_ms: started.elapsed().as_millis() as u64 })
    }

    /// Whether a session can be created now, for `/readyz`.
    pub fn readiness(&self) -> Readiness {
        let chromium = self.chromium();
        let browser_connected = chromium.is_alive();
        let sessions_warm = self.pool.ready();
        let free = self.opener.capacity().available_permits() > 0 || sessions_warm > 0;
        Readiness {
            ready: browser_connected && free,
            browser_connected,
            sessions_open: self.open_count(),
            sessions_warm,
            max_sessions: self.limits.max_sessions,
            warnings: chromium.unguarded().to_vec(),
        }
    }

    /// A MAX_SESSIONS permit for a session that cannot come warm: a free one, or a warm
    /// session's (that session is disposed).
    async fn permit(&self, deadline: Instant) -> Result<OwnedSemaphorePermit, BrowserError> {
        if let Ok(permit) = self.opener.capacity().clone().try_acquire_owned() {
            return Ok(permit);
        }
        let mut warm = self
            .pool
            .take_or_wait(deadline)
            .await
            .ok_or(BrowserError::CapacityExceeded { max: self.limits.max_sessions, waiting: 0 })?;
        let permit =
            warm.take_permit().ok_or(BrowserError::CapacityExceeded { max: self.limits.max_sessions, waiting: 0 })?;
        let _ = self.opener.dispose(&warm).await;
        Ok(permit)
    }

    fn get(&self, id: &str) -> Result<Arc<Session>, BrowserError> {
        if let Some(session) = self.map().get(id).cloned() {
            return Ok(session);
        }
        if self.close_reason(id) == Some(CloseReason::BrowserLost) {
            return Err(super::session::browser_lost());
        }
        Err(BrowserError::SessionNotFound(id.to_owned()))
    }

    /// Runs `op` on one of the session's tabs (`tab`, or the active one) once it is this call's
    /// turn (calls on one session run in order; see [`Session::run`]).
    pub async fn run<T, E, F, Fut>(&self, id: &str, tab: Option<&str>, deadline: Instant, op: F) -> Result<T, E>
    where
        F: FnOnce(Page) -> Fut,
        Fut: Future<Output = Result<T, E>>,
        E: From<BrowserError>,
    {
        self.get(id)?.run(&self.chromium(), tab, deadline, op).await
    }

    /// Runs `op` on the session itself (its tabs) once it is this call's turn; `op` gets the
    /// session and the current Chromium.
    pub async fn run_on_session<T, E, F, Fut>(&self, id: &str, deadline: Instant, op: F) -> Result<T, E>
    where
        F: FnOnce(Arc<Session>, Arc<Chromium>) -> Fut,
        Fut: Future<Output = Result<T, E>>,
        E: From<BrowserError>,
    {
        let session = self.get(id)?;
        let chromium = self.chromium();
        session.run_on_session(&chromium, deadline, op(session.clone(), chromium.clone())).await
    }

    /// One of the session's tabs (`tab`, or the active one) and the Chromium it lives in, at once:
    /// for watching the page (`events.subscribe`), which never waits for the session's turn.
    pub fn watch_tab(&self, id: &str, tab: Option<&str>) -> Result<(Page, Lifeline), BrowserError> {
        let session = self.get(id)?;
        if !session.browser_alive() {
            return Err(super::session::browser_lost());
        }
        Ok((session.tab(tab)?, session.lifeline()))
    }

    /// `session_not_found` (or `browser_unavailable` for one lost with Chromium) unless session
    /// `id` is open.
    pub fn ensure_open(&self, id: &str) -> Result<(), BrowserError> {
        self.get(id).map(|_| ())
    }

    /// Whether the session `id` is open.
    pub fn is_open(&self, id: &str) -> bool {
        self.map().contains_key(id)
    }

    /// Why session `id` ended, if it did lately (closed, expired, shut down, or lost with a
    /// Chromium that died).
    pub fn close_reason(&self, id: &str) -> Option<CloseReason> {
        let ended = self.ended.lock().unwrap_or_else(|p| p.into_inner());
        ended.iter().rev().find(|(ended, _)| ended == id).map(|(_, reason)| *reason)
    }

    fn remember_end(&self, id: &str, reason: CloseReason) {
        let mut ended = self.ended.lock().unwrap_or_else(|p| p.into_inner());
        if ended.len() == ENDED_REMEMBERED {
            ended.pop_front();
        }
        ended.push_back((id.to_owned(), reason));
    }

    /// Closes a session: a call in flight on it ends with `session_closed`, then its context is
    /// disposed.
    pub async fn close(&self, id: &str, reason: CloseReason) -> Result<(), BrowserError> {
        let session = self.map().remove(id).ok_or_else(|| BrowserError::SessionNotFound(id.to_owned()))?;
        self.remember_end(id, reason);
        self.metrics.sessions_open.set(self.open_count() as i64);
        self.metrics.sessions_closed.with_label_values(&[reason.as_str()]).inc();
        tracing::info!(session_id = %id, reason = reason.as_str(), "session closed");
        session.stop_calls(reason).await;
        let result = self.opener.dispose(&session).await;
        session.release_slot();
        drop(session);
        self.trimmer.activity();
        if let Err(err) = &result {
            tracing::warn!(session_id = %id, error = %err, "disposing the browser context failed");
        }
        result
    }

    /// Closes every session; used at shutdown, before Chromium is stopped.
    pub async fn close_all(&self) {
        let ids: Vec<String> = self.map().keys().cloned().collect();
        for id in ids {
            let _ = self.close(&id, CloseReason::Shutdown).await;
        }
    }
}

impl Expiring for SessionManager {
    fn ttl(&self) -> Duration {
        self.limits.ttl
    }

    /// When the next idle session would expire if nothing touches it. Sessions in the middle of a
    /// call are left out: the call touches them when it ends.
    fn next_expiry(&self) -> Option<Instant> {
        self.map().values().filter(|s| !s.is_busy()).map(|s| s.last_used() + self.limits.ttl).min()
    }

    /// Closes every session idle past the TTL (sessions in the middle of a call are left alone).
    async fn close_expired(&self) {
        let idle = |s: &Session| s.last_used() + self.limits.ttl <= Instant::now() && !s.is_busy();
        let expired: Vec<String> = self.map().values().filter(|s| idle(s)).map(|s| s.id().to_owned()).collect();
        for id in expired {
            // Closing the ones before may have taken a while: one a call reached meanwhile stays.
            let still_idle = self.map().get(&id).is_some_and(|s| idle(s));
            if still_idle {
                let _ = self.close(&id, CloseReason::Expired).await;
            }
        }
    }
}

impl Host for SessionManager {
    fn chromium(&self) -> Arc<Chromium> {
        self.opener.chromium()
    }

    fn browser_lost(&self) {
        self.forget_lost();
    }

    fn replace_browser(&self, replacement: Chromium) {
        self.swap_browser(replacement);
    }
}
