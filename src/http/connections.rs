//! Who holds `/rpc`'s connections, so that no client can take them all.
//!
//! - **MAX_CONNECTIONS**: requests in flight on `/rpc` and its open WebSockets, together. One
//!   more is refused with HTTP 503.
//! - **MAX_WEBSOCKETS_PER_IP**: WebSockets one client address may hold open on `/rpc`. One more
//!   is refused with HTTP 429, so one client cannot take every slot with sockets.
//! - **WS_IDLE_TIMEOUT_MS**: a WebSocket with no call running, no subscription open and no call
//!   begun or ended for this long is closed by the service (a close frame), so idle sockets do
//!   not hold slots for ever.
//!
//! Refusals are in the error contract (a JSON-RPC error body with `kind` `rate_limited` and
//! `retryAfter`, and a Retry-After header) and counted in `http_rejected_total` (`connections`,
//! `websockets_per_ip`). jsonrpsee's own connection limit sits above these and is never reached.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

use axum::body::Body;
use axum::http::{Response, StatusCode};
use jsonrpsee::server::StopHandle;
use tokio_util::sync::CancellationToken;

use super::rejection;
use crate::config::ConnectionLimits;
use crate::metrics::Metrics;
use crate::rpc::Activity;

/// The seconds a refused client is told to wait.
const RETRY_AFTER_S: u64 = 5;

/// The open connections of `/rpc`.
pub struct Connections {
    limits: ConnectionLimits,
    counts: Mutex<Counts>,
    metrics: Metrics,
}

#[derive(Default)]
struct Counts {
    open: usize,
    websockets: HashMap<IpAddr, usize>,
}

/// A connection's place among the open ones, given back when dropped: a request's when it has
/// been answered, a WebSocket's when it has closed (jsonrpsee keeps the upgrade request's
/// extensions, where it lives, for the connection's life).
pub struct Slot {
    table: Arc<Connections>,
    websocket_of: Option<IpAddr>,
    /// Cancelled when the slot is given back (the connection is over).
    closed: CancellationToken,
}

impl Connections {
    pub fn new(limits: ConnectionLimits, metrics: Metrics) -> Arc<Self> {
        Arc::new(Self { limits, counts: Mutex::new(Counts::default()), metrics })
    }

    fn counts(&self) -> std::sync::MutexGuard<'_, Counts> {
        self.counts.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A slot for a request (or, with `websocket`, a WebSocket) from `ip`, or why there is none.
    pub fn take(self: &Arc<Self>, ip: Option<IpAddr>, websocket: bool) -> Result<Slot, Refused> {
        let mut counts = self.counts();
        if counts.open >= self.limits.max {
            self.metrics.http_rejected.with_label_values(&["connections"]).inc();
            return Err(Refused::Full(self.limits.max));
        }
        let websocket_of = ip.filter(|_| websocket);
        if let Some(ip) = websocket_of {
            let held = counts.websockets.entry(ip).or_insert(0);
            if *held >= self.limits.websockets_per_ip {
                self.metrics.http_rejected.with_label_values(&["websockets_per_ip"]).inc();
                return Err(Refused::WebSockets(self.limits.websockets_per_ip));
            }
            *held += 1;
        }
        counts.open += 1;
        Ok(Slot { table: self.clone(), websocket_of, closed: CancellationToken::new() })
    }

    /// Closes the WebSocket behind `stop` (its own jsonrpsee stop handle) once `activity` has been
    /// idle for WS_IDLE_TIMEOUT_MS, or when the service stops (`service`); ends with the
    /// connection (`slot`).
    pub fn watch_idle(
        &self,
        slot: &Slot,
        activity: Arc<Activity>,
        stop: jsonrpsee::server::ServerHandle,
        service: StopHandle,
    ) {
        let (idle, closed) = (self.limits.websocket_idle, slot.closed.clone());
        tokio::spawn(async move {
            tokio::select! {
                () = activity.idle_for(idle) => {
                    tracing::debug!(idle_ms = idle.as_millis() as u64, "closing an idle WebSocket");
                    let _ = stop.stop();
                }
                () = service.shutdown() => { let _ = stop.stop(); }
                () = closed.cancelled() => {}
            }
            // Held until here: dropping the handle would stop the connection too.
            drop(stop);
        });
    }
}

/// Why a request or WebSocket got no slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// MAX_CONNECTIONS are open.
    Full(usize),
    /// The address holds MAX_WEBSOCKETS_PER_IP WebSockets.
    WebSockets(usize),
}

impl Refused {
    /// The refusal in the error contract.
    pub fn response(self) -> Response<Body> {
        match self {
            Self::Full(max) => {
                let message = format!(
                    "the service has MAX_CONNECTIONS ({max}) requests and WebSockets open on /rpc; retry in a few seconds"
                );
                rejection::retry_later(StatusCode::SERVICE_UNAVAILABLE, &message, RETRY_AFTER_S)
            }
            Self::WebSockets(per_ip) => {
                let message = format!(
                    "this address has MAX_WEBSOCKETS_PER_IP ({per_ip}) WebSockets open on /rpc: send more calls over \
                     one of them, or close one"
                );
                rejection::retry_later(StatusCode::TOO_MANY_REQUESTS, &message, RETRY_AFTER_S)
            }
        }
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.closed.cancel();
        let mut counts = self.table.counts();
        counts.open -= 1;
        if let Some(ip) = self.websocket_of
            && let Some(held) = counts.websockets.get_mut(&ip)
        {
            *held -= 1;
            if *held == 0 {
                counts.websockets.remove(&ip);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use std::time::Duration;

    fn refused(taken: Result<Slot, Refused>) -> StatusCode {
        taken.err().expect("refused").response().status()
    }

    fn table(max: usize, per_ip: usize) -> Arc<Connections> {
        let limits = ConnectionLimits { max, websockets_per_ip: per_ip, websocket_idle: Duration::from_secs(60) };
        Connections::new(limits, Metrics::new())
    }

    #[test]
    fn one_address_gets_its_websockets_and_everyone_shares_the_total() {
        let t = table(4, 2);
        let (a, b): (IpAddr, IpAddr) = ("10.0.0.1".parse().unwrap(), "10.0.0.2".parse().unwrap());
        let first = t.take(Some(a), true).unwrap();
        let _second = t.take(Some(a), true).unwrap();
        assert_eq!(refused(t.take(Some(a), true)), StatusCode::TOO_MANY_REQUESTS);
        let _post = t.take(Some(a), false).expect("a request from the same address still gets a slot");
        let _other = t.take(Some(b), true).expect("another address has its own WebSockets");
        assert_eq!(refused(t.take(Some(b), false)), StatusCode::SERVICE_UNAVAILABLE, "all 4 taken");
        drop(first);
        assert!(t.take(Some(a), true).is_ok(), "a closed WebSocket gives both its places back");
    }
}
