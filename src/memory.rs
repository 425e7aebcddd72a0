//! Giving freed memory back to the system once the work that needed it is over.
//!
//! glibc's allocator gives each thread that allocates an arena of its own and returns an arena's
//! free pages to the system only from its top. The service's calls run on tokio's worker threads,
//! and their large, short-lived buffers (CDP messages of several MiB, 2,000-element snapshots,
//! captured bodies, screenshots) leave free memory in the middle of those arenas that no one ever
//! hands back. Measured in `cargo bench -- storm`: 323 MiB resident after sixteen sessions of
//! heavy work had all closed, of which 4.8 MiB was still in use; one `malloc_trim(0)` brought the
//! process to 24 MiB. (mimalloc, tried in its place, kept 127 MiB and started at 32 MiB.)
//!
//! So the [`Trimmer`] is told about activity (every call's end, every session closed: an atomic
//! add) and, once the service has been quiet for [`QUIET`] (or at the latest [`MAX_DEFER`] after
//! activity began, so a service that is never quiet still trims), runs `malloc_trim(0)` on a
//! blocking thread. Trimming while quiet costs callers nothing; a trim took under a millisecond.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use prometheus::IntCounter;
use tokio::sync::Notify;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

/// How long the service must be quiet before memory is trimmed.
pub const QUIET: Duration = Duration::from_secs(1);
/// The longest a trim waits for quiet once there was activity.
pub const MAX_DEFER: Duration = Duration::from_secs(30);

/// Hands memory freed by finished work back to the system; see the module doc.
pub struct Trimmer {
    /// Bumped by every piece of work that ends; the trimmer compares it across a quiet spell.
    work: AtomicU64,
    /// Set from the first activity after a trim until the next trim: only that first activity
    /// wakes the trimmer, so a busy service pays an atomic add per call, not a task wake-up.
    armed: AtomicBool,
    wake: Notify,
    trims: IntCounter,
    returned_bytes: IntCounter,
}

impl Trimmer {
    pub fn new(trims: IntCounter, returned_bytes: IntCounter) -> Self {
        Self { work: AtomicU64::new(0), armed: AtomicBool::new(false), wake: Notify::new(), trims, returned_bytes }
    }

    /// Work ended (a call, a session closed): memory it freed can be trimmed once things are quiet.
    pub fn activity(&self) {
        self.work.fetch_add(1, Ordering::Relaxed);
        if !self.armed.swap(true, Ordering::AcqRel) {
            self.wake.notify_one();
        }
    }

    /// Trims after each quiet spell that follows activity, until `shutdown`.
    pub async fn run(self: Arc<Self>, shutdown: CancellationToken) {
        if !TRIM_AVAILABLE {
            return;
        }
        loop {
            tokio::select! {
                _ = self.wake.notified() => {}
                _ = shutdown.cancelled() => break,
            }
            // Quiet: a whole QUIET without work ending (or MAX_DEFER since the first activity).
            let latest = Instant::now() + MAX_DEFER;
            loop {
                let seen = self.work.load(Ordering::Relaxed);
                tokio::select! {
                    _ = tokio::time::sleep_until((Instant::now() + QUIET).min(latest)) => {}
                    _ = shutdown.cancelled() => return,
                }
                if self.work.load(Ordering::Relaxed) == seen || Instant::now() >= latest {
                    break;
                }
            }
            // Disarmed before trimming: work that ends from here on arms the next trim.
            self.armed.store(false, Ordering::Release);
            let (before, started) = (resident_bytes(), std::time::Instant::now());
            if tokio::task::spawn_blocking(trim).await.is_err() {
                continue;
            }
            let returned = before.saturating_sub(resident_bytes());
            self.trims.inc();
            self.returned_bytes.inc_by(returned);
            tracing::debug!(returned_bytes = returned, ms = started.elapsed().as_millis() as u64, "memory trimmed");
        }
        tracing::debug!("memory trimmer stopped");
    }
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
const TRIM_AVAILABLE: bool = true;
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
const TRIM_AVAILABLE: bool = false;

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn trim() {
    // SAFETY: malloc_trim only walks the allocator's own free lists; it is safe to call at any time
    // from any thread.
    unsafe { libc::malloc_trim(0) };
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn trim() {}

/// This process's resident memory in bytes (0 where /proc is not available).
pub fn resident_bytes() -> u64 {
    // statm's second field is resident pages.
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages = statm.split_whitespace().nth(1).and_then(|p| p.parse::<u64>().ok()).unwrap_or(0);
    pages * page_size()
}

#[cfg(unix)]
fn page_size() -> u64 {
    // SAFETY: sysconf has no preconditions.
    u64::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).unwrap_or(4096)
}

#[cfg(not(unix))]
fn page_size() -> u64 {
    4096
}

#[cfg(all(test, target_os = "linux", target_env = "gnu"))]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn activity_is_followed_by_one_trim_once_quiet_and_new_work_arms_the_next() {
        let (trims, returned) = (IntCounter::new("t", "t").unwrap(), IntCounter::new("r", "r").unwrap());
        let trimmer = Arc::new(Trimmer::new(trims.clone(), returned));
        let shutdown = CancellationToken::new();
        let task = tokio::spawn(trimmer.clone().run(shutdown.clone()));
        for _ in 0..5 {
            trimmer.activity();
            tokio::time::sleep(QUIET / 2).await;
        }
        assert_eq!(trims.get(), 0, "no trim while calls keep coming");
        // Quiet: one trim (on a blocking thread, which paused time does not wait for).
        tokio::time::sleep(QUIET * 2).await;
        for _ in 0..200 {
            if trims.get() == 1 {
                break;
            }
            tokio::task::yield_now().await;
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(trims.get(), 1);
        // Quiet stays quiet: no second trim without new work.
        tokio::time::sleep(QUIET * 3).await;
        assert_eq!(trims.get(), 1);
        // Work after the trim arms the next one.
        trimmer.activity();
        tokio::time::sleep(QUIET * 2).await;
        for _ in 0..200 {
            if trims.get() == 2 {
                break;
            }
            tokio::task::yield_now().await;
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(trims.get(), 2, "activity after a trim arms another");
        shutdown.cancel();
        task.await.unwrap();
    }

    #[tokio::test(start_paused = true)]
    async fn a_service_that_is_never_quiet_still_trims() {
        let (trims, returned) = (IntCounter::new("t", "t").unwrap(), IntCounter::new("r", "r").unwrap());
        let trimmer = Arc::new(Trimmer::new(trims.clone(), returned));
        let shutdown = CancellationToken::new();
        let task = tokio::spawn(trimmer.clone().run(shutdown.clone()));
        let end = Instant::now() + MAX_DEFER + QUIET * 5;
        while Instant::now() < end && trims.get() == 0 {
            trimmer.activity();
            tokio::time::sleep(QUIET / 4).await;
            std::thread::sleep(Duration::from_millis(1));
        }
        assert_eq!(trims.get(), 1, "a trim at the latest MAX_DEFER after activity began");
        shutdown.cancel();
        task.await.unwrap();
    }

    #[test]
    fn resident_memory_is_read_from_proc() {
        assert!(resident_bytes() > 1 << 20);
    }
}
