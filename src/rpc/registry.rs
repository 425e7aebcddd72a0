//! The method registry: each method declared once — name, summary, params, result, handler — and
//! everything else derived from that declaration: the jsonrpsee registration (`build_module`), the
//! OpenRPC document (`openrpc`), the README's method reference (`reference`) and the param checks.
//!
//! A method's params are one or more *blocks*: structs whose fields are params, parsed each on its
//! own from the same params object, so blocks shared by many methods are written once —
//! [`Scope`] (`session_id`, `timeout`) for every page method, the element target (`selector` /
//! `ref`, see `target`), the action options (see `actions`). A method's own struct lists only what
//! is its own. Because no block uses serde's `flatten`, a bad value is always reported with its
//! exact param name; unknown keys are refused against the union of the blocks' params.
//!
//! - [`method`]: a method that needs no session (session.create, rpc.discover)
//! - [`page_method`]: a method on one session's page: the registry checks `session_id`, sets the
//!   deadline from `timeout` (or the method's default), takes the session's turn and hands the
//!   handler the [`Page`] of the tab `tab_id` names (default the active tab).
//! - [`session_method`]: a method on a session as a whole (its tabs), in the session's turn.

use std::future::Future;
use std::sync::Arc;

use futures_util::FutureExt;
use futures_util::future::BoxFuture;
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::time::Instant;

use super::RpcContext;
use super::error::ApiError;
use super::params;
use crate::browser::{Chromium, Page, Session};

/// A group of params parsed together: one struct, its schema and its param names.
pub struct Block {
    pub schema: fn(&mut SchemaGenerator) -> Schema,
    pub names: Vec<String>,
    pub role: BlockRole,
}

/// What a block is to the method, for documents that summarize methods.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockRole {
    /// The method's own params.
    Own,
    /// Params many methods share (`session_id`, `timeout`, the action options).
    Shared,
    /// The element: `selector` or `ref`, one of them required or both optional.
    Target { required: bool },
}

impl Block {
    pub fn of<B: Params>() -> Self {
        Self { schema: |g| g.subschema_for::<B>(), names: params::names::<B>(), role: B::ROLE }
    }
}

/// A struct whose fields are params of a method (a block). Blocks never deny unknown fields:
/// the params object holds the other blocks' params too; unknown keys are refused before parsing.
pub trait Params: DeserializeOwned + JsonSchema + Send + 'static {
    /// What the block is to the methods that take it.
    const ROLE: BlockRole = BlockRole::Own;
}

/// What a method's handler receives as its params: one block, a value parsed from a block (such as
/// a [`crate::browser::Target`]), or a tuple of those.
pub trait ParamSet: Sized + Send + 'static {
    fn blocks() -> Vec<Block>;
    fn parse(params: &Value) -> Result<Self, ApiError>;
}

impl<B: Params> ParamSet for B {
    fn blocks() -> Vec<Block> {
        vec![Block::of::<B>()]
    }
    fn parse(params: &Value) -> Result<Self, ApiError> {
        params::block(params)
    }
}

impl<A: ParamSet, B: ParamSet> ParamSet for (A, B) {
    fn blocks() -> Vec<Block> {
        let mut blocks = A::blocks();
        blocks.extend(B::blocks());
        blocks
    }
    fn parse(params: &Value) -> Result<Self, ApiError> {
        Ok((A::parse(params)?, B::parse(params)?))
    }
}

impl<A: ParamSet, B: ParamSet, C: ParamSet> ParamSet for (A, B, C) {
    fn blocks() -> Vec<Block> {
        let mut blocks = A::blocks();
        blocks.extend(B::blocks());
        blocks.extend(C::blocks());
        blocks
    }
    fn parse(params: &Value) -> Result<Self, ApiError> {
        Ok((A::parse(params)?, B::parse(params)?, C::parse(params)?))
    }
}

/// The params every page method takes.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Scope {
    /// The session, from session.create.
    pub session_id: String,
    /// Milliseconds the call may take (capped by MAX_CALL_MS); each method has its own default.
    pub timeout: Option<u64>,
    /// The tab to act on (from tabs.list or an action's `effects.popups`); default the active tab.
    pub tab_id: Option<String>,
}

impl Params for Scope {
    const ROLE: BlockRole = BlockRole::Shared;
}

/// The params every method on a session as a whole (its tabs) takes.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SessionScope {
    /// The session, from session.create.
    pub session_id: String,
    /// Milliseconds the call may take (capped by MAX_CALL_MS); each method has its own default.
    pub timeout: Option<u64>,
}

impl Params for SessionScope {
    const ROLE: BlockRole = BlockRole::Shared;
}

// For methods that take no params (no doc comment: a params struct's doc describes its method).
#[derive(Debug, Deserialize, JsonSchema)]
pub struct NoParams {}

impl Params for NoParams {}

/// What a page method's handler gets besides its page and params.
#[derive(Clone)]
pub struct Call {
    pub ctx: Arc<RpcContext>,
    /// When the call must be done: its `timeout` (or the method's default), capped by MAX_CALL_MS.
    pub deadline: Instant,
}

pub(super) type Handler =
    Arc<dyn Fn(Arc<RpcContext>, Value) -> BoxFuture<'static, Result<Value, ApiError>> + Send + Sync>;

/// What calling a method does to its environment (the page, the session, the web), for agents'
/// clients: MCP tool annotations (`readOnlyHint`, `destructiveHint`, `idempotentHint`,
/// `openWorldHint`), so a client can approve the read-only tools without asking.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hints {
    /// It changes nothing: it reads the page or what the session recorded.
    pub read_only: bool,
    /// What it changes may be lost for good (an app acting on a click may delete data).
    pub destructive: bool,
    /// Calling it again with the same params changes nothing more.
    pub idempotent: bool,
    /// It may reach the web beyond the service (a page it loads or acts on makes requests).
    pub open_world: bool,
}

impl Hints {
    /// Reads the page or the session's records; changes nothing, reaches nothing outside.
    pub const READ: Self = Self { read_only: true, destructive: false, idempotent: true, open_world: false };
    /// Acts on the page like a user: the app decides what follows, requests and deletions included.
    pub const ACT: Self = Self { read_only: false, destructive: true, idempotent: false, open_world: true };
    /// Loads a page (a URL, a reload): adds history, reaches the web; again is the same page.
    pub const LOAD: Self = Self { read_only: false, destructive: false, idempotent: true, open_world: true };
    /// Changes a setting of the session (viewport, media, a dialog's answer, the active tab).
    pub const SET: Self = Self { read_only: false, destructive: false, idempotent: true, open_world: false };
    /// Ends something (a tab, the browser session): what it held is gone.
    pub const END: Self = Self { read_only: false, destructive: true, idempotent: true, open_world: false };

    /// The same, except that calling it again does something again (`page.back` goes further).
    pub const fn repeating(self) -> Self {
        Self { idempotent: false, ..self }
    }
}

/// How a method is offered as an MCP tool on /mcp (see `crate::mcp`).
#[derive(Debug, Clone, Copy)]
pub struct ToolSpec {
    /// The tool's name, as agents expect it (`navigate`, `click`, `fill_form`).
    pub name: &'static str,
    pub hints: Hints,
    /// Params the tool sets when the agent leaves them out (a JSON object), where an agent's
    /// default differs from the JSON-RPC one (`navigate` waits for `settled`).
    pub defaults: &'static str,
}

/// One method: its wire name, summary, params blocks, result schema and handler.
pub struct MethodSpec {
    pub name: &'static str,
    pub summary: &'static str,
    /// The default of its `timeout` param, for page methods.
    pub default_timeout_ms: Option<u64>,
    /// Example params (without `session_id`), shown in the README's curl example.
    pub example: &'static str,
    /// The MCP tool this method is offered as on /mcp, if it is one.
    pub tool: Option<ToolSpec>,
    pub blocks: Vec<Block>,
    pub result_schema: fn(&mut SchemaGenerator) -> Schema,
    pub(super) handler: Handler,
}

impl MethodSpec {
    /// Sets the params the README's curl example sends (a JSON object, without `session_id`).
    pub fn example(mut self, params: &'static str) -> Self {
        self.example = params;
        self
    }

    /// Offers the method as MCP tool `name` on /mcp, with what calling it does (`hints`): its
    /// description and input schema are the method's own (without `session_id`, which the MCP
    /// session supplies).
    pub fn tool(mut self, name: &'static str, hints: Hints) -> Self {
        self.tool = Some(ToolSpec { name, hints, defaults: "{}" });
        self
    }

    /// Params the method's tool sets when the agent leaves them out (a JSON object).
    pub fn tool_defaults(mut self, defaults: &'static str) -> Self {
        if let Some(tool) = &mut self.tool {
            tool.defaults = defaults;
        }
        self
    }

    /// True for methods that work on a session's page (they take `session_id`).
    pub fn is_page_method(&self) -> bool {
        self.default_timeout_ms.is_some()
    }

    /// Every param name the method accepts.
    pub fn param_names(&self) -> Vec<String> {
        self.blocks.iter().flat_map(|b| b.names.iter().cloned()).collect()
    }
}

/// Declares a method that needs no session: its params parse into `P`, its handler returns `R`.
pub fn method<P, R, F, Fut>(name: &'static str, summary: &'static str, handler: F) -> MethodSpec
where
    P: ParamSet,
    R: Serialize + JsonSchema + 'static,
    F: Fn(Arc<RpcContext>, P) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<R, ApiError>> + Send + 'static,
{
    let handler = Arc::new(handler);
    MethodSpec {
        name,
        summary,
        default_timeout_ms: None,
        example: "{}",
        tool: None,
        blocks: P::blocks(),
        result_schema: |g| g.subschema_for::<R>(),
        handler: Arc::new(move |ctx, raw| {
            let handler = handler.clone();
            async move {
                let p = P::parse(&raw)?;
                encode(handler(ctx, p).await?)
            }
            .boxed()
        }),
    }
}

/// Declares a method on one session's page. The registry parses [`Scope`] and `P`, bounds the
/// call by `timeout` (default `default_timeout_ms`), and runs the handler in the session's turn.
pub fn page_method<P, R, F, Fut>(
    name: &'static str,
    summary: &'static str,
    default_timeout_ms: u64,
    handler: F,
) -> MethodSpec
where
    P: ParamSet,
    R: Serialize + JsonSchema + Send + 'static,
    F: Fn(Call, Page, P) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<R, ApiError>> + Send + 'static,
{
    let handler = Arc::new(handler);
    let mut blocks = Scope::blocks();
    blocks.extend(P::blocks());
    MethodSpec {
        name,
        summary,
        default_timeout_ms: Some(default_timeout_ms),
        example: "{}",
        tool: None,
        blocks,
        result_schema: |g| g.subschema_for::<R>(),
        handler: Arc::new(move |ctx, raw| {
            let handler = handler.clone();
            async move {
                let scope = Scope::parse(&raw)?;
                let p = P::parse(&raw)?;
                let deadline = ctx.deadline(scope.timeout, default_timeout_ms)?;
                let call = Call { ctx: ctx.clone(), deadline };
                let result = ctx
                    .sessions
                    .run(&scope.session_id, scope.tab_id.as_deref(), deadline, move |page| async move {
                        let mark = page.mark();
                        let outcome = match handler(call, page.clone(), p).await {
                            Err(error) if error.wants_evidence() => {
                                let evidence = page.failure_evidence(&mark).await;
                                Err(ApiError::WithEvidence { error: Box::new(error), evidence })
                            }
                            other => other,
                        };
                        masked(|value| page.redact_json(value), outcome.and_then(encode))
                    })
                    .await?;
                Ok(result)
            }
            .boxed()
        }),
    }
}

/// Declares a method on a session as a whole (its tabs). The registry parses [`SessionScope`] and
/// `P`, bounds the call by `timeout` (default `default_timeout_ms`), and runs the handler in the
/// session's turn with the session and the current Chromium.
pub fn session_method<P, R, F, Fut>(
    name: &'static str,
    summary: &'static str,
    default_timeout_ms: u64,
    handler: F,
) -> MethodSpec
where
    P: ParamSet,
    R: Serialize + JsonSchema + Send + 'static,
    F: Fn(Call, SessionHandle, P) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<R, ApiError>> + Send + 'static,
{
    let handler = Arc::new(handler);
    let mut blocks = SessionScope::blocks();
    blocks.extend(P::blocks());
    MethodSpec {
        name,
        summary,
        default_timeout_ms: Some(default_timeout_ms),
        example: "{}",
        tool: None,
        blocks,
        result_schema: |g| g.subschema_for::<R>(),
        handler: Arc::new(move |ctx, raw| {
            let handler = handler.clone();
            async move {
                let scope = SessionScope::parse(&raw)?;
                let p = P::parse(&raw)?;
                let deadline = ctx.deadline(scope.timeout, default_timeout_ms)?;
                let call = Call { ctx: ctx.clone(), deadline };
                let result = ctx
                    .sessions
                    .run_on_session(&scope.session_id, deadline, move |session, chromium| async move {
                        let outcome = handler(call, SessionHandle { session: session.clone(), chromium }, p).await;
                        masked(|value| session.redact_json(value), outcome.and_then(encode))
                    })
                    .await?;
                Ok(result)
            }
            .boxed()
        }),
    }
}

/// What a session method's handler works on: the session and the Chromium it lives in.
pub struct SessionHandle {
    pub session: Arc<Session>,
    pub chromium: Arc<Chromium>,
}

/// A page or session method's answer with every password its session typed masked by `redact`,
/// in its result or in its error (message, `data.actual`, evidence): whatever a method read, it
/// passes here.
fn masked(redact: impl Fn(Value) -> Value, outcome: Result<Value, ApiError>) -> Result<Value, ApiError> {
    let error = match outcome {
        Ok(value) => return Ok(redact(value)),
        Err(error) => error,
    };
    let object = error.to_error_object();
    let data: Value = object.data().and_then(|d| serde_json::from_str(d.get()).ok()).unwrap_or(Value::Null);
    let shown = serde_json::json!({ "message": object.message(), "data": data });
    let masked = redact(shown.clone());
    if masked == shown {
        return Err(error);
    }
    let message = masked["message"].as_str().unwrap_or_default().to_owned();
    let data = Some(masked["data"].clone()).filter(|d| !d.is_null());
    Err(ApiError::Relayed { kind: error.kind(), code: object.code(), message, data })
}

fn encode<R: Serialize>(result: R) -> Result<Value, ApiError> {
    serde_json::to_value(result).map_err(|e| ApiError::Internal(format!("result encoding: {e}")))
}
