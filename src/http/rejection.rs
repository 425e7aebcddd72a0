//! The JSON body of a request refused before it reached a method (401, 413, 429).
//!
//! It has the shape of a JSON-RPC error response (id null), with the same `data.kind` and
//! `data.remediation` as method errors, so a client needs one error parser.

use axum::body::Body;
use axum::http::{HeaderValue, Response, StatusCode, header};
use serde_json::json;

use crate::rpc::error::ErrorKind;

pub fn response(status: StatusCode, kind: ErrorKind, message: &str) -> Response<Body> {
    let body = json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": {
            "code": kind.code(),
            "message": message,
            "data": { "kind": kind.as_str(), "remediation": kind.remediation() },
        },
    });
    let mut response = Response::new(Body::from(body.to_string()));
    *response.status_mut() = status;
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}
