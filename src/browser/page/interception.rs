//! `network.route`: answering a session's requests with a mock, or aborting them, to see how the
//! page copes with an API that fails, is slow to be built, or returns another shape.
//!
//! The table lives in `route_table` (shared with the pump, which answers each held request);
//! here the page keeps Chromium's `Fetch` interception to exactly the routes' patterns, and off
//! when there are none. A new tab starts with copies of the routes and init scripts of the tab
//! that opened it ([`Page::inherit`]), so a popup of a mocked or stubbed page is mocked and stubbed
//! the same way; later changes on either tab stay on that tab.

use std::sync::Arc;

use chromiumoxide::auth::Credentials;
use tokio::time::Instant;

use super::handle::Page;
pub use super::route_table::{HttpCredentials, Route, RouteAction};
use super::url_glob::UrlGlob;
use crate::browser::chromium::cdp;
use crate::browser::chromium::protocol::network::{FetchDisable, FetchEnable, RequestPattern, RequestStage};
use crate::browser::error::BrowserError;
use crate::egress::EgressPolicy;

/// Routes a session may hold.
pub const MAX_ROUTES: usize = 64;

/// The routes that answer the page's requests, and the HTTP credentials it answers challenges with (see the module doc): `page.interception()`.
#[derive(Clone, Copy)]
pub struct Interception<'a> {
    page: &'a Page,
}

impl Page {
    /// The routes and credentials that answer this page's requests.
    pub fn interception(&self) -> Interception<'_> {
        Interception { page: self }
    }

    /// Gives this page the routes and init scripts `from` has now.
    pub async fn inherit(&self, from: &Page, policy: Arc<EgressPolicy>, deadline: Instant) -> Result<(), BrowserError> {
        for (_, source) in from.document().init_script_list() {
            self.document().add_init_script(&source, deadline).await?;
        }
        for route in from.interception().routes() {
            self.interception().route(route.glob(), route.action.clone(), policy.clone(), deadline).await?;
        }
        Ok(())
    }
}

impl<'a> Interception<'a> {
    /// Adds a route; returns its id.
    pub async fn route(
        self,
        glob: &UrlGlob,
        action: RouteAction,
        policy: Arc<EgressPolicy>,
        deadline: Instant,
    ) -> Result<u64, BrowserError> {
        if self.page.watch().store().routes.has_credentials() {
            return Err(BrowserError::InvalidParam {
                param: "urlPattern".into(),
                message: "this session answers HTTP authentication (httpCredentials), which lets every request \
                          go on by itself: routes would race with it. Use a session without httpCredentials \
                          to mock requests"
                    .into(),
            });
        }
        if self.page.watch().store().routes.list().len() >= MAX_ROUTES {
            return Err(BrowserError::InvalidParam {
                param: "urlPattern".into(),
                message: format!("a session holds at most {MAX_ROUTES} routes; remove one with network.unroute"),
            });
        }
        let id = self.page.watch().store().routes.add(glob, action, policy);
        if let Err(err) = intercept(self.page, deadline).await {
            self.page.watch().store().routes.remove(Some(id), None);
            return Err(err);
        }
        Ok(id)
    }

    /// Removes routes by id or pattern; returns how many went.
    pub async fn unroute(
        self,
        id: Option<u64>,
        pattern: Option<&str>,
        deadline: Instant,
    ) -> Result<usize, BrowserError> {
        let removed = self.page.watch().store().routes.remove(id, pattern);
        if removed > 0 {
            intercept(self.page, deadline).await?;
        }
        Ok(removed)
    }

    pub fn routes(self) -> Vec<Route> {
        self.page.watch().store().routes.list()
    }

    /// Answers HTTP authentication challenges with `credentials` from now on (chromiumoxide
    /// answers them, holding every request of the page; see `route_table`).
    pub async fn set_http_credentials(self, credentials: HttpCredentials) -> Result<(), BrowserError> {
        let login = Credentials { username: credentials.username.clone(), password: credentials.password.clone() };
        self.page.page.authenticate(login).await.map_err(|e| cdp::map_cdp_error("Fetch.enable", e))?;
        self.page.watch().store().routes.set_credentials(Some(credentials));
        Ok(())
    }
}

/// Holds exactly the requests some route may answer.
async fn intercept(page: &Page, deadline: Instant) -> Result<(), BrowserError> {
    let patterns = page.watch().store().routes.patterns();
    if patterns.is_empty() {
        return page.send(FetchDisable {}, deadline).await.map(|_| ());
    }
    let patterns = patterns
        .iter()
        .map(|url_pattern| RequestPattern { url_pattern, request_stage: RequestStage::Request })
        .collect();
    page.send(FetchEnable { patterns }, deadline).await.map(|_| ())
}
