//! The egress policy: which URLs and hosts the browser may reach (ALLOW_HOST_REGEX, BLOCK_PRIVATE_IPS).
//!
//! URLs are parsed with the WHATWG rules Chromium itself follows, then normalized (credentials and
//! fragment dropped, host lower-cased, decimal/octal/hex IPv4 written as dotted quads, IPv6 in
//! brackets, trailing dots removed, default ports omitted) before ALLOW_HOST_REGEX is matched against
//! the result. So `http://localhost@evil/`, `http://LOCALHOST./` or `http://2130706433/` are judged
//! by the host the browser would really contact. Only http and https are ever allowed.
//!
//! Upstream proxies (`session.create {proxy}`, see `upstream`) are judged by a list of their own,
//! ALLOW_PROXY_REGEX, matched against `http://host:port/` (the port always written); without it
//! none is allowed.

use std::net::IpAddr;

use regex::Regex;
use url::{Host, Url};

use super::error::EgressError;

#[derive(Debug, Clone)]
pub struct EgressPolicy {
    allow: Regex,
    block_private_ips: bool,
    /// ALLOW_PROXY_REGEX: the upstream proxies sessions may name (none when `None`).
    allow_proxy: Option<Regex>,
}

impl EgressPolicy {
    pub fn new(allow: Regex, block_private_ips: bool) -> Self {
        Self { allow, block_private_ips, allow_proxy: None }
    }

    /// Allows the upstream proxies `allow_proxy` matches (see [`EgressPolicy::check_proxy`]).
    pub fn with_proxies(mut self, allow_proxy: Option<Regex>) -> Self {
        self.allow_proxy = allow_proxy;
        self
    }

    /// Checks an upstream proxy, given as `http://host:port/` (see `upstream`).
    pub fn check_proxy(&self, normalized: &str) -> Result<(), EgressError> {
        match &self.allow_proxy {
            Some(allow) if allow.is_match(normalized) => Ok(()),
            other => Err(EgressError::ProxyNotAllowed {
                proxy: normalized.to_owned(),
                pattern: other.as_ref().map(|re| re.as_str().to_owned()),
            }),
        }
    }

    pub fn blocks_private_ips(&self) -> bool {
        self.block_private_ips
    }

    /// Checks a URL; on success returns its normalized form (what the regex was matched against).
    pub fn check(&self, url: &str) -> Result<String, EgressError> {
        let normalized = normalize(url)?;
        self.check_normalized(normalized)
    }

    /// Checks a tunnel (CONNECT host:port), which carries no scheme or path: it is judged as
    /// `https://host[:port]/`.
    pub fn check_tunnel(&self, host: &str, port: u16) -> Result<String, EgressError> {
        let host = if host.contains(':') && !host.starts_with('[') { format!("[{host}]") } else { host.to_owned() };
        self.check(&format!("https://{host}:{port}/"))
    }

    fn check_normalized(&self, normalized: String) -> Result<String, EgressError> {
        if self.allow.is_match(&normalized) {
            Ok(normalized)
        } else {
            Err(EgressError::NotAllowed { url: normalized, pattern: self.allow.as_str().to_owned() })
        }
    }

    /// Refuses addresses a public host name must never lead to (when BLOCK_PRIVATE_IPS is on).
    pub fn check_address(&self, host: &str, ip: IpAddr) -> Result<(), EgressError> {
        if self.block_private_ips && is_private(ip) {
            return Err(EgressError::PrivateAddress { host: host.to_owned(), ip });
        }
        Ok(())
    }
}

/// Parses and normalizes an http(s) URL (see the module docs).
pub fn normalize(url: &str) -> Result<String, EgressError> {
    let mut parsed =
        Url::parse(url.trim()).map_err(|e| EgressError::Malformed { url: url.to_owned(), reason: e.to_string() })?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(EgressError::NotHttp { url: url.to_owned(), scheme: parsed.scheme().to_owned() });
    }
    let host = match parsed.host() {
        Some(Host::Domain(domain)) => {
            let trimmed = domain.trim_end_matches('.');
            if trimmed.is_empty() {
                return Err(EgressError::Malformed { url: url.to_owned(), reason: "empty host".into() });
            }
            trimmed.to_owned()
        }
        Some(Host::Ipv4(ip)) => ip.to_string(),
        Some(Host::Ipv6(ip)) => match ip.to_ipv4_mapped() {
            Some(v4) => v4.to_string(),
            None => format!("[{ip}]"),
        },
        None => return Err(EgressError::Malformed { url: url.to_owned(), reason: "no host".into() }),
    };
    let _ = parsed.set_username("");
    let _ = parsed.set_password(None);
    parsed.set_fragment(None);
    let port = parsed.port().map(|p| format!(":{p}")).unwrap_or_default();
    let query = parsed.query().map(|q| format!("?{q}")).unwrap_or_default();
    Ok(format!("{}://{host}{port}{}{query}", parsed.scheme(), parsed.path()))
}

/// Loopback, private, link-local (cloud metadata lives there), CGNAT, unspecified, multicast and
/// other addresses that are not the public internet.
pub fn is_private(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            let [a, b, ..] = v4.octets();
            v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_broadcast()
                || v4.is_multicast()
                || v4.is_documentation()
                || a == 0
                || (a == 100 && (64..128).contains(&b))
                || (a == 192 && b == 0)
                || (a == 198 && (18..20).contains(&b))
                || a >= 240
        }
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped().or_else(|| v6.to_ipv4())
                && !v6.is_unspecified()
                && !v6.is_loopback()
            {
                return is_private(IpAddr::V4(v4));
            }
            let first = v6.segments()[0];
            v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                || (first & 0xfe00) == 0xfc00 // unique local (fd00:ec2::254 is AWS metadata)
                || (first & 0xffc0) == 0xfe80 // link-local
                || (first & 0xffc0) == 0xfec0 // site-local (deprecated)
                || first == 0x2001 && v6.segments()[1] == 0x0db8 // documentation
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::DEFAULT_ALLOW_HOST_REGEX;

    fn policy() -> EgressPolicy {
        EgressPolicy::new(Regex::new(DEFAULT_ALLOW_HOST_REGEX).unwrap(), false)
    }

    #[test]
    fn url_tricks_are_normalized_before_matching() {
        let table = [
            // credentials never count as the host
            ("http://localhost@evil.example/", "http://evil.example/"),
            ("http://user:pw@LOCALHOST:3000/a", "http://localhost:3000/a"),
            ("http://localhost%2f@evil.example/", "http://evil.example/"),
            // case and trailing dots
            ("HTTP://LocalHost:3000/X", "http://localhost:3000/X"),
            ("http://localhost./", "http://localhost/"),
            ("http://evil.example./", "http://evil.example/"),
            // IPv4 in decimal, octal, hex and short forms
            ("http://2130706433/", "http://127.0.0.1/"),
            ("http://0177.0.0.1/", "http://127.0.0.1/"),
            ("http://0x7f.1/", "http://127.0.0.1/"),
            ("http://127.1/", "http://127.0.0.1/"),
            // IPv6, including IPv4-mapped
            ("http://[::1]:8080/", "http://[::1]:8080/"),
            ("http://[0:0:0:0:0:ffff:7f00:1]/", "http://127.0.0.1/"),
            ("http://[::ffff:169.254.169.254]/", "http://169.254.169.254/"),
            // percent-encoding in the host is decoded; encoded dot segments resolve like Chromium's
            ("http://%6c%6fcalhost/", "http://localhost/"),
            ("http://localhost/%2e%2e/a", "http://localhost/a"),
            ("http://localhost/a%20b", "http://localhost/a%20b"),
            // backslashes are slashes in special URLs, default ports vanish, fragments go
            ("http://evil.example\\@localhost/", "http://evil.example/@localhost/"),
            ("https://localhost:443/#frag", "https://localhost/"),
            ("  http://localhost/?q=1  ", "http://localhost/?q=1"),
        ];
        for (input, expected) in table {
            assert_eq!(normalize(input).as_deref(), Ok(expected), "{input}");
        }
    }

    #[test]
    fn local_http_urls_are_allowed() {
        for url in [
            "http://localhost:3000/projects",
            "https://127.0.0.1/",
            "http://LOCALHOST./",
            "http://2130706433:8080/",
            "http://user@localhost/",
        ] {
            assert!(policy().check(url).is_ok(), "{url}");
        }
    }

    #[test]
    fn other_hosts_and_schemes_are_refused() {
        for url in [
            "http://example.com/",
            "http://localhost@evil.example/",
            "http://localhost.evil.example/",
            "http://127.0.0.2/",
            "http://[::1]/",
            "http://169.254.169.254/latest/meta-data/",
            "file:///etc/passwd",
            "javascript:alert(1)",
            "data:text/html,hi",
            "chrome://settings",
            "about:blank",
            "view-source:http://localhost/",
            "ftp://localhost/",
            "ws://localhost/",
            "not a url",
            "http://",
        ] {
            assert!(policy().check(url).is_err(), "{url}");
        }
    }

    #[test]
    fn tunnels_are_judged_as_https_origins() {
        assert_eq!(policy().check_tunnel("localhost", 443).as_deref(), Ok("https://localhost/"));
        assert_eq!(policy().check_tunnel("127.0.0.1", 9000).as_deref(), Ok("https://127.0.0.1:9000/"));
        assert!(policy().check_tunnel("127.0.0.2", 80).is_err());
        assert!(policy().check_tunnel("::1", 443).is_err());
    }

    #[test]
    fn private_addresses_are_recognized() {
        for ip in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "::1",
            "::",
            "fe80::1",
            "fd00:ec2::254",
            "::ffff:10.0.0.1",
        ] {
            assert!(is_private(ip.parse().unwrap()), "{ip}");
        }
        for ip in ["93.184.216.34", "8.8.8.8", "2606:4700::1111"] {
            assert!(!is_private(ip.parse().unwrap()), "{ip}");
        }
    }

    #[test]
    fn private_addresses_are_refused_only_when_asked() {
        let ip: IpAddr = "10.0.0.1".parse().unwrap();
        assert!(policy().check_address("intranet.example", ip).is_ok());
        let strict = EgressPolicy::new(Regex::new(".*").unwrap(), true);
        assert!(matches!(strict.check_address("intranet.example", ip), Err(EgressError::PrivateAddress { .. })));
    }
}
