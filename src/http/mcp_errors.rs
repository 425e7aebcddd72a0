//! /mcp's errors in the service's one error contract: each carries `data.kind` and
//! `data.remediation`, with a code our table gives that kind.
//!
//! Tool failures already do (`server`). What rmcp answers itself does not: HTTP refusals in plain
//! text (406 without the right `Accept`, 415, 404 for an MCP session it does not know, 400) and
//! JSON-RPC errors without `data` (an unknown MCP method, a request it cannot read). [`in_contract`]
//! sits in front of rmcp: a refusal becomes our JSON error body (same status), and every JSON-RPC
//! error in an answer (a JSON body or the events of a stream) gets its kind and remediation.

use std::pin::Pin;
use std::task::{Context, Poll};

use axum::body::Body;
use axum::extract::Request;
use axum::http::{Response, StatusCode, header};
use axum::middleware::Next;
use hyper::body::{Bytes, Frame};
use serde_json::{Value, json};

use super::rejection;
use crate::rpc::error::ErrorKind;

/// The most of a refusal's plain-text body that is kept as the error's message.
const MAX_REFUSAL: usize = 4096;

pub async fn in_contract(request: Request, next: Next) -> Response<Body> {
    let response = next.run(request).await;
    let content_type =
        response.headers().get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or_default().to_owned();
    let status = response.status();
    if !status.is_success() && !content_type.starts_with("application/json") {
        let (head, body) = response.into_parts();
        let text = axum::body::to_bytes(body, MAX_REFUSAL).await.unwrap_or_default();
        let message = String::from_utf8_lossy(&text).trim().to_owned();
        let message = if message.is_empty() { status.to_string() } else { message };
        let mut refused = rejection::response(status, refusal_kind(status), &message);
        for name in [header::ALLOW, header::WWW_AUTHENTICATE, header::RETRY_AFTER] {
            if let Some(value) = head.headers.get(&name) {
                refused.headers_mut().insert(name, value.clone());
            }
        }
        return refused;
    }
    if !(content_type.starts_with("application/json") || content_type.starts_with("text/event-stream")) {
        return response;
    }
    let (mut head, body) = response.into_parts();
    // The body changes length: its frames are rewritten as they pass.
    head.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(head, Body::new(Rewritten { inner: body, pending: Vec::new(), done: false }))
}

/// The kind of an HTTP refusal rmcp made itself.
fn refusal_kind(status: StatusCode) -> ErrorKind {
    match status {
        StatusCode::UNAUTHORIZED => ErrorKind::Unauthorized,
        StatusCode::PAYLOAD_TOO_LARGE => ErrorKind::PayloadTooLarge,
        StatusCode::TOO_MANY_REQUESTS => ErrorKind::RateLimited,
        s if s.is_server_error() => ErrorKind::InternalError,
        // 400, 404 (an MCP session it does not know), 405, 406, 415 …: the request as sent.
        _ => ErrorKind::InvalidRequest,
    }
}

/// A body whose complete lines are passed on one by one, each JSON-RPC error in them given our data.
struct Rewritten {
    inner: Body,
    /// The start of a line not complete yet.
    pending: Vec<u8>,
    done: bool,
}

impl hyper::body::Body for Rewritten {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        loop {
            if self.done {
                return Poll::Ready(None);
            }
            match Pin::new(&mut self.inner).poll_frame(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Some(Err(err))) => return Poll::Ready(Some(Err(err))),
                Poll::Ready(None) => {
                    self.done = true;
                    let rest = std::mem::take(&mut self.pending);
                    if rest.is_empty() {
                        return Poll::Ready(None);
                    }
                    return Poll::Ready(Some(Ok(Frame::data(rewrite_line(&rest)))));
                }
                Poll::Ready(Some(Ok(frame))) => {
                    let Ok(data) = frame.into_data() else { continue };
                    self.pending.extend_from_slice(&data);
                    let Some(end) = self.pending.iter().rposition(|b| *b == b'\n') else { continue };
                    let rest = self.pending.split_off(end + 1);
                    let complete = std::mem::replace(&mut self.pending, rest);
                    let mut out = Vec::with_capacity(complete.len());
                    for line in complete.split_inclusive(|b| *b == b'\n') {
                        out.extend_from_slice(&rewrite_line(line));
                    }
                    return Poll::Ready(Some(Ok(Frame::data(Bytes::from(out)))));
                }
            }
        }
    }
}

/// One line of an answer (a whole JSON body, or an event stream's `data: …` line) with each
/// JSON-RPC error in it given our data; other lines as they were.
fn rewrite_line(line: &[u8]) -> Bytes {
    let text = String::from_utf8_lossy(line);
    let (prefix, json) = match text.strip_prefix("data:") {
        Some(rest) => ("data: ", rest.trim_start()),
        None => ("", text.as_ref()),
    };
    // Only a JSON-RPC error has `"error":{` outside a string (inside one the quotes are escaped).
    if !json.contains("\"error\":{") {
        return Bytes::copy_from_slice(line);
    }
    let ending = &json[json.trim_end().len()..];
    let Ok(mut value) = serde_json::from_str::<Value>(json.trim_end()) else { return Bytes::copy_from_slice(line) };
    let changed = match &mut value {
        // Every answer of a batch, not just up to the first changed one.
        Value::Array(answers) => answers.iter_mut().map(give_data).filter(|changed| *changed).count() > 0,
        answer => give_data(answer),
    };
    if !changed {
        return Bytes::copy_from_slice(line);
    }
    Bytes::from(format!("{prefix}{value}{ending}"))
}

/// Gives a JSON-RPC error answer without our data its kind and remediation (and our code for
/// that kind); true if it changed.
fn give_data(answer: &mut Value) -> bool {
    let Some(error) = answer.get_mut("error").and_then(Value::as_object_mut) else { return false };
    if error.get("data").and_then(|d| d.get("kind")).is_some() {
        return false;
    }
    let code = error.get("code").and_then(Value::as_i64).unwrap_or_default();
    let message = error.get("message").and_then(Value::as_str).unwrap_or_default().to_owned();
    let (kind, message) = match code {
        -32700 => (ErrorKind::ParseError, message),
        -32600 => (ErrorKind::InvalidRequest, message),
        -32601 => {
            (ErrorKind::MethodNotFound, format!("there is no MCP method {message:?}, or its params could not be read"))
        }
        -32602 => (ErrorKind::InvalidParams, message),
        _ => (ErrorKind::InternalError, message),
    };
    error.insert("code".into(), json!(kind.code()));
    error.insert("message".into(), json!(message));
    error.insert("data".into(), json!({ "kind": kind.as_str(), "remediation": kind.remediation() }));
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_event_gets_kind_and_remediation_and_other_lines_pass_as_they_were() {
        let line = b"data: {\"jsonrpc\":\"2.0\",\"id\":2,\"error\":{\"code\":-32601,\"message\":\"resources/list\"}}\n";
        let out = String::from_utf8(rewrite_line(line).to_vec()).unwrap();
        assert!(out.starts_with("data: {") && out.ends_with("}\n"), "{out}");
        let value: Value = serde_json::from_str(out.trim_start_matches("data: ").trim()).unwrap();
        assert_eq!(value["error"]["data"]["kind"], "method_not_found");
        assert!(value["error"]["message"].as_str().unwrap().contains("resources/list"));
        for untouched in [
            &b"id: 1/0\n"[..],
            b"data: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"{\\\"error\\\":{}}\"}]}}\n",
            b"data: {\"jsonrpc\":\"2.0\",\"id\":4,\"error\":{\"code\":-32602,\"message\":\"x\",\"data\":{\"kind\":\"invalid_params\"}}}\n",
        ] {
            assert_eq!(rewrite_line(untouched), Bytes::copy_from_slice(untouched));
        }
    }

    #[test]
    fn refusals_are_the_callers_unless_the_server_failed() {
        assert_eq!(refusal_kind(StatusCode::NOT_ACCEPTABLE), ErrorKind::InvalidRequest);
        assert_eq!(refusal_kind(StatusCode::NOT_FOUND), ErrorKind::InvalidRequest);
        assert_eq!(refusal_kind(StatusCode::INTERNAL_SERVER_ERROR), ErrorKind::InternalError);
    }
}
