//! The body cap and deadline in front of `/rpc`: every body is buffered under MAX_BODY_BYTES or
//! refused with 413, and one that stalls for READ_TIMEOUT_MS is refused with 408.
//!
//! tower-http's `RequestBodyLimitLayer` enforces the cap (it answers 413 itself when
//! Content-Length is too large) and its `RequestBodyTimeoutLayer` the deadline between two pieces
//! of a body. A chunked body has no length up front: it only fails while being read, which inside
//! jsonrpsee would become a 500. [`buffer_body`] reads it first and answers a bare 413 (or 408);
//! [`json_rejections`], outermost, turns each into our JSON answer and counts it.

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
    /// READ_TIMEOUT_MS, for the message.
    pub read_timeout: std::time::Duration,
    pub metrics: Metrics,
}

/// Reads the (already length- and time-limited) body into memory; a body over the cap gets a
/// bare 413, one that stalled a bare 408.
pub async fn buffer_body(request: Request, next: Next) -> Response<Body> {
    let (parts, body) = request.into_parts();
    match axum::body::to_bytes(body, usize::MAX).await {
        Ok(bytes) => next.run(Request::from_parts(parts, Body::from(bytes))).await,
        Err(err) => {
            let mut response = Response::new(Body::empty());
            *response.status_mut() =
                if stalled(&err) { StatusCode::REQUEST_TIMEOUT } else { StatusCode::PAYLOAD_TOO_LARGE };
            response
        }
    }
}

/// Whether reading a body failed because it stalled past the read deadline.
fn stalled(err: &(dyn std::error::Error + 'static)) -> bool {
    let mut cause = Some(err);
    while let Some(err) = cause {
        if err.is::<tower_http::timeout::TimeoutError>() {
            return true;
        }
        cause = err.source();
    }
    false
}

/// Answers every 413 and 408 from the layers inside it with our JSON body, and counts it.
pub async fn json_rejections(State(state): State<BodyLimitState>, request: Request, next: Next) -> Response<Body> {
    let response = next.run(request).await;
    let (kind, message) = match response.status() {
        StatusCode::PAYLOAD_TOO_LARGE => (
            ErrorKind::PayloadTooLarge,
            format!("the request body is larger than MAX_BODY_BYTES ({} bytes)", state.max_bytes),
        ),
        StatusCode::REQUEST_TIMEOUT => (
            ErrorKind::InvalidRequest,
            format!(
                "the request body stalled for READ_TIMEOUT_MS ({} ms); send the whole body at once",
                state.read_timeout.as_millis()
            ),
        ),
        _ => return response,
    };
    state.metrics.http_rejected.with_label_values(&[response.status().as_str()]).inc();
    rejection::response(response.status(), kind, &message)
}
