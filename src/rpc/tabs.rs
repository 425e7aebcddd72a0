//! `tabs.*`: a session's tabs — its first page, popups its pages opened (`window.open`, a
//! `target=_blank` link), and tabs opened here. Page methods act on the active tab unless they
//! name a `tab_id`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::error::ApiError;
use super::page::{NavigationResult, WaitUntil, navigate};
use super::registry::{Call, Hints, MethodSpec, NoParams, Params, SessionHandle, session_method};
use crate::browser::{BrowserError, TabInfo};

const TIMEOUT_MS: u64 = 10_000;
const OPEN_TIMEOUT_MS: u64 = 45_000;

/// Opens a new tab, active from now on, set up like the session's others (viewport, user agent,
/// locale …) with copies of the active tab's routes and init scripts; with `url` it is loaded and
/// waited for like page.goto.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TabOpenParams {
    /// An http(s) URL matching ALLOW_HOST_REGEX (default: about:blank).
    pub url: Option<String>,
    /// With `url`: when the load counts as done (default networkidle).
    pub wait_until: Option<WaitUntil>,
}

impl Params for TabOpenParams {}

/// The tab to focus or close.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct TabIdParams {
    /// A tab of the session, from tabs.list.
    pub tab_id: String,
}

impl Params for TabIdParams {}

#[derive(Debug, Serialize, JsonSchema)]
pub struct TabList {
    /// In the order they were opened; exactly one is active.
    pub tabs: Vec<TabInfo>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct TabOpened {
    #[serde(rename = "tab_id")]
    pub tab_id: String,
    /// Where the new tab landed, with `url`.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub landed: Option<NavigationResult>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct TabFocused {
    #[serde(rename = "tab_id")]
    pub tab_id: String,
    pub url: String,
    pub title: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct TabClosed {
    #[serde(rename = "tab_id")]
    pub tab_id: String,
    /// The tab that is active now (the closed tab's opener, or the last one, if it was active).
    pub active: String,
}

pub fn methods() -> Vec<MethodSpec> {
    vec![
        session_method(
            "tabs.list",
            "The session's tabs (popups included) with URL, title and which one is active.",
            TIMEOUT_MS,
            list,
        )
        .tool("tabs", Hints::READ),
        session_method(
            "tabs.open",
            "Open a new tab (optionally loading a URL) and make it active.",
            OPEN_TIMEOUT_MS,
            open,
        )
        .example(r#"{"url":"http://127.0.0.1:8090/team"}"#)
        .tool("tab_open", Hints::LOAD.repeating()),
        session_method(
            "tabs.focus",
            "Make a tab the active one: page methods act on it by default.",
            TIMEOUT_MS,
            focus,
        )
        .example(r#"{"tab_id":"9a3f0c21"}"#)
        .tool("tab_focus", Hints::SET),
        session_method("tabs.close", "Close a tab (not the session's last one).", TIMEOUT_MS, close)
            .example(r#"{"tab_id":"9a3f0c21"}"#)
            .tool("tab_close", Hints::END),
    ]
}

/// Lists the tabs, adopting popups the session has not taken yet and dropping closed ones.
async fn list(call: Call, s: SessionHandle, _: NoParams) -> Result<TabList, ApiError> {
    Ok(TabList { tabs: s.session.list_tabs(&s.chromium, call.deadline).await? })
}

async fn open(call: Call, s: SessionHandle, p: TabOpenParams) -> Result<TabOpened, ApiError> {
    if let Some(url) = &p.url {
        call.ctx.sessions.policy().check(url).map_err(BrowserError::from)?;
    }
    let previous = s.session.active_tab();
    let page = s.session.open_tab(&s.chromium, call.deadline).await?;
    let landed = match &p.url {
        Some(url) => match navigate(&page, url, p.wait_until.unwrap_or_default(), call.deadline).await {
            Ok(landed) => Some(landed),
            Err(err) => {
                // A failed open leaves nothing behind: the tab goes, the one before is active.
                s.session.abandon_tab(&s.chromium, &page, &previous).await;
                return Err(err);
            }
        },
        None => None,
    };
    Ok(TabOpened { tab_id: page.tab_id(), landed })
}

async fn focus(call: Call, s: SessionHandle, p: TabIdParams) -> Result<TabFocused, ApiError> {
    let page = s.session.focus_tab(&p.tab_id, call.deadline).await?;
    let (url, title) = page.nav().url_and_title(call.deadline).await;
    Ok(TabFocused { tab_id: page.tab_id(), url, title })
}

async fn close(call: Call, s: SessionHandle, p: TabIdParams) -> Result<TabClosed, ApiError> {
    let active = s.session.close_tab(&s.chromium, &p.tab_id, call.deadline).await?;
    Ok(TabClosed { tab_id: p.tab_id.to_ascii_lowercase(), active: active.tab_id() })
}
