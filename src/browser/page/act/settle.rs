//! What an action (or any call) caused, waited for and read: [`Page::mark`] marks where the page
//! stands; [`Page::settle`] waits until every request started since the mark has been answered and
//! nothing has happened on the network for [`QUIET`] (so a handler reacting to a response is
//! caught) — and, after a frame it sent on a socket, for an answer on that socket (at most
//! [`SOCKET_ANSWER`]) — bounded by the caller's `settleMs` — a body the page never reads is not waited for; an
//! action that started nothing pays no wait at all. [`effects`] then reads the timeline after the
//! mark (`watch::views::effects`), draining nothing. `stillBusy` says the control an action
//! touched shows a busy sign since the action although nothing is pending.

use std::time::Duration;

use serde_json::json;
use tokio::time::Instant;

use crate::browser::chromium::kinds::Level;
use crate::browser::page::handle::{NEXT_TASK_WAIT, Page, answer_by, busy_of, filed};
use crate::browser::page::locate::answers::Busy;
use crate::browser::page::locate::scripts::NextTask;
use crate::browser::page::settled::{bodies_pending, sources_pending, wait_for_fetches};
use crate::browser::page::watch::Store;
use crate::browser::page::watch::exchanged::SocketWhat;
use crate::browser::page::watch::facts::duration;
use crate::browser::page::watch::now_ms;
use crate::browser::page::watch::origin::origin_of;
use crate::browser::page::watch::records::Record;
use crate::browser::page::watch::views::effects::{self, Effects, Mark, Navigated};
use crate::browser::page::watch::views::wire;

/// How long the network must stay quiet after the action's last request was answered or ended.
pub const QUIET: Duration = Duration::from_millis(100);
/// How long settling waits for an answer to a frame the action sent on a socket.
const SOCKET_ANSWER: Duration = Duration::from_secs(1);
/// How often settling looks for that answer.
const SOCKET_LOOK: Duration = Duration::from_millis(20);
/// How long `page.evaluate` settles what its code started (an action's default `settleMs`).
const EVALUATE_SETTLE: Duration = Duration::from_secs(2);
/// Characters of an error's message in a `stillBusy` line.
const THREW_CHARS: usize = 100;

impl Page {
    /// Marks where the page stands, without filing anything.
    pub fn mark(&self) -> Mark {
        let store = self.watch().store();
        Mark { seq: store.timeline.last_seq(), loader: self.loader_id(), at: now_ms(), action: None }
    }

    /// Marks where the page stands before code the caller runs in it (`page.evaluate`), whose
    /// effects are read from there: the DOM changes it causes start timeline entries of their own.
    pub fn mark_effects(&self) -> Mark {
        let seq = self.watch().store().timeline.mark();
        Mark { seq, loader: self.loader_id(), at: now_ms(), action: None }
    }

    /// Waits until every request started since `mark` has been answered and nothing has started,
    /// been answered or ended for [`QUIET`], for at most `settle` (and never past `deadline`).
    /// Returns at once when the action started nothing. Answers with what the element the action
    /// touched showed at the end, when it shows a busy sign it did not show before.
    pub async fn settle(&self, mark: &Mark, settle: Duration, deadline: Instant) -> Option<Busy> {
        if settle.is_zero() {
            return None;
        }
        let busy = look_next_task(self, mark, false, deadline).await;
        settle_network(self, mark, settle, busy, deadline).await
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
                Record::Request(r) => !r.is_noise(),
                Record::PageError(_) => true,
                Record::Console(c) => c.level() == Level::Error,
                _ => false,
            })
        };
        if !something {
            return None;
        }
        self.settle(mark, EVALUATE_SETTLE, deadline).await;
        Some(effects(self, mark, deadline).await)
    }
}

/// Lets the page run the tasks the input queued (a handler's fetch starts on one of its own),
/// asks the DOM watcher for what it holds, and collects what the page reported: then whatever
/// the action started has been reported. A page busy in a loop or navigating away just skips
/// the look. Answers with the busy sign of the element the action touched.
/// With `change`, the look first fires the `change` a typed fill left to it (`Acted::change`).
pub(super) async fn look_next_task(page: &Page, mark: &Mark, change: bool, deadline: Instant) -> Option<Busy> {
    let next_task = (Instant::now() + NEXT_TASK_WAIT).min(deadline);
    let args = [json!(mark.at), json!(answer_by(next_task)), json!(change)];
    let answer = page.locate().call(NextTask, &args, next_task).await;
    let busy = busy_of(filed(page, answer));
    page.settle_events(deadline).await;
    busy
}

/// The rest of [`Page::settle`], after the look at the next task.
pub(super) async fn settle_network(
    page: &Page,
    mark: &Mark,
    settle: Duration,
    mut busy: Option<Busy>,
    deadline: Instant,
) -> Option<Busy> {
    let until = (Instant::now() + settle).min(deadline);
    let mut net = page.watch().net.clone();
    let mut waited = false;
    loop {
        net.borrow_and_update();
        let Activity { last, open, awaiting } = activity_since(&page.watch().store(), mark.seq);
        let Some(last) = last else { break };
        waited = true;
        let quiet_ms = (last + QUIET.as_secs_f64() * 1000.0 - now_ms()).max(0.0);
        if open == 0 && quiet_ms == 0.0 && !awaiting {
            break;
        }
        if Instant::now() >= until {
            break;
        }
        let wake = match (open, awaiting) {
            // Socket frames move no network state: look again soon for the answer.
            (0, true) => (Instant::now() + SOCKET_LOOK).min(until),
            (0, false) => (Instant::now() + Duration::from_secs_f64(quiet_ms / 1000.0)).min(until),
            _ => until,
        };
        tokio::select! {
            _ = tokio::time::sleep_until(wake) => {}
            changed = net.changed() => if changed.is_err() { break },
        }
    }
    if waited {
        // What the last response rendered: let the page run the tasks already queued (a loaded
        // renderer may not have run the code reading the last answer yet), then ask the DOM watcher
        // for what it holds, and collect what a handler of it logged or threw. (Without a wait, the
        // barrier after the first next-task look has just collected everything.)
        busy = look_next_task(page, mark, false, deadline).await;
    }
    busy
}

/// What happened since `mark` (see [`Effects`]).
pub async fn effects(page: &Page, mark: &Mark, deadline: Instant) -> Effects {
    wait_for_fetches(page, deadline, |s| {
        !bodies_pending(s, mark.seq) && !sources_pending(s, mark.seq) && !s.causes.pending_since(mark.at)
    })
    .await;
    let navigated = if page.loader_id() != mark.loader {
        page.nav().landed(deadline).await.ok().map(|landed| Navigated {
            url: landed.url,
            title: landed.title,
            status: landed.status,
            chain: Vec::new(),
        })
    } else {
        None
    };
    let page_url = page.watch().nav.borrow().url.clone();
    let places = page.places_since(mark.seq, deadline).await;
    let store = page.watch().store();
    let mut effects = effects::collect(&store, mark, &page_url, now_ms(), &places);
    effects.navigated = navigated.map(|landed| {
        let document = page.loader_id().document_request();
        Navigated { chain: wire::chain(&store, mark.seq, &document, &origin_of(&page_url)), ..landed }
    });
    effects
}

/// `button#place "Placing order…" [disabled] for 2.1 s, nothing pending (POST /api/orders
/// failed: 500); div.spinner shown`.
pub(super) fn still_busy(page: &Page, busy: &Busy, mark: &Mark, effects: &Effects) -> String {
    let store = page.watch().store();
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
        let at = error.location.as_ref().map(|l| format!(" at {}", l.spot())).unwrap_or_default();
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

/// A failed request or an error among an action's effects: what leaves a control it disabled so.
pub(super) fn went_wrong(effects: &Effects) -> bool {
    !effects.page_errors.is_empty() || !effects.console_errors.is_empty() || effects.requests.iter().any(|r| r.failed())
}

/// When a request started after `since` last started, was answered or ended (ms since the Unix
/// epoch), and how many of them (not counting long-lived streams) are still unanswered: what an
/// action's settling waits on.
fn activity_since(store: &Store, since: u64) -> Activity {
    let mut activity = Activity::default();
    // Per socket: when the page last sent on it and when it last received (frames sent and
    // received arrive on channels of their own: compared by their times, not their order).
    let mut sockets: Vec<(&str, f64, f64)> = Vec::new();
    for entry in store.timeline.since(since) {
        let latest = match &entry.record {
            Record::Request(r) if !r.browser_own && !r.is_noise() => {
                if r.response.is_none() && r.end.is_none() && !r.resource_type.is_long_lived() {
                    activity.open += 1;
                }
                [Some(entry.at), r.response.as_ref().map(|a| a.at), r.end.as_ref().map(|(at, _)| *at)]
                    .into_iter()
                    .flatten()
                    .fold(entry.at, f64::max)
            }
            Record::Socket(note) => {
                let (sent, at) = match &note.what {
                    SocketWhat::Frame(frame) => (frame.sent, entry.at),
                    SocketWhat::Frames(group) => (group.sent, group.last_at),
                    _ => (false, entry.at),
                };
                let index = sockets.iter().position(|(url, ..)| *url == note.url).unwrap_or_else(|| {
                    sockets.push((&note.url, f64::MIN, f64::MIN));
                    sockets.len() - 1
                });
                let (_, last_sent, last_received) = &mut sockets[index];
                let last = if sent { last_sent } else { last_received };
                *last = last.max(at);
                at
            }
            _ => continue,
        };
        activity.last = Some(activity.last.map_or(latest, |l: f64| l.max(latest)));
    }
    let now = now_ms();
    activity.awaiting =
        sockets.iter().any(|(_, sent, received)| received < sent && now < sent + SOCKET_ANSWER.as_secs_f64() * 1000.0);
    activity
}

/// What happened on the network since an action's mark.
#[derive(Debug, Default)]
struct Activity {
    /// When the latest request or socket frame started, was answered or ended.
    last: Option<f64>,
    /// Requests unanswered.
    open: usize,
    /// A frame the action sent on a socket has had no answer yet (for at most [`SOCKET_ANSWER`]).
    awaiting: bool,
}
