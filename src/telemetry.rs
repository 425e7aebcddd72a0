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
    // A panic is a log line like any other (JSON when the logs are), not a raw line on stderr.
    std::panic::set_hook(Box::new(|info| {
        let at = info.location().map(|l| format!("{}:{}", l.file(), l.line())).unwrap_or_default();
        tracing::error!(at, panic = %crate::quote::clip(&panic_message(info.payload())), "panic");
    }));
}

/// What a panic said (its payload, when it is text).
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_default()
}
