//! Accepting connections: hyper's HTTP/1 server with the read deadlines and per-address cap a
//! public port needs, and a graceful stop.
//!
//! - **Headers** must arrive within READ_TIMEOUT_MS (hyper's `header_read_timeout`, which needs a
//!   timer; `axum::serve` sets none, so a client sending half a request line held its connection
//!   for as long as it liked). The same deadline closes a keep-alive connection idle between
//!   requests. Bodies are bounded by the router (`RequestBodyTimeoutLayer`, see `http`).
//! - **Connections not yet authenticated** are capped per client IP
//!   (MAX_UNAUTHENTICATED_CONNECTIONS_PER_IP): one over the cap is closed as soon as it is
//!   accepted. A connection stops counting once a request on it presents the API key
//!   ([`Unauthenticated`] in its requests' extensions, released by `auth`), and when it closes.
//! - Every request carries `ConnectInfo` (the peer address), as `axum::serve` would add it.

use std::collections::HashMap;
use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, watch};
use tower::ServiceExt;

use crate::metrics::Metrics;

/// How connections are accepted and read.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// READ_TIMEOUT_MS: for a request's headers (and its body, in the router).
    pub read_timeout: Duration,
    /// MAX_UNAUTHENTICATED_CONNECTIONS_PER_IP.
    pub unauthenticated_per_ip: usize,
}

/// Serves `router` on `listener` until `shutdown` resolves, then lets open connections finish
/// their requests and returns once all have closed (upgraded WebSockets are handed over to their
/// handler and are not waited for here).
pub async fn serve(
    listener: TcpListener,
    router: Router,
    limits: Limits,
    metrics: Metrics,
    shutdown: impl Future<Output = ()>,
) {
    let pending = Arc::new(Pending::new(limits.unauthenticated_per_ip));
    let (stop, stopped) = watch::channel(false);
    // Each connection task holds a sender: when the last one is dropped, every task has ended.
    let (alive, mut all_closed) = mpsc::channel::<()>(1);
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(pair) => pair,
                Err(err) => {
                    // Out of file descriptors, typically: let some close.
                    tracing::warn!(error = %err, "accept failed");
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    continue;
                }
            },
            _ = &mut shutdown => break,
        };
        let Some(unauthenticated) = pending.admit(peer.ip()) else {
            metrics.http_rejected.with_label_values(&["connection_cap"]).inc();
            tracing::debug!(peer = %peer.ip(), "closed a connection over MAX_UNAUTHENTICATED_CONNECTIONS_PER_IP");
            continue;
        };
        let router = router.clone();
        let stopped = stopped.clone();
        let alive = alive.clone();
        tokio::spawn(async move {
            serve_connection(stream, peer, router, unauthenticated, limits.read_timeout, stopped).await;
            drop(alive);
        });
    }
    let _ = stop.send(true);
    drop(alive);
    let _ = all_closed.recv().await;
}

async fn serve_connection(
    stream: TcpStream,
    peer: SocketAddr,
    router: Router,
    unauthenticated: Unauthenticated,
    read_timeout: Duration,
    mut stopped: watch::Receiver<bool>,
) {
    let _ = stream.set_nodelay(true);
    let service = hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
        request.extensions_mut().insert(ConnectInfo(peer));
        request.extensions_mut().insert(unauthenticated.clone());
        router.clone().oneshot(request.map(Body::new))
    });
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder.timer(TokioTimer::new()).header_read_timeout(read_timeout);
    let connection = builder.serve_connection(TokioIo::new(stream), service).with_upgrades();
    tokio::pin!(connection);
    tokio::select! {
        served = connection.as_mut() => {
            if let Err(err) = served {
                tracing::debug!(error = %err, "connection ended with an error");
            }
        }
        () = async { let _ = stopped.wait_for(|stop| *stop).await; } => {
            connection.as_mut().graceful_shutdown();
            let _ = connection.await;
        }
    }
}

/// Open connections per client IP that have not presented the API key yet.
struct Pending {
    max: usize,
    counts: Mutex<HashMap<IpAddr, usize>>,
}

impl Pending {
    fn new(max: usize) -> Self {
        Self { max, counts: Mutex::new(HashMap::new()) }
    }

    fn counts(&self) -> std::sync::MutexGuard<'_, HashMap<IpAddr, usize>> {
        self.counts.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Counts a new connection from `ip`, or `None` when `ip` is at the cap.
    fn admit(self: &Arc<Self>, ip: IpAddr) -> Option<Unauthenticated> {
        let mut counts = self.counts();
        let count = counts.entry(ip).or_insert(0);
        if *count >= self.max {
            return None;
        }
        *count += 1;
        Some(Unauthenticated(Arc::new(Place { ip, table: self.clone(), counted: AtomicBool::new(true) })))
    }

    fn release(&self, ip: IpAddr) {
        let mut counts = self.counts();
        if let Some(count) = counts.get_mut(&ip) {
            *count -= 1;
            if *count == 0 {
                counts.remove(&ip);
            }
        }
    }
}

/// A connection's place among its address's unauthenticated connections, in each of its
/// requests' extensions; given up once a request authenticates, or when the connection closes.
#[derive(Clone)]
pub struct Unauthenticated(Arc<Place>);

struct Place {
    ip: IpAddr,
    table: Arc<Pending>,
    counted: AtomicBool,
}

impl Unauthenticated {
    /// A request on this connection presented the API key: it no longer counts.
    pub fn authenticated(&self) {
        if self.0.counted.swap(false, Ordering::SeqCst) {
            self.0.table.release(self.0.ip);
        }
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        if self.counted.swap(false, Ordering::SeqCst) {
            self.table.release(self.ip);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_gets_max_unauthenticated_connections_and_a_place_frees_on_auth_or_close() {
        let table = Arc::new(Pending::new(2));
        let (a, b): (IpAddr, IpAddr) = ("10.0.0.1".parse().unwrap(), "10.0.0.2".parse().unwrap());
        let first = table.admit(a).unwrap();
        let second = table.admit(a).unwrap();
        assert!(table.admit(a).is_none(), "a third from the same address is refused");
        assert!(table.admit(b).is_some(), "another address has its own count");
        first.authenticated();
        first.authenticated();
        let third = table.admit(a).expect("an authenticated connection gave its place up (once)");
        drop(second);
        drop(third);
        assert!(table.counts().get(&a).is_none(), "closed connections are forgotten");
        drop(first);
        assert!(table.counts().get(&a).is_none());
    }
}
