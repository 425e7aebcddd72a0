//! What a user does with a pointer: click (`page.click`, `page.dblclick`, also at viewport
//! coordinates, on whatever is there), hover, drag one element onto another, and scroll (an
//! element into view, or the mouse wheel). Each waits for its element to be ready (`locate`) and
//! sends real mouse events through CDP's Input domain, so the page's own listeners see them.

use std::time::Duration;

use chromiumoxide::cdp::browser_protocol::input::EventDragIntercepted;
use chromiumoxide::listeners::EventStream;
use futures_util::{FutureExt, StreamExt};
use tokio::time::Instant;

use super::listeners::{Input, input_on};
use super::run::{Acted, ActionRun, marks};
use crate::browser::chromium::cdp;
use crate::browser::chromium::protocol::input::{
    self, DispatchDragEvent, DispatchMouseEvent, DragEventType, MouseEventType, SetInterceptDrags,
};
use crate::browser::chromium::protocol::page::GetLayoutMetrics;
use crate::browser::error::BrowserError;
use crate::browser::page::handle::Page;
use crate::browser::page::locate::action::Action;
use crate::browser::page::locate::answers::Ready;
use crate::browser::page::locate::target::Target;
use crate::browser::page::watch::NavMarks;

/// Pointer moves between a drag's press and its release: enough for drag libraries that wait for
/// a few pixels of movement before they start.
const DRAG_STEPS: u32 = 5;

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

/// CSS pixels.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, schemars::JsonSchema)]
pub struct ScrollPosition {
    pub x: f64,
    pub y: f64,
}

impl ActionRun {
    pub async fn click(&self, target: &Target, options: &ClickOptions) -> Result<Acted, BrowserError> {
        let (page, deadline) = (&self.page, self.deadline);
        let ready = page.locate().ready(target, Action::Click, "page.click", !options.keep_scroll, deadline).await?;
        let input = if options.click_count >= 2 { Input::DoubleClick } else { Input::Click };
        let input = input_on(page, target, input);
        let before = dispatch_click(page, ready.x, ready.y, options, deadline).await?;
        Ok(Acted { follow: Some(before), ..Acted::of(ready, input) })
    }

    /// Clicks at viewport point (`x`, `y`), on whatever is there.
    pub async fn click_point(&self, x: f64, y: f64, options: &ClickOptions) -> Result<Acted, BrowserError> {
        let hit = self.page.locate().point(x, y, self.deadline).await?;
        let input = if options.click_count >= 2 { Input::DoubleClick } else { Input::Click };
        let before = dispatch_click(&self.page, x, y, options, self.deadline).await?;
        Ok(Acted { hit, input: Some(input), follow: Some(before), ..Acted::default() })
    }

    /// Moves the pointer over the element (`mouseover`, `mouseenter`, `:hover`); with
    /// `keep_scroll`, where it is now.
    pub async fn hover(&self, target: &Target, keep_scroll: bool) -> Result<Acted, BrowserError> {
        let (page, deadline) = (&self.page, self.deadline);
        let ready = page.locate().ready(target, Action::Hover, "page.hover", !keep_scroll, deadline).await?;
        let input = input_on(page, target, Input::Hover);
        mouse(page, MouseEventType::Moved, ready.x, ready.y, 0, deadline).await?;
        Ok(Acted::of(ready, input))
    }

    /// Moves the pointer to viewport point (`x`, `y`), over whatever is there.
    pub async fn hover_point(&self, x: f64, y: f64) -> Result<Acted, BrowserError> {
        let hit = self.page.locate().point(x, y, self.deadline).await?;
        mouse(&self.page, MouseEventType::Moved, x, y, 0, self.deadline).await?;
        Ok(Acted { hit, input: Some(Input::Hover), ..Acted::default() })
    }

    /// Presses on `from`, moves to `to` in steps and releases there.
    ///
    /// Chromium is asked to hand over any native drag the press and moves start (a `draggable`
    /// element, a link, an image): if one starts, it is finished with drag events at the drop
    /// target (`dragenter`, `dragover`, `drop`, then `dragend` on the source), as a user's drag
    /// would be; otherwise the mouse events alone are the drag (pages that track the pointer).
    pub async fn drag(&self, from: &Target, to: &Target) -> Result<(), BrowserError> {
        let (page, deadline) = (&self.page, self.deadline);
        // The drop target is brought into view before the press (the actionability probe scrolls
        // its element to the middle; once the button is down nothing may scroll).
        page.locate().ready(to, Action::Hover, "page.drag", true, deadline).await?;
        let start = page.locate().ready(from, Action::Hover, "page.drag", true, deadline).await?;
        let mut intercepted = page
            .page
            .event_listener::<EventDragIntercepted>()
            .await
            .map_err(|e| cdp::map_cdp_error("Input.dragIntercepted", e))?;
        page.send(SetInterceptDrags { enabled: true }, deadline).await?;
        let dragged = drag_between(page, &start, to, &mut intercepted, deadline).await;
        page.send_unchecked(SetInterceptDrags { enabled: false }, deadline).await;
        dragged
    }

    /// Scrolls the element into view, or turns the mouse wheel by `(dx, dy)` over the element (or
    /// the middle of the viewport); returns where the page is scrolled to.
    pub async fn scroll(
        &self,
        target: Option<&Target>,
        by: Option<(f64, f64)>,
    ) -> Result<ScrollPosition, BrowserError> {
        let (page, deadline) = (&self.page, self.deadline);
        let at = match target {
            Some(target) => Some(page.locate().ready(target, Action::Read, "page.scroll", true, deadline).await?),
            None => None,
        };
        if let Some((dx, dy)) = by {
            let (x, y) = match at {
                Some(Ready { x, y, .. }) => (x, y),
                None => viewport_middle(page, deadline).await?,
            };
            let wheel = DispatchMouseEvent {
                delta_x: Some(dx),
                delta_y: Some(dy),
                ..DispatchMouseEvent::at(MouseEventType::Wheel, x, y)
            };
            page.send(wheel, deadline).await?;
            // The wheel scrolls asynchronously (smoothly); wait until the page stops moving.
            return scroll_settled(page, deadline).await;
        }
        scroll_position(page, deadline).await
    }
}

/// Clicks at a viewport point. Answers the navigation marks from before the click, with which the
/// caller follows a navigation it started (`Acted::follow`).
pub(super) async fn dispatch_click(
    page: &Page,
    x: f64,
    y: f64,
    options: &ClickOptions,
    deadline: Instant,
) -> Result<NavMarks, BrowserError> {
    let before = marks(page);
    let modifiers: u32 = options.modifiers.iter().map(|m| m.bit()).fold(0, |a, b| a | b);
    let at = |kind: MouseEventType, count: u32| DispatchMouseEvent {
        button: Some(options.button.cdp()),
        click_count: Some(count),
        modifiers: Some(modifiers),
        buttons: Some(if kind == MouseEventType::Pressed { 1 } else { 0 }),
        ..DispatchMouseEvent::at(kind, x, y)
    };
    // No separate mouse move first: Chromium delivers a lone move with the next frame (a frame's
    // wait per click), and the press itself moves the pointer there, so hover state and the
    // over/enter events come with it as they would after a move.

    // The presses and releases go out at once (`Core::send_in_order`).
    let events: Vec<_> = (1..=options.click_count.max(1))
        .flat_map(|count| [at(MouseEventType::Pressed, count), at(MouseEventType::Released, count)])
        .collect();
    page.send_in_order(events, deadline).await?;
    Ok(before)
}

async fn drag_between(
    page: &Page,
    start: &Ready,
    to: &Target,
    intercepted: &mut EventStream<EventDragIntercepted>,
    deadline: Instant,
) -> Result<(), BrowserError> {
    mouse(page, MouseEventType::Moved, start.x, start.y, 0, deadline).await?;
    mouse(page, MouseEventType::Pressed, start.x, start.y, 1, deadline).await?;
    // The drop target is measured once the drag has begun (pages often show drop zones then),
    // where it is now: without scrolling, which would move the source from under the pointer.
    let end = match drop_point(page, to, deadline).await {
        Ok(end) => end,
        Err(err) => {
            mouse(page, MouseEventType::Released, start.x, start.y, 0, deadline).await?;
            return Err(err);
        }
    };
    for step in 1..=DRAG_STEPS {
        let f = f64::from(step) / f64::from(DRAG_STEPS);
        let (x, y) = (start.x + (end.0 - start.x) * f, start.y + (end.1 - start.y) * f);
        mouse(page, MouseEventType::Moved, x, y, 1, deadline).await?;
    }
    // A native drag, if one started, has been announced by now (see `settle_events`).
    page.settle_events(deadline).await;
    let Some(Some(drag)) = intercepted.next().now_or_never() else {
        return mouse(page, MouseEventType::Released, end.0, end.1, 0, deadline).await;
    };
    let data = serde_json::to_value(&drag.data)
        .map_err(|e| BrowserError::Unavailable(format!("the drag's data could not be read: {e}")))?;
    for kind in [DragEventType::DragEnter, DragEventType::DragOver, DragEventType::Drop] {
        page.send(DispatchDragEvent { kind, x: end.0, y: end.1, data: &data }, deadline).await?;
    }
    Ok(())
}

async fn mouse(
    page: &Page,
    kind: MouseEventType,
    x: f64,
    y: f64,
    buttons: u32,
    deadline: Instant,
) -> Result<(), BrowserError> {
    let mut event = DispatchMouseEvent { buttons: Some(buttons), ..DispatchMouseEvent::at(kind, x, y) };
    if kind != MouseEventType::Moved || buttons != 0 {
        event.button = Some(input::MouseButton::Left);
        event.click_count = Some(1);
    }
    page.send(event, deadline).await.map(|_| ())
}

/// The centre of `to` in the viewport as it is, waiting for it to be attached.
async fn drop_point(page: &Page, to: &Target, deadline: Instant) -> Result<(f64, f64), BrowserError> {
    let node = page.locate().wait_attached(to, deadline).await?;
    page.locate().node_center(node, deadline).await
}

async fn viewport_middle(page: &Page, deadline: Instant) -> Result<(f64, f64), BrowserError> {
    let view = page.send(GetLayoutMetrics {}, deadline).await?.css_layout_viewport;
    Ok((view.client_width / 2.0, view.client_height / 2.0))
}

async fn scroll_position(page: &Page, deadline: Instant) -> Result<ScrollPosition, BrowserError> {
    let view = page.send(GetLayoutMetrics {}, deadline).await?.css_visual_viewport;
    Ok(ScrollPosition { x: view.page_x, y: view.page_y })
}

/// The scroll position once it has stopped changing for two polls (at most a second).
async fn scroll_settled(page: &Page, deadline: Instant) -> Result<ScrollPosition, BrowserError> {
    let until = (Instant::now() + Duration::from_secs(1)).min(deadline);
    let mut last = scroll_position(page, deadline).await?;
    let mut same = 0;
    while same < 2 && Instant::now() < until {
        tokio::time::sleep(Duration::from_millis(30)).await;
        let now = scroll_position(page, deadline).await?;
        same = if now == last { same + 1 } else { 0 };
        last = now;
    }
    Ok(last)
}
