//! `network.route`, `network.unroute`, `network.list`: mock or block a session's requests.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::error::ApiError;
use super::header_text;
use super::registry::{Call, MethodSpec, Params, page_method};
use crate::browser::{Page, Route, RouteAction, UrlGlob, Wildcards};

const TIMEOUT_MS: u64 = 10_000;
/// Largest mocked body, in bytes.
const MAX_BODY: usize = 1024 * 1024;

/// A mocked answer.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MockResponse {
    /// HTTP status, 100 to 599 (default 200).
    pub status: Option<u16>,
    /// Response headers: {"name": "value"}.
    pub headers: Option<BTreeMap<String, String>>,
    /// The body as text.
    pub body: Option<String>,
    /// A JSON body (sets content-type: application/json unless headers give one).
    pub json: Option<Value>,
}

/// Answers the session's requests whose URL matches `urlPattern` (a glob over the whole URL: `*`
/// any characters, `?` one; `*/api/stats*`) with `response` (`{status, headers, body | json}`), or
/// fails them with `abort: true`: see how the page copes with a 500, an empty list or a changed
/// shape. The newest matching route wins; routes last for the session. Mocked requests show in
/// `network.pull` and `effects`. A host ALLOW_HOST_REGEX refuses is never mocked: it stays refused.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RouteParams {
    /// A glob over the whole URL: `*` any characters, `?` one.
    pub url_pattern: String,
    /// The answer to give. Give this or `abort`.
    pub response: Option<MockResponse>,
    /// Fail matching requests with a network error.
    pub abort: Option<bool>,
}

impl Params for RouteParams {}

/// Removes routes: the one with `routeId`, or every route with `urlPattern`. Requests they held
/// go to the server again.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct UnrouteParams {
    /// The id network.route answered.
    pub route_id: Option<u64>,
    /// Remove every route with exactly this pattern.
    pub url_pattern: Option<String>,
}

impl Params for UnrouteParams {}

/// The session's routes, newest last, with how many requests each answered.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ListRoutesParams {}

impl Params for ListRoutesParams {}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RouteView {
    pub route_id: u64,
    pub url_pattern: String,
    /// `fulfill 503` or `abort`.
    pub action: String,
    /// Requests it answered so far.
    pub hits: u64,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RoutesResult {
    /// The route this call added (network.route only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub route_id: Option<u64>,
    /// How many routes this call removed (network.unroute only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub removed: Option<usize>,
    pub routes: Vec<RouteView>,
}

pub fn methods() -> Vec<MethodSpec> {
    vec![
        page_method("network.route", "Answer matching requests with a mock, or abort them.", TIMEOUT_MS, route)
            .example(r#"{"urlPattern":"*/api/stats","response":{"status":503,"json":{"error":"maintenance"}}}"#),
        page_method("network.unroute", "Remove a route by id or pattern.", TIMEOUT_MS, unroute)
            .example(r#"{"urlPattern":"*/api/stats"}"#),
        page_method("network.list", "The session's routes and their hits.", TIMEOUT_MS, list),
    ]
}

fn view(page: &Page) -> Vec<RouteView> {
    page.interception()
        .routes()
        .into_iter()
        .map(|r: Route| RouteView {
            route_id: r.id,
            url_pattern: r.pattern,
            action: match r.action {
                RouteAction::Abort => "abort".into(),
                RouteAction::Fulfill { status, .. } => format!("fulfill {status}"),
            },
            hits: r.hits,
        })
        .collect()
}

fn mock(response: MockResponse) -> Result<RouteAction, ApiError> {
    let status = response.status.unwrap_or(200);
    if !(100..=599).contains(&status) {
        return Err(ApiError::invalid("response.status", "response.status must be 100 to 599"));
    }
    let mut headers: Vec<(String, String)> = response.headers.unwrap_or_default().into_iter().collect();
    for (name, value) in &headers {
        if let Some(problem) = header_text::name_problem(name).or_else(|| header_text::value_problem(value)) {
            return Err(ApiError::invalid("response.headers", format!("header {name:?}: {problem}")));
        }
    }
    let has_type = headers.iter().any(|(n, _)| n.eq_ignore_ascii_case("content-type"));
    let body = match (response.body, response.json) {
        (Some(_), Some(_)) => return Err(ApiError::invalid("response.json", "give body or json, not both")),
        (Some(text), None) => text.into_bytes(),
        (None, Some(json)) => {
            if !has_type {
                headers.push(("content-type".into(), "application/json".into()));
            }
            json.to_string().into_bytes()
        }
        (None, None) => Vec::new(),
    };
    if body.len() > MAX_BODY {
        return Err(ApiError::invalid("response.body", format!("a mocked body is at most {MAX_BODY} bytes")));
    }
    Ok(RouteAction::Fulfill { status, headers, body })
}

async fn route(call: Call, page: Page, p: RouteParams) -> Result<RoutesResult, ApiError> {
    if p.url_pattern.trim().is_empty() {
        return Err(ApiError::invalid("urlPattern", "urlPattern must not be empty"));
    }
    let action = match (p.response, p.abort) {
        (Some(_), Some(true)) => return Err(ApiError::invalid("abort", "give response or abort: true, not both")),
        (Some(response), _) => mock(response)?,
        (None, Some(true)) => RouteAction::Abort,
        (None, _) => return Err(ApiError::invalid("response", "give response {status, body | json} or abort: true")),
    };
    let glob = UrlGlob::parse(&p.url_pattern, Wildcards::StarAndQuestion)
        .map_err(|message| ApiError::invalid("urlPattern", message))?;
    let policy = call.ctx.sessions.policy().clone();
    let id = page.interception().route(&glob, action, policy, call.deadline).await?;
    Ok(RoutesResult { route_id: Some(id), removed: None, routes: view(&page) })
}

async fn unroute(call: Call, page: Page, p: UnrouteParams) -> Result<RoutesResult, ApiError> {
    if p.route_id.is_none() && p.url_pattern.is_none() {
        return Err(ApiError::invalid("routeId", "give routeId or urlPattern"));
    }
    let removed = page.interception().unroute(p.route_id, p.url_pattern.as_deref(), call.deadline).await?;
    if removed == 0 {
        let known: Vec<String> = view(&page).into_iter().map(|r| format!("{} {}", r.route_id, r.url_pattern)).collect();
        return Err(ApiError::invalid(
            if p.route_id.is_some() { "routeId" } else { "urlPattern" },
            format!("no such route in this session (it has: {known:?})"),
        ));
    }
    Ok(RoutesResult { route_id: None, removed: Some(removed), routes: view(&page) })
}

async fn list(_call: Call, page: Page, _: ListRoutesParams) -> Result<RoutesResult, ApiError> {
    Ok(RoutesResult { route_id: None, removed: None, routes: view(&page) })
}
