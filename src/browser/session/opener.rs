//! The [`Opener`]: opens and disposes sessions on the current Chromium.
//!
//! The manager and the warm pool both open sessions; this is the one place that knows how (which
//! Chromium, which egress policy, which MAX_SESSIONS semaphore), so the pool depends on the opener
//! and never on the manager.

use std::sync::{Arc, RwLock};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;

use super::options::SessionOptions;
use super::session::Session;
use crate::browser::chromium::Chromium;
use crate::browser::error::BrowserError;
use crate::egress::EgressPolicy;

pub struct Opener {
    /// The current Chromium; replaced after a crash.
    chromium: RwLock<Arc<Chromium>>,
    policy: Arc<EgressPolicy>,
    /// MAX_SESSIONS: a permit lives inside each session, warm or open.
    capacity: Arc<Semaphore>,
    /// DOWNLOAD_MAX_BYTES, for every session's pages.
    download_cap: u64,
}

impl Opener {
    pub fn new(chromium: Chromium, policy: Arc<EgressPolicy>, max_sessions: usize, download_cap: u64) -> Self {
        let capacity = Arc::new(Semaphore::new(max_sessions));
        Self { chromium: RwLock::new(Arc::new(chromium)), policy, capacity, download_cap }
    }

    /// The current Chromium.
    pub fn chromium(&self) -> Arc<Chromium> {
        self.chromium.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Puts a new Chromium in place of one that died.
    pub fn replace(&self, replacement: Chromium) {
        *self.chromium.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(replacement);
    }

    pub fn policy(&self) -> &Arc<EgressPolicy> {
        &self.policy
    }

    pub fn capacity(&self) -> &Arc<Semaphore> {
        &self.capacity
    }

    /// A blank session (context, page, event pump, egress proxy) as the warm pool keeps them.
    pub async fn open_blank(&self, permit: OwnedSemaphorePermit, deadline: Instant) -> Result<Session, BrowserError> {
        Session::open_blank(&self.chromium(), &self.policy, None, self.download_cap, permit, deadline).await
    }

    /// A new session with `options` applied.
    pub async fn open(
        &self,
        options: &SessionOptions,
        permit: OwnedSemaphorePermit,
        deadline: Instant,
    ) -> Result<Session, BrowserError> {
        let upstream = options.proxy.as_ref().map(|p| p.upstream()).transpose().map_err(BrowserError::InvalidOption)?;
        let chromium = self.chromium();
        Session::open_blank(&chromium, &self.policy, upstream, self.download_cap, permit, deadline)
            .await?
            .prepare(&chromium, options, deadline)
            .await
    }

    /// Applies `options` to a warm session.
    pub async fn prepare(
        &self,
        warm: Session,
        options: &SessionOptions,
        deadline: Instant,
    ) -> Result<Session, BrowserError> {
        warm.prepare(&self.chromium(), options, deadline).await
    }

    /// Disposes a session's context.
    pub async fn dispose(&self, session: &Session) -> Result<(), BrowserError> {
        session.dispose(&self.chromium()).await
    }
}
