//! The TTL janitor: closes sessions idle past SESSION_TTL_MS.
//!
//! It sleeps until the earliest possible expiry (never busy-polls), closes what is due, and exits
//! when shutdown is signalled. A new session can never expire before the ones already open (its
//! idle clock starts now), so no wake-up on create is needed.

use std::sync::Arc;

use tokio::sync::watch;
use tokio::time::Instant;

use super::manager::SessionManager;

pub async fn run(manager: Arc<SessionManager>, mut shutdown: watch::Receiver<bool>) {
    loop {
        let wake = manager.next_expiry().unwrap_or_else(|| Instant::now() + manager.ttl());
        tokio::select! {
            _ = tokio::time::sleep_until(wake) => manager.close_expired().await,
            _ = stopped(&mut shutdown) => break,
        }
    }
    tracing::debug!("janitor stopped");
}

/// Resolves once `shutdown` says stop (or its sender is gone).
pub async fn stopped(shutdown: &mut watch::Receiver<bool>) {
    let _ = shutdown.wait_for(|stop| *stop).await;
}
