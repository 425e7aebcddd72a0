//! Waiting until the element a target names is ready for an [`Action`]: attached, visible and
//! enabled; for clicks also stable across an animation frame and what a click at its centre hits
//! (typing goes to the focused element, wherever it is). `js/probe.js` checks that once; this
//! repeats it until it passes or the deadline, and a timeout says what was still missing
//! ("role=button[name='Save'] is covered by div.modal"). Before the probe scrolls the element to
//! the middle of the viewport, it checks what a user at the scroll position before would have hit
//! there ([`Ready::approach`]). Also: where a node is on the page, and what is at a point.

use std::time::Duration;

use serde_json::json;
use tokio::time::Instant;

use super::Locate;
use super::action::Action;
use super::answers::{Axis, Probed, Ready};
use super::scripts::{Point, Probe};
use super::target::Target;
use crate::browser::chromium::protocol::dom::GetContentQuads;
use crate::browser::error::BrowserError;
use crate::browser::pointer::{Approach, PointerTarget};

/// The pause before looking again for an element that matches nothing yet (a page still rendering
/// it), and for one that is there but not ready.
const MISSING_PAUSE: Duration = Duration::from_millis(100);
const NOT_READY_PAUSE: Duration = Duration::from_millis(20);

impl Locate<'_> {
    /// Repeats the actionability probe until `target` is ready for `action` or `deadline`; with
    /// `scroll`, it is scrolled into view first, else taken where it is (a cover or the viewport's
    /// edge fails at once, see `js/lib.js` `actionable`). `what` names the call in a timeout.
    pub(in crate::browser::page) async fn ready(
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
            let state = self.call_on(Probe, target, &args, deadline).await.map_err(|err| match err {
                BrowserError::Timeout(_) | BrowserError::NoAnswer(_) => still_waiting(what, target, &reason, started),
                other => other,
            })?;
            let waiting = match state {
                Probed::Ready(mut ready) => {
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
                    return Ok(*ready);
                }
                Probed::Waiting(waiting) => waiting,
            };
            if approach.is_none() {
                approach = waiting.approach;
            }
            reason = waiting.wait.unwrap_or_else(|| "is not ready".to_owned());
            let next = Instant::now() + if waiting.missing { MISSING_PAUSE } else { NOT_READY_PAUSE };
            if next >= deadline {
                return Err(still_waiting(what, target, &reason, started));
            }
            tokio::time::sleep_until(next).await;
        }
    }

    /// The centre of a node's first content quad, in the page's viewport coordinates.
    pub(in crate::browser::page) async fn node_center(
        &self,
        backend_node_id: i64,
        deadline: Instant,
    ) -> Result<(f64, f64), BrowserError> {
        let quads = self.core.send(GetContentQuads { backend_node_id }, deadline).await?;
        let quad = quads.quads.into_iter().next().unwrap_or_default();
        if quad.len() != 8 {
            return Err(BrowserError::NotActionable {
                selector: format!("node {backend_node_id}"),
                reason: "has no box on the page".into(),
            });
        }
        Ok(((quad[0] + quad[2] + quad[4] + quad[6]) / 4.0, (quad[1] + quad[3] + quad[5] + quad[7]) / 4.0))
    }

    /// What is at viewport point (`x`, `y`): refused when the point is outside the viewport.
    pub(in crate::browser::page) async fn point(
        &self,
        x: f64,
        y: f64,
        deadline: Instant,
    ) -> Result<Option<PointerTarget>, BrowserError> {
        let found = self.call(Point, &[json!(x), json!(y)], deadline).await?;
        if let Some(outside) = found.outside {
            let param = if found.axis == Some(Axis::Y) { "y" } else { "x" };
            return Err(BrowserError::InvalidParam { param: param.into(), message: outside });
        }
        Ok(found.hit)
    }
}

fn still_waiting(what: &str, target: &Target, reason: &str, started: Instant) -> BrowserError {
    BrowserError::Timeout(format!("{what} timed out after {} ms: {target} {reason}", started.elapsed().as_millis()))
}
