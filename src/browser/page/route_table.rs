//! The route table: which requests of a session are answered by a mock or aborted
//! (`network.route`), kept in the page's store: the page handle edits it, the reducer consults it
//! (and counts its hits) for every request Chromium holds, both under the store's one lock. It
//! knows neither.
//!
//! Patterns are globs over the whole URL as Chromium's `Fetch` domain reads them (`*` any
//! characters, `?` one; see `url_glob`), so Chromium holds exactly the requests a route may answer and every
//! other request runs untouched. The newest matching route wins. A request the egress policy
//! refuses is never answered by a mock: it goes on, and the egress proxy refuses it as always.
//!
//! It also remembers the session's HTTP credentials (`session.create({httpCredentials})`).
//! chromiumoxide answers authentication challenges itself once a page has credentials — the first
//! challenge of a request with them, a repeated one (the server refused them) by cancelling, so
//! the page gets the 401 — and then lets every held request go on by itself, which would race
//! with a route's answer: routes are refused on a page with credentials. The table only files
//! which answer each challenge got, for the logs.
//!
use std::collections::VecDeque;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::url_glob::UrlGlob;
use crate::egress::EgressPolicy;

/// What a route does with a request.
#[derive(Debug, Clone, PartialEq)]
pub enum RouteAction {
    Fulfill { status: u16, headers: Vec<(String, String)>, body: Vec<u8> },
    Abort,
}

#[derive(Debug, Clone)]
pub struct Route {
    pub id: u64,
    pub pattern: String,
    matcher: UrlGlob,
    pub action: RouteAction,
    /// Requests it answered.
    pub hits: u64,
}

impl Route {
    /// The glob the route was added with.
    pub fn glob(&self) -> &UrlGlob {
        &self.matcher
    }
}

/// What to do with one held request.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    Continue,
    Fulfill { status: u16, headers: Vec<(String, String)>, body: Vec<u8> },
    Abort,
}

/// A user name and password for HTTP authentication (Basic, Digest, NTLM …).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HttpCredentials {
    pub username: String,
    pub password: String,
}

/// How an authentication challenge was answered.
#[derive(Debug, Clone, PartialEq)]
pub enum AuthAnswer {
    /// With the credentials of this user name.
    Provided(String),
    /// Cancelled (the page gets the 401), and why.
    Cancelled(&'static str),
}

/// Requests remembered as already given the credentials.
const AUTH_TRIED: usize = 256;

#[derive(Debug, Default)]
pub struct RouteTable {
    routes: Vec<Route>,
    next_id: u64,
    policy: Option<Arc<EgressPolicy>>,
    credentials: Option<HttpCredentials>,
    auth_tried: VecDeque<String>,
}

impl RouteTable {
    /// Adds a route; returns its id.
    pub fn add(&mut self, glob: &UrlGlob, action: RouteAction, policy: Arc<EgressPolicy>) -> u64 {
        let table = self;
        table.next_id += 1;
        let id = table.next_id;
        table.policy = Some(policy);
        table.routes.push(Route { id, pattern: glob.as_str().to_owned(), matcher: glob.clone(), action, hits: 0 });
        id
    }

    /// Removes routes by id or by pattern; returns how many went.
    pub fn remove(&mut self, id: Option<u64>, pattern: Option<&str>) -> usize {
        let table = self;
        let before = table.routes.len();
        table.routes.retain(|r| Some(r.id) != id && Some(r.pattern.as_str()) != pattern);
        before - table.routes.len()
    }

    pub fn list(&self) -> Vec<Route> {
        self.routes.clone()
    }

    pub fn is_empty(&self) -> bool {
        self.routes.is_empty()
    }

    /// The patterns Chromium should hold requests for, newest first.
    pub fn patterns(&self) -> Vec<String> {
        self.routes.iter().rev().map(|r| r.pattern.clone()).collect()
    }

    pub fn set_credentials(&mut self, credentials: Option<HttpCredentials>) {
        self.credentials = credentials;
    }

    pub fn has_credentials(&self) -> bool {
        self.credentials.is_some()
    }

    /// How chromiumoxide answered request `request_id`'s authentication challenge: the same rule
    /// it follows (credentials once per request, then cancel), so the logs say what happened.
    pub fn auth_answer(&mut self, request_id: &str) -> AuthAnswer {
        let table = self;
        let Some(credentials) = table.credentials.clone() else {
            return AuthAnswer::Cancelled("the session has no httpCredentials");
        };
        if table.auth_tried.iter().any(|r| r == request_id) {
            return AuthAnswer::Cancelled("the server refused the httpCredentials");
        }
        if table.auth_tried.len() == AUTH_TRIED {
            table.auth_tried.pop_front();
        }
        table.auth_tried.push_back(request_id.to_owned());
        AuthAnswer::Provided(credentials.username)
    }

    /// What to do with a request for `url` that Chromium holds.
    pub fn decide(&mut self, url: &str) -> Decision {
        let table = self;
        if let Some(policy) = &table.policy
            && policy.check(url).is_err()
        {
            return Decision::Continue;
        }
        let Some(route) = table.routes.iter_mut().rev().find(|r| r.matcher.matches(url)) else {
            return Decision::Continue;
        };
        route.hits += 1;
        match &route.action {
            RouteAction::Abort => Decision::Abort,
            RouteAction::Fulfill { status, headers, body } => {
                Decision::Fulfill { status: *status, headers: headers.clone(), body: body.clone() }
            }
        }
    }
}
#[cfg(test)]
mod tests {
    use super::*;
    use crate::browser::page::url_glob::Wildcards;

    fn glob(pattern: &str) -> UrlGlob {
        UrlGlob::parse(pattern, Wildcards::StarAndQuestion).unwrap()
    }

    fn policy(allow: &str) -> Arc<EgressPolicy> {
        Arc::new(EgressPolicy::new(regex::Regex::new(allow).unwrap(), false))
    }

    #[test]
    fn the_newest_matching_route_answers_and_counts_the_hit() {
        let mut table = RouteTable::default();
        let fulfil = RouteAction::Fulfill { status: 200, headers: vec![], body: b"{}".to_vec() };
        table.add(&glob("*/api/*"), fulfil, policy(".*"));
        table.add(&glob("*/api/stats"), RouteAction::Abort, policy(".*"));
        assert_eq!(table.decide("http://h/api/stats"), Decision::Abort);
        assert!(matches!(table.decide("http://h/api/users"), Decision::Fulfill { status: 200, .. }));
        assert_eq!(table.decide("http://h/index.html"), Decision::Continue);
        assert_eq!(table.list().iter().map(|r| r.hits).collect::<Vec<_>>(), vec![1, 1]);
        assert_eq!(table.patterns(), vec!["*/api/stats".to_owned(), "*/api/*".to_owned()]);
        assert_eq!(table.remove(None, Some("*/api/*")), 1);
        assert_eq!(table.decide("http://h/api/users"), Decision::Continue);
    }

    #[test]
    fn a_mock_never_answers_for_a_host_the_policy_refuses() {
        let mut table = RouteTable::default();
        table.add(&glob("*"), RouteAction::Abort, policy(r"^https?://allowed\.test(:\d+)?/"));
        assert_eq!(table.decide("http://elsewhere.test/x"), Decision::Continue);
        assert_eq!(table.decide("http://allowed.test/x"), Decision::Abort);
    }

    #[test]
    fn credentials_are_given_once_per_request_then_cancelled() {
        let mut table = RouteTable::default();
        assert_eq!(table.auth_answer("r1"), AuthAnswer::Cancelled("the session has no httpCredentials"));
        table.set_credentials(Some(HttpCredentials { username: "ada".into(), password: "pw".into() }));
        assert_eq!(table.auth_answer("r1"), AuthAnswer::Provided("ada".into()));
        assert_eq!(table.auth_answer("r1"), AuthAnswer::Cancelled("the server refused the httpCredentials"));
        assert_eq!(table.auth_answer("r2"), AuthAnswer::Provided("ada".into()));
    }
}
