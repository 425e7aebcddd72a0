//! Requests between replicas.
//!
//! Requests another replica forwarded: recognized by the `x-text-browser-forwarded-by` header with
//! a right proof (`x-text-browser-peer-proof`, an HMAC keyed by PEER_SECRET over the peer, the time
//! and the whole request: see `replica::proof`), marked with [`ForwardedBy`] for the RPC layer (a
//! forwarded call is never forwarded again), and let past the rate limit, which the replica the
//! client reached has already applied to it. Without a right proof the header means nothing: the
//! request is any caller's, limited like any other, and still needs the API key.
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

use axum::extract::State;
use axum::http::StatusCode;
use axum::middleware::Next;
use http_body_util::{BodyExt, Limited};
use tokio::time::{Duration, Instant};

use super::rejection;
use crate::replica::{FORWARDED_BY, ForwardedBy, Forwarder, Owner, PEER_PROOF, PeerSecret, ReplicaError, Signed};
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
    let session = request.headers().get("mcp-session-id").and_then(|v| v.to_str().ok()).unwrap_or_default().to_owned();
    let Owner::Peer(owner) = owners.forwarder.topology().owner(&session) else { return next.run(request).await };
    if request.extensions().get::<ForwardedBy>().is_some() {
        owners.forwarder.count(crate::replica::Transport::Mcp, crate::replica::Outcome::WrongReplica);
        let message = format!(
            "MCP session {session:?} belongs to replica {}, and this replica ({}) was sent it by another; \
             give every replica the same PEERS or PEER_URL_TEMPLATE",
            owner.name,
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

/// Checks the proof a forwarded request carries (see `replica::proof`).
#[derive(Clone)]
pub struct PeerCheck {
    pub secret: PeerSecret,
    /// MAX_BODY_BYTES and READ_TIMEOUT_MS: how much of a claimed peer's body is read, and for how
    /// long, to check the proof over it.
    pub max_body: usize,
    pub read_timeout: Duration,
}

impl PeerCheck {
    /// The request (its body read, when it claims a peer) and the peer it proves it came from.
    /// A request that names a peer without a right proof is any caller's; one whose body cannot
    /// be read is refused.
    async fn check(&self, request: Request) -> Result<(Request, Option<String>), Response> {
        let headers = request.headers();
        let claimed = headers.get(FORWARDED_BY).and_then(|v| v.to_str().ok()).map(str::to_owned);
        let proof = headers.get(PEER_PROOF).and_then(|v| v.to_str().ok()).map(str::to_owned);
        let (Some(peer), Some(proof)) = (claimed, proof) else { return Ok((request, None)) };
        let (parts, body) = request.into_parts();
        let read = tokio::time::timeout(self.read_timeout, Limited::new(body, self.max_body).collect()).await;
        let Ok(Ok(body)) = read else {
            let message = "the body of a request claiming to come from a peer replica could not be read within \
                           MAX_BODY_BYTES and READ_TIMEOUT_MS";
            return Err(rejection::response(StatusCode::PAYLOAD_TOO_LARGE, ErrorKind::PayloadTooLarge, message));
        };
        let body = body.to_bytes();
        let signed = Signed { method: parts.method.as_str(), path: parts.uri.path(), body: &body };
        let proven = self.secret.verify(&peer, &proof, signed).then(|| peer.chars().take(63).collect());
        Ok((Request::from_parts(parts, Body::from(body)), proven))
    }
}

/// Wraps a layer (the rate limit) so that requests a peer forwarded — with a right proof — skip it.
#[derive(Clone)]
pub struct UnlessForwardedLayer<L> {
    limit: L,
    /// `None` without REPLICA_ID (there are no peers, and the header is ignored).
    peers: Option<PeerCheck>,
}

impl<L> UnlessForwardedLayer<L> {
    pub fn new(limit: L, peers: Option<PeerCheck>) -> Self {
        Self { limit, peers }
    }
}

impl<L: Layer<S>, S: Clone> Layer<S> for UnlessForwardedLayer<L> {
    type Service = UnlessForwarded<L::Service, S>;

    fn layer(&self, inner: S) -> Self::Service {
        UnlessForwarded { limited: self.limit.layer(inner.clone()), plain: inner, peers: self.peers.clone() }
    }
}

#[derive(Clone)]
pub struct UnlessForwarded<A, B> {
    limited: A,
    plain: B,
    peers: Option<PeerCheck>,
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

    fn call(&mut self, request: Request) -> Self::Future {
        let (limited, plain, peers) = (self.limited.clone(), self.plain.clone(), self.peers.clone());
        Box::pin(async move {
            let checked = match &peers {
                Some(peers) => peers.check(request).await,
                None => Ok((request, None)),
            };
            match checked {
                Ok((mut request, Some(peer))) => {
                    request.extensions_mut().insert(ForwardedBy(peer));
                    plain.oneshot(request).await
                }
                Ok((request, None)) => limited.oneshot(request).await,
                Err(refused) => Ok(refused),
            }
        })
    }
}
