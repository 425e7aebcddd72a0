//! Acting like a user: `page.click`, `page.fill`, `page.press`.
//!
//! Before acting, the element must be ready for the [`Action`]: attached, visible and enabled;
//! for clicks also stable across an animation frame and the element that receives a click at its
//! centre (typing goes to the focused element, wherever it is). `js/probe.js` checks that once;
//! this module repeats the probe until it passes or the deadline, and a timeout says what was
//! still missing ("role=button[name='Save'] is covered by div.modal"). Input is real: mouse and
//! key events through CDP's Input domain.

use std::time::Duration;

use serde_json::{Value, json};
use tokio::time::Instant;

use super::action::Action;
use super::handle::Page;
use super::keys;
use super::navigation::WaitUntil;
use super::target::Target;
use crate::browser::error::BrowserError;

const PROBE_JS: &str = include_str!("../../js/probe.js");
const FINISH_FILL_JS: &str = include_str!("../../js/finish_fill.js");

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
}

/// Where an element ended up once it was ready.
#[derive(Debug, Clone, Copy)]
pub struct Ready {
    pub x: f64,
    pub y: f64,
    pub page_x: f64,
    pub page_y: f64,
    pub width: f64,
    pub height: f64,
    /// The element takes a value rather than typed text (date, color, range inputs).
    pub set_value: bool,
    /// The element is a password field (reported for fills only).
    pub password: bool,
}

impl Page {
    /// Repeats the actionability probe until `target` is ready for `action` or `deadline`.
    pub(super) async fn wait_ready(
        &self,
        target: &Target,
        action: Action,
        what: &str,
        deadline: Instant,
    ) -> Result<Ready, BrowserError> {
        let started = Instant::now();
        let mut reason = String::from("was still being checked");
        loop {
            let args = [json!(action)];
            // The deadline may pass during a look: the answer is still what the call waited for.
            let state = self.call_helper_on(PROBE_JS, target, &args, deadline).await.map_err(|err| match err {
                BrowserError::Timeout(_) | BrowserError::NoAnswer(_) => still_waiting(what, target, &reason, started),
                other => other,
            })?;
            if let Some(x) = state.get("x").and_then(Value::as_f64) {
                let num = |k: &str| state.get(k).and_then(Value::as_f64).unwrap_or_default();
                // The probe measures in its own frame; a child frame's element is clicked where
                // Chromium places it on the page.
                let (x, y) = match self.ref_child_frame(target) {
                    Some(child) => {
                        self.node_center(child.backend_node_id, deadline).await.map_err(|err| match err {
                            BrowserError::NoAnswer(_) => still_waiting(what, target, &reason, started),
                            other => other,
                        })?
                    }
                    None => (x, num("y")),
                };
                return Ok(Ready {
                    x,
                    y,
                    page_x: num("pageX"),
                    page_y: num("pageY"),
                    width: num("width"),
                    height: num("height"),
                    set_value: state.get("setValue").and_then(Value::as_bool).unwrap_or(false),
                    password: state.get("password").and_then(Value::as_bool).unwrap_or(false),
                });
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
        let quads = self.cdp("DOM.getContentQuads", json!({ "backendNodeId": backend_node_id }), deadline).await?;
        let quad: Vec<f64> = quads
            .pointer("/quads/0")
            .and_then(Value::as_array)
            .map(|q| q.iter().filter_map(Value::as_f64).collect())
            .unwrap_or_default();
        if quad.len() != 8 {
            return Err(BrowserError::NotActionable {
                selector: format!("node {backend_node_id}"),
                reason: "has no box on the page".into(),
            });
        }
        Ok(((quad[0] + quad[2] + quad[4] + quad[6]) / 4.0, (quad[1] + quad[3] + quad[5] + quad[7]) / 4.0))
    }

    pub async fn click(&self, target: &Target, options: &ClickOptions, deadline: Instant) -> Result<(), BrowserError> {
        let ready = self.wait_ready(target, Action::Click, "page.click", deadline).await?;
        self.click_at(ready, options, deadline).await
    }

    /// Clicks where a ready element is, then follows a navigation the click started.
    pub(super) async fn click_at(
        &self,
        ready: Ready,
        options: &ClickOptions,
        deadline: Instant,
    ) -> Result<(), BrowserError> {
        let before = self.navigation_marks();
        let modifiers: u32 = options.modifiers.iter().map(|m| m.bit()).fold(0, |a, b| a | b);
        let button = json!(options.button);
        let at = |kind: &str, count: u32| {
            json!({ "type": kind, "x": ready.x, "y": ready.y, "button": button, "clickCount": count,
                    "modifiers": modifiers, "buttons": if kind == "mousePressed" { 1 } else { 0 } })
        };
        // No separate mouse move first: Chromium delivers a lone move with the next frame (a
        // frame's wait per click), and the press itself moves the pointer there, so hover state
        // and the over/enter events come with it as they would after a move.
        self.cdp("Input.dispatchMouseEvent", at("mousePressed", 1), deadline).await?;
        self.cdp("Input.dispatchMouseEvent", at("mouseReleased", 1), deadline).await?;
        for count in 2..=options.click_count.max(1) {
            self.cdp("Input.dispatchMouseEvent", at("mousePressed", count), deadline).await?;
            self.cdp("Input.dispatchMouseEvent", at("mouseReleased", count), deadline).await?;
        }
        self.follow_navigation(before, deadline).await
    }

    /// Types `value` into the element, replacing its text. With `refuse_password`
    /// (REFUSE_PASSWORD_FILL), password fields are refused before anything is typed.
    pub async fn fill(
        &self,
        target: &Target,
        value: &str,
        refuse_password: bool,
        deadline: Instant,
    ) -> Result<(), BrowserError> {
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
            self.call_helper(FINISH_FILL_JS, &[json!(value), json!(true)], deadline).await?;
            return Ok(());
        }
        if value.is_empty() {
            // The old text is selected: deleting it is what a user would do.
            self.dispatch_key(&keys::parse("Delete")?, deadline).await?;
        } else {
            self.cdp("Input.insertText", json!({ "text": value }), deadline).await?;
        }
        self.call_helper(FINISH_FILL_JS, &[json!(value), json!(false)], deadline).await?;
        Ok(())
    }

    pub async fn press(&self, target: &Target, combo: &keys::Combo, deadline: Instant) -> Result<(), BrowserError> {
        self.wait_ready(target, Action::Press, "page.press", deadline).await?;
        let before = self.navigation_marks();
        self.dispatch_key(combo, deadline).await?;
        self.follow_navigation(before, deadline).await
    }

    pub(super) async fn dispatch_key(&self, combo: &keys::Combo, deadline: Instant) -> Result<(), BrowserError> {
        for modifier in &combo.modifiers {
            self.key_event("rawKeyDown", modifier, combo.mask, deadline).await?;
        }
        let down = if combo.key.text.is_some() { "keyDown" } else { "rawKeyDown" };
        self.key_event(down, &combo.key, combo.mask, deadline).await?;
        self.key_event("keyUp", &combo.key, combo.mask, deadline).await?;
        for modifier in combo.modifiers.iter().rev() {
            self.key_event("keyUp", modifier, 0, deadline).await?;
        }
        Ok(())
    }

    async fn key_event(
        &self,
        kind: &str,
        key: &keys::Key,
        modifiers: u32,
        deadline: Instant,
    ) -> Result<(), BrowserError> {
        let mut event = json!({
            "type": kind, "key": key.key, "code": key.code, "windowsVirtualKeyCode": key.key_code,
            "nativeVirtualKeyCode": key.key_code, "modifiers": modifiers,
        });
        if kind == "keyDown"
            && let Some(text) = &key.text
        {
            event["text"] = json!(text);
            event["unmodifiedText"] = json!(text);
        }
        self.cdp("Input.dispatchKeyEvent", event, deadline).await.map(|_| ())
    }

    /// If the action started a navigation of the page, waits for the new document to load.
    /// Chromium reports the navigation request before it acknowledges the input, so once the
    /// pump has caught up, a navigation this action started has been counted.
    pub(super) async fn follow_navigation(&self, before: (u64, u64), deadline: Instant) -> Result<(), BrowserError> {
        self.settle_events(deadline).await;
        let (documents_before, requests_before) = before;
        let nav = self.watch().nav.borrow().clone();
        if nav.navigation_requests == requests_before && nav.document_requests == documents_before {
            return Ok(());
        }
        // The request itself starts at once (only its answer may be slow); one that has not
        // started within this bound was cancelled (a download, a beforeunload refusal …).
        let start_by = (Instant::now() + NAVIGATION_START).min(deadline);
        let mut watch = self.watch().nav.clone();
        let started = tokio::time::timeout_at(start_by, async {
            watch.wait_for(|n| n.document_requests > documents_before).await.map(|n| n.last_document_request.clone())
        })
        .await;
        match started {
            Ok(Ok(loader)) => {
                match self
                    .wait_for_loader(&loader, WaitUntil::Load, deadline, "the navigation the action started")
                    .await
                {
                    // Cancelled rather than failed: a download (the answer was an attachment), a
                    // 204, a refused beforeunload. The page stays; the effects show the request.
                    Err(BrowserError::NavigationFailed { reason, .. })
                        if reason == "aborted" || reason.contains("ERR_ABORTED") =>
                    {
                        Ok(())
                    }
                    other => other,
                }
            }
            // Asked for but never started (cancelled, or a download): nothing to wait for.
            _ => Ok(()),
        }
    }

    pub(super) fn navigation_marks(&self) -> (u64, u64) {
        let nav = self.watch().nav.borrow();
        (nav.document_requests, nav.navigation_requests)
    }
}

fn still_waiting(what: &str, target: &Target, reason: &str, started: Instant) -> BrowserError {
    BrowserError::Timeout(format!("{what} timed out after {} ms: {target} {reason}", started.elapsed().as_millis()))
}
