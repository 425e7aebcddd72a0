//! The load breakdown `page.goto`, `page.reload` and `session.create` answer with: when the
//! current document reached DOMContentLoaded and load, when its network went quiet, when its
//! content last changed before the answer, how many requests it made, and its longest serial
//! chain — with the facts derived from its requests (out of order, one after another). Times are
//! ms since the navigation started, as DevTools shows them.

use schemars::JsonSchema;
use serde::Serialize;

use super::handle::Page;
use super::watch::facts::{self, Span};
use super::watch::origin::{origin_of, relative_in};
use super::watch::records::{DomRecord, Record};
use crate::browser::chromium::kinds::Milestone;

/// How the current document loaded.
#[derive(Debug, Clone, Default, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Load {
    /// DOMContentLoaded, ms after the navigation started.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dom_content_loaded_ms: Option<i64>,
    /// The load event.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub load_ms: Option<i64>,
    /// When the last of its requests ended (absent while some are still in flight).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub network_quiet_ms: Option<i64>,
    /// When its content last changed before this answer (the DOM watcher's last change).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content_settled_ms: Option<i64>,
    /// Requests the document made (the browser's own left out).
    pub requests: u64,
    /// Requests still in flight.
    #[serde(skip_serializing_if = "is_zero")]
    pub pending: u64,
    /// The longest run of requests from one script location, each awaited before the next.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub longest_chain: Option<String>,
    /// What the service derived from the requests' times: out of order, one after another.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub facts: Vec<String>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Page {
    /// How the current document loaded, as the timeline has it: call it after
    /// [`Page::arrived`], which files what the page has reported until then.
    pub fn load_breakdown(&self) -> Load {
        let origin = origin_of(&self.watch().nav.borrow().url);
        let store = self.watch().store();
        let timeline = &store.timeline;
        let start = timeline.current_origin();
        let ms = |at: f64| (at - start).round() as i64;
        let mut load = Load::default();
        let mut spans: Vec<Span> = Vec::new();
        let mut doms: Vec<&DomRecord> = Vec::new();
        for entry in timeline.iter().filter(|e| e.at >= start - 1.0) {
            match &entry.record {
                Record::Milestone(Milestone::DomContentLoaded) if load.dom_content_loaded_ms.is_none() => {
                    load.dom_content_loaded_ms = Some(ms(entry.at))
                }
                Record::Milestone(Milestone::Load) if load.load_ms.is_none() => load.load_ms = Some(ms(entry.at)),
                Record::Request(r) if !r.browser_own => {
                    spans.push(Span { request: r, start: entry.at, end: r.done_at() })
                }
                Record::Dom(dom) => doms.push(dom),
                _ => {}
            }
        }
        load.requests = spans.len() as u64;
        load.pending = spans.iter().filter(|s| s.end.is_none()).count() as u64;
        if load.pending == 0 {
            load.network_quiet_ms = spans
                .iter()
                .filter_map(|s| s.end)
                .fold(None, |a: Option<f64>, e| Some(a.map_or(e, |a| a.max(e))))
                .map(ms);
        }
        load.content_settled_ms =
            doms.iter().map(|d| d.last_at()).fold(None, |a: Option<f64>, e| Some(a.map_or(e, |a| a.max(e)))).map(ms);
        let chains = facts::chains(&spans);
        load.longest_chain = chains.first().map(|c| relative_in(&c.line(), &origin));
        load.facts = facts::out_of_order(&spans, &doms, start);
        load.facts.extend(chains.iter().skip(1).map(|c| relative_in(&c.line(), &origin)));
        load
    }
}
