//! What an action caused, waited for and read: [`Page::mark_action`] files the action in the
//! timeline and marks where the page stood; [`Page::settle`] waits until every request started
//! since the mark has been answered and nothing has happened on the network for [`QUIET`] (so a
//! handler reacting to a response is caught), bounded by the caller's `settleMs` — a body the page
//! never reads is not waited for; an action that started nothing pays no wait at all.
//! [`Page::effects`] then reads the timeline after the mark (`watch::views::effects`), draining
//! nothing.

use std::time::Duration;

use tokio::time::Instant;

use super::handle::Page;
use super::pulls::{bodies_pending, sources_pending};
use super::watch::Store;
use super::watch::now_ms;
use super::watch::records::Record;
use super::watch::views::effects::{self, Effects, Mark, Navigated};

const NEXT_TASK_JS: &str = include_str!("../../js/next_task.js");
const FLUSH_DOM_JS: &str = include_str!("../../js/flush_dom.js");

/// How long the page gets to run what the input queued before the service looks.
const NEXT_TASK_WAIT: Duration = Duration::from_millis(500);

/// How long the network must stay quiet after the action's last request was answered or ended.
pub const QUIET: Duration = Duration::from_millis(100);

impl Page {
    /// Marks where the page stands, without filing anything.
    pub fn mark(&self) -> Mark {
        let store = self.watch().store();
        Mark { seq: store.timeline.last_seq(), loader: self.loader_id(), at: now_ms() }
    }

    /// Files the caller's action (`page.click e5`) in the timeline and marks where the page stands
    /// before it.
    pub fn mark_action(&self, what: &str) -> Mark {
        let at = now_ms();
        let mut store = self.watch().store();
        let seq = store.timeline.push(at, Record::Action(what.to_owned()));
        Mark { seq, loader: self.loader_id(), at }
    }

    /// Waits until every request started since `mark` has been answered and nothing has started,
    /// been answered or ended for [`QUIET`], for at most `settle` (and never past `deadline`).
    /// Returns at once when the action started nothing.
    pub async fn settle(&self, mark: &Mark, settle: Duration, deadline: Instant) {
        if settle.is_zero() {
            return;
        }
        // Let the page run the tasks the input queued (a handler's fetch starts on one of its
        // own); then whatever the action started has been reported. A page busy in a loop or
        // navigating away just skips this.
        let _ = self.call_helper(NEXT_TASK_JS, &[], (Instant::now() + NEXT_TASK_WAIT).min(deadline)).await;
        self.settle_events(deadline).await;
        let until = (Instant::now() + settle).min(deadline);
        let mut net = self.watch().net.clone();
        let mut waited = false;
        loop {
            net.borrow_and_update();
            let (last, open) = activity_since(&self.watch().store(), mark.seq);
            let Some(last) = last else { break };
            waited = true;
            let quiet_ms = (last + QUIET.as_secs_f64() * 1000.0 - now_ms()).max(0.0);
            if open == 0 && quiet_ms == 0.0 {
                break;
            }
            if Instant::now() >= until {
                break;
            }
            let wake = if open == 0 {
                (Instant::now() + Duration::from_secs_f64(quiet_ms / 1000.0)).min(until)
            } else {
                until
            };
            tokio::select! {
                _ = tokio::time::sleep_until(wake) => {}
                changed = net.changed() => if changed.is_err() { break },
            }
        }
        if waited {
            // What the last response rendered: ask the DOM watcher for it now.
            let _ = self.call_helper(FLUSH_DOM_JS, &[], (Instant::now() + NEXT_TASK_WAIT).min(deadline)).await;
            // A handler that ran on the last response may have logged or thrown: collect it.
            // (Without a wait, the barrier after the next-task look has just collected everything.)
            self.settle_events(deadline).await;
        }
    }

    /// What happened since `mark` (see [`Effects`]).
    pub async fn effects(&self, mark: &Mark, deadline: Instant) -> Effects {
        self.wait_for_fetches(deadline, |s| !bodies_pending(s, mark.seq) && !sources_pending(s, mark.seq)).await;
        let navigated = if self.loader_id() != mark.loader {
            self.landed(deadline).await.ok().map(|landed| Navigated {
                url: landed.url,
                title: landed.title,
                status: landed.status,
            })
        } else {
            None
        };
        let page_url = self.watch().nav.borrow().url.clone();
        let mut effects = effects::collect(&self.watch().store(), mark, &page_url, now_ms());
        effects.navigated = navigated;
        effects
    }
}

/// When a request started after `since` last started, was answered or ended (ms since the Unix
/// epoch), and how many of them (not counting long-lived streams) are still unanswered: what an
/// action's settling waits on.
fn activity_since(store: &Store, since: u64) -> (Option<f64>, usize) {
    let mut last: Option<f64> = None;
    let mut open = 0;
    for entry in store.timeline.since(since) {
        let Record::Request(r) = &entry.record else { continue };
        if r.browser_own {
            continue;
        }
        let latest = [Some(entry.at), r.response.as_ref().map(|a| a.at), r.end.as_ref().map(|(at, _)| *at)]
            .into_iter()
            .flatten()
            .fold(entry.at, f64::max);
        last = Some(last.map_or(latest, |l: f64| l.max(latest)));
        if r.response.is_none() && r.end.is_none() && !r.resource_type.is_long_lived() {
            open += 1;
        }
    }
    (last, open)
}
