//! `/rpc` as an axum service backed by jsonrpsee: HTTP POST (single, batch, notification) and
//! WebSocket upgrades on the same path.
//!
//! jsonrpsee's tower service is built per request from one builder, so every connection gets its
//! own connection id, and the HTTP request's extensions (request id) reach method handlers.

use std::convert::Infallible;

use axum::body::Body;
use axum::extract::Request;
use axum::http::{Response, StatusCode};
use jsonrpsee::Methods;
use jsonrpsee::server::{BatchRequestConfig, Server, ServerConfig, StopHandle};
use tower::Service;

use super::rejection;
use crate::rpc::error::ErrorKind;

/// Batches longer than this are refused (each entry is a browser call).
const MAX_BATCH: u32 = 50;

#[derive(Clone)]
pub struct RpcService {
    builder: jsonrpsee::server::TowerServiceBuilder<tower::layer::util::Identity, tower::layer::util::Identity>,
    methods: Methods,
    stop: StopHandle,
}

impl RpcService {
    pub fn new(methods: impl Into<Methods>, stop: StopHandle, max_body_bytes: usize) -> Self {
        let max = u32::try_from(max_body_bytes).unwrap_or(u32::MAX);
        let config = ServerConfig::builder()
            .max_request_body_size(max)
            .max_response_body_size(64 * 1024 * 1024)
            .set_batch_request_config(BatchRequestConfig::Limit(MAX_BATCH))
            .build();
        let builder = Server::builder().set_config(config).to_service_builder();
        Self { builder, methods: methods.into(), stop }
    }

    pub async fn handle(self, request: Request) -> Result<Response<Body>, Infallible> {
        let mut service = self.builder.build(self.methods, self.stop);
        match service.call(request).await {
            Ok(response) => Ok(response.map(Body::new)),
            Err(err) => {
                tracing::warn!(error = %err, "jsonrpsee service error");
                Ok(rejection::response(
                    StatusCode::BAD_REQUEST,
                    ErrorKind::InvalidParams,
                    "the request could not be read",
                ))
            }
        }
    }
}
