//! What a WebSocket connection is doing, for its idle timeout (`http::connections`): how many of
//! its calls are running and subscriptions are open, and when the last of them began or ended.
//!
//! The HTTP layer puts an [`Activity`] in a WebSocket's upgrade request; jsonrpsee hands that
//! request's extensions to every call on the connection, and each method call (and each
//! subscription, for as long as it streams) holds a [`Busy`] from it.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;
use tokio::time::Instant;

/// A connection's calls and subscriptions, and the time of the last change.
#[derive(Debug)]
pub struct Activity(watch::Sender<State>);

#[derive(Debug, Clone, Copy)]
struct State {
    busy: usize,
    last: Instant,
}

/// A call or subscription in progress on the connection; ends when dropped.
#[derive(Debug)]
pub struct Busy(Arc<Activity>);

impl Default for Activity {
    fn default() -> Self {
        Self(watch::Sender::new(State { busy: 0, last: Instant::now() }))
    }
}

impl Activity {
    /// Marks a call or subscription as running until the returned guard is dropped.
    pub fn busy(self: &Arc<Self>) -> Busy {
        self.0.send_modify(|s| {
            s.busy += 1;
            s.last = Instant::now();
        });
        Busy(self.clone())
    }

    /// Resolves once nothing has run on the connection for `limit`.
    pub async fn idle_for(&self, limit: Duration) {
        let mut changes = self.0.subscribe();
        loop {
            let state = *changes.borrow_and_update();
            if state.busy == 0 {
                tokio::select! {
                    () = tokio::time::sleep_until(state.last + limit) => return,
                    _ = changes.changed() => {}
                }
            } else {
                // The sender lives in `self`: changes only end with it.
                let _ = changes.changed().await;
            }
        }
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.0.send_modify(|s| {
            s.busy -= 1;
            s.last = Instant::now();
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn a_connection_is_idle_only_after_its_last_call_ended_plus_the_limit() {
        let activity = Arc::new(Activity::default());
        let limit = Duration::from_secs(10);
        let started = Instant::now();
        let call = activity.busy();
        let idle = tokio::spawn({
            let activity = activity.clone();
            async move { activity.idle_for(limit).await }
        });
        tokio::time::sleep(Duration::from_secs(30)).await;
        assert!(!idle.is_finished(), "a running call keeps it open however long it takes");
        drop(call);
        idle.await.unwrap();
        assert_eq!(started.elapsed(), Duration::from_secs(40), "idle counts from the call's end");
    }
}
