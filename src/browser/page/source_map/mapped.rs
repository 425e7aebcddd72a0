//! One script with its source map: the map, the script's served text (which a frame's original
//! function name is read against), and the names found so far. What the session's cache keeps.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::cache::Weigh;
use super::map::SourceMap;
use super::names::ScriptText;

/// Function names remembered per script (a page's handful of hot frames), at most.
const MAX_NAMES: usize = 1024;
/// What the remembered names may hold, counted up front so an entry's weight never changes.
const NAMES_BYTES: usize = MAX_NAMES * 64;

/// A frame's 0-based line, column and V8's name of its function.
type NameKey = (u32, u32, String);

/// A served script and its map.
#[derive(Debug)]
pub struct Mapped {
    pub map: SourceMap,
    text: ScriptText,
    /// Where the map came from: its URL, or `None` for a map inline in the script.
    pub map_url: Option<String>,
    /// (0-based line, column, V8's name) → the original name (None: none found).
    names: Mutex<HashMap<NameKey, Option<Arc<str>>>>,
}

impl Mapped {
    pub fn new(map: SourceMap, text: ScriptText, map_url: Option<String>) -> Self {
        Self { map, text, map_url, names: Mutex::new(HashMap::new()) }
    }

    /// The original name of the function running at the 0-based `line`, `column`, which V8 calls
    /// `v8_name` (remembered: a frame met again costs a lookup).
    pub fn function_name(&self, line: u32, column: u32, v8_name: &str) -> Option<Arc<str>> {
        let key = (line, column, v8_name.to_owned());
        if let Some(found) = self.names.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
            return found.clone();
        }
        let found: Option<Arc<str>> = self.map.function_name(&self.text, line, column, v8_name).map(Arc::from);
        let mut names = self.names.lock().unwrap_or_else(|e| e.into_inner());
        if names.len() >= MAX_NAMES {
            names.clear();
        }
        names.insert(key, found.clone());
        found
    }
}

impl Weigh for Mapped {
    fn bytes(&self) -> usize {
        self.map.bytes() + self.text.bytes() + self.map_url.as_ref().map_or(0, String::len) + NAMES_BYTES
    }
}
