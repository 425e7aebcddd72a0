//! Which execution context the service's helper scripts run in for the main frame's current
//! document: the world the DOM watcher's script made at the document's first moment, as Chromium
//! announced it (no round trip to find it), or, where the watcher did not run (the first
//! about:blank, a child frame), one the service made on first use with the helper library loaded
//! into it. A context a call found gone is not picked again while it is still the announced one
//! (the pump had not yet heard of the next document's).

use tokio::time::Instant;

use super::Locate;
use crate::browser::chromium::ids::{FrameId, LoaderId};
use crate::browser::chromium::protocol::page::CreateIsolatedWorld;
use crate::browser::error::BrowserError;
use crate::browser::page::core::lock;

/// The world the DOM watcher already runs in (made with the document): making it again only
/// finds it.
const WORLD_NAME: &str = crate::browser::page::watch::dom::WORLD;
/// The helper library, loaded into a world the service makes.
const LIB_JS: &str = concat!(include_str!("../../../js/watch_name.js"), include_str!("../../../js/lib.js"));

impl Locate<'_> {
    /// The main frame's helper world for the current document.
    pub(in crate::browser::page) async fn context(&self, deadline: Instant) -> Result<i64, BrowserError> {
        let announced = self.core.watch().nav.borrow().world;
        let loader = self.core.loader_id();
        if let Some(context) = lock(&self.locator.world).pick(announced, loader.as_str()) {
            return Ok(context);
        }
        let context = self.new_world(&self.core.target_id.main_frame(), deadline).await?;
        lock(&self.locator.world).made(loader, context);
        Ok(context)
    }

    /// `context` failed a call because its document went: find or make the next one next time.
    pub(super) fn forget(&self, context: i64) {
        lock(&self.locator.world).gone(context);
    }

    /// The helper world of a frame: the main frame's cached one, or a fresh one in a child frame
    /// (child frames are only reached through refs, so the cost is paid per action there).
    pub(super) async fn frame_context(&self, frame_id: &FrameId, deadline: Instant) -> Result<i64, BrowserError> {
        if *frame_id == self.core.target_id.main_frame() {
            return self.context(deadline).await;
        }
        self.new_world(frame_id, deadline).await
    }

    /// Makes an isolated world in `frame_id` with the helper library loaded; its context id.
    async fn new_world(&self, frame_id: &FrameId, deadline: Instant) -> Result<i64, BrowserError> {
        let world =
            CreateIsolatedWorld { frame_id: frame_id.as_str(), world_name: WORLD_NAME, grant_univeral_access: true };
        let context =
            self.core.send(world, deadline).await?.execution_context_id.ok_or_else(|| {
                BrowserError::protocol("Page.createIsolatedWorld", "no executionContextId in the answer")
            })?;
        self.load(context, LIB_JS, deadline).await?;
        Ok(context)
    }
}

/// What the page remembers of its helper world (see the module doc).
#[derive(Debug, Default)]
pub struct HelperWorld {
    /// (the document it was made for, execution context id).
    made: Option<(LoaderId, i64)>,
    /// A context a call found gone.
    gone: Option<i64>,
}

impl HelperWorld {
    /// The context to call in, given the announced one and the current document's loader id;
    /// `None`: make one.
    pub fn pick(&self, announced: Option<i64>, loader: &str) -> Option<i64> {
        announced
            .filter(|context| self.gone != Some(*context))
            .or_else(|| self.made.as_ref().filter(|(made, _)| made == loader).map(|(_, context)| *context))
    }

    /// The service made `context` for the document `loader`.
    pub fn made(&mut self, loader: LoaderId, context: i64) {
        self.made = Some((loader, context));
    }

    /// A call in `context` failed because its document went.
    pub fn gone(&mut self, context: i64) {
        self.made = None;
        self.gone = Some(context);
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_announced_world_wins_until_a_call_finds_it_gone_then_a_made_one_serves_its_document_only() {
        let mut world = HelperWorld::default();
        assert_eq!(world.pick(None, "L1"), None, "nothing announced, nothing made: make one");
        assert_eq!(world.pick(Some(3), "L1"), Some(3));
        world.gone(3);
        assert_eq!(world.pick(Some(3), "L1"), None, "gone, though still announced");
        world.made("L2".into(), 5);
        assert_eq!(world.pick(Some(3), "L2"), Some(5));
        assert_eq!(world.pick(Some(3), "L3"), None, "made for another document");
        assert_eq!(world.pick(Some(7), "L3"), Some(7), "the next document's announced world");
    }
}
