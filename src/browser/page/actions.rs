//! Acting like a user: `page.click`, `page.fill`, `page.press`.
//!
//! Before acting, the element must be ready for the [`Action`]: attached, visible and enabled;
//! for clicks also stable across an animation frame and the element that receives a click at its
//! centre (typing goes to the focused element, wherever it is). `js/probe.js` checks that once;
//! this module repeats the probe until it passes or the deadline, and a timeout says what was
//! still missing ("role=button[name='Save'] is covered by div.modal"). Input is real: mouse and
//! key events through CDP's Input domain.
//!
//! Faithful to the user: before the probe scrolls the element to the middle of the viewport, it
//! checks what a user at the scroll position before would have hit at the element's centre; the
//! action still goes ahead, and its answer says so ([`Acted::approach`]). Without scrolling
//! (`scroll: false`) the element is taken where it is, and a cover or the viewport's edge fails the
//! action at once. The listeners its events reach are listed as the input begins (`reach`), for
//! the answer's `effects.reached`. `page.click` and `page.hover` also act at viewport
//! coordinates, on whatever is there.

use std::time::Duration;

use serde::Deserialize;
use serde_json::{Value, json};
use tokio::time::Instant;

use super::action::Action;
use super::handle::Page;
use super::keys;
use super::navigation::WaitUntil;
use super::reach::{Ahead, Input};
use super::target::Target;
use super::watch::records::Record;
use crate::browser::chromium::protocol::dom::GetContentQuads;
use crate::browser::chromium::protocol::input::{
    self, DispatchKeyEvent, DispatchMouseEvent, InsertText, KeyEventType, MouseEventType,
};
use crate::browser::error::BrowserError;
use crate::browser::pointer::{Approach, PointerTarget};

const PROBE_JS: &str = include_str!("../../js/probe.js");
const FINISH_FILL_JS: &str = include_str!("../../js/finish_fill.js");
const POINT_JS: &str = include_str!("../../js/point.js");

/// How long a navigation an action asked for may take to start its request.
const NAVIGATION_START: Duration = Duration::from_secs(2);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum MouseButton {
    #[default]
    Left,
    Right,
    Middle,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub enum Modifier {
    Alt,
    Control,
    Meta,
    Shift,
}

impl MouseButton {
    /// Chromium's name for it.
    fn cdp(self) -> input::MouseButton {
        match self {
            Self::Left => input::MouseButton::Left,
            Self::Right => input::MouseButton::Right,
            Self::Middle => input::MouseButton::Middle,
        }
    }
}

impl Modifier {
    fn bit(self) -> u32 {
        match self {
            Self::Alt => 1,
            Self::Control => 2,
            Self::Meta => 4,
            Self::Shift => 8,
        }
    }
}

#[derive(Debug, Clone, Default)]
pub struct ClickOptions {
    pub button: MouseButton,
    pub modifiers: Vec<Modifier>,
    pub click_count: u32,
    /// Act where the element is, without scrolling it into view (`scroll: false`).
    pub keep_scroll: bool,
}

/// Where an element ended up once it was ready.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Ready {
    pub x: f64,
    #[serde(default)]
    pub y: f64,
    #[serde(default)]
    pub page_x: f64,
    #[serde(default)]
    pub page_y: f64,
    #[serde(default)]
    pub width: f64,
    #[serde(default)]
    pub height: f64,
    /// The element takes a value rather than typed text (date, color, range inputs).
    #[serde(default)]
    pub set_value: bool,
    /// The element is a password field (reported for fills only).
    #[serde(default)]
    pub password: bool,
    /// What the probe's scroll avoided on the way to it.
    #[serde(default)]
    pub approach: Approach,
    /// The DOM watcher's names of the element and its ancestors.
    #[serde(default)]
    pub watch: Vec<String>,
}

/// What the input part of an action learned, for its answer.
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
    /// (`Page::finish_action`; [`Page::leave_field`] where no look follows).
    pub change: bool,
    /// Where navigation stood before the input ([`Page::navigation_marks`]), while a navigation
    /// the input may have started is still to be followed: `Page::finish_action` follows it after
    /// the look at the action's end, whose barrier has applied the input's events, so following
    /// costs no round trip of its own.
    pub follow: Option<(u64, u64)>,
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
            // Each input before the last has fired its own (`Page::set_field`).
            change: later.change,
            follow: later.follow.or(self.follow),
        }
    }

    pub(super) fn of(ready: Ready, input: Option<Input>) -> Acted {
        Acted {
            approach: ready.approach,
            hit: None,
            input,
            ahead: None,
            watch: ready.watch,
            change: false,
            follow: None,
        }
    }
}

impl Page {
    /// Repeats the actionability probe until `target` is ready for `action` or `deadline`,
    /// scrolling it into view first.
    pub(super) async fn wait_ready(
        &self,
        target: &Target,
        action: Action,
        what: &str,
        deadline: Instant,
    ) -> Result<Ready, BrowserError> {
        self.wait_ready_where(target, action, what, true, deadline).await
    }

    /// Like `wait_ready`; without `scroll`, the element is taken where it is (a cover or the
    /// viewport's edge fails at once, see `js/lib.js` `actionable`).
    pub(super) async fn wait_ready_where(
        &self,
        target: &Target,
        action: Action,
        what: &str,
        scroll: bool,
        deadline: Instant,
    ) -> Result<Ready, BrowserError> {
        let started = Instant::now();
        let mut reason = String::from("was still being checked");
        let mut approach: Option<Approach> = None;
        loop {
            let args = [json!(action), json!(scroll)];
            // The deadline may pass during a look: the answer is still what the call waited for.
            let state = self.call_helper_on(PROBE_JS, target, &args, deadline).await.map_err(|err| match err {
                BrowserError::Timeout(_) | BrowserError::NoAnswer(_) => still_waiting(what, target, &reason, started),
                other => other,
            })?;
            if state.get("x").is_some_and(Value::is_number) {
                let mut ready: Ready = serde_json::from_value(state)
                    .map_err(|e| BrowserError::HelperScript(format!("probe.js answered something unexpected: {e}")))?;
                // The first probe that scrolled saw the page as the user had it.
                if let Some(first) = approach {
                    ready.approach = first;
                }
                // The probe measures in its own frame; a child frame's element is clicked where
                // Chromium places it on the page.
                if let Some(child) = self.ref_child_frame(target) {
                    (ready.x, ready.y) =
                        self.node_center(child.backend_node_id, deadline).await.map_err(|err| match err {
                            BrowserError::NoAnswer(_) => still_waiting(what, target, &reason, started),
                            other => other,
                        })?;
                }
                return Ok(ready);
            }
            if approach.is_none()
                && let Some(seen) = state.get("approach")
            {
                approach = serde_json::from_value(seen.clone()).ok();
            }
            reason = state.get("wait").and_then(Value::as_str).unwrap_or("is not ready").to_owned();
            let pause = if reason == "matches no element" { 100 } else { 20 };
            let next = Instant::now() + Duration::from_millis(pause);
            if next >= deadline {
                return Err(still_waiting(what, target, &reason, started));
            }
            tokio::time::sleep_until(next).await;
        }
    }

    /// The centre of a node's first content quad, in the page's viewport coordinates.
    pub(super) async fn node_center(
        &self,
        backend_node_id: i64,
        deadline: Instant,
    ) -> Result<(f64, f64), BrowserError> {
        let quads = self.send(GetContentQuads { backend_node_id }, deadline).await?;
        let quad = quads.quads.into_iter().next().unwrap_or_default();
        if quad.len() != 8 {
            return Err(BrowserError::NotActionable {
                selector: format!("node {backend_node_id}"),
                reason: "has no box on the page".into(),
            });
        }
        Ok(((quad[0] + quad[2] + quad[4] + quad[6]) / 4.0, (quad[1] + quad[3] + quad[5] + quad[7]) / 4.0))
    }

    pub async fn click(
        &self,
        target: &Target,
        options: &ClickOptions,
        deadline: Instant,
    ) -> Result<Acted, BrowserError> {
        let ready = self.wait_ready_where(target, Action::Click, "page.click", !options.keep_scroll, deadline).await?;
        let input = if options.click_count >= 2 { Input::DoubleClick } else { Input::Click };
        let input = self.input_on(target, input);
        let before = self.dispatch_click(ready.x, ready.y, options, deadline).await?;
        Ok(Acted { follow: Some(before), ..Acted::of(ready, input) })
    }

    /// Clicks at viewport point (`x`, `y`), on whatever is there.
    pub async fn click_point(
        &self,
        x: f64,
        y: f64,
        options: &ClickOptions,
        deadline: Instant,
    ) -> Result<Acted, BrowserError> {
        let hit = self.point_target(x, y, deadline).await?;
        let input = if options.click_count >= 2 { Input::DoubleClick } else { Input::Click };
        let before = self.dispatch_click(x, y, options, deadline).await?;
        Ok(Acted { hit, input: Some(input), follow: Some(before), ..Acted::default() })
    }

    /// What is at viewport point (`x`, `y`): refused when the point is outside the viewport.
    pub(super) async fn point_target(
        &self,
        x: f64,
        y: f64,
        deadline: Instant,
    ) -> Result<Option<PointerTarget>, BrowserError> {
        let found = self.call_helper(POINT_JS, &[json!(x), json!(y)], deadline).await?;
        if let Some(outside) = found.get("outside").and_then(Value::as_str) {
            let param = if found.get("axis").and_then(Value::as_str) == Some("y") { "y" } else { "x" };
            return Err(BrowserError::InvalidParam { param: param.into(), message: outside.to_owned() });
        }
        Ok(found.get("hit").and_then(|hit| serde_json::from_value(hit.clone()).ok()))
    }

    /// `input` on `target`, for its listeners (none for an element in a child frame, whose
    /// document the page's watch does not list).
    pub(super) fn input_on(&self, target: &Target, input: Input) -> Option<Input> {
        self.ref_child_frame(target).is_none().then_some(input)
    }

    /// The listeners ahead of an input on `target` the page gets untrusted, asked for before it
    /// (not for an element in a child frame, whose page the lookup does not see).
    pub(super) async fn ahead_of(
        &self,
        target: &Target,
        input: Input,
        point: Option<(f64, f64)>,
        deadline: Instant,
    ) -> Option<Ahead> {
        if self.ref_child_frame(target).is_some() {
            return None;
        }
        self.listeners_ahead(input, point, deadline).await
    }

    /// Clicks at a viewport point. Answers the navigation marks from before the click, with which
    /// the caller follows a navigation it started ([`Page::follow_navigation`], `Acted::follow`).
    pub(super) async fn dispatch_click(
        &self,
        x: f64,
        y: f64,
        options: &ClickOptions,
        deadline: Instant,
    ) -> Result<(u64, u64), BrowserError> {
        let before = self.navigation_marks();
        let modifiers: u32 = options.modifiers.iter().map(|m| m.bit()).fold(0, |a, b| a | b);
        let at = |kind: MouseEventType, count: u32| DispatchMouseEvent {
            button: Some(options.button.cdp()),
            click_count: Some(count),
            modifiers: Some(modifiers),
            buttons: Some(if kind == MouseEventType::Pressed { 1 } else { 0 }),
            ..DispatchMouseEvent::at(kind, x, y)
        };
        // No separate mouse move first: Chromium delivers a lone move with the next frame (a
        // frame's wait per click), and the press itself moves the pointer there, so hover state
        // and the over/enter events come with it as they would after a move.

        // The presses and releases go out at once (`Page::send_in_order`).
        let events: Vec<_> = (1..=options.click_count.max(1))
            .flat_map(|count| [at(MouseEventType::Pressed, count), at(MouseEventType::Released, count)])
            .collect();
        self.send_in_order(events, deadline).await?;
        Ok(before)
    }

    /// Types `value` into the element, replacing its text. With `refuse_password`
    /// (REFUSE_PASSWORD_FILL), password fields are refused before anything is typed.
    pub async fn fill(
        &self,
        target: &Target,
        value: &str,
        refuse_password: bool,
        deadline: Instant,
    ) -> Result<Acted, BrowserError> {
        let ready = self.wait_ready(target, Action::Fill, "page.fill", deadline).await?;
        if ready.password && refuse_password {
            return Err(BrowserError::NotAllowed(format!(
                "page.fill into the password field {target} is refused: the operator set REFUSE_PASSWORD_FILL"
            )));
        }
        if ready.password {
            // Whatever the page does with it, it never shows up in what the service returns.
            self.watch().store().redactor.remember(value);
        }
        if ready.set_value {
            // Set by script: the events it dispatches are untrusted, so the listeners are asked for.
            let ahead = self.ahead_of(target, Input::Fill, None, deadline).await;
            self.call_helper(FINISH_FILL_JS, &[json!(value), json!(true)], deadline).await?;
            return Ok(Acted { ahead, ..Acted::of(ready, None) });
        }
        let input = self.input_on(target, Input::Fill);
        if value.is_empty() {
            // The old text is selected: deleting it is what a user would do.
            self.dispatch_key(&keys::parse("Delete")?, deadline).await?;
        } else {
            self.send(InsertText { text: value }, deadline).await?;
        }
        // The field's `change` fires with the look at the action's end; with no watch of the
        // page's (a child frame's field) there is no such look, so now.
        if input.is_none() {
            self.call_helper(FINISH_FILL_JS, &[json!(value), json!(false)], deadline).await?;
        }
        Ok(Acted { change: input.is_some(), ..Acted::of(ready, input) })
    }

    /// Fires the `change` a typed fill left to the look at its end (`Acted::change`), for a
    /// caller that does not look next: the next field of `page.fillForm`, an action answered
    /// without settling. A page that went meanwhile has no field to leave.
    pub(super) async fn leave_field(&self, deadline: Instant) {
        let _ = self.call_helper(FINISH_FILL_JS, &[json!(null), json!(false)], deadline).await;
    }

    pub async fn press(&self, target: &Target, combo: &keys::Combo, deadline: Instant) -> Result<Acted, BrowserError> {
        let ready = self.wait_ready(target, Action::Press, "page.press", deadline).await?;
        let input = self.input_on(target, Input::Keys);
        let before = self.navigation_marks();
        self.dispatch_key(combo, deadline).await?;
        Ok(Acted { follow: Some(before), ..Acted::of(ready, input) })
    }

    /// Presses `combo`: its modifiers down, the key down and up, the modifiers up, sent at once
    /// (`Page::send_in_order`).
    pub(super) async fn dispatch_key(&self, combo: &keys::Combo, deadline: Instant) -> Result<(), BrowserError> {
        let mut events: Vec<DispatchKeyEvent> =
            combo.modifiers.iter().map(|modifier| key_event(KeyEventType::RawKeyDown, modifier, combo.mask)).collect();
        let down = if combo.key.text.is_some() { KeyEventType::KeyDown } else { KeyEventType::RawKeyDown };
        events.push(key_event(down, &combo.key, combo.mask));
        events.push(key_event(KeyEventType::KeyUp, &combo.key, combo.mask));
        events.extend(combo.modifiers.iter().rev().map(|modifier| key_event(KeyEventType::KeyUp, modifier, 0)));
        self.send_in_order(events, deadline).await
    }

    /// If the action started a navigation of the page, waits for the new document to load.
    pub(super) async fn follow_navigation(&self, before: (u64, u64), deadline: Instant) -> Result<(), BrowserError> {
        self.settle_events(deadline).await;
        self.follow_navigation_since(before, deadline).await.map(|_| ())
    }

    /// [`Page::follow_navigation`] once the pump has applied the events up to an answer after the
    /// input's (a barrier: [`Page::settle_events`]). Chromium reports the navigation request before
    /// it acknowledges the input, so by then a navigation the action started has been counted.
    /// Answers whether one had started (and has loaded, or was cancelled).
    pub(super) async fn follow_navigation_since(
        &self,
        before: (u64, u64),
        deadline: Instant,
    ) -> Result<bool, BrowserError> {
        let (documents_before, requests_before) = before;
        let nav = self.watch().nav.borrow().clone();
        if nav.navigation_requests == requests_before && nav.document_requests == documents_before {
            return Ok(false);
        }
        // The request itself starts at once (only its answer may be slow); one that has not
        // started within this bound was cancelled (a download, a beforeunload refusal …).
        let start_by = (Instant::now() + NAVIGATION_START).min(deadline);
        let mut watch = self.watch().nav.clone();
        let started = tokio::time::timeout_at(start_by, async {
            watch
                .wait_for(|n| n.document_requests > documents_before)
                .await
                .map(|n| n.last_document_request.to_string())
        })
        .await;
        match started {
            Ok(Ok(loader)) => {
                match self
                    .wait_for_loader(&loader, WaitUntil::Load, deadline, "the navigation the action started")
                    .await
                {
                    Ok(()) => Ok(true),
                    // Cancelled rather than failed: a download (the answer was an attachment), a
                    // 204, a refused beforeunload. The page stays; the effects show the request.
                    Err(BrowserError::NavigationFailed { reason, .. })
                        if reason == "aborted" || reason.contains("ERR_ABORTED") =>
                    {
                        Ok(false)
                    }
                    // The wait knows the request, not where it went.
                    Err(BrowserError::NavigationFailed { url, reason }) if url.is_empty() => {
                        Err(BrowserError::NavigationFailed { url: self.request_url(&loader), reason })
                    }
                    Err(err) => Err(err),
                }
            }
            // Asked for but never started (cancelled, or a download): nothing to wait for.
            _ => Ok(false),
        }
    }

    /// The URL the page's request `id` went to, as the timeline keeps it (redacted; empty when it
    /// fell off).
    fn request_url(&self, id: &str) -> String {
        let store = self.watch().store();
        let url = store.timeline.iter().rev().find_map(|entry| match &entry.record {
            Record::Request(r) if r.id == id => Some(r.url.clone()),
            _ => None,
        });
        url.map(|url| store.redactor.text(&url)).unwrap_or_default()
    }

    pub(super) fn navigation_marks(&self) -> (u64, u64) {
        let nav = self.watch().nav.borrow();
        (nav.document_requests, nav.navigation_requests)
    }
}

fn still_waiting(what: &str, target: &Target, reason: &str, started: Instant) -> BrowserError {
    BrowserError::Timeout(format!("{what} timed out after {} ms: {target} {reason}", started.elapsed().as_millis()))
}

/// One `Input.dispatchKeyEvent` of `key` (a `keyDown` carries the text it types).
fn key_event(kind: KeyEventType, key: &keys::Key, modifiers: u32) -> DispatchKeyEvent<'_> {
    let text = key.text.as_deref().filter(|_| kind == KeyEventType::KeyDown);
    DispatchKeyEvent {
        kind,
        key: &key.key,
        code: &key.code,
        windows_virtual_key_code: key.key_code,
        native_virtual_key_code: key.key_code,
        modifiers,
        text,
        unmodified_text: text,
    }
}
