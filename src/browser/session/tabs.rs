//! A session's tabs: the page it was created with, the popups its pages open (`window.open`, a
//! `target=_blank` link — adopted before the session's next call), and pages opened with
//! `tabs.open`. One tab is active: page methods act on it unless they name a `tab_id`.
//!
//! A new tab is set up like the session's first (user agent, locale, time zone, colour scheme …)
//! and starts with copies of the routes and init scripts of the tab that opened it. A popup's
//! first document may have loaded before it was adopted: its console messages and errors are
//! recovered, its requests listed in a note (see `page::first_load`).

use schemars::JsonSchema;
use serde::Serialize;
use tokio::time::Instant;

use super::session::{Session, Tabs, apply_to_tab};
use crate::browser::chromium::Chromium;
use crate::browser::chromium::kinds::TargetKind;
use crate::browser::chromium::protocol::page::BringToFront;
use crate::browser::chromium::protocol::target::{CloseTarget, GetTargets};
use crate::browser::error::BrowserError;
use crate::browser::page::Page;

/// Tabs a session may hold; a page opening more gets its extra popups closed.
pub const MAX_TABS: usize = 16;

/// One tab, as `tabs.list` shows it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TabInfo {
    /// Pass it as `tab_id` to any page method, or to tabs.focus / tabs.close.
    #[serde(rename = "tab_id")]
    pub tab_id: String,
    pub url: String,
    pub title: String,
    /// Page methods without `tab_id` act on this tab.
    pub active: bool,
    /// The tab that opened this one (a popup).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub opener: Option<String>,
}

impl Session {
    fn lock_tabs(&self) -> std::sync::MutexGuard<'_, Tabs> {
        self.tabs.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The active tab.
    pub fn active_tab(&self) -> Page {
        let tabs = self.lock_tabs();
        tabs.list[tabs.active].clone()
    }

    pub(super) fn all_tabs(&self) -> Vec<Page> {
        self.lock_tabs().list.clone()
    }

    /// The tab `tab_id` names, or the active one.
    pub(super) fn tab(&self, tab_id: Option<&str>) -> Result<Page, BrowserError> {
        let tabs = self.lock_tabs();
        let Some(wanted) = tab_id else { return Ok(tabs.list[tabs.active].clone()) };
        let wanted = wanted.to_ascii_lowercase();
        tabs.list.iter().find(|p| p.tab_id() == wanted).cloned().ok_or_else(|| {
            let known: Vec<String> = tabs.list.iter().map(|page| page.tab_id()).collect();
            BrowserError::InvalidParam {
                param: "tab_id".into(),
                message: format!(
                    "this session has no tab `{wanted}` (its tabs: {}); tabs.list lists them with their URLs",
                    known.join(", ")
                ),
            }
        })
    }

    /// Brings the tab list up to date before a call: adopts the popups filed since the last call
    /// and, when the session has several tabs, drops those Chromium has closed. Best effort: a tab
    /// that cannot be adopted now is found by the next `tabs.list`.
    pub(super) async fn sync_tabs(&self, chromium: &Chromium, deadline: Instant) {
        let popups = self.siblings.take_popups();
        if popups.is_empty() && self.lock_tabs().list.len() == 1 {
            return;
        }
        if let Err(err) = self.reconcile(chromium, deadline).await {
            tracing::debug!(error = %err, "syncing tabs failed");
        }
    }

    /// Matches the tabs to the context's page targets: adopts the ones the session does not have
    /// yet (popups), drops the ones that are gone.
    async fn reconcile(&self, chromium: &Chromium, deadline: Instant) -> Result<(), BrowserError> {
        let targets = chromium.send(GetTargets {}, deadline).await?.target_infos;
        let alive: Vec<&str> = targets
            .iter()
            .filter(|t| t.kind == TargetKind::Page && t.browser_context_id.as_ref() == Some(&self.context_id))
            .map(|t| t.target_id.as_str())
            .filter(|id| !id.is_empty())
            .collect();
        self.drop_gone(&alive);
        for target in alive {
            let known = {
                let tabs = self.lock_tabs();
                tabs.list.iter().any(|p| p.target_id_is(target)) || tabs.was_closed(target)
            };
            if known {
                continue;
            }
            if self.lock_tabs().list.len() >= MAX_TABS {
                tracing::debug!("a session's page opened more than {MAX_TABS} tabs; closing the extra popup");
                let _ = chromium.send(CloseTarget { target_id: target }, deadline).await;
                continue;
            }
            let page = Page::adopt(chromium, target, &self.siblings, deadline).await?;
            let opener = page.opener_tab_id().and_then(|id| self.tab(Some(&id)).ok()).unwrap_or(self.active_tab());
            self.set_up(&page, &opener, deadline).await?;
            if let Err(err) = page.recover_first_load(deadline).await {
                tracing::debug!(error = %err, "a popup's first load could not be recovered");
            }
            self.lock_tabs().list.push(page);
        }
        Ok(())
    }

    /// Forgets tabs whose targets are no longer `alive`; the active tab falls back to its opener
    /// or the last tab.
    fn drop_gone(&self, alive: &[&str]) {
        let mut tabs = self.lock_tabs();
        let active = tabs.list[tabs.active].clone();
        let gone: Vec<Page> = tabs.list.iter().filter(|p| !alive.iter().any(|t| p.target_id_is(t))).cloned().collect();
        if gone.is_empty() || gone.len() == tabs.list.len() {
            // Nothing gone, or everything: the session's context is going; its close says so.
            return;
        }
        for page in &gone {
            page.detach();
        }
        tabs.list.retain(|p| !gone.iter().any(|g| g.tab_id() == p.tab_id()));
        tabs.active = position_after_loss(&tabs.list, &active);
    }

    /// Sets a new tab up like the session's others, with the routes and init scripts of `from`.
    async fn set_up(&self, page: &Page, from: &Page, deadline: Instant) -> Result<(), BrowserError> {
        let options = self.options.lock().unwrap_or_else(|p| p.into_inner()).clone();
        page.set_viewport(from.viewport(), deadline).await?;
        apply_to_tab(page, &options, deadline).await?;
        page.inherit(from, self.policy.clone(), deadline).await
    }

    /// `value` with every password the session typed (in any tab, open or closed) masked in its
    /// strings.
    pub fn redact_json(&self, value: serde_json::Value) -> serde_json::Value {
        self.siblings.redactor.json(value)
    }

    /// Every tab, as tabs.list shows them (after adopting popups and dropping closed tabs).
    pub async fn list_tabs(&self, chromium: &Chromium, deadline: Instant) -> Result<Vec<TabInfo>, BrowserError> {
        self.siblings.take_popups();
        self.reconcile(chromium, deadline).await?;
        let (list, active) = {
            let tabs = self.lock_tabs();
            (tabs.list.clone(), tabs.active)
        };
        let mut infos = Vec::with_capacity(list.len());
        for (i, page) in list.iter().enumerate() {
            let (url, title) = page.nav().url_and_title(deadline).await;
            infos.push(TabInfo {
                tab_id: page.tab_id(),
                url,
                title,
                active: i == active,
                opener: page.opener_tab_id(),
            });
        }
        Ok(infos)
    }

    /// Opens a new about:blank tab set up like the active one, and makes it active.
    pub async fn open_tab(&self, chromium: &Chromium, deadline: Instant) -> Result<Page, BrowserError> {
        if self.lock_tabs().list.len() >= MAX_TABS {
            return Err(BrowserError::InvalidParam {
                param: "session_id".into(),
                message: format!("a session holds at most {MAX_TABS} tabs; close one with tabs.close"),
            });
        }
        let page = Page::open(chromium, self.context_id.as_str(), &self.siblings, deadline).await?;
        let from = self.active_tab();
        if let Err(err) = self.set_up(&page, &from, deadline).await {
            let _ = chromium.send(CloseTarget { target_id: page.tab_target() }, deadline).await;
            page.detach();
            self.lock_tabs().remember_closed(page.tab_target());
            return Err(err);
        }
        let mut tabs = self.lock_tabs();
        tabs.list.push(page.clone());
        tabs.active = tabs.list.len() - 1;
        Ok(page)
    }

    /// Takes back a tab `open_tab` opened for a call that then failed (its URL did not load):
    /// it is closed and `previous` (the tab active before) is active again, so the next call
    /// without `tab_id` reads the page it read before and the cap does not count the dead tab.
    pub async fn abandon_tab(&self, chromium: &Chromium, page: &Page, previous: &Page) {
        // The call's own deadline has often passed: closing gets its own.
        let deadline = Instant::now() + std::time::Duration::from_secs(5);
        if let Err(err) = chromium.send(CloseTarget { target_id: page.tab_target() }, deadline).await {
            tracing::debug!(error = %err, "closing a tab whose URL failed to load failed");
        }
        page.detach();
        {
            let mut tabs = self.lock_tabs();
            tabs.remember_closed(page.tab_target());
            tabs.list.retain(|p| p.tab_id() != page.tab_id());
            tabs.active = position_after_loss(&tabs.list, previous);
        }
        // The foreground tab is the one whose animation frames run.
        let _ = previous.send(BringToFront {}, deadline).await;
    }

    /// Makes `tab_id` the active tab (and brings it to the front, so it is the visible one).
    pub async fn focus_tab(&self, tab_id: &str, deadline: Instant) -> Result<Page, BrowserError> {
        let page = self.tab(Some(tab_id))?;
        page.send(BringToFront {}, deadline).await?;
        let mut tabs = self.lock_tabs();
        if let Some(i) = tabs.list.iter().position(|p| p.tab_id() == page.tab_id()) {
            tabs.active = i;
        }
        Ok(page)
    }

    /// Closes `tab_id`; the session's last tab cannot be closed (session.close ends the session).
    /// Returns the tab that is active afterwards.
    pub async fn close_tab(&self, chromium: &Chromium, tab_id: &str, deadline: Instant) -> Result<Page, BrowserError> {
        let page = self.tab(Some(tab_id))?;
        if self.lock_tabs().list.len() == 1 {
            return Err(BrowserError::InvalidParam {
                param: "tab_id".into(),
                message: "this is the session's only tab; session.close ends the session".into(),
            });
        }
        chromium.send(CloseTarget { target_id: page.tab_target() }, deadline).await?;
        page.detach();
        let mut tabs = self.lock_tabs();
        tabs.remember_closed(page.tab_target());
        let active = tabs.list[tabs.active].clone();
        tabs.list.retain(|p| p.tab_id() != page.tab_id());
        tabs.active = position_after_loss(&tabs.list, &active);
        Ok(tabs.list[tabs.active].clone())
    }
}

/// Where the active tab is in `list` once tabs have gone: still `active` if it stayed, else its
/// opener, else the last tab.
fn position_after_loss(list: &[Page], active: &Page) -> usize {
    let find = |id: &str| list.iter().position(|p| p.tab_id() == id);
    find(&active.tab_id())
        .or_else(|| active.opener_tab_id().and_then(|opener| find(&opener)))
        .unwrap_or(list.len().saturating_sub(1))
}
