//! The application: build everything from a [`Config`], serve until told to stop, then shut
//! down in order (stop accepting, close WebSockets, close sessions, stop Chromium, end tasks).

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::browser::{BrowserSource, Chromium, SessionLimits, SessionManager, SessionSetup, supervisor};
use crate::config::{Config, ConfigError};
use crate::egress::EgressPolicy;
use crate::egress::proxy::ProxyAddress;
use crate::http::{self, HttpParts, rate_limit, rpc_service::RpcService, server};
use crate::mcp::{self, McpSettings};
use crate::memory::Trimmer;
use crate::metrics::Metrics;
use crate::replica::Forwarder;
use crate::rpc::{self, RpcContext};

#[derive(Debug, thiserror::Error)]
pub enum StartupError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error("cannot listen on {addr}: {source}")]
    Bind { addr: SocketAddr, source: std::io::Error },
    #[error(transparent)]
    Browser(#[from] crate::browser::BrowserError),
}

pub struct Application {
    listener: TcpListener,
    router: axum::Router,
    sessions: Arc<SessionManager>,
    /// Cancelled once the server has stopped: every background task ends on it.
    stop_tasks: CancellationToken,
    tasks: Vec<JoinHandle<()>>,
    rpc_server: jsonrpsee::server::ServerHandle,
    /// Cancelled when shutdown begins: /mcp's open streams end.
    mcp_stop: CancellationToken,
    /// How connections are accepted and read (READ_TIMEOUT_MS, MAX_UNAUTHENTICATED_CONNECTIONS_PER_IP).
    limits: server::Limits,
    metrics: Metrics,
}

impl Application {
    pub async fn build(config: Config) -> Result<Self, StartupError> {
        let source = browser_source(&config)?;
        let addr = SocketAddr::new(config.host, config.port);
        let listener = TcpListener::bind(addr).await.map_err(|source| StartupError::Bind { addr, source })?;
        let chromium = source.start().await?;
        let metrics = Metrics::new();
        let rate_limit = rate_limit::config(config.rate_limit_max);
        let trimmer = Arc::new(Trimmer::new(metrics.memory_trims.clone(), metrics.memory_returned_bytes.clone()));
        let sessions = session_manager(&config, &source, chromium, &metrics, &trimmer);
        let replicas = config.replicas.clone().map(|replicas| {
            Arc::new(Forwarder::new(replicas, config.api_key.expose(), config.max_body_bytes, metrics.clone()))
        });

        let methods = rpc::all_methods();
        let names: Vec<String> = methods.iter().map(|m| m.name.to_owned()).collect();
        metrics.register_methods(&names);
        let ctx = Arc::new(RpcContext {
            sessions: sessions.clone(),
            refuse_password_fill: config.refuse_password_fill,
            metrics: metrics.clone(),
            trimmer: trimmer.clone(),
            max_call: config.max_call,
            headless: config.headless,
            discovery: rpc::Discovery::new(&methods),
            methods: Default::default(),
            replicas: replicas.clone(),
            panic_method: config.test_panic_method.clone(),
            calls: Arc::new(rate_limit::PerCall::new(rate_limit.clone(), metrics.clone())),
        });
        let mcp_stop = CancellationToken::new();
        let mcp = mcp::service(
            ctx.clone(),
            &methods,
            McpSettings {
                allowed_hosts: config.mcp_allowed_hosts.clone(),
                allowed_origins: config.mcp_allowed_origins.clone(),
                max_body_bytes: config.max_body_bytes,
                idle: config.session_ttl,
                stop: mcp_stop.clone(),
                replica: config.replicas.as_ref().map(|r| r.topology.me().to_owned()),
            },
        );
        let module = rpc::build_module(ctx, methods);
        let (stop_handle, rpc_server) = jsonrpsee::server::stop_channel();
        let router = http::router(HttpParts {
            rpc: RpcService::new(
                module,
                names,
                metrics.clone(),
                stop_handle,
                config.max_body_bytes,
                http::connections::Connections::new(config.connections, metrics.clone()),
            ),
            mcp,
            api_key: Arc::new(config.api_key.clone()),
            max_body_bytes: config.max_body_bytes,
            rate_limit: rate_limit.clone(),
            metrics: metrics.clone(),
            sessions: sessions.clone(),
            metrics_key: config.metrics_api_key.clone().map(Arc::new),
            mcp_owners: replicas.map(|forwarder| http::forwarded::McpOwners {
                forwarder,
                patience: config.max_call + Duration::from_secs(1),
            }),
            read_timeout: config.read_timeout,
        });

        let stop_tasks = CancellationToken::new();
        let mut tasks = sessions.spawn_tasks(&stop_tasks);
        tasks.push(tokio::spawn(supervisor::run(sessions.clone(), source, stop_tasks.clone())));
        tasks.push(tokio::spawn(rate_limit::housekeeping(rate_limit, stop_tasks.clone())));
        tasks.push(tokio::spawn(trimmer.run(stop_tasks.clone())));
        let limits = server::Limits {
            read_timeout: config.read_timeout,
            unauthenticated_per_ip: config.max_unauthenticated_connections_per_ip,
        };
        Ok(Self { listener, router, sessions, stop_tasks, tasks, rpc_server, mcp_stop, limits, metrics })
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.listener.local_addr().expect("a bound listener has an address")
    }

    /// Serves until `shutdown` resolves, then shuts everything down in order.
    pub async fn run_until_stopped(self, shutdown: impl Future<Output = ()> + Send + 'static) -> std::io::Result<()> {
        let Self { listener, router, sessions, stop_tasks, tasks, rpc_server, mcp_stop, limits, metrics } = self;
        tracing::info!(addr = %listener.local_addr()?, "listening");
        let draining = CancellationToken::new();
        let draining_started = draining.clone();
        let rpc_server_for_signal = rpc_server.clone();
        let graceful = async move {
            shutdown.await;
            tracing::info!("shutting down");
            // Ends /mcp's open streams so the graceful drain can finish.
            mcp_stop.cancel();
            // Closes open WebSocket connections so the graceful drain can finish.
            let _ = rpc_server_for_signal.stop();
            draining_started.cancel();
        };
        let serve = server::serve(listener, router, limits, metrics, graceful);
        // In-flight calls get a bounded time to finish once shutdown begins.
        tokio::select! {
            () = serve => {}
            _ = async {
                draining.cancelled().await;
                tokio::time::sleep(Duration::from_secs(10)).await;
            } => {}
        }
        let _ = rpc_server.stop();
        stop_tasks.cancel();
        sessions.close_all().await;
        for task in tasks {
            let _ = task.await;
        }
        sessions.chromium().shutdown().await;
        Ok(())
    }
}

/// The sessions, in `chromium` (started from `source`), within the configured limits and egress
/// policy.
/// Where the browser comes from: BROWSER_WS_ENDPOINT's, or one we launch.
fn browser_source(config: &Config) -> Result<BrowserSource, StartupError> {
    Ok(match &config.browser_ws_endpoint {
        Some(endpoint) => {
            BrowserSource::Attach { endpoint: endpoint.clone(), allow_unguarded: config.allow_unguarded_browser }
        }
        None => BrowserSource::Launch { executable: config.chrome_executable()?, headless: config.headless },
    })
}

fn session_manager(
    config: &Config,
    source: &BrowserSource,
    chromium: Chromium,
    metrics: &Metrics,
    trimmer: &Arc<Trimmer>,
) -> Arc<SessionManager> {
    let policy = Arc::new(
        EgressPolicy::new(config.allow_host_regex.clone(), config.block_private_ips)
            .with_proxies(config.allow_proxy_regex.clone()),
    );
    let limits = SessionLimits {
        max_sessions: config.max_sessions,
        warm_sessions: config.warm_sessions,
        queue_timeout: config.queue_timeout,
        queue_max: config.queue_max,
        ttl: config.session_ttl,
        download_max_bytes: config.download_max_bytes,
    };
    let setup = SessionSetup {
        replica: config.replicas.as_ref().map(|r| r.topology.me().to_owned()),
        // A browser of our own is on this machine; a remote one reaches us where we say.
        proxy_at: match source {
            BrowserSource::Launch { .. } => ProxyAddress::local(),
            BrowserSource::Attach { .. } => ProxyAddress::advertised(&config.egress_proxy_advertise),
        },
    };
    Arc::new(SessionManager::new(chromium, policy, limits, metrics.clone(), trimmer.clone(), setup))
}

/// Resolves on SIGINT (ctrl-c) or SIGTERM.
pub async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {}
        _ = terminate => {}
    }
}
