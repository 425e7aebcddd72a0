//! The TTL janitor: closes sessions idle past SESSION_TTL_MS.
//!
//! It sleeps until the earliest possible expiry (never busy-polls), closes what is due, and exits
//! when shutdown is signalled. A new session can never expire before the ones already open (its
//! idle clock starts now), so no wake-up on create is needed.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

/// What the janitor needs of the sessions it watches.
pub trait Expiring: Send + Sync + 'static {
    /// The idle time after which a session expires.
    fn ttl(&self) -> Duration;
    /// When the next idle session would expire if nothing touches it.
    fn next_expiry(&self) -> Option<Instant>;
    /// Closes every session idle past the TTL.
    fn close_expired(&self) -> impl Future<Output = ()> + Send;
}

pub async fn run<S: Expiring>(sessions: Arc<S>, shutdown: CancellationToken) {
    loop {
        let wake = sessions.next_expiry().unwrap_or_else(|| Instant::now() + sessions.ttl());
        tokio::select! {
            _ = tokio::time::sleep_until(wake) => sessions.close_expired().await,
            _ = shutdown.cancelled() => break,
        }
    }
    tracing::debug!("janitor stopped");
}
