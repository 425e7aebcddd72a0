//! What a session can be created with: viewport, user agent, storage state and proxy.
//!
//! These types are also the wire format of `session.create`'s params (they derive `Deserialize`
//! and `JsonSchema`), so the contract and the code cannot disagree. Storage state follows
//! Playwright's `storageState` shape so existing files can be reused.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::browser::page::{ColorScheme, HttpCredentials, Viewport};
use crate::egress::Upstream;

/// A per-session upstream proxy: the session's traffic still passes the egress policy first, then
/// goes on through this proxy (http:// only), except for hosts in `bypass`. The proxy itself must
/// match ALLOW_PROXY_REGEX (by default none is allowed) and, with BLOCK_PRIVATE_IPS, resolve to
/// public addresses only.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Proxy {
    /// e.g. `http://127.0.0.1:8080`.
    pub server: String,
    /// Comma-separated hosts that go direct instead, e.g. `localhost,.internal`.
    #[serde(default)]
    pub bypass: Option<String>,
}

/// Cookies and localStorage to start the session with (Playwright's storageState shape).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StorageState {
    #[serde(default)]
    pub cookies: Vec<Cookie>,
    #[serde(default)]
    pub origins: Vec<OriginStorage>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Cookie {
    pub name: String,
    pub value: String,
    pub domain: String,
    #[serde(default = "root_path")]
    pub path: String,
    /// Unix time in seconds; -1 or absent for a session cookie.
    #[serde(default)]
    pub expires: Option<f64>,
    #[serde(default)]
    pub http_only: bool,
    #[serde(default)]
    pub secure: bool,
    /// Strict, Lax or None.
    #[serde(default)]
    pub same_site: Option<SameSite>,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub enum SameSite {
    Strict,
    Lax,
    None,
}

fn root_path() -> String {
    "/".into()
}

/// A cookie field a browser would refuse, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct CookieProblem {
    /// The field (`name`, `value`, `domain`, `path`, `expires`, `sameSite`).
    pub field: &'static str,
    pub why: String,
}

/// Bytes of name and value together a browser accepts.
const MAX_COOKIE_BYTES: usize = 4096;

impl Cookie {
    /// Checks the cookie by the rules browsers apply (RFC 6265bis as Chromium implements it), so
    /// a cookie Chromium would refuse, or silently drop, is the caller's error to fix.
    pub fn check(&self) -> Result<(), CookieProblem> {
        let problem = |field, why: String| Err(CookieProblem { field, why });
        let forbidden = |s: &str| s.chars().find(|c| *c == ';' || c.is_control());
        if self.name.trim() != self.name {
            return problem("name", "has spaces at its start or end".into());
        }
        if let Some(c) = forbidden(&self.name).or_else(|| self.name.chars().find(|c| *c == '=')) {
            return problem("name", format!("holds {c:?}, which a cookie name cannot"));
        }
        if self.name.is_empty() && self.value.is_empty() {
            return problem("name", "is empty (and so is the value)".into());
        }
        if let Some(c) = forbidden(&self.value) {
            return problem("value", format!("holds {c:?}, which a cookie value cannot"));
        }
        if self.name.len() + self.value.len() > MAX_COOKIE_BYTES {
            return problem("value", format!("name and value are over {MAX_COOKIE_BYTES} bytes together"));
        }
        let host = self.domain.strip_prefix('.').unwrap_or(&self.domain);
        if host.is_empty() {
            return problem(
                "domain",
                "is empty; give the host the cookie is for, such as localhost or .example.com".into(),
            );
        }
        let ipv6 = host.starts_with('[');
        if host.contains(['/', ' ']) || (!ipv6 && host.contains(':')) || url::Host::parse(host).is_err() {
            return problem(
                "domain",
                format!("{:?} is not a host name (no scheme, port, path or spaces)", self.domain),
            );
        }
        if !self.path.starts_with('/') {
            return problem("path", format!("{:?} must start with /", self.path));
        }
        if let Some(c) = forbidden(&self.path) {
            return problem("path", format!("holds {c:?}, which a cookie path cannot"));
        }
        if let Some(expires) = self.expires
            && !(expires == -1.0 || (expires.is_finite() && expires >= 0.0))
        {
            return problem("expires", format!("{expires} is not a Unix time in seconds (or -1 for a session cookie)"));
        }
        if let Some(expires) = self.expires.filter(|e| *e > 0.0) {
            let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
            if expires < now.as_secs_f64() {
                return problem(
                    "expires",
                    format!(
                        "{expires} is in the past, so a browser deletes the cookie at once; renew it or leave it out"
                    ),
                );
            }
        }
        if self.same_site == Some(SameSite::None) && !self.secure {
            return problem(
                "sameSite",
                "None needs secure: true (browsers drop SameSite=None cookies that are not Secure)".into(),
            );
        }
        if (self.name.starts_with("__Secure-") || self.name.starts_with("__Host-")) && !self.secure {
            return problem("name", "a __Secure- or __Host- cookie needs secure: true".into());
        }
        if self.name.starts_with("__Host-") && self.path != "/" {
            return problem("path", "a __Host- cookie needs path /".into());
        }
        Ok(())
    }

    /// Whether `other` (a cookie as Chromium lists it) is this cookie.
    pub fn is(&self, other: &Value) -> bool {
        let bare = |d: &str| d.trim_start_matches('.').to_ascii_lowercase();
        other["name"] == self.name.as_str()
            && other["path"] == self.path.as_str()
            && other["domain"].as_str().is_some_and(|d| bare(d) == bare(&self.domain))
    }

    /// The CDP `Network.CookieParam` for this cookie.
    pub fn to_cdp(&self) -> Value {
        let mut cookie = json!({
            "name": self.name, "value": self.value, "domain": self.domain, "path": self.path,
            "httpOnly": self.http_only, "secure": self.secure,
        });
        if let Some(expires) = self.expires.filter(|e| *e >= 0.0) {
            cookie["expires"] = json!(expires);
        }
        if let Some(same_site) = self.same_site {
            cookie["sameSite"] = json!(same_site);
        }
        cookie
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct OriginStorage {
    /// e.g. `http://localhost:8080`
    pub origin: String,
    #[serde(default)]
    pub local_storage: Vec<StorageItem>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StorageItem {
    pub name: String,
    pub value: String,
}

/// Everything a new session is set up with.
#[derive(Debug, Clone, Default)]
pub struct SessionOptions {
    pub viewport: Viewport,
    pub user_agent: Option<String>,
    pub storage_state: Option<StorageState>,
    /// The upstream proxy, admitted by the egress policy (see `egress::upstream`).
    pub proxy: Option<Upstream>,
    pub emulation: Emulation,
    /// Failed calls' evidence includes a small screenshot.
    pub evidence_screenshots: bool,
    /// Source maps off: every location as the browser served it.
    pub served_locations: bool,
}

/// Where and how the session's pages believe they run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Emulation {
    /// A BCP 47 locale (`de-DE`): Intl formatting and navigator.language.
    pub locale: Option<String>,
    /// An IANA time zone (`Europe/Berlin`).
    pub timezone_id: Option<String>,
    pub geolocation: Option<Geolocation>,
    pub color_scheme: Option<ColorScheme>,
    /// false: the page's own scripts do not run.
    pub java_script_enabled: Option<bool>,
    /// Sent with every request of the session.
    pub extra_http_headers: Vec<(String, String)>,
    /// Answers HTTP authentication challenges (every request is then held briefly by Chromium).
    pub http_credentials: Option<HttpCredentials>,
}

/// A position `navigator.geolocation` reports (permission granted).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Geolocation {
    /// -90 to 90.
    pub latitude: f64,
    /// -180 to 180.
    pub longitude: f64,
    /// Metres (default 10).
    #[serde(default)]
    pub accuracy: Option<f64>,
}

impl Geolocation {
    pub fn validate(&self) -> Result<(), String> {
        if !(-90.0..=90.0).contains(&self.latitude) || !(-180.0..=180.0).contains(&self.longitude) {
            return Err("latitude must be -90 to 90 and longitude -180 to 180".into());
        }
        if self.accuracy.is_some_and(|a| !(a >= 0.0 && a.is_finite())) {
            return Err("accuracy must be 0 or more metres".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cookie(fields: Value) -> Cookie {
        let mut base = json!({ "name": "a", "value": "b", "domain": "localhost" });
        base.as_object_mut().unwrap().extend(fields.as_object().unwrap().clone());
        serde_json::from_value(base).unwrap()
    }

    #[test]
    fn each_cookie_field_a_browser_would_refuse_is_named() {
        for (fields, field) in [
            (json!({ "name": "a;b" }), "name"),
            (json!({ "name": "a=b" }), "name"),
            (json!({ "name": " a" }), "name"),
            (json!({ "name": "", "value": "" }), "name"),
            (json!({ "value": "x;y" }), "value"),
            (json!({ "value": "x\ny" }), "value"),
            (json!({ "value": "v".repeat(5000) }), "value"),
            (json!({ "domain": "x y" }), "domain"),
            (json!({ "domain": "" }), "domain"),
            (json!({ "domain": "http://example.com" }), "domain"),
            (json!({ "domain": "example.com:8080" }), "domain"),
            (json!({ "path": "admin" }), "path"),
            (json!({ "expires": -5 }), "expires"),
            (json!({ "expires": 1_000_000_000 }), "expires"),
            (json!({ "sameSite": "None" }), "sameSite"),
            (json!({ "name": "__Host-x", "secure": true, "path": "/app" }), "path"),
            (json!({ "name": "__Secure-x" }), "name"),
        ] {
            let problem = cookie(fields.clone()).check().unwrap_err();
            assert_eq!(problem.field, field, "{fields}: {problem:?}");
        }
        for fine in [
            json!({}),
            json!({ "domain": ".example.com", "expires": -1 }),
            json!({ "domain": "127.0.0.1", "expires": 1893456000 }),
            json!({ "domain": "[::1]" }),
            json!({ "sameSite": "None", "secure": true }),
            json!({ "name": "", "value": "only-a-value" }),
        ] {
            assert_eq!(cookie(fine.clone()).check(), Ok(()), "{fine}");
        }
    }

    #[test]
    fn a_listed_cookie_is_matched_by_name_domain_and_path() {
        let c = cookie(json!({ "domain": ".Example.com" }));
        assert!(c.is(&json!({ "name": "a", "domain": "example.com", "path": "/" })));
        assert!(!c.is(&json!({ "name": "a", "domain": "other.com", "path": "/" })));
    }

    #[test]
    fn session_cookie_has_no_expiry_in_cdp_form() {
        let c: Cookie = serde_json::from_value(json!({
            "name":"a","value":"b","domain":"localhost","expires":-1,"sameSite":"Lax"
        }))
        .unwrap();
        let cdp = c.to_cdp();
        assert!(cdp.get("expires").is_none());
        assert_eq!(cdp["sameSite"], "Lax");
        assert_eq!(cdp["path"], "/");
    }
}
