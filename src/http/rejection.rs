//! The JSON body of a request refused before it reached a method (401, 413, 429, 503).
//!
//! It has the shape of a JSON-RPC error response (id null), with the same `data.kind` and
//! `data.remediation` as method errors, so a client needs one error parser.

use axum::body::Body;
use axum::http::{HeaderValue, Response, StatusCode, header};
use serde_json::json;

use crate::rpc::error::ErrorKind;

pub fn response(status: StatusCode, kind: ErrorKind, message: &str) -> Response<Body> {
    refusal(status, kind, message, None)
}

/// A refusal to retry later: `kind` `rate_limited` with `data.retryAfter` and a Retry-After header.
pub fn retry_later(status: StatusCode, message: &str, retry_after_s: u64) -> Response<Body> {
    let mut response = refusal(status, ErrorKind::RateLimited, message, Some(retry_after_s));
    response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(retry_after_s));
    response
}

fn refusal(status: StatusCode, kind: ErrorKind, message: &str, retry_after_s: Option<u64>) -> Response<Body> {
    let mut data = json!({ "kind": kind.as_str(), "remediation": kind.remediation() });
    if let Some(seconds) = retry_after_s {
        data["retryAfter"] = json!(seconds);
    }
    let body = json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": { "code": kind.code(), "message": message, "data": data },
    });
    let mut response = Response::new(Body::from(body.to_string()));
    *response.status_mut() = status;
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}
