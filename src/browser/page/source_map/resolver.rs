//! A served location read through the session's maps, for an answer being put together: where it
//! came from in the app's own source (file, line, column, the function's original name), whether
//! it is library code, and — when that cannot be said yet — why: the map is still loading (the
//! location is given as served, marked so), or it was not fetched (said once per answer).
//!
//! A [`Resolver`] reads one [`Snapshot`] of the session's maps and does no I/O (views render with
//! it under the page's store lock): the reader asks for the maps of the scripts its records name
//! first (`originals::Originals::ensure`); a script it did not ask about is given as served.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use schemars::JsonSchema;
use serde::Serialize;

use super::library::is_library_path;
use super::mapped::Mapped;

/// Why a script has no map to read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unmapped {
    /// The script names no map (or its text could not be read).
    NoMap,
    /// Its map could not be used: where it is, and why.
    NotFetched { map_url: String, why: Why },
}

/// Why a map was not used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Why {
    /// The session's allow-list refused its URL: no request left.
    OutsideAllowList,
    /// The map's server answered this status.
    Status(u16),
    /// The load failed (Chromium's or the egress proxy's reason).
    Failed(String),
    /// It is not a map the service reads (too large, not JSON, sections by URL …).
    Unreadable(String),
}

impl std::fmt::Display for Why {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::OutsideAllowList => f.write_str("its URL is outside the allow-list, so no request was sent"),
            Self::Status(status) => write!(f, "its server answered {status}"),
            Self::Failed(why) => write!(f, "the load failed ({why})"),
            Self::Unreadable(why) => write!(f, "it could not be read: {why}"),
        }
    }
}

/// Which original source a path suffix names among the session's maps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    /// One source (maybe in several maps: the first script's): where its text is.
    One {
        script: String,
        index: u32,
        path: String,
    },
    /// Several sources end with it: their paths (a longer suffix tells them apart).
    Several(Vec<String>),
    None,
}

/// What the session knows of one script's map.
#[derive(Debug, Clone)]
pub enum Known {
    /// Being fetched.
    Loading,
    Mapped(Arc<Mapped>),
    Unmapped(Unmapped),
    /// It had a map, which the session's cache let go (past [`super::CACHE_CAP`]); fetched again
    /// when an answer names the script.
    Evicted,
}

/// The session's maps at one moment, by script URL (without its fragment).
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    pub scripts: HashMap<String, Known>,
}

/// A location as the browser gives it: the served script, 1-based line and column, V8's name of
/// the function running there (empty when none).
#[derive(Debug, Clone, Copy)]
pub struct Served<'a> {
    pub url: &'a str,
    pub line: u32,
    pub column: u32,
    pub function: &'a str,
}

/// In the app's source (1-based).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct OriginalPlace {
    pub source: String,
    pub line: u32,
    pub column: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub function: Option<String>,
    /// The source's index in its map (for its text: [`Resolver::source_text`]).
    #[serde(skip)]
    pub index: u32,
}

/// A served location read through the maps.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Resolved {
    pub original: Option<OriginalPlace>,
    /// Library code (a package, the dev server's client, the bundler's runtime): by the map's
    /// ignore list or by its path.
    pub library: bool,
    /// Why it is given as served though it may have a map: the map is still loading, or it was
    /// not fetched (once per answer and map).
    pub note: Option<String>,
}

/// Reads locations through one snapshot of the session's maps (see the module doc).
#[derive(Debug, Default)]
pub struct Resolver {
    snapshot: Arc<Snapshot>,
    said: Mutex<HashSet<String>>,
}

impl Resolver {
    pub fn new(snapshot: Arc<Snapshot>) -> Self {
        Self { snapshot, ..Self::default() }
    }

    /// Reads `snapshot` with `held` over it: maps an answer holds for its own locations though the
    /// cache may have let them go since (a map is never lost to the answer that fetched it).
    pub fn holding(snapshot: Arc<Snapshot>, held: HashMap<String, Arc<Mapped>>) -> Self {
        let lost = held.iter().any(|(script, map)| match snapshot.scripts.get(script) {
            Some(Known::Mapped(kept)) => !Arc::ptr_eq(kept, map),
            _ => true,
        });
        if !lost {
            return Self::new(snapshot);
        }
        let mut scripts = snapshot.scripts.clone();
        scripts.extend(held.into_iter().map(|(script, map)| (script, Known::Mapped(map))));
        Self::new(Arc::new(Snapshot { scripts }))
    }

    /// Where `at` came from (see [`Resolved`]).
    pub fn resolve(&self, at: Served<'_>) -> Resolved {
        let url = script_key(at.url);
        if url.is_empty() || is_library_path(url) {
            return Resolved { library: !url.is_empty(), ..Resolved::default() };
        }
        match self.snapshot.scripts.get(url) {
            // Nobody looked for its map: as served.
            None => Resolved::default(),
            Some(Known::Loading) => Resolved { note: Some(LOADING.to_owned()), ..Resolved::default() },
            Some(Known::Unmapped(Unmapped::NoMap)) => Resolved::default(),
            Some(Known::Unmapped(Unmapped::NotFetched { map_url, why })) => {
                let first = lock(&self.said).insert(map_url.clone());
                let note = first.then(|| format!("source map {map_url} not fetched: {why}"));
                Resolved { note, ..Resolved::default() }
            }
            Some(Known::Evicted) => {
                // Every such location is marked; why, once per answer.
                let first = lock(&self.said).insert(NOT_KEPT.to_owned());
                Resolved { note: Some(if first { NOT_KEPT } else { NOT_KEPT_AGAIN }.to_owned()), ..Resolved::default() }
            }
            Some(Known::Mapped(mapped)) => original(mapped, at),
        }
    }

    /// The original source whose path ends with `suffix` at a `/` boundary, in any map known
    /// (`ClaimForm.tsx`, `src/components/ClaimForm.tsx`): one, or the paths of several.
    pub fn find_source(&self, suffix: &str) -> Found {
        let mut hits: Vec<(&str, u32, &str)> = Vec::new();
        for (script, known) in &self.snapshot.scripts {
            let Known::Mapped(mapped) = known else { continue };
            for index in mapped.map.sources_ending(suffix) {
                hits.extend(mapped.map.path(index).map(|path| (script.as_str(), index, path)));
            }
        }
        hits.sort_unstable();
        let mut paths: Vec<&str> = hits.iter().map(|(_, _, path)| *path).collect();
        paths.sort_unstable();
        paths.dedup();
        // The same source in several maps: the first whose map carries its text.
        let with_text = hits.iter().find(|(script, index, _)| self.source_text(script, *index).is_some());
        match (with_text.or(hits.first()), paths.len()) {
            (None, _) => Found::None,
            (Some((script, index, path)), 1) => {
                Found::One { script: (*script).to_owned(), index: *index, path: (*path).to_owned() }
            }
            _ => Found::Several(paths.into_iter().map(str::to_owned).collect()),
        }
    }

    /// The whole original text of source `index` of `script`'s map, when the map carries it.
    pub fn source_text(&self, script: &str, index: u32) -> Option<&str> {
        match self.snapshot.scripts.get(script_key(script))? {
            Known::Mapped(mapped) => mapped.map.source_text(index),
            _ => None,
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// What a location given as served says while its map is being fetched.
pub const LOADING: &str = "source map still loading: given as served";

/// What a location given as served says when its script's map was let go (the first in an answer).
pub const NOT_KEPT: &str = "source map not kept (the session's 16 MiB of source maps is full): given as served";
/// The same, for the answer's other such locations.
pub const NOT_KEPT_AGAIN: &str = "source map not kept: given as served";

/// A script's URL as the session's maps are keyed: without its fragment.
pub fn script_key(url: &str) -> &str {
    url.split('#').next().unwrap_or_default()
}

fn original(mapped: &Mapped, at: Served<'_>) -> Resolved {
    let (line, column) = (at.line.saturating_sub(1), at.column.saturating_sub(1));
    let Some(found) = mapped.map.original(line, column) else { return Resolved::default() };
    let function = mapped.function_name(line, column, at.function).map(|name| name.to_string());
    Resolved {
        original: Some(OriginalPlace {
            source: found.path.to_owned(),
            line: found.line,
            column: found.column,
            function,
            index: found.source,
        }),
        library: found.library,
        note: None,
    }
}
