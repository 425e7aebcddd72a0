//! Requests between replicas.
//!
//! Requests another replica forwarded: recognized by the API key together with the
//! `x-text-browser-forwarded-by` header, marked with [`ForwardedBy`] for the RPC layer (a forwarded
//! call is never forwarded again), and let past the rate limit, which the replica the client
//! reached has already applied to it. Without the key the header means nothing: such a request is
//! limited like any other (and then refused by the key check).
//!
//! And `/mcp` requests for an MCP session another replica holds (its id names the replica, see
//! `mcp::sessions`): passed to that replica as they are, its response streamed back.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::body::Body;
use axum::extract::Request;
use axum::response::Response;
use tower::{Layer, Service, ServiceExt};

use super::auth::constant_time_eq;
use axum::extract::State;
use axum::http::StatusCode;
use axum::middleware::Next;
use tokio::time::Instant;

use super::rejection;
use crate::config::ApiKey;
use crate::replica::{FORWARDED_BY, ForwardedBy, Forwarder, Owner, ReplicaError};
use crate::rpc::error::ErrorKind;

/// What `/mcp` needs to pass a request to the replica holding its MCP session.
#[derive(Clone)]
pub struct McpOwners {
    pub forwarder: Arc<Forwarder>,
    /// MAX_CALL_MS and a second: how long the owner gets to start answering.
    pub patience: std::time::Duration,
}

/// Sends an `/mcp` request whose `mcp-session-id` names another replica to that replica. One a
/// peer forwarded already is answered `wrong_replica` (421) rather than passed on again.
pub async fn mcp_to_owner(State(owners): State<Option<McpOwners>>, request: Request, next: Next) -> Response {
    let Some(owners) = owners else { return next.run(request).await };
    let session = request.headers().get("mcp-session-id").and_then(|v| v.to_str().ok()).unwrap_or_default();
    let Owner::Peer(owner) = owners.forwarder.topology().owner(session) else { return next.run(request).await };
    let owner = owner.to_owned();
    if request.extensions().get::<ForwardedBy>().is_some() {
        owners.forwarder.count(crate::replica::Transport::Mcp, crate::replica::Outcome::WrongReplica);
        let message = format!(
            "MCP session {session:?} belongs to replica {owner}, and this replica ({}) was sent it by another; \
             give every replica the same PEERS or PEER_URL_TEMPLATE",
            owners.forwarder.topology().me()
        );
        return rejection::response(StatusCode::MISDIRECTED_REQUEST, ErrorKind::WrongReplica, &message);
    }
    match owners.forwarder.relay(&owner, request, Instant::now() + owners.patience).await {
        Ok(response) => response,
        Err(err @ ReplicaError::Unavailable { .. }) => {
            rejection::response(StatusCode::SERVICE_UNAVAILABLE, ErrorKind::ReplicaUnavailable, &err.to_string())
        }
        Err(err @ ReplicaError::Wrong { .. }) => {
            rejection::response(StatusCode::MISDIRECTED_REQUEST, ErrorKind::WrongReplica, &err.to_string())
        }
    }
}

/// Wraps a layer (the rate limit) so that requests a peer forwarded skip it.
#[derive(Clone)]
pub struct UnlessForwardedLayer<L> {
    limit: L,
    /// The API key a peer's request must carry; `None` without REPLICA_ID (there are no peers,
    /// and the header is ignored).
    key: Option<Arc<ApiKey>>,
}

impl<L> UnlessForwardedLayer<L> {
    pub fn new(limit: L, key: Option<Arc<ApiKey>>) -> Self {
        Self { limit, key }
    }
}

impl<L: Layer<S>, S: Clone> Layer<S> for UnlessForwardedLayer<L> {
    type Service = UnlessForwarded<L::Service, S>;

    fn layer(&self, inner: S) -> Self::Service {
        UnlessForwarded { limited: self.limit.layer(inner.clone()), plain: inner, key: self.key.clone() }
    }
}

#[derive(Clone)]
pub struct UnlessForwarded<A, B> {
    limited: A,
    plain: B,
    key: Option<Arc<ApiKey>>,
}

impl<A, B> Service<Request> for UnlessForwarded<A, B>
where
    A: Service<Request, Response = Response, Error = Infallible> + Clone + Send + 'static,
    A::Future: Send,
    B: Service<Request, Response = Response, Error = Infallible> + Clone + Send + 'static,
    B::Future: Send,
{
    type Response = Response;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response, Infallible>> + Send>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        // Each call drives a clone to readiness itself (`oneshot`).
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, mut request: Request) -> Self::Future {
        match self.key.as_ref().and_then(|key| forwarded_by(&request, key)) {
            Some(peer) => {
                request.extensions_mut().insert(ForwardedBy(peer));
                Box::pin(self.plain.clone().oneshot(request))
            }
            None => Box::pin(self.limited.clone().oneshot(request)),
        }
    }
}

/// The peer named by a forwarded request that also carries the right key.
fn forwarded_by(request: &Request<Body>, key: &ApiKey) -> Option<String> {
    let peer = request.headers().get(FORWARDED_BY)?.to_str().ok()?;
    let presented = request.headers().get("x-api-key")?.to_str().ok()?;
    constant_time_eq(presented.as_bytes(), key.expose().as_bytes()).then(|| peer.chars().take(63).collect())
}
