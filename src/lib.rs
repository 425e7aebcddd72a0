//! text-browser: a JSON-RPC service that lets AI agents see and drive JavaScript-heavy web apps
//! through one shared headless Chromium.
//!
//! Layout (each module says more at its top):
//! - `config`: environment variables → [`config::Config`], validated once
//! - `telemetry`: the tracing subscriber (JSON or pretty)
//! - `startup`: [`startup::Application`]: build, serve, shut down in order
//! - `http`: the router and the layers in front of `/rpc` (key, rate limit, body cap)
//! - `rpc`: the method list (names, params, results, handlers), errors, OpenRPC
//! - `mcp`: the same methods as MCP tools on `/mcp`
//! - `browser`: Chromium, sessions and everything a session does with its page
//! - `egress`: the policy every request the browser makes must pass, and the proxy enforcing it
//! - `replica`: several services side by side: who owns a session, forwarding calls to it
//! - `metrics`: Prometheus collectors behind `/metrics`
//! - `memory`: hands memory freed by finished work back to the system
//! - `quote`: how errors quote what a client sent (at most 200 characters of it)
//! - `js/`: the helper scripts injected into pages (plain JS, embedded with `include_str!`)

pub mod browser;
pub mod config;
pub mod egress;
pub mod http;
pub mod mcp;
pub mod memory;
pub mod metrics;
pub mod quote;
pub mod replica;
pub mod rpc;
pub mod startup;
pub mod telemetry;
