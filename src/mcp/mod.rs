//! `/mcp`: the same browser as a Model Context Protocol server (Streamable HTTP, the official Rust
//! SDK `rmcp`), next to `/rpc` and behind the same API key, rate limit and body cap (see `http`).
//!
//! - `tools`: the tools, derived from the method registry and its OpenRPC document
//! - `server`: one MCP session, owning one browser session, running tools as JSON-RPC methods
//! - `sessions`: rmcp's session store, with ids that name their replica (REPLICA_ID)
//!
//! What rmcp answers itself (plain-text refusals, JSON-RPC errors without data) is put into the
//! service's error contract in front of it (`http::mcp_errors`).
//!
//! rmcp's transport checks `Host` and `Origin` (its DNS-rebinding rule): MCP_ALLOWED_HOSTS and
//! MCP_ALLOWED_ORIGINS (none by default: a request carrying any `Origin` is refused).

mod server;
mod sessions;
mod tools;

use std::sync::Arc;
use std::time::Duration;

use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

use crate::rpc::{MethodSpec, RpcContext};
pub use server::BrowserTools;
use sessions::ReplicaSessions;
pub use tools::Toolbox;

/// The most bytes `tools/list` may answer with, every tool included: an agent pays them in its
/// context on every turn (issue 27: half of what the tools cost before, and less than Playwright
/// MCP's 17.6 KB). A unit test and the MCP SDK test fail past it.
pub const TOOLS_LIST_BUDGET: usize = 16_000;

/// The /mcp service type, as the router mounts it.
pub type McpService = StreamableHttpService<BrowserTools, ReplicaSessions>;

pub struct McpSettings {
    pub allowed_hosts: Vec<String>,
    pub allowed_origins: Vec<String>,
    pub max_body_bytes: usize,
    /// An MCP session idle this long ends (and closes its browser session).
    pub idle: Duration,
    /// Cancelled at shutdown: open streams end.
    pub stop: CancellationToken,
    /// REPLICA_ID: MCP session ids start with it.
    pub replica: Option<String>,
}

/// The /mcp service: every tool of `methods` on `ctx`.
pub fn service(ctx: Arc<RpcContext>, methods: &[MethodSpec], settings: McpSettings) -> McpService {
    let toolbox = Arc::new(Toolbox::new(methods, &ctx.discovery.document));
    let mut sessions = LocalSessionManager::default();
    sessions.session_config.keep_alive = Some(settings.idle);
    let config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(settings.allowed_hosts)
        .with_allowed_origins(settings.allowed_origins)
        .enforce_origin_validation()
        .with_max_request_body_bytes(settings.max_body_bytes)
        .with_cancellation_token(settings.stop);
    let sessions = ReplicaSessions::new(sessions, settings.replica);
    StreamableHttpService::new(move || Ok(BrowserTools::new(ctx.clone(), toolbox.clone())), Arc::new(sessions), config)
}
