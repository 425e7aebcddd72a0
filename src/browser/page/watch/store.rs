//! What one page's watch keeps between calls, behind one lock: the timeline, the captured
//! response bodies, the script sources and script ids seen, the stacks behind DOM changes, and the
//! redactor every view passes page data through. The pump writes it; the views read it briefly.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use super::bodies::BodyStore;
use super::causes::CauseStore;
use super::redact::Redactor;
use super::sources::SourceCache;
use super::timeline::Timeline;

/// Script ids remembered; beyond this the map starts over.
const MAX_SCRIPTS: usize = 10_000;

#[derive(Debug)]
pub struct Store {
    pub timeline: Timeline,
    pub bodies: BodyStore,
    pub sources: SourceCache,
    /// Script id → URL, for the scripts the Debugger domain reported (see `Page::know_scripts`).
    scripts: HashMap<String, String>,
    /// The stacks behind the DOM watcher's cause ids.
    pub causes: CauseStore,
    pub redactor: Redactor,
}

impl Store {
    pub fn new(opened: f64) -> Self {
        Self {
            timeline: Timeline::new(opened),
            bodies: BodyStore::default(),
            sources: SourceCache::default(),
            scripts: HashMap::new(),
            causes: CauseStore::default(),
            redactor: Redactor::default(),
        }
    }

    pub fn script_parsed(&mut self, script_id: String, url: String) {
        if self.scripts.len() >= MAX_SCRIPTS {
            self.scripts.clear();
        }
        self.scripts.insert(script_id, url);
    }

    pub fn script_url(&self, script_id: &str) -> Option<&str> {
        self.scripts.get(script_id).map(String::as_str)
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
