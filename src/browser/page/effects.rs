//! What an action caused, waited for and read: [`Page::mark_action`] files the action in the
//! timeline and marks where the page stood; [`Page::settle`] waits until every request started
//! since the mark has been answered and nothing has happened on the network for [`QUIET`] (so a
//! handler reacting to a response is caught), bounded by the caller's `settleMs` — a body the page
//! never reads is not waited for; an action that started nothing pays no wait at all.
//! [`Page::effects`] then reads the timeline after the mark (`watch::views::effects`), draining
//! nothing.
//!
//! [`Page::finish_action`] does both for an action and adds what only an action has: the listeners
//! its events reached (named while it settles, see `reach`) and what the browser did by default,
//! why nothing was reached when nothing was (`replaced`), and `stillBusy` — the control it touched
//! showing a busy sign since the action although nothing is pending.

use std::time::Duration;

use serde::Deserialize;
use serde_json::json;
use tokio::time::Instant;

use super::actions::Acted;
use super::handle::Page;
use super::pulls::{bodies_pending, sources_pending};
use super::watch::Store;
use super::watch::dom::NoteKind;
use super::watch::facts::{duration, path_of};
use super::watch::now_ms;
use super::watch::records::Record;
use super::watch::views::effects::{self, Effects, Mark, Navigated};
use super::watch::views::reached::{by_default, reached};
use crate::browser::chromium::kinds::Level;
use crate::browser::error::BrowserError;

const NEXT_TASK_JS: &str = include_str!("../../js/next_task.js");
const FLUSH_DOM_JS: &str = include_str!("../../js/flush_dom.js");

/// How long the page gets to run what the input queued before the service looks.
const NEXT_TASK_WAIT: Duration = Duration::from_millis(500);

/// How long the network must stay quiet after the action's last request was answered or ended.
pub const QUIET: Duration = Duration::from_millis(100);
/// How long `page.evaluate` settles what its code started (an action's default `settleMs`).
const EVALUATE_SETTLE: Duration = Duration::from_secs(2);
/// Characters of an error's message in a `stillBusy` line.
const THREW_CHARS: usize = 100;

/// The element an action touched, showing a sign of work in progress it did not show before the
/// action (`js/lib.js` `busy`).
#[derive(Debug, Clone, Deserialize)]
pub struct Busy {
    /// tag#id.class "text".
    element: String,
    /// The DOM watcher's name of it.
    watch: String,
    /// disabled, aria-busy.
    #[serde(default)]
    states: Vec<String>,
    /// A spinner shown since the action.
    #[serde(default)]
    spinner: Option<String>,
    /// Its form, aria-busy since the action.
    #[serde(default)]
    form: Option<String>,
    /// Disabled since the action and no other sign: busy only if something went wrong meanwhile
    /// (a handler that threw or a request that failed leaves it so; a form that is done may
    /// disable its button on purpose).
    #[serde(default, rename = "disabledOnly")]
    disabled_only: bool,
}

/// What a look at the page answered with (`js/next_task.js`, `js/flush_dom.js`).
#[derive(Debug, Default, Deserialize)]
pub(super) struct Looked {
    #[serde(default)]
    busy: Option<serde_json::Value>,
    /// The DOM watcher's report (its JSON), delivered with the answer.
    #[serde(default)]
    report: Option<String>,
    /// The document's URL and title (`js/flush_dom.js`).
    #[serde(default)]
    pub url: Option<String>,
    #[serde(default)]
    pub title: Option<String>,
    /// A `<meta http-equiv="refresh">` sends the page on within a second (a redirect, to Chromium).
    #[serde(default)]
    pub refresh: bool,
}

impl Looked {
    /// The busy sign of the control an action touched, if it shows one.
    fn busy(&self) -> Option<Busy> {
        self.busy.clone().and_then(|busy| serde_json::from_value(busy).ok())
    }
}

/// The time left for a look's answer to reach the service (past it the page reports through the
/// watcher's binding instead, see `js/lib.js` `domReport`).
const ANSWER_MARGIN: Duration = Duration::from_millis(100);

/// When (ms since the Unix epoch) the page must have answered a look the service waits for until
/// `wait`.
fn answer_by(wait: Instant) -> f64 {
    let left = wait.saturating_duration_since(Instant::now()).saturating_sub(ANSWER_MARGIN);
    now_ms() + left.as_secs_f64() * 1000.0
}

impl Page {
    /// Files the DOM watcher's report a look answered with, and returns the rest of the answer.
    fn looked(&self, answer: Result<serde_json::Value, BrowserError>) -> Option<Looked> {
        let mut looked: Looked = answer.ok().and_then(|v| serde_json::from_value(v).ok())?;
        if let Some(report) = looked.report.take() {
            self.file_dom_report(&report);
        }
        Some(looked)
    }

    /// Takes what the DOM watcher holds now (`js/flush_dom.js`) into the timeline (the caller then
    /// waits for it with [`Page::settle_events`]); with `since` (an action's start), also whether
    /// the control the action touched is still busy, and where the page is.
    /// `None` when the page did not answer in time (busy in a loop, navigating away).
    pub(super) async fn look(&self, since: Option<f64>, deadline: Instant) -> Option<Looked> {
        let wait = (Instant::now() + NEXT_TASK_WAIT).min(deadline);
        let answer = self.call_helper(FLUSH_DOM_JS, &[json!(since), json!(answer_by(wait))], wait).await;
        self.looked(answer)
    }

    /// [`Page::look`] for the busy sign alone.
    pub(super) async fn flush_dom(&self, since: Option<f64>, deadline: Instant) -> Option<Busy> {
        self.look(since, deadline).await?.busy()
    }

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
    /// Returns at once when the action started nothing. Answers with what the element the action
    /// touched showed at the end, when it shows a busy sign it did not show before.
    pub async fn settle(&self, mark: &Mark, settle: Duration, deadline: Instant) -> Option<Busy> {
        if settle.is_zero() {
            return None;
        }
        let busy = self.look_next_task(mark, false, deadline).await;
        self.settle_network(mark, settle, busy, deadline).await
    }

    /// Lets the page run the tasks the input queued (a handler's fetch starts on one of its own),
    /// asks the DOM watcher for what it holds, and collects what the page reported: then whatever
    /// the action started has been reported. A page busy in a loop or navigating away just skips
    /// the look. Answers with the busy sign of the element the action touched.
    /// With `change`, the look first fires the `change` a typed fill left to it (`Acted::change`).
    async fn look_next_task(&self, mark: &Mark, change: bool, deadline: Instant) -> Option<Busy> {
        let next_task = (Instant::now() + NEXT_TASK_WAIT).min(deadline);
        let args = [json!(mark.at), json!(answer_by(next_task)), json!(change)];
        let answer = self.call_helper(NEXT_TASK_JS, &args, next_task).await;
        let busy = self.looked(answer).and_then(|looked| looked.busy());
        self.settle_events(deadline).await;
        busy
    }

    /// The rest of [`Page::settle`], after the look at the next task.
    async fn settle_network(
        &self,
        mark: &Mark,
        settle: Duration,
        mut busy: Option<Busy>,
        deadline: Instant,
    ) -> Option<Busy> {
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
            busy = self.flush_dom(Some(mark.at), deadline).await;
            // A handler that ran on the last response may have logged or thrown: collect it.
            // (Without a wait, the barrier after the next-task look has just collected everything.)
            self.settle_events(deadline).await;
        }
        busy
    }

    /// Settles an action that began at `mark` and whose input learned `acted`, and says what it
    /// caused: [`Page::effects`], plus what its events reached and the browser did by default, why
    /// nothing was reached, and whether the control it touched is still busy with nothing pending.
    /// A navigation the input started is followed after the look (`Acted::follow`): the answer
    /// comes once the new document has loaded, and fails as `page.goto` would if it did not.
    pub async fn finish_action(
        &self,
        mark: &Mark,
        acted: &Acted,
        settle: Duration,
        deadline: Instant,
    ) -> Result<Effects, BrowserError> {
        // A typed fill's change rides on the look at the next task; without that look, it fires now.
        let change_in_look = acted.change && acted.ahead.is_none() && acted.input.is_some() && !settle.is_zero();
        if acted.change && !change_in_look {
            self.leave_field(deadline).await;
        }
        let mut looked = None;
        let ahead = match (&acted.ahead, acted.input) {
            (Some(ahead), _) => Some(ahead.clone()),
            (None, Some(input)) => {
                // The page's watch listed the listeners as the input began; the list comes with
                // the DOM watcher's report, which the look at the next task asks for.
                looked = Some(if settle.is_zero() {
                    self.flush_dom(None, deadline).await;
                    self.settle_events(deadline).await;
                    None
                } else {
                    self.look_next_task(mark, change_in_look, deadline).await
                });
                self.reached_since(mark, input)
            }
            (None, None) => None,
        };
        if let Some(before) = acted.follow {
            // Without a look, nothing has applied the input's events yet.
            if looked.is_none() {
                self.settle_events(deadline).await;
            }
            if self.follow_navigation_since(before, deadline).await? {
                // The look saw the document the input left: the new one's report is taken now,
                // and nothing it shows can be the touched control's busy sign.
                self.flush_dom(None, deadline).await;
                self.settle_events(deadline).await;
                looked = Some(None);
            }
        }
        let naming = async {
            match &ahead {
                Some(ahead) => Some(self.name_reached(ahead, deadline).await),
                None => None,
            }
        };
        let settling = async {
            match looked {
                Some(_) if settle.is_zero() => None,
                Some(busy) => self.settle_network(mark, settle, busy, deadline).await,
                None => self.settle(mark, settle, deadline).await,
            }
        };
        let (busy, listeners) = tokio::join!(settling, naming);
        let mut effects = self.effects(mark, deadline).await;
        if let Some(mut listeners) = listeners {
            {
                let store = self.watch().store();
                let notes: Vec<_> = store
                    .timeline
                    .since(mark.seq)
                    .filter_map(|e| if let Record::Dispatched(note) = &e.record { Some(note) } else { None })
                    .collect();
                effects.by_default = by_default(&notes, &listeners).map(|d| store.redactor.text(&d));
                // A form's submit listeners were listed in case the input submitted it; they ran
                // only if a submit was dispatched (not for a type="button", nor an Enter that
                // submitted nothing).
                if !notes.iter().any(|n| n.kind == NoteKind::Submit) {
                    listeners.retain(|l| l.event != "submit");
                }
            }
            let found = reached(&listeners);
            if found.is_nothing()
                && let Some(ahead) = &ahead
            {
                effects.no_listener_because = Some(self.why_no_listener(ahead, &acted.watch, deadline).await);
            }
            effects.reached = Some(found);
        }
        if effects.pending.is_empty()
            && let Some(busy) = busy
            && (!busy.disabled_only || went_wrong(&effects))
        {
            effects.still_busy = Some(self.still_busy(&busy, mark, &effects));
        }
        Ok(effects)
    }

    /// `button#place "Placing order…" [disabled] for 2.1 s, nothing pending (POST /api/orders
    /// failed: 500); div.spinner shown`.
    fn still_busy(&self, busy: &Busy, mark: &Mark, effects: &Effects) -> String {
        let store = self.watch().store();
        // Since the first change of the element after the action began, else since the action.
        let since = store
            .timeline
            .since(mark.seq)
            .find_map(|e| match &e.record {
                Record::Dom(dom) if dom.change.element == busy.watch => Some(dom.change.at),
                _ => None,
            })
            .unwrap_or(mark.at);
        let states = if busy.states.is_empty() { String::new() } else { format!(" [{}]", busy.states.join(", ")) };
        let mut line = format!("{}{states} for {}, nothing pending", busy.element, duration(now_ms() - since));
        if let Some(failed) = effects.requests.iter().rev().find(|r| r.failed()) {
            let how = failed.failure.clone().or(failed.status.map(|s| s.to_string())).unwrap_or_default();
            line.push_str(&format!(" ({} {} failed: {how})", failed.method, failed.url));
        } else if let Some(error) = effects.page_errors.first() {
            let at = error.location.as_ref().map(|l| format!(" at {}:{}", path_of(&l.url), l.line)).unwrap_or_default();
            let mut message: String = error.message.chars().take(THREW_CHARS).collect();
            if message.len() < error.message.len() {
                message.push('…');
            }
            line.push_str(&format!(" (it threw {message}{at})"));
        }
        if let Some(spinner) = &busy.spinner {
            line.push_str(&format!("; {spinner} shown"));
        }
        if let Some(form) = &busy.form {
            line.push_str(&format!("; {form} aria-busy"));
        }
        store.redactor.text(&line)
    }

    /// What code the caller ran in the page (`page.evaluate`, begun at `mark`) caused, settled like
    /// an action's effects — only when it caused something an answer must not hide: a request, a
    /// page error or console error, a navigation. Otherwise None, at the cost of one look at what
    /// the page reported before the code's answer (no round trip to the page).
    pub async fn caused(&self, mark: &Mark, deadline: Instant) -> Option<Effects> {
        self.watch().applied(deadline).await;
        let something = self.loader_id() != mark.loader || {
            let store = self.watch().store();
            store.timeline.since(mark.seq).any(|e| match &e.record {
                Record::Request(r) => !r.browser_own,
                Record::PageError(_) => true,
                Record::Console(c) => c.level() == Level::Error,
                _ => false,
            })
        };
        if !something {
            return None;
        }
        self.settle(mark, EVALUATE_SETTLE, deadline).await;
        Some(self.effects(mark, deadline).await)
    }

    /// What happened since `mark` (see [`Effects`]).
    pub async fn effects(&self, mark: &Mark, deadline: Instant) -> Effects {
        self.wait_for_fetches(deadline, |s| {
            !bodies_pending(s, mark.seq) && !sources_pending(s, mark.seq) && !s.causes.pending_since(mark.at)
        })
        .await;
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

/// A failed request or an error among an action's effects: what leaves a control it disabled so.
fn went_wrong(effects: &Effects) -> bool {
    !effects.page_errors.is_empty() || !effects.console_errors.is_empty() || effects.requests.iter().any(|r| r.failed())
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
