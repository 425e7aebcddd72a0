//! What one page's watch keeps between calls, behind one lock: the timeline, the captured
//! response bodies, the script sources and script ids seen, the stacks behind DOM changes, the
//! listeners the latest inputs were about to reach, the redactor every view passes page data
//! through, and the routes held requests are answered by. The pump writes it (the page handle
//! edits the routes); the views read it briefly. The reducer is handed it, never the lock.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};

use super::bodies::BodyStore;
use super::causes::CauseStore;
use super::dom::ReachNote;
use super::inputs::InputLog;
use super::kept::KeptLog;
use super::sources::SourceCache;
use super::timeline::Timeline;
use crate::browser::chromium::ids::ScriptId;
use crate::browser::page::route_table::RouteTable;
use crate::browser::redact::Redactor;

/// Script ids remembered; beyond this the map starts over.
const MAX_SCRIPTS: usize = 10_000;
/// Lists of reached listeners kept (an action takes its own within a few calls).
const MAX_REACHED: usize = 8;

#[derive(Debug)]
pub struct Store {
    pub timeline: Timeline,
    pub bodies: BodyStore,
    pub sources: SourceCache,
    /// Script id → URL, for the scripts the Debugger domain reported (see `Page::know_scripts`).
    scripts: HashMap<ScriptId, String>,
    /// The stacks behind the DOM watcher's cause ids.
    pub causes: CauseStore,
    /// States scripts set to the value they had.
    pub kept: KeptLog,
    /// What the session put into fields.
    pub inputs: InputLog,
    /// What the latest inputs were about to reach, each with the timeline's last sequence number
    /// when it arrived, oldest first.
    reached: VecDeque<(u64, ReachNote)>,
    /// The session's secrets (a handle shared by its tabs, set when the page starts).
    pub redactor: Redactor,
    /// Which held requests the page's routes answer (`network.route`): edited by the page handle,
    /// consulted (and counted) by the reducer.
    pub routes: RouteTable,
    /// The page used Web Storage (a write, or a call followed): its storage calls are followed
    /// from each document's start (`Core::follow_storage`).
    pub storage_used: bool,
}

impl Store {
    pub fn new(opened: f64) -> Self {
        Self {
            timeline: Timeline::new(opened),
            bodies: BodyStore::default(),
            sources: SourceCache::default(),
            scripts: HashMap::new(),
            causes: CauseStore::default(),
            kept: KeptLog::default(),
            inputs: InputLog::default(),
            reached: VecDeque::new(),
            redactor: Redactor::default(),
            routes: RouteTable::default(),
            storage_used: false,
        }
    }

    pub fn script_parsed(&mut self, script_id: ScriptId, url: String) {
        if self.scripts.len() >= MAX_SCRIPTS {
            self.scripts.clear();
        }
        self.scripts.insert(script_id, url);
    }

    pub fn script_url(&self, script_id: &str) -> Option<&str> {
        self.scripts.get(script_id).map(String::as_str)
    }

    /// Keeps what an input was about to reach (the oldest goes past [`MAX_REACHED`]).
    pub fn input_reached(&mut self, note: ReachNote) {
        if self.reached.len() == MAX_REACHED {
            self.reached.pop_front();
        }
        self.reached.push_back((self.timeline.last_seq(), note));
    }

    /// Takes the latest list that arrived once the timeline had reached `since` and was begun by
    /// one of `events` (an action of several inputs reports its last), with every list before it.
    pub fn take_reached(&mut self, since: u64, events: &[&str]) -> Option<ReachNote> {
        let at = self.reached.iter().rposition(|(seq, note)| *seq >= since && events.contains(&note.by.as_str()))?;
        self.reached.drain(..=at).next_back().map(|(_, note)| note)
    }
}

/// The store, shared by the pump, its commands and the page handle.
#[derive(Debug, Clone)]
pub struct SharedStore(Arc<Mutex<Store>>);

impl SharedStore {
    pub fn new(store: Store) -> Self {
        Self(Arc::new(Mutex::new(store)))
    }

    /// The store, locked. A panic elsewhere while it was held leaves it as it was: still readable.
    pub fn lock(&self) -> MutexGuard<'_, Store> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::super::notes::ActionNote;
    use super::super::records::Record;
    use super::*;

    fn note(by: &str) -> ReachNote {
        serde_json::from_value(serde_json::json!({ "by": by, "listeners": [] })).unwrap()
    }

    #[test]
    fn an_action_takes_the_last_list_its_input_began_since_its_mark_and_drops_the_older_ones() {
        let mut store = Store::new(0.0);
        store.input_reached(note("pointerdown"));
        let mark =
            store.timeline.push(1.0, Record::Action(ActionNote { method: "page.fillForm".into(), target: None }));
        store.input_reached(note("beforeinput"));
        store.input_reached(note("pointerdown"));
        store.input_reached(note("pointermove"));
        // The submit button's press, not the field's input nor the press before the mark.
        assert_eq!(store.take_reached(mark, &["pointerdown"]).map(|n| n.by), Some("pointerdown".into()));
        assert!(store.take_reached(mark, &["pointerdown"]).is_none(), "the press before the mark is not the action's");
        assert!(store.take_reached(mark, &["beforeinput"]).is_none(), "what came before the taken list is gone");
        assert_eq!(store.take_reached(mark, &["pointermove"]).map(|n| n.by), Some("pointermove".into()));
    }

    #[test]
    fn lists_of_reached_listeners_are_kept_to_a_few() {
        let mut store = Store::new(0.0);
        for _ in 0..100 {
            store.input_reached(note("pointermove"));
        }
        assert_eq!(store.reached.len(), MAX_REACHED);
    }
}
