//! The session manager: the map of open sessions over the one shared Chromium.
//!
//! It enforces MAX_SESSIONS (a semaphore permit lives inside each session, warm or open, so
//! capacity is freed exactly when a session is gone), hands out warm sessions from the pool,
//! gives each call its session's turn, and closes sessions on request, on expiry (driven by the
//! janitor) and at shutdown.

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex};
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
}

impl CloseReason {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Closed => "closed",
            Self::Expired => "expired",
            Self::Shutdown => "shutdown",
        }
    }
}

pub struct SessionManager {
    chromium: Arc<Chromium>,
    policy: Arc<EgressPolicy>,
    sessions: Mutex<HashMap<String, Arc<Session>>>,
    capacity: Arc<Semaphore>,
    pool: Arc<WarmPool>,
    max_sessions: usize,
    ttl: Duration,
    metrics: Metrics,
}

impl SessionManager {
    pub fn new(
        chromium: Chromium,
        policy: Arc<EgressPolicy>,
        max_sessions: usize,
        warm_sessions: usize,
        ttl: Duration,
        metrics: Metrics,
    ) -> Self {
        Self {
            chromium: Arc::new(chromium),
            policy,
            sessions: Mutex::new(HashMap::new()),
            capacity: Arc::new(Semaphore::new(max_sessions)),
            pool: Arc::new(WarmPool::new(warm_sessions, metrics.sessions_warm.clone())),
            max_sessions,
            ttl,
            metrics,
        }
    }

    pub fn chromium(&self) -> &Arc<Chromium> {
        &self.chromium
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
        if !self.chromium.is_alive() {
            return Err(BrowserError::Unavailable("the Chromium process has exited".into()));
        }
        let session = if options.proxy.is_some() {
            // An upstream proxy is fixed when the context is created: this one cannot come warm.
            let permit = self.permit(deadline).await?;
            Session::open(&self.chromium, &self.policy, options, permit, deadline).await?
        } else if let Some(warm) = self.pool.take() {
            warm.prepare(&self.chromium, options, deadline).await?
        } else if let Ok(permit) = self.capacity.clone().try_acquire_owned() {
            Session::open(&self.chromium, &self.policy, options, permit, deadline).await?
        } else if let Some(warm) = self.pool.take_or_wait(deadline).await {
            warm.prepare(&self.chromium, options, deadline).await?
        } else {
            return Err(BrowserError::CapacityExceeded { max: self.max_sessions });
        };
        let id = session.id.clone();
        self.map().insert(id.clone(), Arc::new(session));
        self.metrics.sessions_created.inc();
        self.metrics.sessions_open.set(self.open_count() as i64);
        tracing::info!(session_id = %id, "session created");
        Ok(id)
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
        Session::open_blank(&self.chromium, &self.policy, None, permit, deadline).await
    }

    /// Disposes a warm session that will not be handed out.
    pub(super) async fn dispose_warm(&self, session: Session) -> Result<(), BrowserError> {
        session.dispose(&self.chromium).await
    }

    pub fn get(&self, id: &str) -> Result<Arc<Session>, BrowserError> {
        self.map().get(id).cloned().ok_or_else(|| BrowserError::SessionNotFound(id.to_owned()))
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
        let result = session.dispose(&self.chromium).await;
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
