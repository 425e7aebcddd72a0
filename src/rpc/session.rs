//! `session.*`: creating and closing sessions.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use std::time::Duration;

use serde_json::Value;
use tokio::time::Instant;

use super::RpcContext;
use super::error::{ApiError, ErrorKind};
use super::header_text;
use super::page::{NavigationResult, WaitUntil, navigate};
use super::registry::{Hints, MethodSpec, Params, method};
use crate::browser::{
    BrowserError, CloseReason, ColorScheme, Emulation, Geolocation, HttpCredentials, Proxy, SessionOptions,
    StorageState, Viewport, cdp,
};
use crate::egress::Upstream;

/// Opens an isolated session (own cookies, localStorage, cache) with one page, in milliseconds
/// from a pool of `WARM_SESSIONS` blank sessions opened ahead (as fresh as new ones, counted toward
/// `MAX_SESSIONS`; the pool grows while creates overlap, up to 8×, and shrinks after an idle
/// minute). A session with its own `proxy` is opened fresh. While Chromium restarts, a create waits
/// for the new one; it never hands out a session of a Chromium that died.
///
/// At `MAX_SESSIONS` a create fails with `capacity_exceeded`, unless `QUEUE_TIMEOUT_MS` is set:
/// then up to `QUEUE_MAX` creates wait for a slot, or fail with `queue_timeout`.
///
/// With `url` the session also navigates there (like `page.goto`) and answers with its `url`,
/// `title`, `status`, `signals` and `load`; if that fails, the session is closed and the error
/// says why.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionCreateParams {
    /// Open this http(s) URL right away (like page.goto).
    pub url: Option<String>,
    /// With url: when the navigation counts as done (default networkidle).
    pub wait_until: Option<WaitUntil>,
    /// Default 1280x800.
    pub viewport: Option<Viewport>,
    /// Overrides the browser's user agent for this session.
    pub user_agent: Option<String>,
    /// Cookies and localStorage to start with (Playwright's storageState format); a cookie the
    /// browser refuses is `invalid_params` naming it, never dropped silently.
    pub storage_state: Option<StorageState>,
    /// An upstream proxy, {server: "http://host:port", bypass?}, judged by the egress policy; it
    /// sees only the requests the allow-list admits.
    pub proxy: Option<Proxy>,
    /// A BCP 47 locale for Intl formatting and navigator.language (`de-DE`).
    pub locale: Option<String>,
    /// An IANA time zone the page's clock is in (`America/New_York`).
    pub timezone_id: Option<String>,
    /// The position navigator.geolocation reports, permission granted: {latitude, longitude, accuracy?}.
    pub geolocation: Option<Geolocation>,
    /// light, dark or no-preference (prefers-color-scheme), as page.emulateMedia sets it.
    pub color_scheme: Option<ColorScheme>,
    /// false: the page's own scripts never run (the service's reading and acting still work).
    pub java_script_enabled: Option<bool>,
    /// Headers sent with every request of the session: {"name": "value"}.
    #[serde(rename = "extraHTTPHeaders")]
    pub extra_http_headers: Option<std::collections::BTreeMap<String, String>>,
    /// {username, password} for sites behind HTTP authentication (Basic, Digest); each challenge
    /// shows in `effects.dialogs`. Such a session cannot add network.route mocks.
    pub http_credentials: Option<HttpCredentials>,
    /// Failed calls' `data.evidence` also carries the viewport as a small JPEG (default false).
    pub evidence: Option<bool>,
    /// false: locations as served, no source map fetched (default true).
    pub source_maps: Option<bool>,

    /// Must match the service's HEADLESS setting if given (all sessions share one Chromium).
    pub headless: Option<bool>,
    /// Milliseconds for the whole call, navigation included (default 30000, with url 75000).
    pub timeout: Option<u64>,
}

impl Params for SessionCreateParams {}

#[derive(Debug, Serialize, JsonSchema)]
pub struct SessionCreateResult {
    pub session_id: String,
    /// With url: where the page ended up.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub navigation: Option<NavigationResult>,
}

/// Closes the session and disposes its browser context. A call still running on the session
/// ends at once with `session_closed`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SessionIdParams {
    /// The session, from session.create.
    pub session_id: String,
}

impl Params for SessionIdParams {}

#[derive(Debug, Serialize, JsonSchema)]
pub struct OkResult {
    pub ok: bool,
}

/// One step of `session.run`: a page method and its params (without `session_id`).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// A method that works on a session's page: page.*, logs.pull, network.pull, screenshot …
    pub method: String,
    /// Its params, as for a call of its own, without session_id.
    #[serde(default)]
    pub params: Option<Value>,
}

/// Runs page methods on one session in order, in one call, without repeating `session_id`: a
/// whole scenario (navigate, fill, click, read) in one round trip. Each step answers as its
/// method would, with `ok`, its `result` or `error`, and `ms`; the run ends at the first failing
/// step unless `stopOnError` is false. The result also says where the page ended up (`url`,
/// `title`).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunParams {
    /// The session, from session.create.
    #[serde(rename = "session_id")]
    pub session_id: String,
    /// At most 50 steps: [{"method": "page.click", "params": {"selector": "#save"}}].
    pub steps: Vec<Step>,
    /// Stop at the first failing step (default true).
    pub stop_on_error: Option<bool>,
    /// Milliseconds for the whole run (default MAX_CALL_MS): each step's own timeout is cut to what
    /// is left of it, and a step that would start later fails.
    pub timeout: Option<u64>,
}

impl Params for RunParams {}

#[derive(Debug, Serialize, JsonSchema)]
pub struct StepResult {
    pub method: String,
    pub ok: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    /// The step's JSON-RPC error: {code, message, data: {kind, remediation}}.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<Value>,
    pub ms: u64,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct RunResult {
    /// One per step that ran, in order.
    pub results: Vec<StepResult>,
    /// Steps not run because an earlier one failed.
    #[serde(skip_serializing_if = "is_zero")]
    pub skipped: usize,
    pub url: String,
    pub title: String,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// Steps a run may have.
const MAX_STEPS: usize = 50;

pub fn methods() -> Vec<MethodSpec> {
    vec![
        method(
            "session.create",
            "Open an isolated session (its own cookies, storage and cache) with one page; optionally open a URL.",
            create,
        )
        .example(r#"{"url":"http://127.0.0.1:3338/projects","viewport":{"width":1024,"height":768}}"#),
        method("session.close", "Close a session and free everything it held.", close).tool("close", Hints::END),
        method("session.run", "Run page methods in order on one session, in one call.", run).example(
            r##"{"steps":[{"method":"page.goto","params":{"url":"http://127.0.0.1:3338/login"}},{"method":"page.fill","params":{"selector":"#username","value":"ada"}},{"method":"page.click","params":{"selector":"role=button[name=\"Login\"]"}},{"method":"page.text","params":{"selector":"#login-result"}}]}"##,
        ),
    ]
}

/// session.create's params that shape the page (headless, viewport, user agent, cookies to seed),
/// checked before anything is opened; the viewport.
fn check_page(ctx: &RpcContext, p: &SessionCreateParams) -> Result<Viewport, ApiError> {
    if let Some(headless) = p.headless.filter(|h| *h != ctx.headless) {
        return Err(ApiError::invalid(
            "headless",
            format!(
                "headless={headless} is not available: all sessions share one Chromium started with HEADLESS={}; \
                 omit the param",
                ctx.headless
            ),
        ));
    }
    let viewport = p.viewport.unwrap_or_default();
    viewport.validate().map_err(|m| ApiError::invalid("viewport", m))?;
    if let Some(agent) = &p.user_agent {
        if agent.trim().is_empty() {
            return Err(ApiError::invalid("userAgent", "userAgent must not be empty"));
        }
        if let Some(problem) = header_text::value_problem(agent) {
            return Err(ApiError::invalid("userAgent", format!("userAgent is sent as a header: {problem}")));
        }
    }
    for (i, cookie) in p.storage_state.iter().flat_map(|s| s.cookies.iter()).enumerate() {
        cookie.check().map_err(|problem| {
            ApiError::invalid(
                format!("storageState.cookies[{i}].{}", problem.field),
                format!("storageState.cookies[{i}] ({:?}): {} {}", cookie.name, problem.field, problem.why),
            )
        })?;
    }
    Ok(viewport)
}

async fn create(ctx: Arc<RpcContext>, p: SessionCreateParams) -> Result<SessionCreateResult, ApiError> {
    let viewport = check_page(&ctx, &p)?;
    if p.wait_until.is_some() && p.url.is_none() {
        return Err(ApiError::invalid("waitUntil", "waitUntil goes with url"));
    }
    if let Some(url) = &p.url {
        // Refused like page.goto refuses it: the URL is not the caller's mistake so much as outside
        // what the operator allows.
        ctx.sessions.policy().check(url).map_err(BrowserError::from)?;
    }
    // One deadline for the whole call: opening the session and navigating to `url`.
    let deadline = ctx.deadline(p.timeout, if p.url.is_some() { 75_000 } else { 30_000 })?;
    if let Some(at) = &p.geolocation {
        at.validate().map_err(|m| ApiError::invalid("geolocation", m))?;
    }
    let valid_tag = |s: &str, extra: &[char]| {
        !s.is_empty() && s.len() <= 64 && s.chars().all(|c| c.is_ascii_alphanumeric() || extra.contains(&c))
    };
    if p.locale.as_deref().is_some_and(|l| !valid_tag(l, &['-', '_'])) {
        return Err(ApiError::invalid("locale", "locale must be a BCP 47 tag such as en-US or de-DE"));
    }
    if p.timezone_id.as_deref().is_some_and(|z| !valid_tag(z, &['/', '_', '-', '+'])) {
        return Err(ApiError::invalid("timezoneId", "timezoneId must be an IANA time zone such as Europe/Berlin"));
    }
    let headers: Vec<(String, String)> = p.extra_http_headers.unwrap_or_default().into_iter().collect();
    for (name, value) in &headers {
        if let Some(problem) = header_text::name_problem(name).or_else(|| header_text::value_problem(value)) {
            return Err(ApiError::invalid(
                "extraHTTPHeaders",
                format!("header {}: {problem}", crate::quote::quote(name)),
            ));
        }
    }
    let http_credentials = p.http_credentials.map(checked_credentials).transpose()?;
    // The upstream proxy is a host the service connects to itself: admitted (or refused) before
    // anything is opened, and resolved once.
    let proxy = match &p.proxy {
        Some(proxy) => Some(
            tokio::time::timeout_at(
                deadline,
                Upstream::admit(&proxy.server, proxy.bypass.as_deref(), ctx.sessions.policy()),
            )
            .await
            .map_err(|_| BrowserError::Timeout("proxy.server was not resolved within the call's timeout".into()))?
            .map_err(|e| ApiError::invalid("proxy.server", e.to_string()))?,
        ),
        None => None,
    };
    let emulation = Emulation {
        http_credentials,
        locale: p.locale,
        timezone_id: p.timezone_id,
        geolocation: p.geolocation,
        color_scheme: p.color_scheme,
        java_script_enabled: p.java_script_enabled,
        extra_http_headers: headers,
    };
    let options = SessionOptions {
        viewport,
        user_agent: p.user_agent,
        storage_state: p.storage_state,
        proxy,
        emulation,
        evidence_screenshots: p.evidence.unwrap_or(false),
        served_locations: p.source_maps == Some(false),
    };
    let session_id = ctx.sessions.create(&options, deadline).await?;
    let Some(url) = p.url else { return Ok(SessionCreateResult { session_id, navigation: None }) };
    let wait_until = p.wait_until.unwrap_or_default();
    let navigated = ctx
        .sessions
        .run(&session_id, None, deadline, |page| async move { navigate(&page, &url, wait_until, deadline).await })
        .await;
    match navigated {
        Ok(navigation) => Ok(SessionCreateResult { session_id, navigation: Some(navigation) }),
        Err(err) => {
            // Nothing half-made stays behind: the caller gets the error, not a session to clean up.
            // Closed meanwhile, so the answer keeps to the call's timeout.
            let sessions = ctx.sessions.clone();
            tokio::spawn(async move { sessions.close(&session_id, CloseReason::Closed).await });
            Err(err)
        }
    }
}

async fn run(ctx: Arc<RpcContext>, p: RunParams) -> Result<RunResult, ApiError> {
    if p.steps.is_empty() || p.steps.len() > MAX_STEPS {
        return Err(ApiError::invalid("steps", format!("give 1 to {MAX_STEPS} steps")));
    }
    let defaults = check_steps(&ctx, &p.steps)?;
    let deadline = ctx.deadline(p.timeout, ctx.max_call.as_millis() as u64)?;
    // A run on a session that is not there fails as a whole, like any call on it.
    ctx.sessions.ensure_open(&p.session_id)?;
    let stop_on_error = p.stop_on_error.unwrap_or(true);
    let total = p.steps.len();
    let mut results = Vec::new();
    for (step, default_ms) in p.steps.into_iter().zip(defaults) {
        let started = Instant::now();
        let params = step.params.unwrap_or_else(|| Value::Object(Default::default()));
        let outcome = run_step(&ctx, &step.method, params, &p.session_id, default_ms, deadline).await;
        // The session itself is gone (closed, expired, lost with Chromium): the run fails with it.
        if let Err(err) = &outcome
            && matches!(
                err.kind(),
                ErrorKind::SessionNotFound | ErrorKind::SessionClosed | ErrorKind::BrowserUnavailable
            )
        {
            return Err(outcome.unwrap_err());
        }
        let ms = started.elapsed().as_millis() as u64;
        let failed = outcome.is_err();
        results.push(match outcome {
            Ok(result) => StepResult { method: step.method, ok: true, result: Some(result), error: None, ms },
            Err(err) => StepResult {
                method: step.method,
                ok: false,
                result: None,
                error: serde_json::to_value(err.to_error_object()).ok(),
                ms,
            },
        });
        if failed && stop_on_error {
            break;
        }
    }
    let skipped = total - results.len();
    let landed_by = Instant::now() + Duration::from_secs(10);
    let landed = ctx
        .sessions
        .run(&p.session_id, None, landed_by, |page| async move { page.nav().landed(landed_by).await })
        .await;
    let (url, title) = landed.map(|l| (l.url, l.title)).unwrap_or_default();
    Ok(RunResult { results, skipped, url, title })
}

/// Every step's method and params checked before any step runs; each step's default timeout.
fn check_steps(ctx: &RpcContext, steps: &[Step]) -> Result<Vec<u64>, ApiError> {
    let mut defaults = Vec::with_capacity(steps.len());
    for (i, step) in steps.iter().enumerate() {
        let known = ctx.methods.get().and_then(|m| m.get(step.method.as_str()));
        match known {
            Some(registered) if registered.page_method => {
                // Every step's params are checked before any step runs: a typo in the last step
                // must not leave the first ones done and the run half-made.
                let raw = step.params.as_ref().map(Value::to_string);
                if let Err(ApiError::InvalidParams { message, param }) = registered.check_params(raw.as_deref()) {
                    let param = param.map_or(format!("steps[{i}].params"), |p| format!("steps[{i}].params.{p}"));
                    let error = ApiError::InvalidParams {
                        message: format!("steps[{i}] ({}): {message}", step.method),
                        param: Some(param),
                    };
                    return Err(error.with_usage(registered.usage()));
                }
                defaults.push(registered.default_timeout_ms.unwrap_or(ctx.max_call.as_millis() as u64));
            }
            Some(_) => {
                return Err(ApiError::invalid(
                    format!("steps[{i}].method"),
                    format!("{} cannot be a step: steps are methods on the session's page", step.method),
                ));
            }
            None => {
                return Err(ApiError::invalid(
                    format!("steps[{i}].method"),
                    format!("there is no method {}", crate::quote::quote(&step.method)),
                ));
            }
        }
        if !matches!(step.params, None | Some(Value::Object(_))) {
            return Err(ApiError::invalid(
                format!("steps[{i}].params"),
                "a step's params are an object of named params",
            ));
        }
    }
    Ok(defaults)
}

/// One step of a run: its params bound to the run's session and what is left of its time.
async fn run_step(
    ctx: &Arc<RpcContext>,
    method: &str,
    mut params: Value,
    session_id: &str,
    default_ms: u64,
    deadline: Instant,
) -> Result<Value, ApiError> {
    let left_ms = cdp::remaining(deadline).as_millis() as u64;
    match bound_step(&mut params, session_id, default_ms, left_ms) {
        Err(err) => Err(err),
        Ok(()) if left_ms == 0 => {
            Err(ApiError::Browser(BrowserError::Timeout("the run's timeout passed before this step started".into())))
        }
        // The step's own timeout was cut to what is left of the run's; this is the net
        // under it (a step never outlives the run by more than a moment).
        Ok(()) => match tokio::time::timeout_at(deadline + STEP_GRACE, ctx.invoke(method, &params)).await {
            Ok(outcome) => outcome,
            Err(_) => Err(ApiError::Browser(BrowserError::Timeout(format!(
                "{method} did not finish within the run's timeout"
            )))),
        },
    }
}

/// How long a step may run past the run's deadline before it is cut off (its own timeout, cut to
/// the run's, ends it first; this only covers the moment its answer takes).
const STEP_GRACE: Duration = Duration::from_millis(500);

/// Puts the run's session into a step's params and bounds its `timeout` by what is left of the
/// run (`left_ms`), its own or its method's default (`default_ms`) when shorter.
fn bound_step(params: &mut Value, session_id: &str, default_ms: u64, left_ms: u64) -> Result<(), ApiError> {
    let Some(map) = params.as_object_mut() else { return Ok(()) };
    if let Some(other) = map.insert("session_id".into(), Value::String(session_id.to_owned()))
        && other != Value::String(session_id.to_owned())
    {
        return Err(ApiError::invalid("session_id", "a step's session_id must be the run's (or left out)"));
    }
    let asked = map.get("timeout").and_then(Value::as_u64).unwrap_or(default_ms);
    map.insert("timeout".into(), Value::from(asked.min(left_ms).max(1)));
    Ok(())
}

/// The credentials, checked: one line each, a user name given.
fn checked_credentials(credentials: HttpCredentials) -> Result<HttpCredentials, ApiError> {
    if credentials.username.is_empty() || credentials.username.contains(['\r', '\n']) {
        return Err(ApiError::invalid("httpCredentials.username", "username must be one non-empty line"));
    }
    if credentials.password.contains(['\r', '\n']) {
        return Err(ApiError::invalid("httpCredentials.password", "password must be one line"));
    }
    Ok(credentials)
}

async fn close(ctx: Arc<RpcContext>, p: SessionIdParams) -> Result<OkResult, ApiError> {
    ctx.sessions.close(&p.session_id, CloseReason::Closed).await?;
    Ok(OkResult { ok: true })
}
