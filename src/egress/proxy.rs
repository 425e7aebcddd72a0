//! A session's egress proxy: a loopback HTTP/1.1 proxy its browser context is forced through.
//!
//! It answers `CONNECT host:port` (https, WebSockets) by opening a tunnel and absolute-form requests
//! (plain http) by forwarding them, but only after the policy admits the target and, with
//! BLOCK_PRIVATE_IPS, every address the host resolves to. It then connects to exactly the addresses
//! it checked, so a DNS answer cannot change between check and use (rebinding). A refused request
//! gets a 403 naming the reason, an unreachable one a 502 naming the network error; both are
//! recorded in the session's [`FailureLog`].
//!
//! A session created with its own `proxy` has its allowed traffic sent on to that upstream proxy
//! (admitted beforehand, see `upstream`), except for hosts in its bypass list: plain-http
//! requests whole (absolute URL, headers, body), https and WebSockets as `CONNECT host:port`. Dropping the [`EgressProxy`] stops its
//! listener, connections and tunnels.

use std::convert::Infallible;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;

use http_body_util::{BodyExt, Empty, Full, combinators::BoxBody};
use hyper::body::{Bytes, Incoming};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinHandle;

use super::download_cap::{self, CapError};
use super::error::EgressError;
use super::failures::{BLOCKED_BY_POLICY, FAILURE_HEADER, FailureLog};
use super::policy::EgressPolicy;
use super::upstream::Upstream;

type Body = BoxBody<Bytes, CapError>;

/// Where the per-session proxies listen, and the host the browser is told to reach them at.
///
/// A browser the service launched reaches them on loopback. A remote browser (BROWSER_WS_ENDPOINT)
/// reaches them at EGRESS_PROXY_ADVERTISE; unless that is a loopback name too, they then listen on
/// every interface, each on its own port for the life of its session.
#[derive(Debug, Clone, PartialEq)]
pub struct ProxyAddress {
    bind: IpAddr,
    host: String,
}

impl ProxyAddress {
    /// Loopback only: for a browser on this machine.
    pub fn local() -> Self {
        Self { bind: IpAddr::V4(Ipv4Addr::LOCALHOST), host: "127.0.0.1".into() }
    }

    /// The browser reaches this service at `host`.
    pub fn advertised(host: &str) -> Self {
        let loopback =
            host.eq_ignore_ascii_case("localhost") || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback());
        let bind = if loopback { IpAddr::V4(Ipv4Addr::LOCALHOST) } else { IpAddr::V4(Ipv4Addr::UNSPECIFIED) };
        Self { bind, host: host.to_owned() }
    }

    /// `http://host:port` as Chromium's `proxyServer` takes it.
    fn server(&self, port: u16) -> String {
        match self.host.parse::<IpAddr>() {
            Ok(IpAddr::V6(ip)) => format!("http://[{ip}]:{port}"),
            _ => format!("http://{}:{port}", self.host),
        }
    }
}

pub struct EgressProxy {
    /// The address the browser is given (see [`ProxyAddress`]).
    server: String,
    log: Arc<FailureLog>,
    accept: JoinHandle<()>,
    /// Dropped with the proxy: every connection and tunnel task sees it and ends.
    _stop: watch::Sender<()>,
}

struct Shared {
    policy: Arc<EgressPolicy>,
    upstream: Option<Upstream>,
    /// DOWNLOAD_MAX_BYTES, held to where the bytes pass (see `download_cap`).
    download_cap: u64,
    log: Arc<FailureLog>,
    stop: watch::Receiver<()>,
}

impl EgressProxy {
    pub async fn start(
        policy: Arc<EgressPolicy>,
        upstream: Option<Upstream>,
        at: &ProxyAddress,
        download_cap: u64,
    ) -> std::io::Result<Self> {
        let listener = TcpListener::bind((at.bind, 0)).await?;
        let server = at.server(listener.local_addr()?.port());
        let log = Arc::new(FailureLog::default());
        let (stop_tx, stop) = watch::channel(());
        let shared = Arc::new(Shared { policy, upstream, download_cap, log: log.clone(), stop });
        let accept = tokio::spawn(accept_loop(listener, shared));
        Ok(Self { server, log, accept, _stop: stop_tx })
    }

    /// The proxy's address in the form Chromium's `proxyServer` takes.
    pub fn server(&self) -> String {
        self.server.clone()
    }

    pub fn log(&self) -> &Arc<FailureLog> {
        &self.log
    }
}

impl Drop for EgressProxy {
    fn drop(&mut self) {
        self.accept.abort();
    }
}

async fn accept_loop(listener: TcpListener, shared: Arc<Shared>) {
    loop {
        match listener.accept().await {
            Ok((stream, _)) => {
                let shared = shared.clone();
                tokio::spawn(until_stopped(shared.stop.clone(), serve(stream, shared)));
            }
            Err(err) => {
                tracing::warn!(error = %err, "egress proxy accept failed");
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            }
        }
    }
}

/// Runs `work` until it ends or the proxy is dropped.
async fn until_stopped(mut stop: watch::Receiver<()>, work: impl Future<Output = ()>) {
    tokio::select! {
        _ = work => {}
        _ = stop.changed() => {}
    }
}

async fn serve(stream: TcpStream, shared: Arc<Shared>) {
    let _ = stream.set_nodelay(true);
    let service = hyper::service::service_fn(move |req| {
        let shared = shared.clone();
        async move { Ok::<_, Infallible>(handle(req, shared).await) }
    });
    let served = hyper::server::conn::http1::Builder::new()
        .serve_connection(TokioIo::new(stream), service)
        .with_upgrades()
        .await;
    if let Err(err) = served {
        tracing::debug!(error = %err, "egress proxy connection ended with an error");
    }
}

async fn handle(req: Request<Incoming>, shared: Arc<Shared>) -> Response<Body> {
    if req.method() == Method::CONNECT { tunnel(req, shared).await } else { forward(req, shared).await }
}

/// CONNECT host:port — https and WebSockets.
async fn tunnel(req: Request<Incoming>, shared: Arc<Shared>) -> Response<Body> {
    let Some(authority) = req.uri().authority().cloned() else {
        return text(StatusCode::BAD_REQUEST, "CONNECT needs host:port".into());
    };
    let (host, port) = (authority.host().to_owned(), authority.port_u16().unwrap_or(443));
    let target = Target { host: &host, port, url: None };
    if let Err(err) = shared.policy.check_tunnel(&host, port) {
        return shared.refuse(&target, err);
    }
    let upstream = match shared.connect(&host, port, true).await {
        Ok(stream) => stream,
        Err(Connect::Refused(err)) => return shared.refuse(&target, err),
        Err(Connect::Failed { failure, detail }) => return shared.unreachable(&target, failure, detail),
    };
    let stop = shared.stop.clone();
    tokio::spawn(until_stopped(stop, async move {
        match hyper::upgrade::on(req).await {
            Ok(upgraded) => {
                let mut client = TokioIo::new(upgraded);
                let mut upstream = upstream;
                let _ = tokio::io::copy_bidirectional(&mut client, &mut upstream).await;
            }
            Err(err) => tracing::debug!(error = %err, "egress tunnel upgrade failed"),
        }
    }));
    Response::new(Empty::new().map_err(|never| match never {}).boxed())
}

/// An absolute-form request — plain http.
async fn forward(mut req: Request<Incoming>, shared: Arc<Shared>) -> Response<Body> {
    let uri = req.uri().clone();
    let (Some(host), Some(scheme)) = (uri.host().map(str::to_owned), uri.scheme_str()) else {
        return text(StatusCode::BAD_REQUEST, "this is a proxy: requests must use an absolute http:// URI".into());
    };
    if scheme != "http" {
        return text(StatusCode::BAD_REQUEST, format!("{scheme}: URLs go through CONNECT, not as plain requests"));
    }
    let port = uri.port_u16().unwrap_or(80);
    let url = uri.to_string();
    let target = Target { host: &host, port, url: Some(&url) };
    if let Err(err) = shared.policy.check(&url) {
        return shared.refuse(&target, err);
    }
    let via_upstream = shared.via_upstream(&host);
    let stream = match shared.connect(&host, port, false).await {
        Ok(stream) => stream,
        Err(Connect::Refused(err)) => return shared.refuse(&target, err),
        Err(Connect::Failed { failure, detail }) => return shared.unreachable(&target, failure, detail),
    };
    let handshake = hyper::client::conn::http1::Builder::new()
        .max_headers(MAX_RESPONSE_HEADERS)
        .max_header_size(MAX_RESPONSE_HEAD_BYTES)
        .handshake(TokioIo::new(stream));
    let (mut sender, conn) = match handshake.await {
        Ok(pair) => pair,
        Err(err) => {
            return shared.unreachable(&target, CONNECTION_FAILED, format!("no HTTP from {host}:{port}: {err}"));
        }
    };
    tokio::spawn(until_stopped(shared.stop.clone(), async move {
        let _ = conn.with_upgrades().await;
    }));
    if !via_upstream {
        let origin_form = uri.path_and_query().map(|p| p.as_str()).unwrap_or("/");
        *req.uri_mut() = origin_form.parse().unwrap_or_else(|_| hyper::Uri::from_static("/"));
    }
    req.headers_mut().remove("proxy-connection");
    req.headers_mut().remove("proxy-authorization");
    match sender.send_request(req).await {
        Ok(resp) if download_cap::is_attachment(resp.headers()) => {
            let cap = shared.download_cap;
            resp.map(|body| download_cap::capped(body, cap))
        }
        Ok(resp) => resp.map(|body| body.map_err(CapError::from).boxed()),
        Err(err) => shared.unreachable(&target, EMPTY_RESPONSE, format!("{host}:{port} did not answer: {err}")),
    }
}

/// What a request was for: a tunnel's host and port, or a plain-http URL.
struct Target<'a> {
    host: &'a str,
    port: u16,
    url: Option<&'a str>,
}

enum Connect {
    Refused(EgressError),
    Failed { failure: &'static str, detail: String },
}

/// Header lines a response may have. Chromium counts none, only bytes ([`MAX_RESPONSE_HEAD_BYTES`]);
/// hyper's default of 100 turned a response setting 100 cookies into `net::ERR_EMPTY_RESPONSE`
/// where a browser without the proxy stores them. 4,096 lines of 64 bytes fill Chromium's limit.
const MAX_RESPONSE_HEADERS: usize = 4096;
/// A response head's bytes at most: Chromium's own limit (256 KiB).
const MAX_RESPONSE_HEAD_BYTES: usize = 256 * 1024;
const CONNECTION_FAILED: &str = "net::ERR_CONNECTION_FAILED";
const EMPTY_RESPONSE: &str = "net::ERR_EMPTY_RESPONSE";

/// The net error Chromium would have shown for a direct connection that failed this way.
fn net_error(err: &std::io::Error) -> &'static str {
    match err.kind() {
        std::io::ErrorKind::ConnectionRefused => "net::ERR_CONNECTION_REFUSED",
        std::io::ErrorKind::ConnectionReset => "net::ERR_CONNECTION_RESET",
        std::io::ErrorKind::TimedOut => "net::ERR_CONNECTION_TIMED_OUT",
        std::io::ErrorKind::HostUnreachable | std::io::ErrorKind::NetworkUnreachable => "net::ERR_ADDRESS_UNREACHABLE",
        _ => CONNECTION_FAILED,
    }
}

impl Shared {
    fn via_upstream(&self, host: &str) -> bool {
        self.upstream.as_ref().is_some_and(|u| !u.bypasses(host))
    }

    fn refuse(&self, target: &Target<'_>, err: EgressError) -> Response<Body> {
        tracing::debug!(host = target.host, port = target.port, "egress proxy refused a request");
        self.log.record(target.host, target.port, target.url, BLOCKED_BY_POLICY, err.to_string());
        failed(StatusCode::FORBIDDEN, BLOCKED_BY_POLICY, format!("text-browser blocked this request: {err}\n"))
    }

    fn unreachable(&self, target: &Target<'_>, failure: &'static str, detail: String) -> Response<Body> {
        self.log.record(target.host, target.port, target.url, failure, detail.clone());
        failed(StatusCode::BAD_GATEWAY, failure, format!("{failure}: {detail}\n"))
    }

    /// Opens a connection for a request to `host:port`: direct to the checked addresses, or to the
    /// upstream proxy (through which a tunnel is requested when `tunnel`).
    async fn connect(&self, host: &str, port: u16, tunnel: bool) -> Result<TcpStream, Connect> {
        let bare = host.trim_start_matches('[').trim_end_matches(']');
        let checked = if self.policy.blocks_private_ips() || !self.via_upstream(host) {
            let addrs: Vec<SocketAddr> = tokio::net::lookup_host((bare, port))
                .await
                .map_err(|e| Connect::Failed {
                    failure: "net::ERR_NAME_NOT_RESOLVED",
                    detail: format!("cannot resolve {host}: {e}"),
                })?
                .collect();
            for addr in &addrs {
                self.policy.check_address(host, addr.ip()).map_err(Connect::Refused)?;
            }
            addrs
        } else {
            Vec::new()
        };
        let Some(upstream) = self.upstream.as_ref().filter(|_| self.via_upstream(host)) else {
            return connect_to(&checked, host, port).await;
        };
        // The addresses checked when the upstream was admitted, never a fresh DNS answer.
        let mut stream = TcpStream::connect(upstream.addrs()).await.map_err(|e| Connect::Failed {
            failure: "net::ERR_PROXY_CONNECTION_FAILED",
            detail: format!("cannot reach the upstream proxy {}: {e}", upstream.name()),
        })?;
        let _ = stream.set_nodelay(true);
        if tunnel {
            open_upstream_tunnel(&mut stream, host, port)
                .await
                .map_err(|detail| Connect::Failed { failure: "net::ERR_TUNNEL_CONNECTION_FAILED", detail })?;
        }
        Ok(stream)
    }
}

async fn connect_to(addrs: &[SocketAddr], host: &str, port: u16) -> Result<TcpStream, Connect> {
    if addrs.is_empty() {
        return Err(Connect::Failed {
            failure: "net::ERR_NAME_NOT_RESOLVED",
            detail: format!("{host} has no addresses"),
        });
    }
    let stream = TcpStream::connect(addrs).await.map_err(|e| Connect::Failed {
        failure: net_error(&e),
        detail: format!("cannot connect to {host}:{port}: {e}"),
    })?;
    let _ = stream.set_nodelay(true);
    Ok(stream)
}

/// Asks the upstream proxy for a tunnel and reads its answer's head (and nothing past it).
async fn open_upstream_tunnel(stream: &mut TcpStream, host: &str, port: u16) -> Result<(), String> {
    let request = format!("CONNECT {host}:{port} HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n");
    stream.write_all(request.as_bytes()).await.map_err(|e| format!("upstream proxy: {e}"))?;
    let mut head = Vec::with_capacity(128);
    while !head.ends_with(b"\r\n\r\n") {
        if head.len() > 8192 {
            return Err("upstream proxy sent an oversized answer to CONNECT".into());
        }
        let byte = stream.read_u8().await.map_err(|e| format!("upstream proxy closed the tunnel: {e}"))?;
        head.push(byte);
    }
    let status_line = String::from_utf8_lossy(&head);
    let status_line = status_line.lines().next().unwrap_or_default();
    if status_line.split_whitespace().nth(1) == Some("200") {
        Ok(())
    } else {
        Err(format!("upstream proxy refused CONNECT {host}:{port}: {status_line}"))
    }
}

/// The proxy's own answer for a request it did not deliver, marked with the failure.
fn failed(status: StatusCode, failure: &'static str, body: String) -> Response<Body> {
    let mut resp = text(status, body);
    resp.headers_mut().insert(FAILURE_HEADER, hyper::header::HeaderValue::from_static(failure));
    resp
}

fn text(status: StatusCode, body: String) -> Response<Body> {
    let mut resp = Response::new(Full::new(Bytes::from(body)).map_err(|never| match never {}).boxed());
    *resp.status_mut() = status;
    let headers = resp.headers_mut();
    headers.insert(hyper::header::CONTENT_TYPE, hyper::header::HeaderValue::from_static("text/plain; charset=utf-8"));
    headers.insert(hyper::header::CACHE_CONTROL, hyper::header::HeaderValue::from_static("no-store"));
    resp
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_remote_browser_is_given_the_advertised_host_and_loopback_stays_loopback() {
        let local = ProxyAddress::advertised("localhost");
        assert_eq!((local.bind, local.server(81).as_str()), (IpAddr::V4(Ipv4Addr::LOCALHOST), "http://localhost:81"));
        let pod = ProxyAddress::advertised("10.1.2.3");
        assert_eq!((pod.bind, pod.server(81).as_str()), (IpAddr::V4(Ipv4Addr::UNSPECIFIED), "http://10.1.2.3:81"));
        assert_eq!(ProxyAddress::advertised("fd00::1").server(81), "http://[fd00::1]:81");
        assert_eq!(ProxyAddress::local().server(81), "http://127.0.0.1:81");
    }
}
