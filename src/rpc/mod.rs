//! The JSON-RPC surface: every method's name, params, result and handler, declared once.
//!
//! Each namespace file (`session`, `page`, `actions` …) lists its methods as [`MethodSpec`]s built
//! by the registry (`registry`) from params blocks, a result type and an async handler. That one
//! list registers the jsonrpsee methods *and* generates the OpenRPC document (`openrpc`), the
//! methods' one-line forms (`brief`: `rpc.discover`'s brief answer and `data.usage`, served by
//! `discover`), the README's method reference (`reference`) and instructions block
//! (`instructions`) and the MCP tools (`crate::mcp`, from the methods that name a tool), so none
//! can drift from the code. The wrapper
//! around every handler checks params (`params`), bounds the call by MAX_CALL_MS, records metrics
//! and writes one log line per call.

mod actions;
mod activity;
pub mod answers;
mod assertions;
mod brief;
mod cookies;
mod dialog;
pub mod discover;
mod document;
mod downloads;
mod emulation;
pub mod error;
mod events;
mod file_chooser;
mod gestures;
mod header_text;
mod inspect;
pub mod instructions;
pub mod openrpc;
mod page;
mod params;
pub mod reference;
pub mod registry;
mod routes;
mod session;
mod signals;
mod snapshot;
mod storage;
mod tabs;
mod target;

use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use futures_util::FutureExt;
use jsonrpsee::RpcModule;
use serde_json::Value;
use tokio::time::Instant;

use crate::browser::SessionManager;
use crate::memory::Trimmer;
use crate::metrics::Metrics;
use crate::replica::{ForwardedBy, Forwarder, Owner, Peer, Relayed, ReplicaError};
pub use activity::Activity;
pub use discover::Discovery;
use error::ApiError;
use registry::Handler;
pub use registry::MethodSpec;

/// What every handler can reach.
pub struct RpcContext {
    pub sessions: Arc<SessionManager>,
    /// REFUSE_PASSWORD_FILL: page.fill into password fields is refused.
    pub refuse_password_fill: bool,
    pub metrics: Metrics,
    /// Told when each call ends, to hand memory the call freed back once the service is quiet.
    pub trimmer: Arc<Trimmer>,
    pub max_call: Duration,
    pub headless: bool,
    /// The OpenRPC document and the methods' lines, served by `rpc.discover`.
    pub discovery: Discovery,
    /// Every method by name, for `session.run`'s steps (set when the module is built).
    pub methods: OnceLock<HashMap<&'static str, Registered>>,
    /// With REPLICA_ID: sends calls for other replicas' sessions to their owners.
    pub replicas: Option<Arc<Forwarder>>,
    /// TEST_PANIC_METHOD (tests only): every call of this method panics inside its handler, to
    /// prove that a panic answers only its own call.
    pub panic_method: Option<String>,
    /// Decides whether each call that came over the wire may run (the per-call rate limit).
    pub calls: Arc<dyn CallGate>,
}

/// Whether a call that arrived over HTTP or a WebSocket may run, judged from its request's (or
/// its WebSocket upgrade's) extensions: every call counts, not only every HTTP request, so a batch
/// or a WebSocket cannot walk around RATE_LIMIT_MAX. The HTTP layer implements it
/// (`http::rate_limit`); calls a call makes itself (`session.run`'s steps) are not judged again.
pub trait CallGate: Send + Sync {
    fn admit(&self, extensions: &jsonrpsee::Extensions) -> Result<(), ApiError>;
}

tokio::task_local! {
    /// The x-request-id of the call being handled, for the log lines of calls it makes itself
    /// (`session.run`'s steps) and of the calls an MCP tool makes.
    static REQUEST_ID: String;
}

/// Runs `call` as part of the HTTP request `request_id`: what it logs, and what
/// [`RpcContext::invoke`] runs inside it, carries that id. For callers whose work runs outside the
/// request's own task and span (an MCP tool call runs on its MCP session's worker, inside rmcp's
/// own spans).
pub async fn as_request<F: std::future::Future>(request_id: String, call: F) -> F::Output {
    let span = tracing::info_span!("call", request_id = %request_id);
    tracing::Instrument::instrument(REQUEST_ID.scope(request_id, call), span).await
}

/// A registered method, as `session.run` finds it.
#[derive(Clone)]
pub struct Registered {
    handler: Handler,
    known: Arc<[String]>,
    /// It works on a session's page (it may be a step of `session.run`).
    pub page_method: bool,
    /// The default of its `timeout` param (page methods).
    pub default_timeout_ms: Option<u64>,
    /// Its params in one line, for its `invalid_params` errors (`data.usage`).
    usage: Arc<str>,
    /// Its metrics, looked up once rather than by label on every call.
    succeeded: prometheus::IntCounter,
    duration: prometheus::Histogram,
}

impl Registered {
    /// Checks `raw` params for keys the method does not take (values are checked when it runs).
    pub fn check_params(&self, raw: Option<&str>) -> Result<(), ApiError> {
        params::object(raw, &self.known).map(|_| ())
    }

    /// Its params in one line (`page.goto {session_id*, tab_id, url*, …}`).
    pub fn usage(&self) -> &Arc<str> {
        &self.usage
    }
}

impl RpcContext {
    /// Runs method `name` with `params` as a step of another call (`session.run`): the same param
    /// checks, metrics and log line as a call of its own.
    pub async fn invoke(self: &Arc<Self>, name: &str, params: &Value) -> Result<Value, ApiError> {
        let Some((name, registered)) = self.methods.get().and_then(|m| m.get_key_value(name)) else {
            return Err(ApiError::invalid("method", format!("there is no method {}", crate::quote::quote(name))));
        };
        let request_id = REQUEST_ID.try_with(String::clone).unwrap_or_default();
        let from = Origin { request_id: &request_id, forwarded_by: None };
        execute(name, registered.clone(), self.clone(), Some(&params.to_string()), from, Ok(())).await
    }

    /// The deadline for a call that asked for `timeout_ms` (or `default_ms`), capped by MAX_CALL_MS.
    pub fn deadline(&self, timeout_ms: Option<u64>, default_ms: u64) -> Result<Instant, ApiError> {
        let ms = timeout_ms.unwrap_or(default_ms);
        if ms == 0 {
            return Err(ApiError::invalid("timeout", "timeout must be at least 1 ms"));
        }
        Ok(Instant::now() + Duration::from_millis(ms).min(self.max_call))
    }
}

/// The method among `names` that `typo` probably meant: a near spelling, or the one method with
/// the same name under another namespace (`page.screenshot` → `screenshot`). None for a name far
/// longer than any method's (comparing it would only cost time).
pub fn suggest_method(typo: &str, names: &[String]) -> Option<String> {
    if typo.len() > params::MAX_SUGGESTED_LEN {
        return None;
    }
    if let Some(near) = params::suggest(typo, names) {
        return Some(near.to_owned());
    }
    let last = |s: &str| s.rsplit('.').next().unwrap_or(s).to_ascii_lowercase();
    let mut same = names.iter().filter(|n| last(n) == last(typo));
    match (same.next(), same.next()) {
        (Some(only), None) => Some(only.clone()),
        _ => None,
    }
}

/// Every method the service offers, in documentation order.
pub fn all_methods() -> Vec<MethodSpec> {
    let mut methods = session::methods();
    methods.extend(page::methods());
    methods.extend(tabs::methods());
    methods.extend(actions::methods());
    methods.extend(gestures::methods());
    methods.extend(emulation::methods());
    methods.extend(document::methods());
    methods.extend(snapshot::methods());
    methods.extend(signals::methods());
    methods.extend(routes::methods());
    methods.extend(inspect::methods());
    methods.extend(dialog::methods());
    methods.extend(file_chooser::methods());
    methods.extend(downloads::methods());
    methods.extend(storage::methods());
    methods.extend(cookies::methods());
    methods.extend(assertions::methods());
    methods.push(discover::spec());
    group_by_namespace(&mut methods);
    methods
}

/// Puts methods of one namespace together (`page.*`, `network.*` …), namespaces in the order
/// they first appear, methods in their declared order within each.
fn group_by_namespace(methods: &mut [MethodSpec]) {
    let namespace = |name: &str| name.split('.').next().unwrap_or(name).to_owned();
    let mut order: Vec<String> = Vec::new();
    for m in methods.iter() {
        let ns = namespace(m.name);
        if !order.contains(&ns) {
            order.push(ns);
        }
    }
    methods.sort_by_key(|m| order.iter().position(|ns| *ns == namespace(m.name)));
}

/// Registers every method on a jsonrpsee module around `ctx`.
pub fn build_module(ctx: Arc<RpcContext>, methods: Vec<MethodSpec>) -> RpcModule<RpcContext> {
    let mut registry = HashMap::new();
    for spec in &methods {
        let registered = Registered {
            handler: spec.handler.clone(),
            known: spec.param_names().into(),
            page_method: spec.is_page_method(),
            default_timeout_ms: spec.default_timeout_ms,
            usage: ctx.discovery.usage(spec.name).unwrap_or_else(|| spec.name.into()),
            succeeded: ctx.metrics.rpc_requests.with_label_values(&[spec.name, "ok"]),
            duration: ctx.metrics.rpc_duration.with_label_values(&[spec.name]),
        };
        registry.insert(spec.name, registered);
    }
    let _ = ctx.methods.set(registry.clone());
    let mut module = RpcModule::from_arc(ctx);
    events::register(&mut module);
    for (name, registered) in registry {
        module
            .register_async_method(name, move |params, ctx, extensions| {
                let registered = registered.clone();
                let raw = params.as_str().map(str::to_owned);
                async move {
                    let request_id = extensions
                        .get::<tower_http::request_id::RequestId>()
                        .and_then(|id| id.header_value().to_str().ok())
                        .unwrap_or_default()
                        .to_owned();
                    let forwarded_by = extensions.get::<ForwardedBy>().map(|f| f.0.as_str());
                    let from = Origin { request_id: &request_id, forwarded_by };
                    let admitted = ctx.calls.admit(&extensions);
                    // A WebSocket with a call running is not idle.
                    let _busy = extensions.get::<Arc<Activity>>().map(Activity::busy);
                    execute(name, registered, ctx, raw.as_deref(), from, admitted)
                        .await
                        .map_err(|err| err.to_error_object())
                }
            })
            // Infallible: at start-up, and the registry's names are unique (every start proves it).
            .expect("method names are unique");
    }
    module
}

/// Where a call came from: its request id, and the peer that forwarded it, if one did.
#[derive(Clone, Copy)]
struct Origin<'a> {
    request_id: &'a str,
    forwarded_by: Option<&'a str>,
}

/// The wrapper around every call: param checks, deadline, metrics and the one log line. A call
/// for another replica's session goes to that replica instead (see [`forward`]). A call the rate
/// limit refused (`admitted`) never runs or leaves; one for this replica is counted and logged
/// like any other.
///
/// It runs on every call, so it does each thing once: the params are parsed once (the log line's
/// `session_id` comes from them), the method's metrics were looked up at registration, and the
/// `call` span is only opened where no request span carries the request id already.
async fn execute(
    name: &'static str,
    registered: Registered,
    ctx: Arc<RpcContext>,
    raw: Option<&str>,
    from: Origin<'_>,
    admitted: Result<(), ApiError>,
) -> Result<Value, ApiError> {
    let request_id = from.request_id;
    let started = Instant::now();
    let params = params::object(raw, &registered.known);
    let session_id = match &params {
        Ok(params) => params.get("session_id").and_then(Value::as_str).map(|id| id.chars().take(64).collect()),
        Err(_) => raw.and_then(session_id_of),
    }
    .unwrap_or_default();
    if let Some(forwarder) = &ctx.replicas
        && let Owner::Peer(owner) = forwarder.topology().owner(&session_id)
    {
        admitted?;
        // The owner gets the call's own time: its `timeout`, else the method's default.
        let asked = params.as_ref().ok().and_then(|p| p.get("timeout")).and_then(Value::as_u64);
        let own = asked.or(registered.default_timeout_ms).map_or(ctx.max_call, Duration::from_millis);
        let call = Forwarded { owner: &owner, name, raw, from, session_id: &session_id };
        return forward(forwarder, call, own.min(ctx.max_call)).await;
    }
    // A safety net over the method's own deadline: no call outlives MAX_CALL_MS by more than a margin.
    let bound = ctx.max_call + Duration::from_secs(2);
    let call = REQUEST_ID.scope(request_id.to_owned(), async {
        admitted?;
        if ctx.panic_method.as_deref() == Some(name) {
            panic!("TEST_PANIC_METHOD={name}: this call panics on purpose");
        }
        let params = params?;
        (registered.handler)(ctx.clone(), params).await
    });
    // A panic anywhere in the call (a bug) answers this call alone with internal_error: the other
    // calls of its batch, its session.run or its WebSocket go on and are answered.
    let call = AssertUnwindSafe(call).catch_unwind().map(|caught| {
        caught.unwrap_or_else(|panic| {
            let what = crate::telemetry::panic_message(panic.as_ref());
            tracing::error!(method = name, panic = %crate::quote::clip(&what), "a call panicked");
            Err(ApiError::Internal(format!(
                "{name} failed inside the service (a bug, logged with this request's x-request-id); \
                 the rest of the request was answered"
            )))
        })
    });
    // What the call logs carries its request id. Over HTTP the request's own span does that
    // already; a WebSocket's calls run after their upgrade request's span has ended.
    let span = match tracing::Span::current().is_none() {
        true => tracing::info_span!("call", request_id),
        false => tracing::Span::none(),
    };
    let call = tracing::Instrument::instrument(call, span.clone());
    let outcome = match tokio::time::timeout(bound, call).await {
        Ok(outcome) => outcome,
        Err(_) => Err(ApiError::Browser(crate::browser::BrowserError::Timeout(format!(
            "{name} did not finish within MAX_CALL_MS ({} ms)",
            ctx.max_call.as_millis()
        )))),
    };
    let outcome = outcome.map_err(|err| err.with_call_context(name, started.elapsed()).with_usage(&registered.usage));
    let outcome = outcome.and_then(|value| within_cap(name, value));
    let elapsed = started.elapsed();
    let kind = outcome.as_ref().err().map_or("ok", |err| err.kind().as_str());
    match outcome {
        Ok(_) => registered.succeeded.inc(),
        Err(_) => ctx.metrics.rpc_requests.with_label_values(&[name, kind]).inc(),
    }
    registered.duration.observe(elapsed.as_secs_f64());
    ctx.trimmer.activity();
    span.in_scope(|| {
        tracing::info!(
            method = name,
            session_id,
            request_id,
            duration_ms = elapsed.as_secs_f64() * 1000.0,
            outcome = kind,
            "rpc"
        )
    });
    outcome
}

/// No answer past its cap, whoever asked (a client, session.run, an MCP tool).
fn within_cap(name: &'static str, value: Value) -> Result<Value, ApiError> {
    if answers::fits(&value, answers::MAX_ANSWER_BYTES) {
        return Ok(value);
    }
    Err(ApiError::Browser(crate::browser::BrowserError::TooLarge(format!(
        "the answer of {name} would be more than {} MiB of JSON, the most one answer may hold; ask for less",
        answers::MAX_ANSWER_BYTES / (1024 * 1024)
    ))))
}

/// A call for another replica's session.
struct Forwarded<'a> {
    owner: &'a Peer<'a>,
    name: &'static str,
    raw: Option<&'a str>,
    from: Origin<'a>,
    session_id: &'a str,
}

/// How long past the call's own time the owner's answer is waited for: its own deadline answers
/// first (with the evidence of a failure); a silent owner is given up on then.
const FORWARD_MARGIN: Duration = Duration::from_millis(500);

/// Sends a call for `owner`'s session to `owner` and passes its answer on unchanged, waiting at
/// most the call's own time (`own`) and [`FORWARD_MARGIN`]. A call a peer forwarded here is not
/// passed on again (two replicas that disagree about an owner would send it back and forth): it
/// is answered `wrong_replica`. Counted in the forwarded-call metrics, not in the per-method ones
/// (the owner counts the call there).
async fn forward(forwarder: &Forwarder, call: Forwarded<'_>, own: Duration) -> Result<Value, ApiError> {
    let Forwarded { owner, name, raw, from, session_id } = call;
    let started = Instant::now();
    let outcome = match from.forwarded_by {
        Some(peer) => {
            forwarder.count(crate::replica::Transport::Rpc, crate::replica::Outcome::WrongReplica);
            Err(ApiError::Replica(ReplicaError::wrong(
                owner,
                format!(
                    "replica {peer} forwarded it to this replica ({}), which does not own it; give every replica the same PEERS or PEER_URL_TEMPLATE",
                    forwarder.topology().me()
                ),
            )))
        }
        None => match forwarder.call(owner, name, raw, from.request_id, started + own + FORWARD_MARGIN).await {
            Ok(Relayed::Result(value)) => Ok(value),
            Ok(Relayed::Error { code, message, data }) => Err(ApiError::relayed(code, message, data)),
            Err(err) => Err(ApiError::Replica(err)),
        },
    };
    let kind = outcome.as_ref().err().map_or("ok", |err| err.kind().as_str());
    tracing::info!(
        method = name,
        session_id,
        request_id = from.request_id,
        forwarded_to = owner.name,
        duration_ms = started.elapsed().as_secs_f64() * 1000.0,
        outcome = kind,
        "rpc"
    );
    outcome
}

/// The `session_id` param of a call, for the log line and its owner, without parsing the rest.
fn session_id_of(raw: &str) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Only {
        session_id: Option<String>,
    }
    serde_json::from_str::<Only>(raw).ok()?.session_id.map(|id| id.chars().take(128).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_method_under_the_wrong_namespace_is_suggested_when_only_one_fits() {
        let names: Vec<String> =
            ["page.text", "screenshot", "logs.pull", "network.pull"].iter().map(|s| s.to_string()).collect();
        assert_eq!(suggest_method("page.screenshot", &names).as_deref(), Some("screenshot"));
        assert_eq!(suggest_method("session.text", &names).as_deref(), Some("page.text"));
        assert_eq!(suggest_method("page.txt", &names).as_deref(), Some("page.text"));
        assert_eq!(suggest_method("page.pull", &names), None, "two methods end in pull");
        assert_eq!(suggest_method("page.frobnicate", &names), None);
        assert_eq!(suggest_method(&format!("page.text{}", "x".repeat(400_000)), &names), None);
    }
}
