//! The body cap in front of `/rpc`: every body is buffered under MAX_BODY_BYTES or refused with 413.
//!
//! tower-http's `RequestBodyLimitLayer` enforces the cap (it answers 413 itself when
//! Content-Length is too large). A chunked body has no length up front: it only fails while
//! being read, which inside jsonrpsee would become a 500. [`buffer_body`] reads it first and
//! answers a bare 413; [`json_413`], outermost, turns every 413 into our JSON answer and counts it.

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{Response, StatusCode};
use axum::middleware::Next;

use super::rejection;
use crate::metrics::Metrics;
use crate::rpc::error::ErrorKind;

#[derive(Clone)]
pub struct BodyLimitState {
    pub max_bytes: usize,
    pub metrics: Metrics,
}

/// Reads the (already length-limited) body into memory; a body over the cap gets a bare 413.
pub async fn buffer_body(request: Request, next: Next) -> Response<Body> {
    let (parts, body) = request.into_parts();
    match axum::body::to_bytes(body, usize::MAX).await {
        Ok(bytes) => next.run(Request::from_parts(parts, Body::from(bytes))).await,
        Err(_) => {
            let mut response = Response::new(Body::empty());
            *response.status_mut() = StatusCode::PAYLOAD_TOO_LARGE;
            response
        }
    }
}

/// Answers every 413 from the layers inside it with our JSON body, and counts it.
pub async fn json_413(State(state): State<BodyLimitState>, request: Request, next: Next) -> Response<Body> {
    let response = next.run(request).await;
    if response.status() != StatusCode::PAYLOAD_TOO_LARGE {
        return response;
    }
    state.metrics.http_rejected.with_label_values(&["413"]).inc();
    rejection::response(
        StatusCode::PAYLOAD_TOO_LARGE,
        ErrorKind::PayloadTooLarge,
        &format!("the request body is larger than MAX_BODY_BYTES ({} bytes)", state.max_bytes),
    )
}
