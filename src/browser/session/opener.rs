//! The [`Opener`]: opens and disposes sessions on the current Chromium.
//!
//! The manager and the warm pool both open sessions; this is the one place that knows how (which
//! Chromium, which egress policy, which MAX_SESSIONS semaphore), so the pool depends on the opener
//! and never on the manager.

use std::sync::{Arc, RwLock};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;

use super::options::SessionOptions;
use super::session::{EgressSetup, Session};
use crate::browser::chromium::Chromium;
use crate::browser::error::BrowserError;
use crate::egress::EgressPolicy;
use crate::egress::proxy::ProxyAddress;

pub struct Opener {
    /// The current Chromium; replaced after a crash.
    chromium: RwLock<Arc<Chromium>>,
    /// Told each time a new Chromium takes the place of one that died.
    replaced: tokio::sync::watch::Sender<()>,
    policy: Arc<EgressPolicy>,
    /// MAX_SESSIONS: a permit lives inside each session, warm or open.
    capacity: Arc<Semaphore>,
    /// DOWNLOAD_MAX_BYTES, for every session's pages.
    download_cap: u64,
    /// Session ids and the egress proxies' address.
    setup: SessionSetup,
}

/// What sessions are opened with besides the browser and the egress policy.
#[derive(Debug, Clone)]
pub struct SessionSetup {
    /// REPLICA_ID: session ids start with it (`text-browser-1.<uuid>`) so other replicas know the owner.
    pub replica: Option<String>,
    /// Where each session's egress proxy listens and how the browser reaches it.
    pub proxy_at: ProxyAddress,
}

impl Opener {
    pub fn new(
        chromium: Chromium,
        policy: Arc<EgressPolicy>,
        max_sessions: usize,
        download_cap: u64,
        setup: SessionSetup,
    ) -> Self {
        let capacity = Arc::new(Semaphore::new(max_sessions));
        let replaced = tokio::sync::watch::Sender::new(());
        Self { chromium: RwLock::new(Arc::new(chromium)), replaced, policy, capacity, download_cap, setup }
    }

    /// A fresh session id: a UUID, after this replica's name when it has one.
    fn new_id(&self) -> String {
        let uuid = uuid::Uuid::new_v4().simple().to_string();
        match &self.setup.replica {
            Some(replica) => format!("{replica}.{uuid}"),
            None => uuid,
        }
    }

    /// The current Chromium.
    pub fn chromium(&self) -> Arc<Chromium> {
        self.chromium.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Puts a new Chromium in place of one that died.
    pub fn replace(&self, replacement: Chromium) {
        *self.chromium.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(replacement);
        self.replaced.send_replace(());
    }

    /// The current Chromium once it is up: at once, or when a new one replaces one that died, or
    /// `browser_unavailable` if none is up by `deadline`.
    pub async fn live_chromium(&self, deadline: Instant) -> Result<Arc<Chromium>, BrowserError> {
        let mut replaced = self.replaced.subscribe();
        loop {
            let chromium = self.chromium();
            if chromium.is_alive() {
                return Ok(chromium);
            }
            if !matches!(tokio::time::timeout_at(deadline, replaced.changed()).await, Ok(Ok(()))) {
                return Err(BrowserError::Unavailable(
                    "Chromium stopped and no new one was up before this call's timeout".into(),
                ));
            }
        }
    }

    pub fn policy(&self) -> &Arc<EgressPolicy> {
        &self.policy
    }

    pub fn capacity(&self) -> &Arc<Semaphore> {
        &self.capacity
    }

    /// A blank session (context, page, event pump, egress proxy) as the warm pool keeps them.
    pub async fn open_blank(&self, permit: OwnedSemaphorePermit, deadline: Instant) -> Result<Session, BrowserError> {
        let id = self.new_id();
        let egress = EgressSetup { policy: &self.policy, at: &self.setup.proxy_at, upstream: None };
        Session::open_blank(id, &self.chromium(), egress, self.download_cap, permit, deadline).await
    }

    /// A new session with `options` applied.
    pub async fn open(
        &self,
        options: &SessionOptions,
        permit: OwnedSemaphorePermit,
        deadline: Instant,
    ) -> Result<Session, BrowserError> {
        let chromium = self.chromium();
        let egress = EgressSetup { policy: &self.policy, at: &self.setup.proxy_at, upstream: options.proxy.clone() };
        Session::open_blank(self.new_id(), &chromium, egress, self.download_cap, permit, deadline)
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
