//! The connection to the service: one JSON-RPC WebSocket to `/rpc` (jsonrpsee's own client), the
//! API key sent on the upgrade. Calls return the result, or the service's error as it sent it
//! (`kind`, `remediation` and the rest in `data`); subscriptions come back as jsonrpsee streams.

use std::time::Duration;

use jsonrpsee_core::ClientError;
use jsonrpsee_core::client::{ClientT, Subscription, SubscriptionClientT};
use jsonrpsee_ws_client::{HeaderMap, HeaderValue, WsClient, WsClientBuilder};
use serde_json::{Map, Value, json};

/// A call longer than the service's own cap (MAX_CALL_MS, 120 s by default) has gone wrong.
const CALL_PATIENCE: Duration = Duration::from_secs(180);

/// What went wrong with a call: the service's JSON-RPC error, or the connection.
#[derive(Debug)]
pub enum CallError {
    Service { message: String, data: Value },
    Connection(String),
}

impl std::fmt::Display for CallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Service { message, data } => {
                write!(f, "{message}")?;
                if let Some(kind) = data["kind"].as_str() {
                    write!(f, " [{kind}]")?;
                }
                if let Some(fix) = data["remediation"].as_str() {
                    write!(f, "\n  → {fix}")?;
                }
                Ok(())
            }
            Self::Connection(why) => write!(f, "the connection failed: {why}"),
        }
    }
}

pub struct Connection {
    client: WsClient,
}

impl Connection {
    /// Opens the WebSocket; `url` is the service's `/rpc` (http:// or ws://).
    pub async fn open(url: &str, key: Option<&str>) -> Result<Self, String> {
        let url = ws_url(url);
        let mut headers = HeaderMap::new();
        if let Some(key) = key {
            let value = HeaderValue::from_str(key).map_err(|_| "the API key is not a valid header value".to_owned())?;
            headers.insert("x-api-key", value);
        }
        let client = WsClientBuilder::default()
            .set_headers(headers)
            .request_timeout(CALL_PATIENCE)
            .build(&url)
            .await
            .map_err(|e| format!("cannot open {url}: {e} (is the service running, and is the key right?)"))?;
        Ok(Self { client })
    }

    pub async fn call(&self, method: &str, params: Map<String, Value>) -> Result<Value, CallError> {
        self.client.request(method, params).await.map_err(from_client)
    }

    /// Live events of a session: `events.subscribe` with these params.
    pub async fn subscribe(&self, params: Map<String, Value>) -> Result<Subscription<Value>, CallError> {
        self.client.subscribe("events.subscribe", params, "events.unsubscribe").await.map_err(from_client)
    }

    /// The names of every method the service has (from `rpc.discover`).
    pub async fn method_names(&self) -> Vec<String> {
        let Ok(doc) = self.call("rpc.discover", Map::new()).await else { return Vec::new() };
        let methods = doc["methods"].as_array().cloned().unwrap_or_default();
        methods.iter().filter_map(|m| m["name"].as_str().map(str::to_owned)).collect()
    }
}

/// `params` with `session_id` set.
pub fn for_session(session: &str, mut params: Map<String, Value>) -> Map<String, Value> {
    params.insert("session_id".into(), json!(session));
    params
}

fn from_client(err: ClientError) -> CallError {
    match err {
        ClientError::Call(e) => CallError::Service {
            message: e.message().to_owned(),
            data: e.data().and_then(|d| serde_json::from_str(d.get()).ok()).unwrap_or(Value::Null),
        },
        other => CallError::Connection(other.to_string()),
    }
}

fn ws_url(url: &str) -> String {
    let url = if let Some(rest) = url.strip_prefix("http://") {
        format!("ws://{rest}")
    } else if let Some(rest) = url.strip_prefix("https://") {
        format!("wss://{rest}")
    } else {
        url.to_owned()
    };
    if url.trim_end_matches('/').ends_with("/rpc") { url } else { format!("{}/rpc", url.trim_end_matches('/')) }
}

#[cfg(test)]
mod tests {
    use super::ws_url;

    #[test]
    fn the_service_url_may_be_given_as_http_or_without_rpc() {
        assert_eq!(ws_url("http://127.0.0.1:3337"), "ws://127.0.0.1:3337/rpc");
        assert_eq!(ws_url("http://127.0.0.1:3337/rpc"), "ws://127.0.0.1:3337/rpc");
        assert_eq!(ws_url("ws://h:1/rpc"), "ws://h:1/rpc");
    }
}
