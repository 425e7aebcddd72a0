//! The warm pool: WARM_SESSIONS blank sessions (browser context, about:blank page, event pump,
//! egress proxy) opened ahead of time, so `session.create` only hands one out and applies its
//! options instead of waiting for Chromium to build a context.
//!
//! A warm session is opened exactly like one made on demand and never used before it is handed
//! out, so it is just as fresh and isolated. Each holds a MAX_SESSIONS permit: open sessions plus
//! warm ones never exceed the cap (it bounds memory). The refill task ([`run`]) keeps the pool
//! full, waits for capacity when the cap is reached, backs off while Chromium fails, and stops on
//! shutdown, disposing what is left.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use prometheus::IntGauge;
use tokio::sync::Notify;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::opener::Opener;
use super::session::Session;

/// How long the refill task waits before trying again after Chromium failed to open a context.
const RETRY_AFTER: Duration = Duration::from_secs(1);
/// Time Chromium gets to open one warm context.
const OPEN_TIMEOUT: Duration = Duration::from_secs(30);

#[derive(Default)]
struct Slots {
    ready: Vec<Session>,
    /// Warm sessions being opened right now (each already holds its permit).
    filling: usize,
}

pub struct WarmPool {
    size: usize,
    /// text_browser_sessions_warm: how many are ready.
    gauge: IntGauge,
    slots: Mutex<Slots>,
    /// Wakes the refill task: a warm session was taken. (Freed capacity needs no wake-up: the
    /// task waits on the MAX_SESSIONS semaphore itself.)
    wanted: Notify,
    /// Wakes callers waiting for a warm session that is being opened.
    filled: Notify,
}

impl WarmPool {
    pub fn new(size: usize, gauge: IntGauge) -> Self {
        Self { size, gauge, slots: Mutex::default(), wanted: Notify::new(), filled: Notify::new() }
    }

    fn slots(&self) -> std::sync::MutexGuard<'_, Slots> {
        self.slots.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A ready warm session, if there is one; the refill task is told to replace it.
    pub fn take(&self) -> Option<Session> {
        let session = self.pop(&mut self.slots());
        if session.is_some() {
            self.wanted.notify_one();
        }
        session
    }

    fn pop(&self, slots: &mut Slots) -> Option<Session> {
        let session = slots.ready.pop();
        self.gauge.set(slots.ready.len() as i64);
        session
    }

    fn push(&self, slots: &mut Slots, session: Session) {
        slots.ready.push(session);
        self.gauge.set(slots.ready.len() as i64);
    }

    /// A warm session, waiting for one being opened if none is ready; `None` when none is ready or
    /// on its way (or the deadline passes first).
    pub async fn take_or_wait(&self, deadline: Instant) -> Option<Session> {
        self.wait_take(deadline, true).await
    }

    /// A warm session as soon as one is ready (even one not being opened yet), or `None` at the
    /// deadline.
    pub async fn take_when_ready(&self, deadline: Instant) -> Option<Session> {
        self.wait_take(deadline, false).await
    }

    async fn wait_take(&self, deadline: Instant, only_if_filling: bool) -> Option<Session> {
        loop {
            let filled = self.filled.notified();
            tokio::pin!(filled);
            filled.as_mut().enable();
            {
                let mut slots = self.slots();
                if let Some(session) = self.pop(&mut slots) {
                    drop(slots);
                    self.wanted.notify_one();
                    return Some(session);
                }
                if only_if_filling && slots.filling == 0 {
                    return None;
                }
            }
            if tokio::time::timeout_at(deadline, filled).await.is_err() {
                return None;
            }
        }
    }

    /// How many warm sessions are ready.
    pub fn ready(&self) -> usize {
        self.slots().ready.len()
    }

    /// Wakes the refill task (a new Chromium is up).
    pub fn wake(&self) {
        self.wanted.notify_one();
    }

    /// Takes every ready warm session (at shutdown, or when their Chromium died).
    pub fn drain(&self) -> Vec<Session> {
        self.gauge.set(0);
        std::mem::take(&mut self.slots().ready)
    }

    fn wants_more(&self) -> bool {
        let slots = self.slots();
        slots.ready.len() + slots.filling < self.size
    }
}

/// Keeps the pool at WARM_SESSIONS until shutdown, then disposes the warm sessions left.
pub async fn run(pool: Arc<WarmPool>, opener: Arc<Opener>, shutdown: CancellationToken) {
    loop {
        if !pool.wants_more() || !opener.chromium().is_alive() {
            tokio::select! {
                _ = pool.wanted.notified() => continue,
                _ = tokio::time::sleep(RETRY_AFTER), if !opener.chromium().is_alive() => continue,
                _ = shutdown.cancelled() => break,
            }
        }
        // Wait until a slot is free, then take it and count the warm session as on its way in one
        // step under the pool's lock: a create that finds no free slot then always sees it coming
        // (taking the permit first and counting it after left a moment where it saw neither).
        tokio::select! {
            free = opener.capacity().acquire() => if free.is_err() { break },
            _ = shutdown.cancelled() => break,
        }
        let permit = {
            let mut slots = pool.slots();
            match opener.capacity().clone().try_acquire_owned() {
                Ok(permit) => {
                    slots.filling += 1;
                    permit
                }
                // A create took it meanwhile: that is what slots are for.
                Err(_) => continue,
            }
        };
        let opened = tokio::select! {
            opened = opener.open_blank(permit, Instant::now() + OPEN_TIMEOUT) => Some(opened),
            _ = shutdown.cancelled() => None,
        };
        let failed = {
            let mut slots = pool.slots();
            slots.filling -= 1;
            match opened {
                Some(Ok(session)) => {
                    pool.push(&mut slots, session);
                    None
                }
                Some(Err(err)) => Some(err),
                None => {
                    drop(slots);
                    pool.filled.notify_waiters();
                    break;
                }
            }
        };
        pool.filled.notify_waiters();
        if let Some(err) = failed {
            tracing::warn!(error = %err, "opening a warm session failed; retrying");
            tokio::select! {
                _ = tokio::time::sleep(RETRY_AFTER) => {}
                _ = shutdown.cancelled() => break,
            }
        }
    }
    for session in pool.drain() {
        let _ = opener.dispose(&session).await;
    }
    tracing::debug!("warm pool stopped");
}
