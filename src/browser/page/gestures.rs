//! More of what a user does with a pointer and a keyboard: hover, drag, focus, scroll and typing
//! key by key (`page.hover`, `page.drag`, `page.focus`, `page.scroll`, `page.type`).
//!
//! Each waits for its element like a click does (see `actions`) and sends real input through
//! CDP's Input domain, so the page's own listeners (`mouseenter`, `keyup`, `wheel`) see it.

use std::time::Duration;

use tokio::time::Instant;

use chromiumoxide::cdp::browser_protocol::input::EventDragIntercepted;
use chromiumoxide::listeners::EventStream;
use futures_util::{FutureExt, StreamExt};

use super::action::Action;
use super::actions::{Acted, Ready};
use super::handle::Page;
use super::keys;
use super::reach::Input;
use super::target::Target;
use crate::browser::chromium::cdp;
use crate::browser::chromium::protocol::input::{
    DispatchDragEvent, DispatchMouseEvent, DragEventType, MouseButton, MouseEventType, SetInterceptDrags,
};
use crate::browser::chromium::protocol::page::GetLayoutMetrics;
use crate::browser::error::BrowserError;

const FOCUSED_PASSWORD_JS: &str = include_str!("../../js/focused_password.js");

/// Pointer moves between a drag's press and its release: enough for drag libraries that wait for
/// a few pixels of movement before they start.
const DRAG_STEPS: u32 = 5;
/// Longest pause between two typed keys.
pub const MAX_KEY_DELAY: Duration = Duration::from_secs(1);

/// Where the page is scrolled to after `page.scroll`.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, schemars::JsonSchema)]
pub struct ScrollPosition {
    pub x: f64,
    pub y: f64,
}

impl Page {
    /// Moves the pointer over the element (`mouseover`, `mouseenter`, `:hover`); with
    /// `keep_scroll`, where it is now.
    pub async fn hover(&self, target: &Target, keep_scroll: bool, deadline: Instant) -> Result<Acted, BrowserError> {
        let ready = self.wait_ready_where(target, Action::Hover, "page.hover", !keep_scroll, deadline).await?;
        let input = self.input_on(target, Input::Hover);
        self.mouse(MouseEventType::Moved, ready.x, ready.y, 0, deadline).await?;
        Ok(Acted::of(ready, input))
    }

    /// Moves the pointer to viewport point (`x`, `y`), over whatever is there.
    pub async fn hover_point(&self, x: f64, y: f64, deadline: Instant) -> Result<Acted, BrowserError> {
        let hit = self.point_target(x, y, deadline).await?;
        self.mouse(MouseEventType::Moved, x, y, 0, deadline).await?;
        Ok(Acted { hit, input: Some(Input::Hover), ..Acted::default() })
    }

    /// Presses on `from`, moves to `to` in steps and releases there.
    ///
    /// Chromium is asked to hand over any native drag the press and moves start (a `draggable`
    /// element, a link, an image): if one starts, it is finished with drag events at the drop
    /// target (`dragenter`, `dragover`, `drop`, then `dragend` on the source), as a user's drag
    /// would be; otherwise the mouse events alone are the drag (pages that track the pointer).
    pub async fn drag(&self, from: &Target, to: &Target, deadline: Instant) -> Result<(), BrowserError> {
        // The drop target is brought into view before the press (the actionability probe scrolls
        // its element to the middle; once the button is down nothing may scroll).
        self.wait_ready(to, Action::Hover, "page.drag", deadline).await?;
        let start = self.wait_ready(from, Action::Hover, "page.drag", deadline).await?;
        let mut intercepted = self
            .cdp_page()
            .event_listener::<EventDragIntercepted>()
            .await
            .map_err(|e| cdp::map_cdp_error("Input.dragIntercepted", e))?;
        self.send(SetInterceptDrags { enabled: true }, deadline).await?;
        let dragged = self.drag_between(&start, to, &mut intercepted, deadline).await;
        self.send_unchecked(SetInterceptDrags { enabled: false }, deadline).await;
        dragged
    }

    async fn drag_between(
        &self,
        start: &Ready,
        to: &Target,
        intercepted: &mut EventStream<EventDragIntercepted>,
        deadline: Instant,
    ) -> Result<(), BrowserError> {
        self.mouse(MouseEventType::Moved, start.x, start.y, 0, deadline).await?;
        self.mouse(MouseEventType::Pressed, start.x, start.y, 1, deadline).await?;
        // The drop target is measured once the drag has begun (pages often show drop zones then),
        // where it is now: without scrolling, which would move the source from under the pointer.
        let end = match self.drop_point(to, deadline).await {
            Ok(end) => end,
            Err(err) => {
                self.mouse(MouseEventType::Released, start.x, start.y, 0, deadline).await?;
                return Err(err);
            }
        };
        for step in 1..=DRAG_STEPS {
            let f = f64::from(step) / f64::from(DRAG_STEPS);
            let (x, y) = (start.x + (end.0 - start.x) * f, start.y + (end.1 - start.y) * f);
            self.mouse(MouseEventType::Moved, x, y, 1, deadline).await?;
        }
        // A native drag, if one started, has been announced by now (see `settle_events`).
        self.settle_events(deadline).await;
        let Some(Some(drag)) = intercepted.next().now_or_never() else {
            return self.mouse(MouseEventType::Released, end.0, end.1, 0, deadline).await;
        };
        let data = serde_json::to_value(&drag.data)
            .map_err(|e| BrowserError::Unavailable(format!("the drag's data could not be read: {e}")))?;
        for kind in [DragEventType::DragEnter, DragEventType::DragOver, DragEventType::Drop] {
            self.send(DispatchDragEvent { kind, x: end.0, y: end.1, data: &data }, deadline).await?;
        }
        Ok(())
    }

    /// Gives the element keyboard focus (`focus`, `focusin`).
    pub async fn focus(&self, target: &Target, deadline: Instant) -> Result<(), BrowserError> {
        self.wait_ready(target, Action::Focus, "page.focus", deadline).await.map(|_| ())
    }

    /// Scrolls the element into view, or turns the mouse wheel by `(dx, dy)` over the element (or
    /// the middle of the viewport); returns where the page is scrolled to.
    pub async fn scroll(
        &self,
        target: Option<&Target>,
        by: Option<(f64, f64)>,
        deadline: Instant,
    ) -> Result<ScrollPosition, BrowserError> {
        let at = match target {
            Some(target) => Some(self.wait_ready(target, Action::Read, "page.scroll", deadline).await?),
            None => None,
        };
        if let Some((dx, dy)) = by {
            let (x, y) = match at {
                Some(Ready { x, y, .. }) => (x, y),
                None => self.viewport_middle(deadline).await?,
            };
            let wheel = DispatchMouseEvent {
                delta_x: Some(dx),
                delta_y: Some(dy),
                ..DispatchMouseEvent::at(MouseEventType::Wheel, x, y)
            };
            self.send(wheel, deadline).await?;
            // The wheel scrolls asynchronously (smoothly); wait until the page stops moving.
            return self.scroll_settled(deadline).await;
        }
        self.scroll_position(deadline).await
    }

    /// Types `text` key by key into the focused element (or `target`, focused first), with
    /// `delay` between keys: `keydown`, `keypress`, `input` and `keyup` fire for every character.
    pub async fn type_text(
        &self,
        target: Option<&Target>,
        text: &str,
        delay: Duration,
        refuse_password: bool,
        deadline: Instant,
    ) -> Result<Acted, BrowserError> {
        let mut acted = Acted::default();
        if let Some(target) = target {
            let ready = self.wait_ready(target, Action::Press, "page.type", deadline).await?;
            acted = Acted::of(ready, None);
        }
        // Typed into a password field, the text is a secret like a filled password: refused under
        // REFUSE_PASSWORD_FILL, else kept out of every answer.
        if self.call_helper(FOCUSED_PASSWORD_JS, &[], deadline).await?.as_bool().unwrap_or(false) {
            if refuse_password {
                return Err(BrowserError::NotAllowed(
                    "page.type into a password field is refused: the operator set REFUSE_PASSWORD_FILL".into(),
                ));
            }
            self.watch().store().redactor.remember(text);
        }
        acted.input = match target {
            Some(target) => self.input_on(target, Input::Keys),
            None => Some(Input::Keys),
        };
        for (i, c) in text.chars().enumerate() {
            if i > 0 && !delay.is_zero() {
                tokio::time::sleep(delay.min(MAX_KEY_DELAY)).await;
            }
            let combo = match c {
                '\n' | '\r' => keys::parse("Enter")?,
                '\t' => keys::parse("Tab")?,
                c => keys::parse(&c.to_string())?,
            };
            self.dispatch_key(&combo, deadline).await?;
        }
        Ok(acted)
    }

    async fn mouse(
        &self,
        kind: MouseEventType,
        x: f64,
        y: f64,
        buttons: u32,
        deadline: Instant,
    ) -> Result<(), BrowserError> {
        let mut event = DispatchMouseEvent { buttons: Some(buttons), ..DispatchMouseEvent::at(kind, x, y) };
        if kind != MouseEventType::Moved || buttons != 0 {
            event.button = Some(MouseButton::Left);
            event.click_count = Some(1);
        }
        self.send(event, deadline).await.map(|_| ())
    }

    /// The centre of `to` in the viewport as it is, waiting for it to be attached.
    async fn drop_point(&self, to: &Target, deadline: Instant) -> Result<(f64, f64), BrowserError> {
        let node = self.wait_attached(to, deadline).await?;
        self.node_center(node, deadline).await
    }

    async fn viewport_middle(&self, deadline: Instant) -> Result<(f64, f64), BrowserError> {
        let view = self.send(GetLayoutMetrics {}, deadline).await?.css_layout_viewport;
        Ok((view.client_width / 2.0, view.client_height / 2.0))
    }

    async fn scroll_position(&self, deadline: Instant) -> Result<ScrollPosition, BrowserError> {
        let view = self.send(GetLayoutMetrics {}, deadline).await?.css_visual_viewport;
        Ok(ScrollPosition { x: view.page_x, y: view.page_y })
    }

    /// The scroll position once it has stopped changing for two polls (at most a second).
    async fn scroll_settled(&self, deadline: Instant) -> Result<ScrollPosition, BrowserError> {
        let until = (Instant::now() + Duration::from_secs(1)).min(deadline);
        let mut last = self.scroll_position(deadline).await?;
        let mut same = 0;
        while same < 2 && Instant::now() < until {
            tokio::time::sleep(Duration::from_millis(30)).await;
            let now = self.scroll_position(deadline).await?;
            same = if now == last { same + 1 } else { 0 };
            last = now;
        }
        Ok(last)
    }
}
