//! `/rpc` as an axum service backed by jsonrpsee: HTTP POST (single, batch, notification) and
//! WebSocket upgrades on the same path.
//!
//! jsonrpsee's tower service is built per request from one builder, so every connection gets its
//! own connection id, and the HTTP request's extensions (request id) reach method handlers. A POST
//! of JSON goes through `conformance` first, which answers what jsonrpsee would get wrong. Every
//! request and WebSocket first takes a slot from `connections` (refused in our error contract
//! when there is none); a WebSocket gets its own stop handle, with which an idle one is closed.

use std::convert::Infallible;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{ConnectInfo, Request};
use axum::http::{HeaderValue, Method, Response, StatusCode, header};
use jsonrpsee::Methods;
use jsonrpsee::server::middleware::rpc::RpcServiceBuilder;
use jsonrpsee::server::{BatchRequestConfig, Server, ServerConfig, StopHandle};
use tower::Service;
use tower::layer::util::{Identity, Stack};

use super::conformance::{self, Prepared};
use super::connections::Connections;
use super::rate_limit::Prepaid;
use super::rejection;
use crate::metrics::Metrics;
use crate::rpc::Activity;
use crate::rpc::answers::{AnswersLayer, TRANSPORT_LIMIT};
use crate::rpc::error::ErrorKind;

/// How many times MAX_BODY_BYTES a WebSocket message may be before jsonrpsee itself refuses it
/// (HTTP bodies are capped at MAX_BODY_BYTES before jsonrpsee sees them).
pub const WS_MESSAGE_FACTOR: usize = 4;

/// Cheap to clone (one `Arc`): the router clones it for every request.
#[derive(Clone)]
pub struct RpcService(Arc<Inner>);

struct Inner {
    builder: jsonrpsee::server::TowerServiceBuilder<Stack<AnswersLayer, Identity>, Identity>,
    methods: Methods,
    stop: StopHandle,
    /// Who holds /rpc's connections (MAX_CONNECTIONS, MAX_WEBSOCKETS_PER_IP, idle WebSockets).
    connections: Arc<Connections>,
    /// Every method's name, for calls to methods that do not exist.
    names: Arc<[String]>,
    metrics: Metrics,
}

impl RpcService {
    pub fn new(
        methods: impl Into<Methods>,
        names: Vec<String>,
        metrics: Metrics,
        stop: StopHandle,
        max_body_bytes: usize,
        connections: Arc<Connections>,
    ) -> Self {
        // Batch lengths, answer sizes and a WebSocket call's size (MAX_BODY_BYTES, as an HTTP
        // body) are checked by `rpc::answers` (a POSTed batch's length by `conformance` before
        // that), which answers them in our error contract; jsonrpsee's own limits sit above it.
        // jsonrpsee reads a WebSocket message up to its request limit: past WS_MESSAGE_FACTOR ×
        // MAX_BODY_BYTES it answers `-32007` itself.
        let max = u32::try_from(max_body_bytes.saturating_mul(WS_MESSAGE_FACTOR)).unwrap_or(u32::MAX);
        // `connections` decides who may connect, in our error contract; jsonrpsee's own limit
        // (a text/plain 429) is set out of reach.
        let config = ServerConfig::builder()
            .max_connections(u32::MAX)
            .max_request_body_size(max)
            .max_response_body_size(TRANSPORT_LIMIT as u32)
            .set_batch_request_config(BatchRequestConfig::Unlimited)
            .build();
        let names: Arc<[String]> = names.into();
        let answers = RpcServiceBuilder::new().layer(AnswersLayer::new(names.clone(), max_body_bytes));
        let builder = Server::builder().set_config(config).set_rpc_middleware(answers).to_service_builder();
        Self(Arc::new(Inner { builder, methods: methods.into(), stop, connections, names, metrics }))
    }

    pub async fn handle(self, mut request: Request) -> Result<Response<Body>, Infallible> {
        // The rate limit's token this request took pays for its first call (see `rate_limit`).
        request.extensions_mut().insert(Prepaid::new());
        let is_json = request
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.trim_start().to_ascii_lowercase().starts_with("application/json"));
        let ip = request.extensions().get::<ConnectInfo<SocketAddr>>().map(|ConnectInfo(peer)| peer.ip());
        if request.method() != Method::POST {
            if jsonrpsee::server::ws::is_upgrade_request(&request) {
                return Ok(self.websocket(request, ip).await);
            }
            let mut refused = rejection::response(
                StatusCode::METHOD_NOT_ALLOWED,
                ErrorKind::InvalidRequest,
                "/rpc takes POST with a JSON body, or a WebSocket upgrade (GET with Upgrade: websocket)",
            );
            refused.headers_mut().insert(header::ALLOW, HeaderValue::from_static("GET, POST"));
            return Ok(refused);
        }
        if !is_json {
            return Ok(rejection::response(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                ErrorKind::InvalidRequest,
                "send the body as JSON with the header content-type: application/json",
            ));
        }
        // Held until the request is answered.
        let _slot = match self.0.connections.take(ip, false) {
            Ok(slot) => slot,
            Err(refused) => return Ok(refused.response()),
        };
        let (mut parts, body) = request.into_parts();
        // The body was buffered (and capped) by the layers in front.
        let bytes = axum::body::to_bytes(body, usize::MAX).await.unwrap_or_default();
        let text = String::from_utf8_lossy(&bytes);
        let (names, metrics) = (&self.0.names, &self.0.metrics);
        let prepared = conformance::prepare(
            &text,
            |method| names.iter().any(|n| n == method),
            |method| crate::rpc::suggest_method(method, names),
            |rejected| metrics.rpc_requests.with_label_values(&["unknown", rejected.kind.as_str()]).inc(),
        );
        let (body, plan) = match prepared {
            Prepared::Answer(answer) => return Ok(answered(answer)),
            Prepared::PassThrough => (bytes.to_vec(), None),
            Prepared::Forward { body, plan } => (body.into_bytes(), Some(plan)),
        };
        parts.headers.insert(header::CONTENT_LENGTH, HeaderValue::from(body.len()));
        let response = self.jsonrpsee(Request::from_parts(parts, Body::from(body))).await;
        let Some(plan) = plan else { return Ok(response) };
        let (head, body) = response.into_parts();
        let answer = axum::body::to_bytes(body, usize::MAX).await.unwrap_or_default();
        if !head.status.is_success() {
            return Ok(Response::from_parts(head, Body::from(answer)));
        }
        Ok(answered(conformance::finish(plan, &String::from_utf8_lossy(&answer))))
    }

    /// A WebSocket upgrade: a slot among the connections (given back when the socket closes), an
    /// [`Activity`] its calls mark, and a stop handle of its own, which closes it once idle.
    async fn websocket(self, mut request: Request, ip: Option<IpAddr>) -> Response<Body> {
        let slot = match self.0.connections.take(ip, true) {
            Ok(slot) => slot,
            Err(refused) => return refused.response(),
        };
        let activity = Arc::new(Activity::default());
        let (stop, handle) = jsonrpsee::server::stop_channel();
        self.0.connections.watch_idle(&slot, activity.clone(), handle, self.0.stop.clone());
        // jsonrpsee keeps the upgrade request's extensions for the connection's life and hands
        // them to every call on it.
        request.extensions_mut().insert(activity);
        request.extensions_mut().insert(Arc::new(slot));
        self.jsonrpsee_until(request, stop).await
    }

    async fn jsonrpsee(self, request: Request) -> Response<Body> {
        let stop = self.0.stop.clone();
        self.jsonrpsee_until(request, stop).await
    }

    /// Runs `request` through jsonrpsee, whose connection ends when `stop` is stopped.
    async fn jsonrpsee_until(self, request: Request, stop: StopHandle) -> Response<Body> {
        let inner = &self.0;
        let mut service = inner.builder.clone().build(inner.methods.clone(), stop);
        match service.call(request).await {
            Ok(response) => response.map(Body::new),
            Err(err) => {
                tracing::warn!(error = %err, "jsonrpsee service error");
                rejection::response(StatusCode::BAD_REQUEST, ErrorKind::InvalidRequest, "the request could not be read")
            }
        }
    }
}

/// HTTP 200 with a JSON-RPC answer, or 204 with no body when there is none to give.
fn answered(answer: Option<String>) -> Response<Body> {
    match answer {
        Some(text) => {
            let mut response = Response::new(Body::from(text));
            response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
            response
        }
        None => {
            let mut response = Response::new(Body::empty());
            *response.status_mut() = StatusCode::NO_CONTENT;
            response
        }
    }
}
