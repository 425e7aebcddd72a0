//! Configuration from environment variables, validated once at start-up.
//!
//! [`VARS`] is the one list of variable names, defaults and meanings: `--help` prints it and a test
//! checks the README's table against it. A bad value stops start-up with a [`ConfigError`] that
//! names the variable. Secrets (the API key) never appear in `Debug` output.

use std::fmt;
use std::net::IpAddr;
use std::path::PathBuf;
use std::time::Duration;

use regex::Regex;

use crate::replica::{MIN_SECRET_LEN, PeerSecret, Replicas, Topology};

mod vars;
pub use vars::{DEFAULT_ALLOW_HOST_REGEX, EnvVar, VARS};

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum ConfigError {
    #[error("{var}={value:?} is not valid: {reason}")]
    Invalid { var: &'static str, value: String, reason: String },
    #[error(
        "CHROME_PATH is not set and none of chromium, chromium-browser, google-chrome is on PATH; \
         install Chromium (apt-get install -y chromium) or set CHROME_PATH"
    )]
    ChromeNotFound,
}

/// The API key clients must send in `x-api-key`. Its `Debug` never shows the key.
#[derive(Clone, PartialEq)]
pub struct ApiKey(String);

impl ApiKey {
    pub fn new(key: String) -> Self {
        Self(key)
    }
    /// A fresh random key (two v4 UUIDs: 244 random bits).
    pub fn generate() -> Self {
        Self(format!("{}{}", uuid::Uuid::new_v4().simple(), uuid::Uuid::new_v4().simple()))
    }
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(<redacted>)")
    }
}

/// How many connections `/rpc` holds, and how long a WebSocket may idle (see `http::connections`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnectionLimits {
    /// MAX_CONNECTIONS: requests in flight and WebSockets open, together.
    pub max: usize,
    /// MAX_WEBSOCKETS_PER_IP.
    pub websockets_per_ip: usize,
    /// WS_IDLE_TIMEOUT_MS.
    pub websocket_idle: Duration,
}

impl ConnectionLimits {
    fn parse(get: &impl Fn(&str) -> Option<String>) -> Result<Self, ConfigError> {
        Ok(Self {
            max: parse_num(get, "MAX_CONNECTIONS", 512, 1, 1_000_000)? as usize,
            websockets_per_ip: parse_num(get, "MAX_WEBSOCKETS_PER_IP", 16, 1, 1_000_000)? as usize,
            websocket_idle: Duration::from_millis(parse_num(get, "WS_IDLE_TIMEOUT_MS", 300_000, 1000, 86_400_000)?),
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogFormat {
    Json,
    Pretty,
}

#[derive(Debug, Clone)]
pub struct Config {
    pub port: u16,
    pub host: IpAddr,
    pub api_key: ApiKey,
    /// True when the key was generated because API_KEY was unset.
    pub api_key_generated: bool,
    pub allow_host_regex: Regex,
    pub block_private_ips: bool,
    /// ALLOW_PROXY_REGEX: the upstream proxies sessions may use; `None`, none.
    pub allow_proxy_regex: Option<Regex>,
    pub refuse_password_fill: bool,
    pub session_ttl: Duration,
    pub rate_limit_max: u32,
    pub max_sessions: usize,
    pub warm_sessions: usize,
    pub queue_timeout: Duration,
    pub queue_max: usize,
    /// When set, `/metrics` requires it.
    pub metrics_api_key: Option<ApiKey>,
    pub max_body_bytes: usize,
    /// READ_TIMEOUT_MS: for a request's headers, and between pieces of its body.
    pub read_timeout: Duration,
    pub max_unauthenticated_connections_per_ip: usize,
    /// MAX_CONNECTIONS, MAX_WEBSOCKETS_PER_IP and WS_IDLE_TIMEOUT_MS: who may hold /rpc's
    /// connections, and for how long.
    pub connections: ConnectionLimits,
    /// MCP_ALLOWED_HOSTS and MCP_ALLOWED_ORIGINS: what /mcp's transport accepts.
    pub mcp_allowed_hosts: Vec<String>,
    pub mcp_allowed_origins: Vec<String>,
    /// A page's download is cancelled past this size.
    pub download_max_bytes: u64,
    pub max_call: Duration,
    /// `None` means "look on PATH when launching" (resolved by [`Config::chrome_executable`]).
    pub chrome_path: Option<PathBuf>,
    pub headless: bool,
    /// BROWSER_WS_ENDPOINT: attach to this browser instead of launching one.
    pub browser_ws_endpoint: Option<String>,
    /// ALLOW_UNGUARDED_BROWSER: use a BROWSER_WS_ENDPOINT browser that lacks the flags guarding
    /// egress (with a warning) instead of refusing it.
    pub allow_unguarded_browser: bool,
    /// EGRESS_PROXY_ADVERTISE: the host a (remote) browser reaches the per-session proxies at.
    pub egress_proxy_advertise: String,
    /// REPLICA_ID with PEERS / PEER_URL_TEMPLATE and PEER_SECRET: which replica this is, how to
    /// reach the others, and how they prove themselves.
    pub replicas: Option<Replicas>,
    pub log_format: LogFormat,
    /// TEST_PANIC_METHOD: for tests only (see [`VARS`]).
    pub test_panic_method: Option<String>,
}

impl Config {
    /// Reads the process environment.
    pub fn from_env() -> Result<Self, ConfigError> {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// Reads configuration through `lookup` (the environment, or a map in tests).
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Self, ConfigError> {
        let get = |name: &str| lookup(name).filter(|v| !v.trim().is_empty());
        let (api_key, api_key_generated) = match get("API_KEY") {
            Some(key) => (ApiKey::new(key), false),
            None => (ApiKey::generate(), true),
        };
        let allow = get("ALLOW_HOST_REGEX").unwrap_or_else(|| DEFAULT_ALLOW_HOST_REGEX.to_string());
        let allow_host_regex = regex("ALLOW_HOST_REGEX", allow)?;
        let allow_proxy_regex = get("ALLOW_PROXY_REGEX").map(|allow| regex("ALLOW_PROXY_REGEX", allow)).transpose()?;
        let replicas = replicas(&get, &api_key)?;
        Ok(Self {
            port: parse_num(&get, "PORT", 3337, 0, u16::MAX as u64)? as u16,
            host: host(&get)?,
            api_key,
            api_key_generated,
            allow_host_regex,
            allow_proxy_regex,
            block_private_ips: parse_bool(&get, "BLOCK_PRIVATE_IPS", false)?,
            refuse_password_fill: parse_bool(&get, "REFUSE_PASSWORD_FILL", false)?,
            session_ttl: Duration::from_millis(parse_num(&get, "SESSION_TTL_MS", 120_000, 1, u32::MAX as u64)?),
            rate_limit_max: parse_num(&get, "RATE_LIMIT_MAX", 120, 1, 1_000_000)? as u32,
            max_sessions: parse_num(&get, "MAX_SESSIONS", 8, 1, 1000)? as usize,
            warm_sessions: parse_num(&get, "WARM_SESSIONS", 1, 0, 100)? as usize,
            queue_timeout: Duration::from_millis(parse_num(&get, "QUEUE_TIMEOUT_MS", 0, 0, 600_000)?),
            queue_max: parse_num(&get, "QUEUE_MAX", 32, 0, 100_000)? as usize,
            metrics_api_key: get("METRICS_API_KEY").map(ApiKey::new),
            max_body_bytes: parse_num(&get, "MAX_BODY_BYTES", 524_288, 64, 64 * 1024 * 1024)? as usize,
            read_timeout: Duration::from_millis(parse_num(&get, "READ_TIMEOUT_MS", 10_000, 100, 600_000)?),
            max_unauthenticated_connections_per_ip: parse_num(
                &get,
                "MAX_UNAUTHENTICATED_CONNECTIONS_PER_IP",
                32,
                1,
                1_000_000,
            )? as usize,
            connections: ConnectionLimits::parse(&get)?,
            mcp_allowed_hosts: list(get("MCP_ALLOWED_HOSTS").as_deref().unwrap_or("localhost,127.0.0.1,::1")),
            mcp_allowed_origins: list(get("MCP_ALLOWED_ORIGINS").as_deref().unwrap_or("")),
            download_max_bytes: parse_num(&get, "DOWNLOAD_MAX_BYTES", 104_857_600, 1024, u64::MAX / 2)?,
            max_call: Duration::from_millis(parse_num(&get, "MAX_CALL_MS", 120_000, 100, 3_600_000)?),
            chrome_path: match get("CHROME_PATH") {
                Some(v) if v.trim() != "auto" => Some(PathBuf::from(v.trim())),
                _ => None,
            },
            headless: parse_bool(&get, "HEADLESS", true)?,
            browser_ws_endpoint: match get("BROWSER_WS_ENDPOINT") {
                None => None,
                Some(v) => Some(browser_endpoint(v.trim())?),
            },
            allow_unguarded_browser: parse_bool(&get, "ALLOW_UNGUARDED_BROWSER", false)?,
            egress_proxy_advertise: match get("EGRESS_PROXY_ADVERTISE") {
                None => "127.0.0.1".to_owned(),
                Some(v) => advertise_host(v.trim())?,
            },
            replicas,
            test_panic_method: get("TEST_PANIC_METHOD").map(|m| m.trim().to_owned()),
            log_format: log_format(&get)?,
        })
    }

    /// The Chromium binary to launch: CHROME_PATH, or the first known name found on PATH.
    pub fn chrome_executable(&self) -> Result<PathBuf, ConfigError> {
        if let Some(path) = &self.chrome_path {
            return if path.is_file() {
                Ok(path.clone())
            } else {
                Err(ConfigError::Invalid {
                    var: "CHROME_PATH",
                    value: path.display().to_string(),
                    reason: "no such file".into(),
                })
            };
        }
        let path_var = std::env::var_os("PATH").unwrap_or_default();
        ["chromium", "chromium-browser", "google-chrome"]
            .iter()
            .flat_map(|name| std::env::split_paths(&path_var).map(move |dir| dir.join(name)))
            .find(|candidate| candidate.is_file())
            .ok_or(ConfigError::ChromeNotFound)
    }
}

fn parse_num(
    get: &impl Fn(&str) -> Option<String>,
    var: &'static str,
    default: u64,
    min: u64,
    max: u64,
) -> Result<u64, ConfigError> {
    let Some(raw) = get(var) else { return Ok(default) };
    let invalid = |reason: String| ConfigError::Invalid { var, value: raw.clone(), reason };
    let n: u64 = raw.trim().parse().map_err(|_| invalid("expected a whole number".into()))?;
    if n < min || n > max {
        return Err(invalid(format!("expected a number from {min} to {max}")));
    }
    Ok(n)
}

/// A regular expression from `var`'s value.
fn regex(var: &'static str, value: String) -> Result<Regex, ConfigError> {
    Regex::new(&value).map_err(|e| ConfigError::Invalid { var, value, reason: e.to_string() })
}

/// HOST: the address to listen on (127.0.0.1 by default).
fn host(get: &impl Fn(&str) -> Option<String>) -> Result<IpAddr, ConfigError> {
    match get("HOST") {
        None => Ok(IpAddr::from([127, 0, 0, 1])),
        Some(v) => v.trim().parse().map_err(|_| ConfigError::Invalid {
            var: "HOST",
            value: v.clone(),
            reason: "expected an IP address such as 127.0.0.1 or 0.0.0.0".into(),
        }),
    }
}

/// LOG_FORMAT: json (the default) or pretty.
fn log_format(get: &impl Fn(&str) -> Option<String>) -> Result<LogFormat, ConfigError> {
    match get("LOG_FORMAT").as_deref().map(str::trim) {
        None | Some("json") => Ok(LogFormat::Json),
        Some("pretty") => Ok(LogFormat::Pretty),
        Some(other) => Err(ConfigError::Invalid {
            var: "LOG_FORMAT",
            value: other.into(),
            reason: "expected json or pretty".into(),
        }),
    }
}

fn parse_bool(get: &impl Fn(&str) -> Option<String>, var: &'static str, default: bool) -> Result<bool, ConfigError> {
    match get(var).as_deref().map(|v| v.trim().to_ascii_lowercase()) {
        None => Ok(default),
        Some(v) if matches!(v.as_str(), "true" | "1" | "yes") => Ok(true),
        Some(v) if matches!(v.as_str(), "false" | "0" | "no") => Ok(false),
        Some(v) => Err(ConfigError::Invalid { var, value: v, reason: "expected true or false".into() }),
    }
}

/// The text `text-browser --help` prints.
pub fn help_text() -> String {
    let mut out = String::from(
        "text-browser: a JSON-RPC service (POST /rpc, WebSocket on /rpc) that lets agents see and drive web apps\n\
         through one shared headless Chromium.\n\nUsage: text-browser [--help | --chromium-flags | --agent-instructions]\n\n\
         Configuration (environment variables):\n",
    );
    for var in VARS {
        out.push_str(&format!("  {:<18} default {:<12} {}\n", var.name, short_default(var), var.meaning));
    }
    out.push_str("\nEndpoints: POST /rpc, GET /healthz, GET /metrics. See README.md for the methods.\n");
    out
}

fn short_default(var: &EnvVar) -> &'static str {
    if var.name == "ALLOW_HOST_REGEX" { "localhost" } else { var.default }
}

/// BROWSER_WS_ENDPOINT: a `ws://` (or `wss://`) DevTools browser URL, or the `http://` address of a
/// Chromium's DevTools port (its `/json/version` names the browser's URL).
fn browser_endpoint(value: &str) -> Result<String, ConfigError> {
    let invalid = |reason: &str| ConfigError::Invalid {
        var: "BROWSER_WS_ENDPOINT",
        value: value.to_owned(),
        reason: reason.to_owned(),
    };
    let url = url::Url::parse(value).map_err(|e| invalid(&format!("not a URL: {e}")))?;
    if !matches!(url.scheme(), "ws" | "wss" | "http" | "https") || url.host_str().is_none() {
        return Err(invalid("expected ws://host:port/devtools/browser/<id> or http://host:port"));
    }
    Ok(value.to_owned())
}

/// EGRESS_PROXY_ADVERTISE: a host name or IP address, nothing more.
fn advertise_host(value: &str) -> Result<String, ConfigError> {
    let valid = !value.is_empty()
        && (value.parse::<IpAddr>().is_ok()
            || value.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.'));
    if !valid {
        return Err(ConfigError::Invalid {
            var: "EGRESS_PROXY_ADVERTISE",
            value: value.to_owned(),
            reason: "expected a host name or an IP address (no scheme, no port)".into(),
        });
    }
    Ok(value.to_owned())
}

/// REPLICA_ID, PEERS, PEER_URL_TEMPLATE, REPLICA_COUNT and PEER_SECRET: all unset, or REPLICA_ID
/// with at least one way to find the others and the secret they share.
fn replicas(get: &impl Fn(&str) -> Option<String>, api_key: &ApiKey) -> Result<Option<Replicas>, ConfigError> {
    let (id, peers, template) = (get("REPLICA_ID"), get("PEERS"), get("PEER_URL_TEMPLATE"));
    let Some(id) = id else {
        let unused = [("PEERS", peers), ("PEER_URL_TEMPLATE", template), ("PEER_SECRET", get("PEER_SECRET"))];
        return match unused.into_iter().find_map(|(var, value)| Some(var).zip(value)) {
            None => Ok(None),
            Some((var, value)) => Err(ConfigError::Invalid {
                var,
                value: if var == "PEER_SECRET" { "(hidden)".into() } else { value },
                reason: "set REPLICA_ID too: peers are only used by a named replica".into(),
            }),
        };
    };
    let count = get("REPLICA_COUNT");
    let settings = crate::replica::Settings {
        me: id.trim(),
        peers: peers.as_deref(),
        template: template.as_deref().map(str::trim),
        count: count.as_deref(),
    };
    let topology =
        Topology::parse(settings).map_err(|(var, value, reason)| ConfigError::Invalid { var, value, reason })?;
    let secret = match get("PEER_SECRET") {
        Some(secret) if secret.len() >= MIN_SECRET_LEN && secret != api_key.expose() => PeerSecret::new(&secret),
        found => {
            return Err(ConfigError::Invalid {
                var: "PEER_SECRET",
                value: if found.is_some() { "(hidden)".into() } else { String::new() },
                reason: format!(
                    "REPLICA_ID needs a PEER_SECRET of at least {MIN_SECRET_LEN} characters that differs from \
                     API_KEY, the same on every replica (e.g. openssl rand -hex 32)"
                ),
            });
        }
    };
    Ok(Some(Replicas { topology, secret }))
}

/// A comma-separated list, trimmed, without empty items.
fn list(value: &str) -> Vec<String> {
    value.split(',').map(str::trim).filter(|s| !s.is_empty()).map(str::to_owned).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replica::Owner;
    use std::collections::HashMap;

    fn config(pairs: &[(&str, &str)]) -> Result<Config, ConfigError> {
        let map: HashMap<String, String> = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        Config::from_lookup(|name| map.get(name).cloned())
    }

    #[test]
    fn defaults_match_the_documented_table() {
        let c = config(&[]).unwrap();
        assert_eq!(c.port, 3337);
        assert_eq!(c.host.to_string(), "127.0.0.1");
        assert!(c.api_key_generated);
        assert_eq!(c.allow_host_regex.as_str(), DEFAULT_ALLOW_HOST_REGEX);
        assert!(c.allow_proxy_regex.is_none(), "no upstream proxy is allowed by default");
        assert_eq!(c.session_ttl, Duration::from_millis(120_000));
        assert_eq!(c.rate_limit_max, 120);
        assert_eq!(c.max_sessions, 8);
        assert_eq!(c.max_body_bytes, 524_288);
        assert!(c.headless);
        assert_eq!(c.log_format, LogFormat::Json);
        for var in VARS {
            let documented = var.default;
            let parsed = match var.name {
                "PORT" => c.port.to_string(),
                "SESSION_TTL_MS" => c.session_ttl.as_millis().to_string(),
                "RATE_LIMIT_MAX" => c.rate_limit_max.to_string(),
                "MAX_SESSIONS" => c.max_sessions.to_string(),
                "WARM_SESSIONS" => c.warm_sessions.to_string(),
                "QUEUE_TIMEOUT_MS" => c.queue_timeout.as_millis().to_string(),
                "QUEUE_MAX" => c.queue_max.to_string(),
                "MAX_BODY_BYTES" => c.max_body_bytes.to_string(),
                "READ_TIMEOUT_MS" => c.read_timeout.as_millis().to_string(),
                "MAX_UNAUTHENTICATED_CONNECTIONS_PER_IP" => c.max_unauthenticated_connections_per_ip.to_string(),
                "MAX_CONNECTIONS" => c.connections.max.to_string(),
                "MAX_WEBSOCKETS_PER_IP" => c.connections.websockets_per_ip.to_string(),
                "WS_IDLE_TIMEOUT_MS" => c.connections.websocket_idle.as_millis().to_string(),
                "DOWNLOAD_MAX_BYTES" => c.download_max_bytes.to_string(),
                "MAX_CALL_MS" => c.max_call.as_millis().to_string(),
                _ => continue,
            };
            assert_eq!(parsed, documented, "{}", var.name);
        }
    }

    #[test]
    fn default_allow_list_admits_localhost_and_refuses_others() {
        let re = config(&[]).unwrap().allow_host_regex;
        assert!(re.is_match("http://localhost:8080/x"));
        assert!(re.is_match("https://127.0.0.1/"));
        assert!(!re.is_match("http://localhost.evil.com/"));
        assert!(!re.is_match("http://169.254.169.254/"));
    }

    #[test]
    fn bad_values_name_the_variable() {
        for (var, value) in [
            ("PORT", "http"),
            ("PORT", "70000"),
            ("HOST", "my-host"),
            ("ALLOW_HOST_REGEX", "(unclosed"),
            ("ALLOW_PROXY_REGEX", "[z-a]"),
            ("SESSION_TTL_MS", "-5"),
            ("MAX_SESSIONS", "0"),
            ("WARM_SESSIONS", "101"),
            ("WARM_SESSIONS", "-1"),
            ("QUEUE_TIMEOUT_MS", "soon"),
            ("QUEUE_TIMEOUT_MS", "600001"),
            ("READ_TIMEOUT_MS", "50"),
            ("MAX_UNAUTHENTICATED_CONNECTIONS_PER_IP", "0"),
            ("MAX_CONNECTIONS", "0"),
            ("MAX_WEBSOCKETS_PER_IP", "many"),
            ("WS_IDLE_TIMEOUT_MS", "10"),
            ("HEADLESS", "maybe"),
            ("LOG_FORMAT", "xml"),
            ("BROWSER_WS_ENDPOINT", "localhost:9222"),
            ("EGRESS_PROXY_ADVERTISE", "http://10.0.0.1:80"),
            ("PEERS", "a=http://h:1"),
        ] {
            let err = config(&[(var, value)]).unwrap_err();
            assert!(err.to_string().starts_with(var), "{var}: {err}");
        }
    }

    #[test]
    fn explicit_values_are_used() {
        let c = config(&[
            ("PORT", "0"),
            ("HOST", "0.0.0.0"),
            ("API_KEY", "s3cret"),
            ("HEADLESS", "false"),
            ("LOG_FORMAT", "pretty"),
            ("MAX_SESSIONS", "2"),
            ("WARM_SESSIONS", "0"),
            ("QUEUE_TIMEOUT_MS", "2500"),
            ("METRICS_API_KEY", "m3trics"),
        ])
        .unwrap();
        assert_eq!(c.warm_sessions, 0);
        assert_eq!(c.queue_timeout, Duration::from_millis(2500));
        assert_eq!(c.metrics_api_key.as_ref().map(ApiKey::expose), Some("m3trics"));
        assert_eq!(c.port, 0);
        assert_eq!(c.host.to_string(), "0.0.0.0");
        assert_eq!(c.api_key.expose(), "s3cret");
        assert!(!c.api_key_generated);
        assert!(!c.headless);
        assert_eq!(c.log_format, LogFormat::Pretty);
        assert_eq!(c.max_sessions, 2);
    }

    #[test]
    fn replica_settings_are_checked_together() {
        assert!(config(&[]).unwrap().replicas.is_none(), "without REPLICA_ID nothing changes");
        let peers = ("PEERS", "tb-0=http://127.0.0.1:4000, tb-2=http://127.0.0.1:4002");
        let secret = ("PEER_SECRET", "0123456789abcdef0123");
        let c = config(&[("REPLICA_ID", "tb-1"), peers, secret]).unwrap();
        let topology = c.replicas.unwrap().topology;
        assert_eq!(topology.me(), "tb-1");
        let owner = topology.owner("tb-2.x");
        assert!(matches!(owner, Owner::Peer(ref p) if p.url == "http://127.0.0.1:4002"), "{owner:?}");
        for (var, pairs) in [
            ("REPLICA_ID", vec![("REPLICA_ID", "Tb_1"), ("PEER_URL_TEMPLATE", "http://{replica}:1")]),
            ("REPLICA_ID", vec![("REPLICA_ID", "tb-1")]),
            ("PEERS", vec![("REPLICA_ID", "tb-1"), ("PEERS", "tb-0")]),
            ("PEERS", vec![("REPLICA_ID", "tb-1"), ("PEERS", "tb-0=ftp://x")]),
            ("PEER_URL_TEMPLATE", vec![("REPLICA_ID", "tb-1"), ("PEER_URL_TEMPLATE", "http://fixed:1")]),
            ("PEER_URL_TEMPLATE", vec![("REPLICA_ID", "tb-1"), ("PEER_URL_TEMPLATE", "http://{replica}:1")]),
            (
                "REPLICA_COUNT",
                vec![("REPLICA_ID", "tb-1"), ("PEER_URL_TEMPLATE", "http://{replica}:1"), ("REPLICA_COUNT", "1")],
            ),
            ("PEER_SECRET", vec![("REPLICA_ID", "tb-1"), peers]),
            ("PEER_SECRET", vec![("REPLICA_ID", "tb-1"), peers, ("PEER_SECRET", "short")]),
            ("PEER_SECRET", vec![("REPLICA_ID", "tb-1"), peers, ("API_KEY", secret.1), secret]),
            ("PEER_SECRET", vec![secret]),
        ] {
            let err = config(&pairs).unwrap_err();
            assert!(err.to_string().starts_with(var), "{pairs:?}: {err}");
            assert!(!err.to_string().contains(secret.1), "the secret is never echoed: {err}");
        }
    }

    #[test]
    fn api_key_is_never_in_debug_output() {
        let c = config(&[("API_KEY", "super-secret-key")]).unwrap();
        assert!(!format!("{c:?}").contains("super-secret-key"));
    }

    #[test]
    fn help_lists_every_variable() {
        let help = help_text();
        for var in VARS {
            assert!(help.contains(var.name), "{}", var.name);
        }
    }
}
