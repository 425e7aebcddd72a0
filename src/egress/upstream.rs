//! A session's upstream proxy (`session.create {proxy}`): where its allowed traffic goes next.
//!
//! The upstream proxy is a host the service itself connects to and hands the session's requests
//! (with all their headers), so it passes the egress policy before any session may use it: its
//! address must match ALLOW_PROXY_REGEX (unset: no upstream proxy is allowed at all), and with
//! BLOCK_PRIVATE_IPS every address it resolves to must be public. It is resolved once, when
//! admitted, and the session's egress proxy connects to exactly those addresses, so a DNS answer
//! cannot change in between (rebinding). An [`Upstream`] exists only once admitted.

use std::net::SocketAddr;

use url::{Host, Url};

use super::error::EgressError;
use super::policy::EgressPolicy;

/// An admitted upstream proxy.
#[derive(Debug, Clone, PartialEq)]
pub struct Upstream {
    /// `http://host:port/`, as ALLOW_PROXY_REGEX saw it.
    normalized: String,
    /// The addresses it resolved to when admitted (all checked).
    addrs: Vec<SocketAddr>,
    /// Host names (exact, or `.suffix` / `*.suffix`) that go direct instead.
    bypass: Vec<String>,
}

impl Upstream {
    /// Admits `server` (`http://host:port`) with its comma-separated `bypass` list, or says why not.
    pub async fn admit(server: &str, bypass: Option<&str>, policy: &EgressPolicy) -> Result<Self, EgressError> {
        let (normalized, host, port) = parse(server)?;
        policy.check_proxy(&normalized)?;
        let bare = host.trim_start_matches('[').trim_end_matches(']');
        let addrs: Vec<SocketAddr> = tokio::net::lookup_host((bare, port))
            .await
            .map_err(|e| unusable(server, format!("{host} does not resolve: {e}")))?
            .collect();
        if addrs.is_empty() {
            return Err(unusable(server, format!("{host} has no addresses")));
        }
        for addr in &addrs {
            policy.check_address(&host, addr.ip())?;
        }
        let bypass = bypass
            .unwrap_or_default()
            .split(',')
            .map(|h| h.trim().trim_start_matches('*').to_ascii_lowercase())
            .filter(|h| !h.is_empty())
            .collect();
        Ok(Self { normalized, addrs, bypass })
    }

    /// The addresses to connect to.
    pub fn addrs(&self) -> &[SocketAddr] {
        &self.addrs
    }

    /// `http://host:port/`, for messages.
    pub fn name(&self) -> &str {
        &self.normalized
    }

    /// Whether requests to `host` go direct instead of through the upstream.
    pub fn bypasses(&self, host: &str) -> bool {
        let host = host.to_ascii_lowercase();
        self.bypass.iter().any(|b| match b.strip_prefix('.') {
            Some(domain) => host == domain || host.ends_with(b.as_str()),
            None => host == *b,
        })
    }
}

/// `server` as `(http://host:port/, host, port)`: an http:// URL with a host and nothing else.
fn parse(server: &str) -> Result<(String, String, u16), EgressError> {
    let url = Url::parse(server.trim()).map_err(|e| unusable(server, format!("not a URL: {e}")))?;
    if url.scheme() != "http" {
        return Err(unusable(
            server,
            "only http:// upstream proxies are supported (all traffic passes the service's own egress proxy first)"
                .into(),
        ));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(unusable(server, "proxy credentials are not supported".into()));
    }
    if url.path() != "/" || url.query().is_some() || url.fragment().is_some() {
        return Err(unusable(server, "give only http://host:port, without a path or query".into()));
    }
    let host = match url.host() {
        Some(Host::Domain(domain)) if !domain.trim_end_matches('.').is_empty() => {
            domain.trim_end_matches('.').to_owned()
        }
        Some(Host::Ipv4(ip)) => ip.to_string(),
        Some(Host::Ipv6(ip)) => match ip.to_ipv4_mapped() {
            Some(v4) => v4.to_string(),
            None => format!("[{ip}]"),
        },
        _ => return Err(unusable(server, "it has no host".into())),
    };
    let port = url.port_or_known_default().unwrap_or(80);
    Ok((format!("http://{host}:{port}/"), host, port))
}

fn unusable(server: &str, reason: String) -> EgressError {
    EgressError::ProxyUnusable { proxy: crate::quote::quote(server), reason }
}

#[cfg(test)]
mod tests {
    use super::*;
    use regex::Regex;

    fn policy(allow_proxy: Option<&str>, block_private_ips: bool) -> EgressPolicy {
        EgressPolicy::new(Regex::new(".*").unwrap(), block_private_ips)
            .with_proxies(allow_proxy.map(|re| Regex::new(re).unwrap()))
    }

    #[test]
    fn a_proxy_is_read_as_http_host_and_port_and_nothing_else() {
        assert_eq!(parse("http://Proxy.Corp.:3128").unwrap().0, "http://proxy.corp:3128/");
        assert_eq!(parse("http://127.1").unwrap().0, "http://127.0.0.1:80/");
        assert_eq!(parse("http://[::ffff:127.0.0.2]:8080/").unwrap().0, "http://127.0.0.2:8080/");
        for bad in ["socks5://127.0.0.1:1080", "http://", "127.0.0.1:3128", "http://u:p@proxy:1/", "http://proxy/x"] {
            assert!(matches!(parse(bad), Err(EgressError::ProxyUnusable { .. })), "{bad}");
        }
    }

    #[tokio::test]
    async fn no_upstream_is_admitted_unless_allow_proxy_regex_names_it() {
        let none = policy(None, false);
        let refused = Upstream::admit("http://127.0.0.1:3128", None, &none).await.unwrap_err();
        assert!(refused.to_string().contains("ALLOW_PROXY_REGEX is unset"), "{refused}");
        let some = policy(Some(r"^http://127\.0\.0\.1:3128/$"), false);
        let admitted = Upstream::admit("http://127.0.0.1:3128", Some("localhost, .corp.example,*.dev"), &some).await;
        let admitted = admitted.unwrap();
        assert_eq!(admitted.addrs(), &["127.0.0.1:3128".parse::<SocketAddr>().unwrap()]);
        assert!(admitted.bypasses("LOCALHOST") && admitted.bypasses("a.corp.example") && admitted.bypasses("x.dev"));
        assert!(admitted.bypasses("corp.example") && !admitted.bypasses("example.com"));
        let other_port = Upstream::admit("http://127.0.0.1:3129", None, &some).await.unwrap_err();
        assert!(matches!(other_port, EgressError::ProxyNotAllowed { .. }), "{other_port}");
    }

    #[tokio::test]
    async fn block_private_ips_refuses_an_upstream_that_resolves_to_a_private_address() {
        let strict = policy(Some("^http://"), true);
        for server in ["http://127.0.0.2:3128", "http://localhost:3128", "http://10.1.2.3:8080"] {
            let refused = Upstream::admit(server, None, &strict).await.unwrap_err();
            assert!(matches!(refused, EgressError::PrivateAddress { .. }), "{server}: {refused}");
        }
    }
}
