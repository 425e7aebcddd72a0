//! Per-client-IP rate limiting of `/rpc` (RATE_LIMIT_MAX requests a minute) with tower-governor.
//!
//! A token bucket: a client may burst up to the whole minute's allowance, then gets one more
//! request every 60 s / RATE_LIMIT_MAX. Over the limit: HTTP 429 with Retry-After and a JSON body.

use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::http::{Response, StatusCode};
use governor::middleware::NoOpMiddleware;
use tokio_util::sync::CancellationToken;
use tower_governor::GovernorError;
use tower_governor::GovernorLayer;
use tower_governor::governor::{GovernorConfig, GovernorConfigBuilder};
use tower_governor::key_extractor::PeerIpKeyExtractor;

use super::rejection;
use crate::metrics::Metrics;
use crate::rpc::error::ErrorKind;

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
            let mut response = rejection::response(
                StatusCode::TOO_MANY_REQUESTS,
                ErrorKind::RateLimited,
                &format!("too many requests from this address; retry after {wait_time} s"),
            );
            if let Some(headers) = headers {
                response.headers_mut().extend(headers);
            }
            response
        }
        other => rejection::response(StatusCode::INTERNAL_SERVER_ERROR, ErrorKind::InternalError, &other.to_string()),
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
