//! [`ActionRun`]: one action from its start to its answer — begun (filed in the timeline as
//! `page.click e5`, the page marked), its inputs dispatched (`pointer`, `keyboard`, `forms`,
//! `upload`), then finished: the look at the page's next task (which collects what the input
//! started and the listeners it reached), a navigation it started followed, the network settled,
//! and the effects read after the mark. [`Acted`] is what the inputs learned on the way.

use std::time::Duration;

use serde_json::json;
use tokio::time::Instant;

use super::listeners::{Ahead, Input, name_reached, reached_since};
use super::replaced::why_no_listener;
use super::settle::{self, look_next_task, settle_network, still_busy, went_wrong};
use crate::browser::chromium::ids::RequestId;
use crate::browser::error::BrowserError;
use crate::browser::page::handle::{Page, busy_of};
use crate::browser::page::locate::answers::{Busy, Ready};
use crate::browser::page::locate::scripts::FinishFill;
use crate::browser::page::navigation::WaitUntil;
use crate::browser::page::watch::dom::NoteKind;
use crate::browser::page::watch::notes::ActionNote;
use crate::browser::page::watch::records::Record;
use crate::browser::page::watch::views::effects::{self, Effects, Mark};
use crate::browser::page::watch::views::reached::{ReachedListener, by_default, reached, repeats};
use crate::browser::page::watch::{NavMarks, now_ms};
use crate::browser::pointer::{Approach, PointerTarget};

/// How long a navigation an action asked for may take to start its request.
const NAVIGATION_START: Duration = Duration::from_secs(2);

/// One action on a page (see the module doc). Clones share the page.
#[derive(Clone)]
pub struct ActionRun {
    pub(super) page: Page,
    /// Where the page stood as the action began.
    mark: Mark,
    pub(super) deadline: Instant,
}

/// What the inputs of an action learned, for its answer.
#[derive(Debug, Clone, Default)]
pub struct Acted {
    /// What a user would have hit before the action scrolled, and how far it scrolled.
    pub approach: Approach,
    /// For an input at viewport coordinates: what was there.
    pub hit: Option<PointerTarget>,
    /// The input it made, whose listeners the page's watch lists as it begins (none for an
    /// element in a child frame, whose document the watch does not list).
    pub input: Option<Input>,
    /// The listeners its events were to reach, looked up before an input the page gets untrusted.
    pub ahead: Option<Ahead>,
    /// The DOM watcher's names of the element and its ancestors (nearest first).
    pub watch: Vec<String>,
    /// A typed fill's `change` event (what a user leaving the field fires) is still to fire: the
    /// look at the action's end fires it in its own call, so the fill pays no round trip for it
    /// ([`ActionRun::finish`]; `leave_field` where no look follows).
    pub change: bool,
    /// Where navigation stood before the input, while a navigation the input may have started is
    /// still to be followed: [`ActionRun::finish`] follows it after the look at the action's end,
    /// whose barrier has applied the input's events, so following costs no round trip of its own.
    pub follow: Option<NavMarks>,
}

impl Acted {
    /// An action of several inputs (`page.fillForm`): what the first said of its approach, the
    /// last input's listeners.
    pub fn then(self, later: Acted) -> Acted {
        Acted {
            approach: self.approach.or(later.approach),
            hit: later.hit.or(self.hit),
            // The last input's listeners, whichever way they were found.
            input: if later.ahead.is_some() { None } else { later.input.or(self.input) },
            ahead: if later.input.is_some() { None } else { later.ahead.or(self.ahead) },
            watch: if later.watch.is_empty() { self.watch } else { later.watch },
            // Each input before the last has fired its own (`ActionRun::set_field`).
            change: later.change,
            follow: later.follow.or(self.follow),
        }
    }

    pub(super) fn of(ready: Ready, input: Option<Input>) -> Acted {
        Acted { approach: ready.approach, watch: ready.watch, input, ..Acted::default() }
    }
}

/// Fires the `change` a typed fill left to the look at its end (`Acted::change`), for a caller
/// that does not look next: the next field of `page.fillForm`, an action answered without
/// settling. A page that went meanwhile has no field to leave.
pub(super) async fn leave_field(page: &Page, deadline: Instant) {
    let _ = page.locate().call(FinishFill, &[json!(null), json!(false)], deadline).await;
}

impl Page {
    /// Begins an action: files the caller's action (`page.click e5`) in the timeline and marks
    /// where the page stands before it; the page's storage calls are followed first
    /// (`Core::follow_storage`).
    pub async fn begin_action(&self, what: ActionNote, deadline: Instant) -> ActionRun {
        self.follow_storage(false, deadline).await;
        let at = now_ms();
        let action = Some(what.method.clone());
        let seq = {
            let mut store = self.watch().store();
            store.timeline.push(at, Record::Action(what));
            store.timeline.mark()
        };
        let mark = Mark { seq, loader: self.loader_id(), at, action };
        ActionRun { page: self.clone(), mark, deadline }
    }
}

impl ActionRun {
    /// The page acted on.
    pub fn page(&self) -> &Page {
        &self.page
    }

    /// Remembers `value` as a secret of this session (the caller marked it `secret`): masked like
    /// a typed password in every answer and event of every tab, for the session's life.
    pub fn keep_secret(&self, value: &str) {
        self.page.watch().store().redactor.remember(value);
    }

    /// Settles the action and says what it caused: the effects after the mark, plus what its
    /// events reached and the browser did by default, why nothing was reached, and whether the
    /// control it touched is still busy with nothing pending. A navigation the input started is
    /// followed after the look (`Acted::follow`): the answer comes once the new document has
    /// loaded, and fails as `page.goto` would if it did not.
    pub async fn finish(&self, acted: &Acted, settle: Duration) -> Result<Effects, BrowserError> {
        let (ahead, looked) = self.look_after(acted, settle).await;
        let looked = self.follow(acted, looked).await?;
        let naming = async {
            match &ahead {
                Some(ahead) => Some(name_reached(&self.page, ahead, self.deadline).await),
                None => None,
            }
        };
        let settling = async {
            match looked {
                Some(_) if settle.is_zero() => None,
                Some(busy) => settle_network(&self.page, &self.mark, settle, busy, self.deadline).await,
                None => self.page.settle(&self.mark, settle, self.deadline).await,
            }
        };
        let (busy, listeners) = tokio::join!(settling, naming);
        let mut effects = settle::effects(&self.page, &self.mark, self.deadline).await;
        if let Some(listeners) = listeners {
            self.add_reached(&mut effects, listeners, ahead.as_ref(), acted).await;
        }
        if effects.pending.is_empty()
            && let Some(busy) = busy
            && (!busy.disabled_only || went_wrong(&effects))
        {
            effects.still_busy = Some(still_busy(&self.page, &busy, &self.mark, &effects));
        }
        Ok(effects)
    }

    /// The look after the input: the listeners it was to reach, and the look's busy sign (`None`:
    /// no look yet). A typed fill's change rides on the look at the next task; without that look,
    /// it fires now.
    async fn look_after(&self, acted: &Acted, settle: Duration) -> (Option<Ahead>, Option<Option<Busy>>) {
        let (page, deadline) = (&self.page, self.deadline);
        let change_in_look = acted.change && acted.ahead.is_none() && acted.input.is_some() && !settle.is_zero();
        if acted.change && !change_in_look {
            leave_field(page, deadline).await;
        }
        match (&acted.ahead, acted.input) {
            (Some(ahead), _) => (Some(ahead.clone()), None),
            (None, Some(input)) => {
                // The page's watch listed the listeners as the input began; the list comes with
                // the DOM watcher's report, which the look at the next task asks for.
                let looked = if settle.is_zero() {
                    page.look(None, deadline).await;
                    page.settle_events(deadline).await;
                    None
                } else {
                    look_next_task(page, &self.mark, change_in_look, deadline).await
                };
                (reached_since(page, &self.mark, input), Some(looked))
            }
            (None, None) => (None, None),
        }
    }

    /// Follows a navigation the input started, once the look (or a barrier) has applied the
    /// input's events; answers the look's busy sign, which a navigation makes moot.
    async fn follow(&self, acted: &Acted, looked: Option<Option<Busy>>) -> Result<Option<Option<Busy>>, BrowserError> {
        let (page, deadline) = (&self.page, self.deadline);
        let Some(before) = acted.follow else { return Ok(looked) };
        // Without a look, nothing has applied the input's events yet.
        if looked.is_none() {
            page.settle_events(deadline).await;
        }
        if !follow_navigation_since(page, before, deadline).await? {
            return Ok(looked);
        }
        // The look saw the document the input left: the new one's report is taken now, and
        // nothing it shows can be the touched control's busy sign.
        busy_of(page.look(None, deadline).await);
        page.settle_events(deadline).await;
        Ok(Some(None))
    }

    /// What the action's events reached, what the browser did by default, and why nothing was
    /// reached when nothing was.
    async fn add_reached(
        &self,
        effects: &mut Effects,
        mut listeners: Vec<ReachedListener>,
        ahead: Option<&Ahead>,
        acted: &Acted,
    ) {
        {
            let store = self.page.watch().store();
            let notes: Vec<_> = store
                .timeline
                .since(self.mark.seq)
                .filter_map(|e| if let Record::Dispatched(note) = &e.record { Some(note) } else { None })
                .collect();
            effects.by_default = by_default(&notes, &listeners).map(|d| store.redactor.text(&d));
            // A form's submit listeners were listed in case the input submitted it; they ran only
            // if a submit was dispatched (not for a type="button", nor an Enter that submitted
            // nothing).
            if !notes.iter().any(|n| n.kind == NoteKind::Submit) {
                listeners.retain(|l| l.event != "submit");
            }
        }
        let found = reached(&listeners);
        effects::same_handler(effects, &repeats(&listeners), self.mark.what());
        if found.is_nothing()
            && let Some(ahead) = ahead
        {
            effects.no_listener_because = Some(why_no_listener(&self.page, ahead, &acted.watch, self.deadline).await);
        }
        effects.reached = Some(found);
    }
}

/// Where navigation stands now: what an input compares against afterwards.
pub(super) fn marks(page: &Page) -> NavMarks {
    page.watch().nav.borrow().marks()
}

/// If an input started a navigation of the page, waits for the new document to load (for an input
/// whose action follows it itself, before the action ends: a checkbox's click).
pub(super) async fn follow_navigation(page: &Page, before: NavMarks, deadline: Instant) -> Result<(), BrowserError> {
    page.settle_events(deadline).await;
    follow_navigation_since(page, before, deadline).await.map(|_| ())
}

/// [`follow_navigation`] once the pump has applied the events up to an answer after the input's (a
/// barrier: [`crate::browser::page::core::Core::settle_events`]). Chromium reports the navigation
/// request before it acknowledges the input, so by then a navigation the input started has been
/// counted. Answers whether one had started (and has loaded, or was cancelled).
async fn follow_navigation_since(page: &Page, before: NavMarks, deadline: Instant) -> Result<bool, BrowserError> {
    if page.watch().nav.borrow().marks() == before {
        return Ok(false);
    }
    // The request itself starts at once (only its answer may be slow); one that has not started
    // within this bound was cancelled (a download, a beforeunload refusal …).
    let start_by = (Instant::now() + NAVIGATION_START).min(deadline);
    let mut watch = page.watch().nav.clone();
    let started = tokio::time::timeout_at(start_by, async {
        watch.wait_for(|n| n.document_requests > before.documents).await.map(|n| n.last_document_request.clone())
    })
    .await;
    // Asked for but never started (cancelled, or a download): nothing to wait for.
    let Ok(Ok(loader)) = started else { return Ok(false) };
    let what = "the navigation the action started";
    match page.nav().wait_for_loader(loader.as_str(), WaitUntil::Load, deadline, what).await {
        Ok(()) => Ok(true),
        // Cancelled rather than failed: a download (the answer was an attachment), a 204, a
        // refused beforeunload. The page stays; the effects show the request.
        Err(Unloaded::Cancelled(_)) => Ok(false),
        // The wait knows the request, not where it went.
        Err(Unloaded::Failed(BrowserError::NavigationFailed { url, reason })) if url.is_empty() => {
            Err(BrowserError::NavigationFailed { url: request_url(page, &loader), reason })
        }
        Err(Unloaded::Failed(err)) => Err(err),
    }
}

/// The URL the page's request `id` went to, as the timeline keeps it (redacted; empty when it
/// fell off).
fn request_url(page: &Page, id: &RequestId) -> String {
    let store = page.watch().store();
    let url = store.timeline.iter().rev().find_map(|entry| match &entry.record {
        Record::Request(r) if r.id == *id => Some(r.url.clone()),
        _ => None,
    });
    url.map(|url| store.redactor.text(&url)).unwrap_or_default()
}

use crate::browser::page::navigation::Unloaded;
