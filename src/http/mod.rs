//! The HTTP side: the router and the layers in front of `/rpc`.
//!
//! `/rpc` and `/mcp` sit behind, outermost first: rate limit (429), API key (401), body deadline
//! (408) and cap (413). Connections are accepted by `server` (header deadline, a per-address cap
//! on connections that have not authenticated yet). What rmcp answers itself on `/mcp` is put
//! into the error contract (`mcp_errors`).
//! `/healthz`, `/readyz` and `/metrics` (see `probes`) need no API key. Every response carries an `x-request-id` (taken from
//! the request or generated) and `cache-control: no-store`; everything logged while a request is
//! handled carries that id (the `request` span).

pub mod auth;
pub mod body_limit;
pub mod conformance;
pub mod connections;
pub mod forwarded;
pub mod mcp_errors;
pub mod probes;
pub mod rate_limit;
pub mod rejection;
pub mod rpc_service;
pub mod server;

use std::sync::Arc;

use axum::Router;
use axum::http::{HeaderValue, header};
use axum::middleware::{from_fn, from_fn_with_state};
use axum::routing::get;
use tower::ServiceBuilder;
use tower_http::limit::RequestBodyLimitLayer;
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::set_header::SetResponseHeaderLayer;
use tower_http::timeout::RequestBodyTimeoutLayer;

use crate::browser::SessionManager;
use crate::config::ApiKey;
use crate::mcp::McpService;
use crate::metrics::Metrics;
use rpc_service::RpcService;

pub struct HttpParts {
    pub rpc: RpcService,
    pub mcp: McpService,
    pub api_key: Arc<ApiKey>,
    pub max_body_bytes: usize,
    pub rate_limit: Arc<rate_limit::Config>,
    pub metrics: Metrics,
    pub sessions: Arc<SessionManager>,
    pub metrics_key: Option<Arc<ApiKey>>,
    /// With REPLICA_ID: `/mcp` requests for other replicas' MCP sessions go there.
    pub mcp_owners: Option<forwarded::McpOwners>,
    /// READ_TIMEOUT_MS: a body that stalls this long is refused.
    pub read_timeout: std::time::Duration,
}

pub fn router(parts: HttpParts) -> Router {
    let auth = auth::AuthState { key: parts.api_key.clone(), metrics: parts.metrics.clone() };
    // Only a replica has peers, whose proven requests skip its rate limit.
    let peers = parts.mcp_owners.as_ref().map(|owners| forwarded::PeerCheck {
        secret: owners.forwarder.secret().clone(),
        max_body: parts.max_body_bytes,
        read_timeout: parts.read_timeout,
    });
    let body = body_limit::BodyLimitState {
        max_bytes: parts.max_body_bytes,
        read_timeout: parts.read_timeout,
        metrics: parts.metrics.clone(),
    };
    let rpc = parts.rpc;
    // /mcp: the same key, rate limit and body cap as /rpc (its transport streams, so its body is
    // not buffered first; rmcp enforces the cap while reading).
    let mcp_routes = Router::new().nest_service("/mcp", parts.mcp).layer(
        ServiceBuilder::new()
            .layer(from_fn(session_deleted_is_204))
            .layer(from_fn(mcp_errors::in_contract))
            .layer(forwarded::UnlessForwardedLayer::new(
                rate_limit::layer(parts.rate_limit.clone(), parts.metrics.clone()),
                peers.clone(),
            ))
            .layer(from_fn_with_state(auth.clone(), auth::require_api_key))
            .layer(from_fn_with_state(parts.mcp_owners, forwarded::mcp_to_owner))
            .layer(from_fn_with_state(body.clone(), body_limit::json_rejections))
            .layer(RequestBodyTimeoutLayer::new(parts.read_timeout))
            .layer(RequestBodyLimitLayer::new(parts.max_body_bytes)),
    );
    // A call another replica forwarded was counted by the rate limit where the client sent it.
    let limit = forwarded::UnlessForwardedLayer::new(rate_limit::layer(parts.rate_limit, parts.metrics.clone()), peers);
    let rpc_routes =
        Router::new().route_service("/rpc", tower::service_fn(move |request| rpc.clone().handle(request))).layer(
            ServiceBuilder::new()
                .layer(limit)
                .layer(from_fn_with_state(auth, auth::require_api_key))
                .layer(from_fn_with_state(body, body_limit::json_rejections))
                .layer(RequestBodyTimeoutLayer::new(parts.read_timeout))
                .layer(RequestBodyLimitLayer::new(parts.max_body_bytes))
                .map_request(|request: axum::http::Request<_>| request.map(axum::body::Body::new))
                .layer(from_fn(body_limit::buffer_body)),
        );
    let probes =
        probes::ProbeState { sessions: parts.sessions, metrics: parts.metrics, metrics_key: parts.metrics_key };
    Router::new()
        .route("/healthz", get(probes::healthz))
        .route("/readyz", get(probes::readyz))
        .route("/metrics", get(probes::metrics))
        .with_state(probes)
        .merge(rpc_routes)
        .merge(mcp_routes)
        .fallback(|| async {
            rejection::response(
                axum::http::StatusCode::NOT_FOUND,
                crate::rpc::error::ErrorKind::InvalidRequest,
                "no such endpoint: the service answers POST /rpc (and a WebSocket there), /mcp, /healthz, /readyz \
                 and /metrics",
            )
        })
        .layer(
            ServiceBuilder::new()
                .layer(SetRequestIdLayer::x_request_id(MakeRequestUuid))
                .layer(PropagateRequestIdLayer::x_request_id())
                .layer(from_fn(request_span))
                .layer(SetResponseHeaderLayer::overriding(header::CACHE_CONTROL, HeaderValue::from_static("no-store"))),
        )
}

/// Runs the rest of the request inside a `request` span carrying its x-request-id.
/// rmcp answers a client's DELETE of its MCP session with 202; clients (the Python SDK) take only
/// 200 or 204 for "terminated" and warn otherwise. The session is gone either way: say 204.
async fn session_deleted_is_204(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let deleting = request.method() == axum::http::Method::DELETE;
    let mut response = next.run(request).await;
    if deleting && response.status() == axum::http::StatusCode::ACCEPTED {
        *response.status_mut() = axum::http::StatusCode::NO_CONTENT;
    }
    response
}

async fn request_span(request: axum::extract::Request, next: axum::middleware::Next) -> axum::response::Response {
    use tracing::Instrument;
    let id = request.headers().get("x-request-id").and_then(|v| v.to_str().ok()).unwrap_or_default();
    let span = tracing::info_span!("request", request_id = %id.chars().take(128).collect::<String>());
    next.run(request).instrument(span).await
}
