//! The endpoints operators and orchestrators poll, all without the API key: `/healthz` (the
//! process answers), `/readyz` (Chromium is connected and a session can be created now) and
//! `/metrics` (Prometheus; behind METRICS_API_KEY when that is set).

use std::sync::Arc;

use axum::Json;
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;

use super::auth::constant_time_eq;
use super::rejection;
use crate::browser::SessionManager;
use crate::config::ApiKey;
use crate::metrics::Metrics;
use crate::rpc::error::ErrorKind;

#[derive(Clone)]
pub struct ProbeState {
    pub sessions: Arc<SessionManager>,
    pub metrics: Metrics,
    pub metrics_key: Option<Arc<ApiKey>>,
}

pub async fn healthz() -> Json<serde_json::Value> {
    Json(json!({ "ok": true }))
}

/// 200 when Chromium is connected and session.create would get a slot now; 503 saying why not.
pub async fn readyz(State(state): State<ProbeState>) -> Response {
    let readiness = state.sessions.readiness();
    let status = if readiness.ready { StatusCode::OK } else { StatusCode::SERVICE_UNAVAILABLE };
    (status, Json(readiness)).into_response()
}

pub async fn metrics(State(state): State<ProbeState>, request: Request) -> Response {
    if let Some(key) = &state.metrics_key {
        let presented = request
            .headers()
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .or_else(|| request.headers().get("x-api-key").and_then(|v| v.to_str().ok()));
        if !presented.is_some_and(|p| constant_time_eq(p.as_bytes(), key.expose().as_bytes())) {
            state.metrics.http_rejected.with_label_values(&["401"]).inc();
            return rejection::response(
                StatusCode::UNAUTHORIZED,
                ErrorKind::Unauthorized,
                "send METRICS_API_KEY as `authorization: Bearer <key>` (or x-api-key)",
            );
        }
    }
    state.metrics.sessions_open.set(state.sessions.open_count() as i64);
    ([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], state.metrics.render()).into_response()
}
