//! The warm pool: WARM_SESSIONS blank sessions (browser context, about:blank page, event pump,
//! egress proxy) opened ahead of time, so `session.create` only hands one out and applies its
//! options instead of waiting for Chromium to build a context.
//!
//! A warm session is opened exactly like one made on demand and never used before it is handed
//! out, so it is just as fresh and isolated. Each holds a MAX_SESSIONS permit: open sessions plus
//! warm ones never exceed the cap (it bounds memory). The refill task ([`run`]) keeps the pool
//! full, opening several at once when several are wanted, waits for capacity when the cap is
//! reached, backs off while Chromium fails, and stops on shutdown, disposing what is left.
//!
//! The pool grows while demand outpaces it: each create that finds it empty while other creates
//! run (and could have had a slot) raises its size by one, up to [`GROWTH`] times WARM_SESSIONS;
//! after [`SHRINK_AFTER`] without such a miss it returns to WARM_SESSIONS and disposes the extra
//! sessions, those still being opened included. A burst of agents then finds sessions ready.
//! One client's create/close loop (creates one at a time) waits for the warm session its previous
//! create set going, and each such wait grows the pool by one too, but by [`SPARE`] at most: the
//! loop then finds a session ready while the next ones open, and Chromium holds at most two more
//! contexts than WARM_SESSIONS for it.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use prometheus::{IntCounter, IntGauge};
use tokio::sync::Notify;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::opener::Opener;
use super::session::Session;
use crate::browser::error::BrowserError;

/// How long the refill task waits before trying again after Chromium failed to open a context.
const RETRY_AFTER: Duration = Duration::from_secs(1);
/// Time Chromium gets to open one warm context.
const OPEN_TIMEOUT: Duration = Duration::from_secs(30);
/// How far demand can grow the pool: up to this many times WARM_SESSIONS (eight agents starting
/// at once find eight sessions ready from their second round on).
pub const GROWTH: usize = 8;
/// How long after the last miss the pool keeps its grown size.
pub const SHRINK_AFTER: Duration = Duration::from_secs(60);
/// How far one client's creates, one at a time, grow the pool: this many warm sessions beyond
/// WARM_SESSIONS (each a context and a renderer kept ready).
pub const SPARE: usize = 2;

#[derive(Default)]
struct Slots {
    ready: Vec<Session>,
    /// Warm sessions being opened right now (each already holds its permit).
    filling: usize,
    /// How many warm sessions the pool keeps now: WARM_SESSIONS, more while demand outpaces it.
    size: usize,
    /// When a create last found the pool empty.
    last_miss: Option<Instant>,
    /// Creates running right now. Refills wait for them: on two cores a refill running beside a
    /// create (opening a session of its own, or the round trip proving that an attached browser
    /// answers) makes that create, which a caller waits on, slower (a warm create 1 ms → 9 ms).
    creating: usize,
}

pub struct WarmPool {
    /// WARM_SESSIONS: the size the pool returns to.
    base: usize,
    /// The size demand can grow it to.
    max: usize,
    /// text_browser_sessions_warm: how many are ready.
    gauge: IntGauge,
    /// text_browser_sessions_warm_misses_total: creates that found the pool empty.
    misses: IntCounter,
    slots: Mutex<Slots>,
    /// Wakes the refill task: a warm session was taken. (Freed capacity needs no wake-up: the
    /// task waits on the MAX_SESSIONS semaphore itself.)
    wanted: Notify,
    /// Wakes callers waiting for a warm session that is being opened.
    filled: Notify,
}

impl WarmPool {
    /// A pool of `base` warm sessions that demand can grow up to `GROWTH` times, never past `cap`.
    pub fn new(base: usize, cap: usize, gauge: IntGauge, misses: IntCounter) -> Self {
        let base = base.min(cap);
        let slots = Mutex::new(Slots { size: base, ..Slots::default() });
        let max = (base * GROWTH).min(cap);
        Self { base, max, gauge, misses, slots, wanted: Notify::new(), filled: Notify::new() }
    }

    /// A create found no warm session although it could have used one: demand outpaces the pool,
    /// so it grows by one (up to its maximum).
    pub fn missed(&self) {
        if self.base == 0 {
            return;
        }
        self.misses.inc();
        let mut slots = self.slots();
        slots.last_miss = Some(Instant::now());
        if slots.size < self.max {
            slots.size += 1;
            drop(slots);
            self.wanted.notify_one();
        }
    }

    /// A create running alone found no warm session ready and waits for the one being opened: the
    /// pool is too small for one client's create/close loop, and grows by one, up to [`SPARE`]
    /// beyond WARM_SESSIONS (never shrinking what overlapping creates grew).
    pub fn fell_behind(&self) {
        if self.base == 0 {
            return;
        }
        self.misses.inc();
        let mut slots = self.slots();
        slots.last_miss = Some(Instant::now());
        let most = (self.base + SPARE).min(self.max);
        if slots.size < most {
            slots.size += 1;
            drop(slots);
            self.wanted.notify_one();
        }
    }

    /// Counts a create while the guard lives; refills wait until none is running.
    pub fn creating(self: &Arc<Self>) -> Creating {
        self.slots().creating += 1;
        Creating(self.clone())
    }

    /// How many creates are running now.
    pub fn creates_running(&self) -> usize {
        self.slots().creating
    }

    /// When the pool, grown by demand, returns to WARM_SESSIONS if no create misses meanwhile.
    fn shrink_at(&self) -> Option<Instant> {
        let slots = self.slots();
        (slots.size > self.base).then(|| slots.last_miss.unwrap_or_else(Instant::now) + SHRINK_AFTER)
    }

    /// Back to WARM_SESSIONS; returns the warm sessions beyond it, to dispose.
    fn shrink(&self) -> Vec<Session> {
        let mut slots = self.slots();
        slots.size = self.base;
        let keep = self.base.min(slots.ready.len());
        let extra = slots.ready.split_off(keep);
        self.gauge.set(slots.ready.len() as i64);
        extra
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

    /// Whether a warm session is being opened.
    pub fn filling(&self) -> bool {
        self.slots().filling > 0
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
        slots.creating == 0 && slots.ready.len() + slots.filling < slots.size
    }
}

/// A create running (see [`WarmPool::creating`]).
pub struct Creating(Arc<WarmPool>);

impl Drop for Creating {
    fn drop(&mut self) {
        let idle = {
            let mut slots = self.0.slots();
            slots.creating -= 1;
            slots.creating == 0
        };
        if idle {
            self.0.wanted.notify_one();
        }
    }
}

/// Warm sessions on their way.
type Opening = tokio::task::JoinSet<Result<Session, BrowserError>>;

/// Starts every open the pool wants and the cap allows. Taking a permit and counting the warm
/// session as on its way happen in one step under the pool's lock: a create that finds no free
/// slot then always sees it coming.
fn start_opens(pool: &Arc<WarmPool>, opener: &Arc<Opener>, opening: &mut Opening) {
    while pool.wants_more() {
        let permit = {
            let mut slots = pool.slots();
            match opener.capacity().clone().try_acquire_owned() {
                Ok(permit) => {
                    slots.filling += 1;
                    permit
                }
                Err(_) => break,
            }
        };
        let opener = opener.clone();
        opening.spawn(async move { opener.open_blank(permit, Instant::now() + OPEN_TIMEOUT).await });
    }
}

/// Files a warm session that finished opening (or disposes of one nobody needs any more); false
/// when opening it failed.
async fn file_opened(
    pool: &Arc<WarmPool>,
    opener: &Arc<Opener>,
    opened: Result<Result<Session, BrowserError>, tokio::task::JoinError>,
) -> bool {
    let mut extra = None;
    let failed = {
        let mut slots = pool.slots();
        slots.filling -= 1;
        match opened {
            // One opened on a Chromium that died meanwhile is no use to anyone.
            Ok(Ok(session)) if !session.browser_alive() => None,
            // The pool shrank while it was being opened.
            Ok(Ok(session)) if slots.ready.len() >= slots.size => {
                extra = Some(session);
                None
            }
            Ok(Ok(session)) => {
                pool.push(&mut slots, session);
                None
            }
            Ok(Err(err)) => Some(err.to_string()),
            Err(join) => Some(join.to_string()),
        }
    };
    pool.filled.notify_waiters();
    if let Some(session) = extra {
        let _ = opener.dispose(&session).await;
    }
    if let Some(err) = &failed {
        tracing::warn!(error = %err, "opening a warm session failed; retrying");
    }
    failed.is_none()
}

/// Keeps the pool at its size until shutdown, then disposes the warm sessions left.
pub async fn run(pool: Arc<WarmPool>, opener: Arc<Opener>, shutdown: CancellationToken) {
    let mut opening = tokio::task::JoinSet::new();
    let mut retry_at: Option<Instant> = None;
    loop {
        let alive = opener.chromium().is_alive();
        let backing_off = retry_at.is_some_and(|at| Instant::now() < at);
        if alive && !backing_off {
            start_opens(&pool, &opener, &mut opening);
        }
        let wants_capacity = alive && !backing_off && pool.wants_more();
        let shrink_at = pool.shrink_at();
        tokio::select! {
            Some(opened) = opening.join_next(), if !opening.is_empty() => {
                if !file_opened(&pool, &opener, opened).await {
                    retry_at = Some(Instant::now() + RETRY_AFTER);
                }
            }
            _ = pool.wanted.notified() => {}
            // A slot freed: go round and take it.
            free = opener.capacity().acquire(), if wants_capacity => if free.is_err() { break },
            _ = tokio::time::sleep_until(retry_at.unwrap_or_else(Instant::now)), if backing_off => retry_at = None,
            _ = tokio::time::sleep(RETRY_AFTER), if !alive => {}
            _ = tokio::time::sleep_until(shrink_at.unwrap_or_else(Instant::now)), if shrink_at.is_some() => {
                if pool.shrink_at().is_some_and(|at| at <= Instant::now()) {
                    for session in pool.shrink() {
                        let _ = opener.dispose(&session).await;
                    }
                }
            }
            _ = shutdown.cancelled() => break,
        }
    }
    opening.shutdown().await;
    pool.slots().filling = 0;
    pool.filled.notify_waiters();
    for session in pool.drain() {
        let _ = opener.dispose(&session).await;
    }
    tracing::debug!("warm pool stopped");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pool(base: usize, cap: usize) -> Arc<WarmPool> {
        Arc::new(WarmPool::new(base, cap, IntGauge::new("warm", "warm").unwrap(), IntCounter::new("m", "m").unwrap()))
    }

    #[tokio::test(start_paused = true)]
    async fn each_miss_grows_the_pool_up_to_growth_times_its_size_and_it_shrinks_back_when_misses_stop() {
        let p = pool(1, 64);
        assert!(p.wants_more());
        for _ in 0..10 {
            p.missed();
        }
        assert_eq!(p.slots().size, GROWTH, "grown by the misses, up to {GROWTH} x WARM_SESSIONS");
        let at = p.shrink_at().expect("a grown pool shrinks later");
        assert_eq!(at - Instant::now(), SHRINK_AFTER);
        tokio::time::advance(SHRINK_AFTER / 2).await;
        p.missed();
        assert_eq!(p.shrink_at().unwrap() - Instant::now(), SHRINK_AFTER, "a new miss keeps it grown");
        assert!(p.shrink().is_empty(), "nothing ready to dispose");
        let size = p.slots().size;
        assert_eq!((size, p.shrink_at()), (1, None));
    }

    #[test]
    fn the_pool_never_grows_past_max_sessions_nor_from_zero() {
        let p = pool(3, 5);
        for _ in 0..10 {
            p.missed();
        }
        assert_eq!(p.slots().size, 5);
        let off = pool(0, 8);
        off.missed();
        let size = off.slots().size;
        assert_eq!((size, off.wants_more()), (0, false), "WARM_SESSIONS=0 stays off");
    }

    #[test]
    fn creates_one_at_a_time_grow_the_pool_by_two_at_most() {
        let p = pool(1, 64);
        for _ in 0..10 {
            p.fell_behind();
        }
        assert_eq!(p.slots().size, 1 + SPARE, "a client's loop keeps at most {SPARE} spare sessions");
        p.missed();
        assert_eq!(p.slots().size, 2 + SPARE, "overlapping creates grow it further");
        p.fell_behind();
        assert_eq!(p.slots().size, 2 + SPARE, "and a loop never shrinks it");
        let small = pool(1, 2);
        small.fell_behind();
        small.fell_behind();
        assert_eq!(small.slots().size, 2, "never past MAX_SESSIONS");
    }

    #[test]
    fn refills_wait_while_creates_run() {
        let p = pool(1, 8);
        let opening = p.creating();
        let second = p.creating();
        assert!(!p.wants_more());
        drop(opening);
        assert!(!p.wants_more(), "one is still running");
        drop(second);
        assert!(p.wants_more());
    }
}
