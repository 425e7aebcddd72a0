//! What a session can be created with: viewport, user agent, storage state and proxy.
//!
//! These types are also the wire format of `session.create`'s params (they derive `Deserialize`
//! and `JsonSchema`), so the contract and the code cannot disagree. Storage state follows
//! Playwright's `storageState` shape so existing files can be reused.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::browser::page::Viewport;
use crate::egress::proxy::Upstream;

/// A per-session upstream proxy: the session's traffic still passes the egress policy first, then
/// goes on through this proxy (http:// only), except for hosts in `bypass`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Proxy {
    /// e.g. `http://127.0.0.1:8080`.
    pub server: String,
    /// Comma-separated hosts that go direct instead, e.g. `localhost,.internal`.
    #[serde(default)]
    pub bypass: Option<String>,
}

impl Proxy {
    pub fn validate(&self) -> Result<(), String> {
        self.upstream().map(|_| ())
    }

    /// Where the session's egress proxy sends allowed traffic.
    pub fn upstream(&self) -> Result<Upstream, String> {
        Upstream::parse(&self.server, self.bypass.as_deref())
    }
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

impl Cookie {
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
    pub proxy: Option<Proxy>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proxy_needs_a_scheme_and_host() {
        assert!(Proxy { server: "http://127.0.0.1:3128".into(), bypass: None }.validate().is_ok());
        assert!(Proxy { server: "127.0.0.1:3128".into(), bypass: None }.validate().is_err());
        assert!(Proxy { server: "http://".into(), bypass: None }.validate().is_err());
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
