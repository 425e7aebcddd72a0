//! The session manager: the map of open sessions over the one shared Chromium.
//!
//! It enforces MAX_SESSIONS (a semaphore permit lives inside each session, warm or open, so
//! capacity is freed exactly when a session is gone), hands out warm sessions from the pool,
//! gives each call its session's turn, and closes sessions on request, on expiry (driven by the
//! janitor) and at shutdown. When Chromium dies, the supervisor swaps in a new one here
//! ([`SessionManager::replace_browser`]); the sessions it took with it are remembered as lost so
//! calls on them say what happened.

use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;

use super::chromium::Chromium;
use super::error::BrowserError;
use super::options::SessionOptions;
use super::pool::WarmPool;
use super::session::Session;
use crate::egress::EgressPolicy;
use crate::metrics::Metrics;

/// Why a session ended, for metrics and logs.
#[derive(Debug, Clone, Copy)]
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
}

/// A slot at the cap: capacity freed by a closed session, or a warm session.
enum Slot {
    Free(OwnedSemaphorePermit),
    Warm(Box<Session>),
}

/// How many lost session ids are remembered (oldest forgotten first).
const LOST_REMEMBERED: usize = 10_000;

pub struct SessionManager {
    /// The current Chromium; replaced by the supervisor after a crash.
    chromium: RwLock<Arc<Chromium>>,
    /// Sessions whose Chromium died, so calls on them get `browser_unavailable`.
    lost: Mutex<VecDeque<String>>,
    policy: Arc<EgressPolicy>,
    sessions: Mutex<HashMap<String, Arc<Session>>>,
    capacity: Arc<Semaphore>,
    pool: Arc<WarmPool>,
    max_sessions: usize,
    /// How long session.create may wait for a slot at the cap (QUEUE_TIMEOUT_MS).
    queue_timeout: Duration,
    /// Creates waiting for a slot now; at most `max_sessions` may wait.
    queued: AtomicUsize,
    ttl: Duration,
    metrics: Metrics,
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
}

impl SessionManager {
    pub fn new(
        chromium: Chromium,
        policy: Arc<EgressPolicy>,
        max_sessions: usize,
        warm_sessions: usize,
        queue_timeout: Duration,
        ttl: Duration,
        metrics: Metrics,
    ) -> Self {
        Self {
            chromium: RwLock::new(Arc::new(chromium)),
            lost: Mutex::new(VecDeque::new()),
            policy,
            sessions: Mutex::new(HashMap::new()),
            capacity: Arc::new(Semaphore::new(max_sessions)),
            pool: Arc::new(WarmPool::new(warm_sessions, metrics.sessions_warm.clone())),
            max_sessions,
            queue_timeout,
            queued: AtomicUsize::new(0),
            ttl,
            metrics,
        }
    }

    /// The current Chromium.
    pub fn chromium(&self) -> Arc<Chromium> {
        self.chromium.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Forgets every session and warm session of the Chromium that died (their contexts went with
    /// it), and puts `replacement` in its place.
    pub fn replace_browser(&self, replacement: Chromium) {
        let lost: Vec<String> = self.map().drain().map(|(id, _)| id).collect();
        drop(self.pool.drain());
        {
            let mut remembered = self.lost.lock().unwrap_or_else(|p| p.into_inner());
            for id in &lost {
                if remembered.len() == LOST_REMEMBERED {
                    remembered.pop_front();
                }
                remembered.push_back(id.clone());
            }
        }
        self.metrics.sessions_open.set(0);
        self.metrics.sessions_closed.with_label_values(&[CloseReason::BrowserLost.as_str()]).inc_by(lost.len() as u64);
        *self.chromium.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(replacement);
        self.metrics.browser_restarts.inc();
        self.pool.wake();
        tracing::warn!(lost = lost.len(), "sessions lost with the old Chromium");
    }

    pub fn policy(&self) -> &Arc<EgressPolicy> {
        &self.policy
    }

    pub fn pool(&self) -> &Arc<WarmPool> {
        &self.pool
    }

    pub(super) fn capacity(&self) -> &Arc<Semaphore> {
        &self.capacity
    }

    pub fn ttl(&self) -> Duration {
        self.ttl
    }

    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Session>>> {
        self.sessions.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn open_count(&self) -> usize {
        self.map().len()
    }

    pub async fn create(&self, options: &SessionOptions, deadline: Instant) -> Result<String, BrowserError> {
        let chromium = self.chromium();
        if !chromium.is_alive() {
            return Err(BrowserError::Unavailable("the Chromium process has exited".into()));
        }
        let session = if options.proxy.is_some() {
            // An upstream proxy is fixed when the context is created: this one cannot come warm.
            let permit = self.permit(deadline).await?;
            Session::open(&chromium, &self.policy, options, permit, deadline).await?
        } else if let Some(warm) = self.pool.take() {
            warm.prepare(&chromium, options, deadline).await?
        } else if let Ok(permit) = self.capacity.clone().try_acquire_owned() {
            Session::open(&chromium, &self.policy, options, permit, deadline).await?
        } else if let Some(warm) = self.pool.take_or_wait(deadline).await {
            warm.prepare(&chromium, options, deadline).await?
        } else {
            match self.queue(deadline).await? {
                Slot::Warm(warm) => warm.prepare(&chromium, options, deadline).await?,
                Slot::Free(permit) => Session::open(&chromium, &self.policy, options, permit, deadline).await?,
            }
        };
        let id = session.id.clone();
        self.map().insert(id.clone(), Arc::new(session));
        self.metrics.sessions_created.inc();
        self.metrics.sessions_open.set(self.open_count() as i64);
        tracing::info!(session_id = %id, "session created");
        Ok(id)
    }

    /// Waits up to QUEUE_TIMEOUT_MS (and the call's deadline) for a slot at the cap: a freed
    /// permit or a warm session, whichever comes first. At most MAX_SESSIONS creates wait.
    async fn queue(&self, deadline: Instant) -> Result<Slot, BrowserError> {
        let full = || BrowserError::CapacityExceeded { max: self.max_sessions };
        if self.queue_timeout.is_zero() {
            return Err(full());
        }
        if self.queued.fetch_add(1, Ordering::SeqCst) >= self.max_sessions {
            self.queued.fetch_sub(1, Ordering::SeqCst);
            return Err(full());
        }
        let until = deadline.min(Instant::now() + self.queue_timeout);
        let slot = tokio::select! {
            permit = tokio::time::timeout_at(until, self.capacity.clone().acquire_owned()) => {
                permit.ok().and_then(Result::ok).map(Slot::Free)
            }
            warm = self.pool.take_when_ready(until) => warm.map(|w| Slot::Warm(Box::new(w))),
        };
        self.queued.fetch_sub(1, Ordering::SeqCst);
        slot.ok_or_else(full)
    }

    /// Whether a session can be created now, for `/readyz`.
    pub fn readiness(&self) -> Readiness {
        let browser_connected = self.chromium().is_alive();
        let sessions_warm = self.pool.ready();
        let free = self.capacity.available_permits() > 0 || sessions_warm > 0;
        Readiness {
            ready: browser_connected && free,
            browser_connected,
            sessions_open: self.open_count(),
            sessions_warm,
            max_sessions: self.max_sessions,
        }
    }

    /// A MAX_SESSIONS permit for a session that cannot come warm: a free one, or a warm
    /// session's (that session is disposed).
    async fn permit(&self, deadline: Instant) -> Result<OwnedSemaphorePermit, BrowserError> {
        if let Ok(permit) = self.capacity.clone().try_acquire_owned() {
            return Ok(permit);
        }
        let mut warm =
            self.pool.take_or_wait(deadline).await.ok_or(BrowserError::CapacityExceeded { max: self.max_sessions })?;
        let permit = warm.take_permit().ok_or(BrowserError::CapacityExceeded { max: self.max_sessions })?;
        let _ = self.dispose_warm(warm).await;
        Ok(permit)
    }

    /// Opens a blank session for the warm pool.
    pub(super) async fn open_blank(
        &self,
        permit: OwnedSemaphorePermit,
        deadline: Instant,
    ) -> Result<Session, BrowserError> {
        Session::open_blank(&self.chromium(), &self.policy, None, permit, deadline).await
    }

    /// Disposes a warm session that will not be handed out.
    pub(super) async fn dispose_warm(&self, session: Session) -> Result<(), BrowserError> {
        session.dispose(&self.chromium()).await
    }

    pub fn get(&self, id: &str) -> Result<Arc<Session>, BrowserError> {
        if let Some(session) = self.map().get(id).cloned() {
            return Ok(session);
        }
        if self.lost.lock().unwrap_or_else(|p| p.into_inner()).iter().any(|lost| lost == id) {
            return Err(BrowserError::Unavailable(
                "Chromium stopped unexpectedly and was restarted; this session's browser context went with it".into(),
            ));
        }
        Err(BrowserError::SessionNotFound(id.to_owned()))
    }

    /// Runs `op` on the session once it is this call's turn (calls on one session run in order).
    pub async fn with_session<T, F, Fut>(&self, id: &str, deadline: Instant, op: F) -> Result<T, BrowserError>
    where
        F: FnOnce(Arc<Session>) -> Fut,
        Fut: Future<Output = Result<T, BrowserError>>,
    {
        let session = self.get(id)?;
        let _turn = tokio::time::timeout_at(deadline, session.turn.lock()).await.map_err(|_| {
            BrowserError::Timeout("timed out waiting for this session's previous call to finish".into())
        })?;
        session.touch();
        let result = op(session.clone()).await;
        session.touch();
        result
    }

    pub async fn close(&self, id: &str, reason: CloseReason) -> Result<(), BrowserError> {
        let session = self.map().remove(id).ok_or_else(|| BrowserError::SessionNotFound(id.to_owned()))?;
        self.metrics.sessions_open.set(self.open_count() as i64);
        self.metrics.sessions_closed.with_label_values(&[reason.as_str()]).inc();
        tracing::info!(session_id = %id, reason = reason.as_str(), "session closed");
        let result = session.dispose(&self.chromium()).await;
        if let Err(err) = &result {
            tracing::warn!(session_id = %id, error = %err, "disposing the browser context failed");
        }
        result
    }

    /// When the next idle session would expire if nothing touches it. Sessions in the middle of a
    /// call are left out: the call touches them when it ends.
    pub fn next_expiry(&self) -> Option<Instant> {
        self.map().values().filter(|s| !s.is_busy()).map(|s| s.last_used() + self.ttl).min()
    }

    /// Closes every session idle past the TTL (sessions in the middle of a call are left alone).
    pub async fn close_expired(&self) {
        let now = Instant::now();
        let expired: Vec<String> = self
            .map()
            .values()
            .filter(|s| s.last_used() + self.ttl <= now && !s.is_busy())
            .map(|s| s.id.clone())
            .collect();
        for id in expired {
            let _ = self.close(&id, CloseReason::Expired).await;
        }
    }

    /// Closes every session; used at shutdown, before Chromium is stopped.
    pub async fn close_all(&self) {
        let ids: Vec<String> = self.map().keys().cloned().collect();
        for id in ids {
            let _ = self.close(&id, CloseReason::Shutdown).await;
        }
    }
}
