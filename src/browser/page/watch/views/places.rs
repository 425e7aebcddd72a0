//! Locations as answers give them: read through the session's source maps ([`Places`]: a
//! `source_map::Resolver` the reader took before rendering), in the app's own source when the
//! script has a map — `submit (src/components/ClaimForm.tsx:18)` — with the served location beside
//! it in JSON ([`Location`]), and library code set aside: a stack is named by its first frame of the
//! app's own code, a request's initiator by the chain of app frames that led to it.
//!
//! A location whose map is still loading is given as served and marked so; a map that was not
//! fetched is said once per answer. [`scripts_since`] names the scripts whose maps an answer about
//! the records after a point needs, for the reader to fetch first.

use std::collections::{BTreeSet, HashMap};

use schemars::JsonSchema;
use serde::Serialize;

use super::super::dom::ComponentSeen;
use super::super::exchanged::{StorageNote, StorageWhat};
use super::super::facts::path_of;
use super::super::records::Record;
use super::super::sources;
use super::super::stacks::{CodeLocation, Stack};
use super::super::store::Store;
use crate::browser::page::source_map::{OriginalPlace, Resolved, Resolver, Served, package_of};

/// App frames a chain names at most (`request ← submitClaim ← submit ← …`).
const CHAIN_FRAMES: usize = 6;

/// A place in the page's code, as answers give it: where the browser ran it (`url`, `line`,
/// `column`, `function`) and, when the script has a source map, where it is in the app's own
/// source (`original`); `library` for library code (a package, the dev server's client, the
/// bundler's runtime); `map`: why it is given as served though its script may have a map (the map
/// is still loading, or was not fetched, and why).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Location {
    #[serde(flatten)]
    pub served: CodeLocation,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub original: Option<OriginalPlace>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub library: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub map: Option<String>,
}

/// `CodeLocation` by reference plus what the maps add: a derived schema would repeat its fields.
impl JsonSchema for Location {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Location".into()
    }
    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let served = generator.subschema_for::<CodeLocation>();
        let original = generator.subschema_for::<OriginalPlace>();
        schemars::json_schema!({
            "description": "Served; `original`: in the app's source; `map`: why not.",
            "allOf": [served, { "type": "object", "properties": {
                "original": original, "library": { "type": "boolean" }, "map": { "type": "string" } } }],
        })
    }
}

/// What an answer reads its locations through: the session's maps as the reader took them, and
/// where the functions the page's own world numbered are (a component's function, for the name a
/// production build minified), for the document being read.
#[derive(Debug, Default)]
pub struct Places {
    pub maps: Resolver,
    /// Function number (`fid`) → where the function is, as served.
    pub functions: HashMap<u32, CodeLocation>,
}

impl Location {
    /// `at` as served, not read through any map yet.
    pub fn served(at: CodeLocation) -> Self {
        Self { served: at, original: None, library: false, map: None }
    }

    /// `src/components/ClaimForm.tsx:18`, or as served `/list.js:16`.
    pub fn spot(&self) -> String {
        match &self.original {
            Some(original) => format!("{}:{}", original.source, original.line),
            None => format!("{}:{}", path_of(&self.served.url), self.served.line),
        }
    }
}

/// `at` as served, for the resolver.
fn served(at: &CodeLocation) -> Served<'_> {
    Served { url: &at.url, line: at.line, column: at.column, function: &at.function }
}

impl Places {
    /// What the maps say of `at`.
    pub fn resolve(&self, at: &CodeLocation) -> Resolved {
        self.maps.resolve(served(at))
    }

    /// `at` read through the maps.
    pub fn located(&self, at: &CodeLocation) -> Location {
        let Resolved { original, library, note } = self.resolve(at);
        Location { served: at.clone(), original, library, map: note }
    }

    /// `submit (src/components/ClaimForm.tsx:18)`, or as served: `loadItems (/items:81)` (the
    /// origin left out), marked when its map is still loading.
    pub fn place(&self, at: &CodeLocation) -> String {
        place_of(at, &self.resolve(at))
    }

    /// `at` named as a cause: its place, or for library code the package it is in (`react-dom`),
    /// whose internals would tell the app nothing.
    pub fn cause(&self, at: &CodeLocation) -> String {
        let resolved = self.resolve(at);
        let path = resolved.original.as_ref().map_or(at.url.as_str(), |o| o.source.as_str());
        match package_of(path).filter(|_| resolved.library) {
            Some(package) => package,
            None => place_of(at, &resolved),
        }
    }

    /// Where code with `stack` ran, as an answer's `location` gives it: its first frame of the
    /// app's own code, else `given` (the place the browser named).
    pub fn location_of(&self, stack: &Stack, given: Option<&CodeLocation>) -> Option<Location> {
        let at = self.first_app(stack.frames()).map(|(at, _)| at).or(given)?;
        Some(self.located(at))
    }

    /// The original lines around `at`, `context` each side, its line and column marked, when its
    /// script's map carries the source's text (else None: the served lines stand).
    pub fn original_excerpt(&self, at: &CodeLocation, context: u32) -> Option<String> {
        let original = self.resolve(at).original?;
        let text = self.maps.source_text(&at.url, original.index)?;
        let lines: Vec<String> = text.lines().map(str::to_owned).collect();
        let excerpt = sources::excerpt(&lines, original.line, Some(original.column), context)?;
        Some(format!("{}:\n{excerpt}", original.source))
    }

    /// Where `at` is in the app's own source (`src/a.tsx:16:3`), with `count` of its original lines
    /// from there, numbered (when the map carries the text); None when no map says where it is.
    pub fn original_from(&self, at: &CodeLocation, count: u32) -> Option<(String, Option<String>)> {
        let original = self.resolve(at).original?;
        let lines = self.maps.source_text(&at.url, original.index).and_then(|text| {
            let lines: Vec<String> = text.lines().map(str::to_owned).collect();
            sources::numbered(&lines, original.line, count)
        });
        Some((format!("{}:{}:{}", original.source, original.line, original.column), lines))
    }

    /// The first frame of the app's own code among `frames` (innermost first), with what the maps
    /// say of it; None when every frame is library code.
    pub fn first_app<'a>(
        &self,
        frames: impl IntoIterator<Item = &'a CodeLocation>,
    ) -> Option<(&'a CodeLocation, Resolved)> {
        frames.into_iter().map(|at| (at, self.resolve(at))).find(|(_, resolved)| !resolved.library)
    }

    /// The app's frames of `stack`, innermost first, through its async parents, one place each
    /// (repeats of a function in a row folded): `request (src/api/http.ts:14) ← submitClaim
    /// (src/api/claims.ts:25) ← submit (src/components/ClaimForm.tsx:18)`. None when it has no
    /// app frame, or when no frame was read through a map (a page without maps is named as the
    /// browser named it).
    pub fn chain(&self, stack: &Stack) -> Option<String> {
        let mut places: Vec<String> = Vec::new();
        let mut last_function = String::new();
        let mut mapped = false;
        for at in stack.frames() {
            let resolved = self.resolve(at);
            mapped |= resolved.original.is_some();
            if resolved.library {
                continue;
            }
            let function =
                resolved.original.as_ref().and_then(|o| o.function.clone()).unwrap_or_else(|| at.function.clone());
            if !function.is_empty() && function == last_function {
                continue;
            }
            last_function = function;
            places.push(place_of(at, &resolved));
            if places.len() == CHAIN_FRAMES {
                break;
            }
        }
        (mapped && !places.is_empty()).then(|| places.join(" ← "))
    }

    /// A stack as a page error's `stack` gives it: one `at` line per frame, the app's own in their
    /// original source, library frames folded into a count, each async boundary named.
    pub fn stack_text(&self, stack: &Stack) -> String {
        let mut lines = Vec::new();
        let fold = |lines: &mut Vec<String>, folded: &mut usize| {
            if *folded > 0 {
                lines.push(format!("    … {folded} library frame{}", if *folded == 1 { "" } else { "s" }));
                *folded = 0;
            }
        };
        for segment in &stack.segments {
            if let Some(boundary) = &segment.boundary {
                lines.push(format!("    -- {boundary} --"));
            }
            let mut folded = 0;
            for at in &segment.frames {
                let resolved = self.resolve(at);
                if resolved.library {
                    folded += 1;
                    continue;
                }
                fold(&mut lines, &mut folded);
                lines.push(format!("    at {}", place_of(at, &resolved)));
            }
            fold(&mut lines, &mut folded);
        }
        lines.join("\n")
    }

    /// The name of the component that rendered an element: `ClaimForm`, from its function's
    /// original name where a production build minified it.
    pub fn component(&self, seen: &ComponentSeen) -> String {
        let original = self.functions.get(&seen.fid).and_then(|at| {
            let named = CodeLocation { function: seen.name.clone(), ..at.clone() };
            self.resolve(&named).original?.function
        });
        original.unwrap_or_else(|| seen.name.clone())
    }
}

/// [`Places::place`] of a location already read.
pub fn place_of(at: &CodeLocation, resolved: &Resolved) -> String {
    let (function, spot) = parts_of(at, resolved);
    if function.is_empty() { spot } else { format!("{function} ({spot})") }
}

/// A location read, in two parts: the function's name (its original one where the map tells it;
/// empty when unknown) and where it is (`src/components/ClaimForm.tsx:18`, or as served
/// `/items:81`, with why it is given as served when that needs saying).
pub fn parts_of(at: &CodeLocation, resolved: &Resolved) -> (String, String) {
    let (function, spot) = match &resolved.original {
        Some(original) => {
            (original.function.clone().unwrap_or_default(), format!("{}:{}", original.source, original.line))
        }
        None => {
            let path = path_of(&at.url);
            (at.function.clone(), if at.line == 0 { path } else { format!("{path}:{}", at.line) })
        }
    };
    let note = resolved.note.as_ref().map(|note| format!("; {note}")).unwrap_or_default();
    (function, format!("{spot}{note}"))
}

/// The numbers of the functions the records after `seq` name: the components of DOM changes (whose
/// production names are minified: read back through where the functions are) and the listeners of
/// the current document's messages (named with where they are).
pub fn function_fids_since(store: &Store, seq: u64) -> Vec<u32> {
    let document = store.timeline.generation();
    let mut fids: Vec<u32> = store
        .timeline
        .since(seq)
        .flat_map(|entry| match &entry.record {
            Record::Dom(dom) => dom.change.component.as_ref().map(|c| c.fid).into_iter().collect(),
            Record::Message(note) if note.document == document => note.listeners.iter().map(|(_, fid)| *fid).collect(),
            _ => Vec::<u32>::new(),
        })
        .filter(|fid| *fid != 0)
        .collect();
    fids.sort_unstable();
    fids.dedup();
    fids
}

/// The numbers of the listeners of the current document's messages (named with where they are).
pub fn listener_fids(store: &Store) -> Vec<u32> {
    let document = store.timeline.generation();
    let mut fids: Vec<u32> = store
        .timeline
        .iter()
        .filter_map(|entry| if let Record::Message(note) = &entry.record { Some(note) } else { None })
        .filter(|note| note.document == document)
        .flat_map(|note| note.listeners.iter().map(|(_, fid)| *fid).filter(|fid| *fid != 0))
        .collect();
    fids.sort_unstable();
    fids.dedup();
    fids
}

/// The lines a storage note names: the call's, and a similar key's writer's.
fn storage_locations(note: &StorageNote) -> impl Iterator<Item = &CodeLocation> {
    let similar = match &note.what {
        StorageWhat::Read { similar: Some((_, at)), .. } => at.as_ref(),
        _ => None,
    };
    note.by.iter().chain(similar)
}

/// The scripts the current document's storage calls name (`load.storage`'s lines and facts).
pub fn storage_scripts(store: &Store) -> Vec<String> {
    let start = store.timeline.current_origin();
    let mut scripts: Vec<String> = store
        .timeline
        .iter()
        .filter(|entry| entry.at >= start - 1.0)
        .filter_map(|entry| if let Record::Storage(note) = &entry.record { Some(note) } else { None })
        .flat_map(storage_locations)
        .filter(|at| !at.url.is_empty())
        .map(|at| at.url.clone())
        .collect();
    scripts.sort_unstable();
    scripts.dedup();
    scripts
}

/// The scripts the records after `seq` name (locations, stacks, initiators, the causes of DOM
/// changes): the maps an answer about them needs.
pub fn scripts_since(store: &Store, seq: u64) -> Vec<String> {
    let mut scripts = BTreeSet::new();
    let mut add = |at: &CodeLocation| {
        if !at.url.is_empty() && !scripts.contains(&at.url) {
            scripts.insert(at.url.clone());
        }
    };
    let mut dom = false;
    for entry in store.timeline.since(seq) {
        match &entry.record {
            Record::Request(r) => r.initiator.iter().chain(r.callers.frames()).for_each(&mut add),
            Record::Console(c) => c.location.iter().chain(c.trace.frames()).for_each(&mut add),
            Record::PageError(e) => e.location.iter().chain(e.trace.frames()).for_each(&mut add),
            Record::Storage(note) => storage_locations(note).for_each(&mut add),
            Record::Dom(_) => dom = true,
            _ => {}
        }
    }
    if dom {
        store.causes.stacks().flat_map(Stack::frames).for_each(&mut add);
    }
    scripts.into_iter().collect()
}
