//! Requests another replica forwarded: recognized by the API key together with the
//! `x-text-browser-forwarded-by` header, marked with [`ForwardedBy`] for the RPC layer (a forwarded
//! call is never forwarded again), and let past the rate limit, which the replica the client
//! reached has already applied to it. Without the key the header means nothing: such a request is
//! limited like any other (and then refused by the key check).

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
use crate::config::ApiKey;
use crate::replica::{FORWARDED_BY, ForwardedBy};

/// Wraps a layer (the rate limit) so that requests a peer forwarded skip it.
#[derive(Clone)]
pub struct UnlessForwardedLayer<L> {
    limit: L,
    key: Arc<ApiKey>,
}

impl<L> UnlessForwardedLayer<L> {
    pub fn new(limit: L, key: Arc<ApiKey>) -> Self {
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
    key: Arc<ApiKey>,
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
        match forwarded_by(&request, &self.key) {
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
