//! Forwarding a call to the replica that owns its session: the same JSON-RPC call (method and
//! params exactly as the client sent them) and the same API key, POSTed to the owner's `/rpc`
//! over a pooled HTTP/1.1 connection; the owner's answer, result or error, comes back unchanged.
//!
//! A peer that cannot be reached answers `replica_unavailable` at once (connection refused) or
//! after PEER_CONNECT_TIMEOUT (nothing listening, a pod gone from the network), never a hang; a
//! peer that accepted the call gets the call's own deadline. Every forwarded call is counted by
//! transport and outcome (`text_browser_forwarded_calls_total`).

use std::time::Duration;

use axum::body::Body;
use http_body_util::BodyExt;
use hyper::header::{CONTENT_TYPE, HeaderValue};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use serde_json::Value;
use serde_json::value::RawValue;
use tokio::time::Instant;

use super::proof::{PEER_PROOF, PeerSecret, Signed};
use super::topology::{Peer, Topology};
use super::{FORWARDED_BY, Replicas};
use crate::metrics::Metrics;

/// How long a peer gets to accept a connection before it counts as unavailable.
const PEER_CONNECT_TIMEOUT: Duration = Duration::from_secs(1);
/// The most of an owner's answer that is read (jsonrpsee's own response cap).
const MAX_ANSWER_BYTES: usize = 64 * 1024 * 1024;

/// Why a call for another replica's session was not answered by it.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ReplicaError {
    /// The owner did not answer: stopped, unreachable, or too slow.
    #[error("this session belongs to replica {owner}, which did not answer at {url}: {reason}")]
    Unavailable { owner: String, url: String, reason: String },
    /// The call reached a replica that does not own the session and cannot pass it on.
    #[error("this session belongs to replica {owner}: {reason}")]
    Wrong { owner: String, url: String, reason: String },
}

impl ReplicaError {
    /// `wrong_replica` for a session `owner` holds.
    pub fn wrong(owner: &Peer<'_>, reason: String) -> Self {
        Self::Wrong { owner: owner.name.to_owned(), url: owner.url.clone(), reason }
    }

    pub fn owner(&self) -> &str {
        match self {
            Self::Unavailable { owner, .. } | Self::Wrong { owner, .. } => owner,
        }
    }

    /// The owner's base URL.
    pub fn url(&self) -> &str {
        match self {
            Self::Unavailable { url, .. } | Self::Wrong { url, .. } => url,
        }
    }
}

/// The owner's answer, as it gave it.
#[derive(Debug)]
pub enum Relayed {
    Result(Value),
    /// The JSON-RPC error object: `code`, `message`, `data`.
    Error {
        code: i32,
        message: String,
        data: Option<Value>,
    },
}

/// How a forwarded call reached this replica, for the metrics.
#[derive(Debug, Clone, Copy)]
pub enum Transport {
    /// A call on `/rpc` (POST, batch entry or WebSocket).
    Rpc,
    /// `events.subscribe`, answered with where the owner is.
    Subscription,
    /// A request on `/mcp` for an MCP session another replica holds.
    Mcp,
}

impl Transport {
    fn as_str(self) -> &'static str {
        match self {
            Self::Rpc => "rpc",
            Self::Subscription => "subscription",
            Self::Mcp => "mcp",
        }
    }
}

/// What became of a call for another replica's session.
#[derive(Debug, Clone, Copy)]
pub enum Outcome {
    /// The owner answered with a result.
    Ok,
    /// The owner answered with an error (relayed as it was).
    Error,
    /// The owner could not be reached in time.
    ReplicaUnavailable,
    /// Not passed on (a call a peer had forwarded already, a subscription).
    WrongReplica,
}

impl Outcome {
    fn as_str(self) -> &'static str {
        match self {
            Self::Ok => "ok",
            Self::Error => "error",
            Self::ReplicaUnavailable => "replica_unavailable",
            Self::WrongReplica => "wrong_replica",
        }
    }
}

pub struct Forwarder {
    topology: Topology,
    /// PEER_SECRET: every forwarded request carries a proof made with it.
    secret: PeerSecret,
    client: Client<HttpConnector, Body>,
    key: HeaderValue,
    /// This replica's name, as the [`FORWARDED_BY`] header says it.
    me: HeaderValue,
    /// MAX_BODY_BYTES: the most of an MCP request's body that is read before it is relayed.
    max_body: usize,
    metrics: Metrics,
}

impl Forwarder {
    /// `api_key`: the service's own, which every replica shares.
    pub fn new(replicas: Replicas, api_key: &str, max_body: usize, metrics: Metrics) -> Self {
        let mut connector = HttpConnector::new();
        connector.set_connect_timeout(Some(PEER_CONNECT_TIMEOUT));
        connector.set_nodelay(true);
        let client = Client::builder(TokioExecutor::new()).build(connector);
        let mut key = HeaderValue::from_str(api_key).unwrap_or_else(|_| HeaderValue::from_static(""));
        key.set_sensitive(true);
        let Replicas { topology, secret } = replicas;
        // REPLICA_ID is a DNS label, always a valid header value.
        let me = HeaderValue::from_str(topology.me()).unwrap_or_else(|_| HeaderValue::from_static("unnamed"));
        Self { topology, secret, client, key, me, max_body, metrics }
    }

    /// PEER_SECRET, which checks the proofs peers send.
    pub fn secret(&self) -> &PeerSecret {
        &self.secret
    }

    pub fn topology(&self) -> &Topology {
        &self.topology
    }

    /// Counts a call for another replica's session that ended as `outcome`.
    pub fn count(&self, transport: Transport, outcome: Outcome) {
        self.metrics.forwarded_calls.with_label_values(&[transport.as_str(), outcome.as_str()]).inc();
    }

    /// Sends `method` with `params` (the client's, as written) to replica `owner` and brings back
    /// its answer; `deadline` bounds the whole exchange.
    pub async fn call(
        &self,
        owner: &Peer<'_>,
        method: &str,
        params: Option<&str>,
        request_id: &str,
        deadline: Instant,
    ) -> Result<Relayed, ReplicaError> {
        let started = Instant::now();
        let relayed = self.exchange(owner, method, params, request_id, deadline).await;
        let outcome = match &relayed {
            Ok(Relayed::Result(_)) => Outcome::Ok,
            Ok(Relayed::Error { .. }) => Outcome::Error,
            Err(ReplicaError::Unavailable { .. }) => Outcome::ReplicaUnavailable,
            Err(ReplicaError::Wrong { .. }) => Outcome::WrongReplica,
        };
        self.count(Transport::Rpc, outcome);
        self.metrics.forwarded_duration.observe(started.elapsed().as_secs_f64());
        relayed
    }

    async fn exchange(
        &self,
        owner: &Peer<'_>,
        method: &str,
        params: Option<&str>,
        request_id: &str,
        deadline: Instant,
    ) -> Result<Relayed, ReplicaError> {
        let url = &owner.url;
        let unavailable =
            |reason: String| ReplicaError::Unavailable { owner: owner.name.to_owned(), url: url.clone(), reason };
        let body = call_body(method, params);
        let proof = self.prove(Signed { method: "POST", path: "/rpc", body: body.as_bytes() });
        let mut request = hyper::Request::post(format!("{url}/rpc"))
            .header(CONTENT_TYPE, "application/json")
            .header("x-api-key", self.key.clone())
            .header(FORWARDED_BY, self.me.clone())
            .header(PEER_PROOF, proof)
            .body(Body::from(body))
            .map_err(|e| unavailable(format!("the request could not be built: {e}")))?;
        if let Ok(id) = HeaderValue::from_str(request_id)
            && !request_id.is_empty()
        {
            request.headers_mut().insert("x-request-id", id);
        }
        let exchange = async {
            let response = self.client.request(request).await.map_err(|e| unavailable(chain(&e)))?;
            let status = response.status();
            let limited = http_body_util::Limited::new(response.into_body(), MAX_ANSWER_BYTES);
            let bytes =
                limited.collect().await.map_err(|e| unavailable(format!("its answer broke off: {e}")))?.to_bytes();
            parse_answer(&bytes).ok_or_else(|| {
                unavailable(format!("it answered HTTP {status} without a JSON-RPC answer (is it a text-browser?)"))
            })
        };
        match tokio::time::timeout_at(deadline, exchange).await {
            Ok(relayed) => relayed,
            Err(_) => Err(unavailable("it did not answer within the call's timeout".into())),
        }
    }

    /// The [`PEER_PROOF`] header for a request this replica sends.
    fn prove(&self, request: Signed<'_>) -> HeaderValue {
        let proof = self.secret.sign(self.topology.me(), request);
        // Digits, a dot and base64url: always a valid header value.
        HeaderValue::from_str(&proof).unwrap_or_else(|_| HeaderValue::from_static(""))
    }
}

/// The headers of an MCP request that are passed to the replica holding its session: what the
/// MCP transport reads (and the Host and Origin it checks), nothing else the client sent.
const MCP_HEADERS: &[&str] = &[
    "host",
    "origin",
    "content-type",
    "content-length",
    "accept",
    "mcp-session-id",
    "mcp-protocol-version",
    "last-event-id",
    "x-request-id",
];

impl Forwarder {
    /// Passes an MCP request to replica `owner`'s `/mcp` — its method, body and the headers MCP
    /// needs ([`MCP_HEADERS`]), whatever path under `/mcp` the client used — with this replica's
    /// key and name, and streams the owner's response back; `deadline` bounds the wait for the
    /// response's head (its body, an event stream, may go on).
    pub async fn relay(
        &self,
        owner: &Peer<'_>,
        request: hyper::Request<Body>,
        deadline: Instant,
    ) -> Result<hyper::Response<Body>, ReplicaError> {
        let relayed = self.relay_once(owner, request, deadline).await;
        let outcome = match &relayed {
            Ok(response) if response.status().is_success() => Outcome::Ok,
            Ok(_) => Outcome::Error,
            Err(_) => Outcome::ReplicaUnavailable,
        };
        self.count(Transport::Mcp, outcome);
        relayed
    }

    async fn relay_once(
        &self,
        owner: &Peer<'_>,
        request: hyper::Request<Body>,
        deadline: Instant,
    ) -> Result<hyper::Response<Body>, ReplicaError> {
        let url = &owner.url;
        let unavailable =
            |reason: String| ReplicaError::Unavailable { owner: owner.name.to_owned(), url: url.clone(), reason };
        let (parts, body) = request.into_parts();
        // Read whole (MCP requests are small JSON), so the proof covers it.
        let body = http_body_util::Limited::new(body, self.max_body)
            .collect()
            .await
            .map_err(|e| unavailable(format!("the request's body could not be read: {e}")))?
            .to_bytes();
        let proof = self.prove(Signed { method: parts.method.as_str(), path: "/mcp", body: &body });
        let mut relayed = hyper::Request::builder().method(parts.method).uri(format!("{url}/mcp"));
        for name in MCP_HEADERS {
            for value in parts.headers.get_all(*name) {
                relayed = relayed.header(*name, value);
            }
        }
        let relayed = relayed
            .header("x-api-key", self.key.clone())
            .header(FORWARDED_BY, self.me.clone())
            .header(PEER_PROOF, proof)
            .body(Body::from(body))
            .map_err(|e| unavailable(format!("the request could not be built: {e}")))?;
        let sent = self.client.request(relayed);
        match tokio::time::timeout_at(deadline, sent).await {
            Ok(Ok(response)) => Ok(response.map(Body::new)),
            Ok(Err(e)) => Err(unavailable(chain(&e))),
            Err(_) => Err(unavailable("it did not answer within the call's timeout".into())),
        }
    }
}

/// `{"jsonrpc":"2.0","id":0,"method":…,"params":…}` with the params exactly as written.
fn call_body(method: &str, params: Option<&str>) -> String {
    let method = serde_json::to_string(method).unwrap_or_else(|_| "\"\"".into());
    match params {
        Some(params) => format!(r#"{{"jsonrpc":"2.0","id":0,"method":{method},"params":{params}}}"#),
        None => format!(r#"{{"jsonrpc":"2.0","id":0,"method":{method}}}"#),
    }
}

/// The result or error of a JSON-RPC answer (HTTP 200, or a refusal such as 429 in the same shape).
fn parse_answer(bytes: &[u8]) -> Option<Relayed> {
    #[derive(serde::Deserialize)]
    struct Answer<'a> {
        #[serde(borrow)]
        result: Option<&'a RawValue>,
        error: Option<ErrorBody>,
    }
    #[derive(serde::Deserialize)]
    struct ErrorBody {
        code: i32,
        message: String,
        data: Option<Value>,
    }
    let answer: Answer = serde_json::from_slice(bytes).ok()?;
    match (answer.result, answer.error) {
        (_, Some(e)) => Some(Relayed::Error { code: e.code, message: e.message, data: e.data }),
        (Some(result), None) => serde_json::from_str(result.get()).ok().map(Relayed::Result),
        (None, None) => None,
    }
}

/// An error with its causes ("client error (Connect): tcp connect error: Connection refused").
fn chain(err: &(dyn std::error::Error + 'static)) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_call_is_sent_with_the_params_as_written() {
        assert_eq!(
            call_body("page.text", Some(r#"{"session_id":"a.b",  "selector":"h1"}"#)),
            r#"{"jsonrpc":"2.0","id":0,"method":"page.text","params":{"session_id":"a.b",  "selector":"h1"}}"#
        );
    }

    #[test]
    fn answers_are_relayed_as_given() {
        let ok = parse_answer(br#"{"jsonrpc":"2.0","id":0,"result":{"b":1,"a":[2]}}"#).unwrap();
        assert!(matches!(ok, Relayed::Result(v) if serde_json::to_string(&v).unwrap() == r#"{"b":1,"a":[2]}"#));
        let err = parse_answer(
            br#"{"jsonrpc":"2.0","id":0,"error":{"code":-32001,"message":"no session","data":{"kind":"session_not_found"}}}"#,
        )
        .unwrap();
        assert!(matches!(err, Relayed::Error { code: -32001, data: Some(d), .. } if d["kind"] == "session_not_found"));
        assert!(parse_answer(b"<html>").is_none());
    }
}
