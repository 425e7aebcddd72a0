//! `cookies.get`, `cookies.set`, `cookies.clear`: the session's cookie jar.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::error::ApiError;
use super::registry::{Call, MethodSpec, Params, page_method};
use crate::browser::{Cookie, Page, SameSite};

const TIMEOUT_MS: u64 = 10_000;

/// The session's cookies (every domain), in the shape `cookies.set` and
/// `session.create({storageState})` take; `domain` narrows them to one host and its subdomains.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct CookiesGetParams {
    /// Only cookies for this host (and its subdomains).
    pub domain: Option<String>,
}

impl Params for CookiesGetParams {}

#[derive(Debug, Serialize, JsonSchema)]
pub struct CookiesResult {
    pub cookies: Vec<Cookie>,
}

/// Sets cookies, checked first as `session.create`'s `storageState` cookies are: a cookie a
/// browser would refuse or drop is `invalid_params` naming it (`cookies[1].domain`). Answers with
/// every cookie of the session.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct CookiesSetParams {
    /// [{name, value, domain, path?, expires?, httpOnly?, secure?, sameSite?}]
    pub cookies: Vec<Cookie>,
}

impl Params for CookiesSetParams {}

/// Deletes every cookie of the session (logs it out of cookie-based sessions).
#[derive(Debug, Deserialize, JsonSchema)]
pub struct CookiesClearParams {}

impl Params for CookiesClearParams {}

#[derive(Debug, Serialize, JsonSchema)]
pub struct CookiesClearResult {
    /// How many cookies were deleted.
    pub cleared: usize,
}

pub fn methods() -> Vec<MethodSpec> {
    vec![
        page_method("cookies.get", "The session's cookies.", TIMEOUT_MS, get).example(r#"{"domain":"127.0.0.1"}"#),
        page_method("cookies.set", "Set cookies in the session.", TIMEOUT_MS, set)
            .example(r#"{"cookies":[{"name":"theme","value":"dark","domain":"127.0.0.1"}]}"#),
        page_method("cookies.clear", "Delete every cookie of the session.", TIMEOUT_MS, clear),
    ]
}

/// A cookie as Chromium lists it, in our (storageState) shape.
pub(super) fn from_cdp(c: &Value) -> Option<Cookie> {
    let text = |k: &str| c.get(k).and_then(Value::as_str).map(str::to_owned);
    let flag = |k: &str| c.get(k).and_then(Value::as_bool).unwrap_or(false);
    let session = flag("session");
    Some(Cookie {
        name: text("name")?,
        value: text("value")?,
        domain: text("domain")?,
        path: text("path").unwrap_or_else(|| "/".into()),
        expires: Some(if session { -1.0 } else { c.get("expires").and_then(Value::as_f64).unwrap_or(-1.0) }),
        http_only: flag("httpOnly"),
        secure: flag("secure"),
        same_site: match c.get("sameSite").and_then(Value::as_str) {
            Some("Strict") => Some(SameSite::Strict),
            Some("Lax") => Some(SameSite::Lax),
            Some("None") => Some(SameSite::None),
            _ => None,
        },
    })
}

async fn all(call: &Call, page: &Page) -> Result<Vec<Cookie>, ApiError> {
    Ok(page.site_data().cookies(call.deadline).await?.iter().filter_map(from_cdp).collect())
}

async fn get(call: Call, page: Page, p: CookiesGetParams) -> Result<CookiesResult, ApiError> {
    let mut cookies = all(&call, &page).await?;
    if let Some(domain) = p.domain {
        let want = domain.trim_start_matches('.').to_ascii_lowercase();
        cookies.retain(|c| {
            let host = c.domain.trim_start_matches('.').to_ascii_lowercase();
            host == want || want.ends_with(&format!(".{host}")) || host.ends_with(&format!(".{want}"))
        });
    }
    Ok(CookiesResult { cookies })
}

async fn set(call: Call, page: Page, p: CookiesSetParams) -> Result<CookiesResult, ApiError> {
    if p.cookies.is_empty() {
        return Err(ApiError::invalid("cookies", "give at least one cookie"));
    }
    for (i, cookie) in p.cookies.iter().enumerate() {
        cookie.check().map_err(|problem| {
            ApiError::invalid(
                format!("cookies[{i}].{}", problem.field),
                format!("cookies[{i}] ({:?}): {} {}", cookie.name, problem.field, problem.why),
            )
        })?;
    }
    page.site_data().set_cookies(p.cookies.iter().map(Cookie::to_cdp).collect(), call.deadline).await?;
    let kept = page.site_data().cookies(call.deadline).await?;
    if let Some(i) = p.cookies.iter().position(|c| !kept.iter().any(|k| c.is(k))) {
        return Err(ApiError::invalid(
            format!("cookies[{i}]"),
            format!(
                "Chromium did not keep cookies[{i}] ({:?} for domain {:?}): give the site's own host \
                 (e.g. localhost, 127.0.0.1 or .example.com)",
                p.cookies[i].name, p.cookies[i].domain
            ),
        ));
    }
    Ok(CookiesResult { cookies: kept.iter().filter_map(from_cdp).collect() })
}

async fn clear(call: Call, page: Page, _: CookiesClearParams) -> Result<CookiesClearResult, ApiError> {
    let cleared = page.site_data().cookies(call.deadline).await?.len();
    page.site_data().clear_cookies(call.deadline).await?;
    Ok(CookiesClearResult { cleared })
}
