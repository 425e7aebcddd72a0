//! The JSON-RPC surface: every method's name, params, result and handler, declared once.
//!
//! Each namespace file (`session`, `page`) lists its methods as [`MethodSpec`]s built by
//! [`method`] from a params type, a result type and an async handler. That one list registers
//! the jsonrpsee methods *and* generates the OpenRPC document (`openrpc`), so the contract cannot
//! drift from the code. The wrapper around every handler parses params (`params`), bounds the call
//! by MAX_CALL_MS, records metrics and writes one log line per call.

pub mod actions;
pub mod error;
pub mod inspect;
pub mod openrpc;
pub mod page;
pub mod params;
pub mod session;
pub mod signals;
pub mod snapshot;
pub mod target;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use futures_util::FutureExt;
use futures_util::future::BoxFuture;
use jsonrpsee::{Extensions, RpcModule};
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use tokio::time::Instant;

use crate::browser::SessionManager;
use crate::metrics::Metrics;
use error::ApiError;

/// What every handler can reach.
pub struct RpcContext {
    pub sessions: Arc<SessionManager>,
    /// REFUSE_PASSWORD_FILL: page.fill into password fields is refused.
    pub refuse_password_fill: bool,
    pub metrics: Metrics,
    pub max_call: Duration,
    pub headless: bool,
    /// The OpenRPC document, served by `rpc.discover`.
    pub openrpc: Value,
}

impl RpcContext {
    /// The deadline for a call that asked for `timeout_ms` (or `default_ms`), capped by MAX_CALL_MS.
    pub fn deadline(&self, timeout_ms: Option<u64>, default_ms: u64) -> Result<Instant, ApiError> {
        let ms = timeout_ms.unwrap_or(default_ms);
        if ms == 0 {
            return Err(ApiError::invalid("timeout", "timeout must be at least 1 ms"));
        }
        Ok(Instant::now() + Duration::from_millis(ms).min(self.max_call))
    }
}

type Handler =
    Arc<dyn Fn(Arc<RpcContext>, Option<String>) -> BoxFuture<'static, Result<Value, ApiError>> + Send + Sync>;

/// One method: its wire name, a one-line summary, its schemas and its handler.
pub struct MethodSpec {
    pub name: &'static str,
    pub summary: &'static str,
    pub params_schema: fn(&mut SchemaGenerator) -> Schema,
    pub result_schema: fn(&mut SchemaGenerator) -> Schema,
    handler: Handler,
}

/// Declares a method whose params parse into `P` and whose handler returns `R`.
pub fn method<P, R, F, Fut>(name: &'static str, summary: &'static str, handler: F) -> MethodSpec
where
    P: DeserializeOwned + JsonSchema + Send + 'static,
    R: Serialize + JsonSchema + 'static,
    F: Fn(Arc<RpcContext>, P) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<R, ApiError>> + Send + 'static,
{
    let known = openrpc::param_names::<P>();
    let handler = Arc::new(handler);
    MethodSpec {
        name,
        summary,
        params_schema: schema_of::<P>,
        result_schema: schema_of::<R>,
        handler: Arc::new(move |ctx, raw| {
            let parsed = params::parse::<P>(raw.as_deref(), &known);
            let handler = handler.clone();
            async move {
                let result = handler(ctx, parsed?).await?;
                serde_json::to_value(result).map_err(|e| ApiError::Internal(format!("result encoding: {e}")))
            }
            .boxed()
        }),
    }
}

fn schema_of<T: JsonSchema>(generator: &mut SchemaGenerator) -> Schema {
    generator.subschema_for::<T>()
}

/// Every method the service offers, in documentation order.
pub fn all_methods() -> Vec<MethodSpec> {
    let mut methods = session::methods();
    methods.extend(page::methods());
    methods.extend(actions::methods());
    methods.extend(snapshot::methods());
    methods.extend(signals::methods());
    methods.extend(inspect::methods());
    methods.push(method(
        "rpc.discover",
        "The OpenRPC document describing every method.",
        |ctx: Arc<RpcContext>, _: NoParams| {
            let doc = ctx.openrpc.clone();
            async move { Ok::<_, ApiError>(doc) }
        },
    ));
    methods
}

/// For methods that take no params.
#[derive(Debug, serde::Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoParams {}

/// Registers every method on a jsonrpsee module around `ctx`.
pub fn build_module(ctx: Arc<RpcContext>, methods: Vec<MethodSpec>) -> RpcModule<RpcContext> {
    let mut module = RpcModule::from_arc(ctx);
    for spec in methods {
        let name = spec.name;
        let handler = spec.handler.clone();
        module
            .register_async_method(name, move |params, ctx, extensions| {
                let handler = handler.clone();
                let raw = params.as_str().map(str::to_owned);
                async move { run(name, handler, ctx, raw, extensions).await }
            })
            .expect("method names are unique");
    }
    module
}

/// The wrapper around every call: deadline, metrics and the one log line.
async fn run(
    name: &'static str,
    handler: Handler,
    ctx: Arc<RpcContext>,
    raw: Option<String>,
    extensions: Extensions,
) -> Result<Value, jsonrpsee::types::ErrorObjectOwned> {
    let started = Instant::now();
    let request_id = extensions
        .get::<tower_http::request_id::RequestId>()
        .and_then(|id| id.header_value().to_str().ok())
        .unwrap_or_default()
        .to_owned();
    let session_id = raw.as_deref().and_then(session_id_of).unwrap_or_default();
    // A safety net over the method's own deadline: no call outlives MAX_CALL_MS by more than a margin.
    let bound = ctx.max_call + Duration::from_secs(2);
    let outcome = match tokio::time::timeout(bound, handler(ctx.clone(), raw)).await {
        Ok(outcome) => outcome,
        Err(_) => Err(ApiError::Browser(crate::browser::BrowserError::Timeout(format!(
            "{name} did not finish within MAX_CALL_MS ({} ms)",
            ctx.max_call.as_millis()
        )))),
    };
    let elapsed = started.elapsed();
    let kind = outcome.as_ref().err().map_or("ok", ApiError::kind);
    ctx.metrics.rpc_requests.with_label_values(&[name, kind]).inc();
    ctx.metrics.rpc_duration.with_label_values(&[name]).observe(elapsed.as_secs_f64());
    tracing::info!(
        method = name,
        session_id,
        request_id,
        duration_ms = elapsed.as_secs_f64() * 1000.0,
        outcome = kind,
        "rpc"
    );
    outcome.map_err(|err| err.to_error_object())
}

/// The `session_id` param of a call, for the log line, without parsing the rest.
fn session_id_of(raw: &str) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Only {
        session_id: Option<String>,
    }
    serde_json::from_str::<Only>(raw).ok()?.session_id.map(|id| id.chars().take(64).collect())
}
