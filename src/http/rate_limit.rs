//! Per-client-IP rate limiting of `/rpc` and `/mcp` (RATE_LIMIT_MAX a minute) with tower-governor.
//!
//! A token bucket: a client may burst up to the whole minute's allowance, then gets one more
//! request every 60 s / RATE_LIMIT_MAX. Every HTTP request takes a token before anything else (the
//! API key included) is looked at; over the limit it gets HTTP 429 with Retry-After and a JSON body.
//!
//! Every *call* counts too, from the same bucket ([`PerCall`], the RPC layer's `CallGate`): the
//! first call of a request (or of a WebSocket connection) was paid for by the request, each
//! further one of a batch or a WebSocket takes its own token, and one over the limit is answered
//! `rate_limited` on its own while the others run.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{Response, StatusCode};
use governor::clock::{Clock, DefaultClock};
use governor::middleware::NoOpMiddleware;
use tokio_util::sync::CancellationToken;
use tower_governor::GovernorError;
use tower_governor::GovernorLayer;
use tower_governor::governor::{GovernorConfig, GovernorConfigBuilder};
use tower_governor::key_extractor::PeerIpKeyExtractor;

use super::rejection;
use crate::metrics::Metrics;
use crate::replica::ForwardedBy;
use crate::rpc::CallGate;
use crate::rpc::error::{ApiError, ErrorKind};

pub type Config = GovernorConfig<PeerIpKeyExtractor, NoOpMiddleware<governor::clock::QuantaInstant>>;

pub fn config(per_minute: u32) -> Arc<Config> {
    let period_ms = (60_000 / u64::from(per_minute.max(1))).max(1);
    let config = GovernorConfigBuilder::default()
        .per_millisecond(period_ms)
        .burst_size(per_minute.max(1))
        .finish()
        // Infallible: at start-up, with a period and burst of at least 1.
        .expect("a non-zero period and burst");
    Arc::new(config)
}

pub fn layer(
    config: Arc<Config>,
    metrics: Metrics,
) -> GovernorLayer<PeerIpKeyExtractor, NoOpMiddleware<governor::clock::QuantaInstant>, Body> {
    GovernorLayer::new(config).error_handler(move |error| too_many(error, &metrics))
}

fn too_many(error: GovernorError, metrics: &Metrics) -> Response<Body> {
    match error {
        GovernorError::TooManyRequests { wait_time, headers } => {
            metrics.http_rejected.with_label_values(&["429"]).inc();
            let message = format!("too many requests from this address; retry after {wait_time} s");
            let mut response = rejection::retry_later(StatusCode::TOO_MANY_REQUESTS, &message, wait_time);
            if let Some(headers) = headers {
                response.headers_mut().extend(headers);
            }
            response
        }
        other => rejection::response(StatusCode::INTERNAL_SERVER_ERROR, ErrorKind::InternalError, &other.to_string()),
    }
}

/// The token an HTTP request (or a WebSocket upgrade) took, spent by its first call.
#[derive(Clone, Debug, Default)]
pub struct Prepaid(Arc<AtomicBool>);

impl Prepaid {
    pub fn new() -> Self {
        Self(Arc::new(AtomicBool::new(true)))
    }

    /// True the first time: that call is paid for.
    fn spend(&self) -> bool {
        self.0.swap(false, Ordering::SeqCst)
    }
}

/// The per-call rate limit: the same bucket per client IP as the HTTP layer's.
pub struct PerCall {
    config: Arc<Config>,
    metrics: Metrics,
}

impl PerCall {
    pub fn new(config: Arc<Config>, metrics: Metrics) -> Self {
        Self { config, metrics }
    }
}

impl CallGate for PerCall {
    fn admit(&self, extensions: &jsonrpsee::Extensions) -> Result<(), ApiError> {
        // A call another replica forwarded was counted where the client sent it.
        if extensions.get::<ForwardedBy>().is_some() || extensions.get::<Prepaid>().is_some_and(Prepaid::spend) {
            return Ok(());
        }
        let Some(ConnectInfo(peer)) = extensions.get::<ConnectInfo<SocketAddr>>() else { return Ok(()) };
        match self.config.limiter().check_key(&peer.ip()) {
            Ok(()) => Ok(()),
            Err(not_until) => {
                self.metrics.http_rejected.with_label_values(&["429"]).inc();
                let wait = not_until.wait_time_from(DefaultClock::default().now());
                Err(ApiError::RateLimited { retry_after_s: wait.as_secs_f64().ceil().max(1.0) as u64 })
            }
        }
    }
}

/// Forgets idle clients once a minute so the limiter's memory stays bounded; ends on shutdown.
pub async fn housekeeping(config: Arc<Config>, shutdown: CancellationToken) {
    loop {
        tokio::select! {
            _ = tokio::time::sleep(Duration::from_secs(60)) => config.limiter().retain_recent(),
            _ = shutdown.cancelled() => break,
        }
    }
}
