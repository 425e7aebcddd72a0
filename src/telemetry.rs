//! Logging: one tracing subscriber writing JSON (default) or pretty lines to stderr.
//!
//! RUST_LOG overrides the default filter. Page text, request bodies and the API key are never
//! logged by the service. Everything logged while a request is handled carries its request id:
//! the HTTP layer opens a `request` span with it (see `http::request_span`), and JSON lines show
//! the current span's fields under `span`.

use tracing_subscriber::EnvFilter;

use crate::config::LogFormat;

const DEFAULT_FILTER: &str = "info,chromiumoxide=error,jsonrpsee=warn,tungstenite=warn,hyper=warn";

pub fn init(format: LogFormat) {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(DEFAULT_FILTER));
    let builder = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr);
    let _ = match format {
        LogFormat::Json => builder.json().flatten_event(true).with_current_span(true).with_span_list(false).try_init(),
        LogFormat::Pretty => builder.try_init(),
    };
}
