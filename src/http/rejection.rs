//! The JSON body of a request refused before it reached a method (401, 413, 429).
//!
//! It has the shape of a JSON-RPC error response (id null), with the same `data.kind` and
//! `data.remediation` as method errors, so a client needs one error parser.

use axum::body::Body;
use axum::http::{HeaderValue, Response, StatusCode, header};
use serde_json::json;

use crate::rpc::error::KINDS;

pub fn response(status: StatusCode, kind: &str, message: &str) -> Response<Body> {
    let row = KINDS.iter().find(|row| row.kind == kind);
    let body = json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": {
            "code": row.map_or(-32603, |r| r.code),
            "message": message,
            "data": { "kind": kind, "remediation": row.map_or("", |r| r.remediation) },
        },
    });
    let mut response = Response::new(Body::from(body.to_string()));
    *response.status_mut() = status;
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}
