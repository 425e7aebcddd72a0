//! Which execution context the service's helper scripts run in for the main frame's current
//! document: the world the DOM watcher's script made at the document's first moment, as Chromium
//! announced it (no round trip to find it), or, where the watcher did not run, one the service made
//! on first use. A context a call found gone is not picked again while it is still the announced
//! one (the pump had not yet heard of the next document's).

/// What the page remembers of its helper world (see the module doc).
#[derive(Debug, Default)]
pub struct HelperWorld {
    /// (loader id of the document it was made for, execution context id).
    made: Option<(String, i64)>,
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
    pub fn made(&mut self, loader: String, context: i64) {
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
