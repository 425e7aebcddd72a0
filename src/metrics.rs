//! Prometheus metrics, served at `/metrics`.
//!
//! Names follow Prometheus conventions (`text_browser_` prefix, `_total`, `_seconds`); labels are
//! bounded (method names from our own list, outcomes from the error-kind table; never URLs or ids).

use std::sync::{Arc, LazyLock};

use prometheus::core::Collector;
use prometheus::{
    Encoder, Histogram, HistogramOpts, HistogramVec, IntCounter, IntCounterVec, IntGauge, Opts, Registry, TextEncoder,
};

/// CDP command latency by CDP method (a bounded set: the methods our code sends). Process-wide,
/// because every place that talks CDP records it; each registry exposes it.
pub static CDP_DURATION: LazyLock<HistogramVec> = LazyLock::new(|| {
    HistogramVec::new(
        HistogramOpts::new("text_browser_cdp_call_duration_seconds", "Chrome DevTools Protocol command latency")
            .buckets(vec![0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0, 5.0, 30.0]),
        &["cdp_method"],
    )
    .expect("valid metric")
});

/// Entries that fell off a page's timeline at its cap, by buffer (`timeline`).
pub static EVENTS_DROPPED: LazyLock<IntCounterVec> = LazyLock::new(|| {
    IntCounterVec::new(
        Opts::new("text_browser_events_dropped_total", "Entries that fell off a page's timeline at its cap, by buffer"),
        &["buffer"],
    )
    .expect("valid metric")
});

/// Bytes of response bodies the sessions hold (captured before Chromium evicts them).
pub static CAPTURED_BODY_BYTES: LazyLock<IntGauge> = LazyLock::new(|| {
    IntGauge::new("text_browser_captured_body_bytes", "Bytes of response bodies held by all sessions")
        .expect("valid metric")
});

/// Bytes of parsed source maps the sessions keep (at most `source_map::CACHE_CAP` each).
pub static SOURCE_MAP_BYTES: LazyLock<IntGauge> = LazyLock::new(|| {
    IntGauge::new("text_browser_source_map_bytes", "Bytes of parsed source maps held by all sessions")
        .expect("valid metric")
});

/// Background tasks pages are running for themselves (capturing a body, answering a dialog,
/// fetching a source line); each ends with its page.
pub static PAGE_TASKS: LazyLock<IntGauge> = LazyLock::new(|| {
    IntGauge::new("text_browser_page_tasks", "Background tasks the open pages are running (body capture, dialogs …)")
        .expect("valid metric")
});

/// The service's metrics: one shared set, cheap to clone (every request's layers and calls hold
/// it; cloning the handles themselves was ~3 % of a no-op call's CPU).
#[derive(Clone)]
pub struct Metrics(Arc<Handles>);

// The longer help texts.
const WARM_MISSES: &str = "session.create calls that found the warm pool empty and opened a session themselves";
const QUEUED: &str = "session.create calls waiting for a slot at MAX_SESSIONS";
const RESTARTS: &str = "Times Chromium died and was started again";
const REJECTED: &str = "HTTP requests refused before dispatch, by status";
const TRIMS: &str = "Times memory freed by finished work was handed back to the system";
const RETURNED: &str = "Resident bytes handed back to the system by memory trims";
const FORWARDED: &str = "Calls for another replica's session, by transport and outcome";
const FORWARDED_DURATION: &str = "Latency of calls forwarded to the replica owning their session, its work included";

/// Registers `metric` (its options checked by prometheus, which a fixed name and help always pass).
fn register<M: Collector + Clone + 'static>(registry: &Registry, metric: prometheus::Result<M>) -> M {
    let metric = metric.expect("valid metric");
    registry.register(Box::new(metric.clone())).expect("unique metric names");
    metric
}

fn counter(registry: &Registry, name: &str, help: &str) -> IntCounter {
    register(registry, IntCounter::new(name, help))
}

fn gauge(registry: &Registry, name: &str, help: &str) -> IntGauge {
    register(registry, IntGauge::new(name, help))
}

/// A labelled counter, registered.
fn counters(registry: &Registry, name: &str, help: &str, labels: &[&str]) -> IntCounterVec {
    register(registry, IntCounterVec::new(Opts::new(name, help), labels))
}

impl Handles {
    /// Every labelled counter exists from the start with its known label values, so it reads 0
    /// (and an alert on it has something to read) before its first event.
    fn labelled_at_zero(&self) {
        for outcome in ["parse_error", "invalid_request", "method_not_found"] {
            self.rpc_requests.with_label_values(&["unknown", outcome]);
        }
        for reason in ["closed", "expired", "shutdown", "browser_lost"] {
            self.sessions_closed.with_label_values(&[reason]);
        }
        for outcome in ["ok", "error", "replica_unavailable", "wrong_replica"] {
            self.forwarded_calls.with_label_values(&["rpc", outcome]);
        }
        self.forwarded_calls.with_label_values(&["subscription", "wrong_replica"]);
        for outcome in ["ok", "error", "replica_unavailable", "wrong_replica"] {
            self.forwarded_calls.with_label_values(&["mcp", outcome]);
        }
        for status in ["401", "413", "429"] {
            self.http_rejected.with_label_values(&[status]);
        }
        EVENTS_DROPPED.with_label_values(&["timeline"]);
    }
}

impl std::ops::Deref for Metrics {
    type Target = Handles;

    fn deref(&self) -> &Handles {
        &self.0
    }
}

pub struct Handles {
    registry: Registry,
    /// RPC calls by method and outcome (`ok` or the error kind).
    pub rpc_requests: IntCounterVec,
    pub rpc_duration: HistogramVec,
    pub sessions_open: IntGauge,
    /// Blank sessions ready in the warm pool.
    pub sessions_warm: IntGauge,
    /// Creates that found the warm pool empty (each grows it, up to 4 x WARM_SESSIONS).
    pub sessions_warm_misses: IntCounter,
    /// session.create calls waiting for a slot at MAX_SESSIONS.
    pub sessions_queued: IntGauge,
    pub sessions_created: IntCounter,
    /// Closed sessions by reason (closed, expired, shutdown).
    pub sessions_closed: IntCounterVec,
    /// Times Chromium died and was started again.
    pub browser_restarts: IntCounter,
    /// Requests refused before reaching a method, by HTTP status (401, 413, 429).
    pub http_rejected: IntCounterVec,
    /// Times freed memory was handed back to the system (see `memory`), and how much.
    pub memory_trims: IntCounter,
    pub memory_returned_bytes: IntCounter,
    /// Calls for another replica's session, by transport (rpc, subscription) and outcome (ok,
    /// error, replica_unavailable, wrong_replica).
    pub forwarded_calls: IntCounterVec,
    /// How long forwarded calls took, owner's work included.
    pub forwarded_duration: Histogram,
}

impl Metrics {
    pub fn new() -> Self {
        let registry = Registry::new();
        for shared in [
            Box::new(CDP_DURATION.clone()) as Box<dyn Collector>,
            Box::new(EVENTS_DROPPED.clone()),
            Box::new(CAPTURED_BODY_BYTES.clone()),
            Box::new(SOURCE_MAP_BYTES.clone()),
            Box::new(PAGE_TASKS.clone()),
        ] {
            registry.register(shared).expect("unique metric names");
        }
        let r = &registry;
        let handles = Handles {
            rpc_requests: counters(
                r,
                "text_browser_rpc_requests_total",
                "JSON-RPC calls by method and outcome",
                &["method", "outcome"],
            ),
            rpc_duration: register(
                r,
                HistogramVec::new(
                    HistogramOpts::new("text_browser_rpc_duration_seconds", "JSON-RPC call latency by method").buckets(
                        vec![0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0],
                    ),
                    &["method"],
                ),
            ),
            sessions_open: gauge(r, "text_browser_sessions_open", "Sessions currently open"),
            sessions_warm: gauge(r, "text_browser_sessions_warm", "Blank sessions ready in the warm pool"),
            sessions_warm_misses: counter(r, "text_browser_sessions_warm_misses_total", WARM_MISSES),
            sessions_queued: gauge(r, "text_browser_sessions_queued", QUEUED),
            sessions_created: counter(r, "text_browser_sessions_created_total", "Sessions created"),
            sessions_closed: counters(
                r,
                "text_browser_sessions_closed_total",
                "Sessions closed, by reason",
                &["reason"],
            ),
            browser_restarts: counter(r, "text_browser_browser_restarts_total", RESTARTS),
            http_rejected: counters(r, "text_browser_http_rejected_total", REJECTED, &["status"]),
            memory_trims: counter(r, "text_browser_memory_trims_total", TRIMS),
            memory_returned_bytes: counter(r, "text_browser_memory_returned_bytes_total", RETURNED),
            forwarded_calls: counters(r, "text_browser_forwarded_calls_total", FORWARDED, &["transport", "outcome"]),
            forwarded_duration: register(
                r,
                Histogram::with_opts(
                    HistogramOpts::new("text_browser_forwarded_call_duration_seconds", FORWARDED_DURATION)
                        .buckets(vec![0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0, 5.0, 30.0]),
                ),
            ),
            registry,
        };
        handles.labelled_at_zero();
        Self(Arc::new(handles))
    }

    /// Creates each method's `ok` counter at 0, so every method shows before its first call.
    pub fn register_methods(&self, names: &[String]) {
        for name in names {
            self.rpc_requests.with_label_values(&[name.as_str(), "ok"]);
        }
    }

    /// The Prometheus text exposition of every metric.
    pub fn render(&self) -> String {
        let mut buf = Vec::new();
        let _ = TextEncoder::new().encode(&self.registry.gather(), &mut buf);
        String::from_utf8(buf).unwrap_or_default()
    }
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}
