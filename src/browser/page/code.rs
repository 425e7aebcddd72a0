//! `page.source`: lines of any script (or document) the page runs, from the browser's own copy,
//! so an agent can follow a stack trace or a listener's location without evaluating
//! `document.scripts` or fetching the file again — or of the app's own source file behind them
//! (`src/components/ClaimForm.tsx`, any unique suffix of it, `path:line[:column]` as answers write
//! it), from the text its source map carries; and the places an answer reads its locations
//! through ([`Page::places_since`]: the session's source maps of the scripts it names, fetched
//! first within a budget).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use schemars::JsonSchema;
use serde::Serialize;
use tokio::time::Instant;

use super::handle::Page;
use super::watch::records::Record;
use super::watch::sources;
use super::watch::views::places::{self, Places};
use super::watch::views::wire;
use crate::browser::chromium::kinds::ResourceType;
use crate::browser::error::BrowserError;
use crate::browser::page::source_map::{Found, Resolver, is_library_path, script_key};

/// Lines of a script or app source file.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct SourceView {
    /// The script's URL or the app file's path.
    pub url: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub script: Option<String>,
    /// The lines as text, each numbered (`  12 | …`); an asked-for line is marked with `>`.
    pub lines: String,
    /// How many lines the file has.
    pub total: usize,
}

/// Scripts of the page whose maps are looked through for an original file no answer named yet,
/// at most (a dev server serves one module per source file; a production build a few bundles).
const MAX_SCRIPTS_SEARCHED: usize = 64;

/// What `page.source` is asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceAsk<'a> {
    /// A script's URL (relative to the page is fine) or an original file's path (a unique suffix).
    pub url: &'a str,
    pub line: Option<u32>,
    pub column: Option<u32>,
    /// Lines each side of `line`; None: [`ORIGINAL_CONTEXT`] in an app's own file, else
    /// [`SERVED_CONTEXT`].
    pub context: Option<u32>,
}

/// Lines shown each side of a line of an app's own source file when the ask gives no context: the
/// function around a place, read as the app's author wrote it (a narrower window made agents ask
/// again, or learn that `line` can be left out).
const ORIGINAL_CONTEXT: u32 = 15;
/// Lines shown each side of a line of a script as served (a bundle's lines say little more).
const SERVED_CONTEXT: u32 = 3;

impl<'a> SourceAsk<'a> {
    /// `url` as an answer writes a location, `path:line[:column]`, split (a `line` or `column` given
    /// apart wins); a URL's port is not a line.
    pub fn parse(url: &'a str, line: Option<u32>, column: Option<u32>, context: Option<u32>) -> Self {
        let (path, numbers) = split_position(url);
        Self { url: path, line: line.or(numbers.0), column: column.or(numbers.1), context }
    }
}

/// `src/a.tsx:18:7` → (`src/a.tsx`, 18, 7); `http://h:8080` stays whole.
fn split_position(text: &str) -> (&str, (Option<u32>, Option<u32>)) {
    let number = |s: &str| s.parse::<u32>().ok().filter(|n| *n > 0 && !s.starts_with('+'));
    let file_like = |head: &str| match head.split_once("://") {
        Some((_, rest)) => rest.contains('/'),
        None => !head.is_empty(),
    };
    if let Some((head, last)) = text.rsplit_once(':')
        && let Some(n) = number(last)
    {
        if let Some((path, line)) = head.rsplit_once(':')
            && let Some(line) = number(line)
            && file_like(path)
        {
            return (path, (Some(line), Some(n)));
        }
        if file_like(head) {
            return (head, (Some(n), None));
        }
    }
    (text, (None, None))
}

/// Lines shown of a whole file, at most (then a note says how many more there are).
const WHOLE_FILE_LINES: u32 = 300;
/// How long an answer waits for the source maps of the scripts it names, at most: a production
/// bundle's 1 MB map took 0.5 s cold on a loaded machine, a dev server's inline maps a few ms. A
/// map not ready by then is still fetched; the answer gives its locations as served, marked so.
const MAP_WAIT: Duration = Duration::from_secs(2);
/// What is left of a call's time after the maps' wait, at least (to render and send the answer).
const ANSWER_MARGIN: Duration = Duration::from_millis(250);
/// Scripts whose maps `page.source` fetches at once while it looks for an original file no map
/// read so far lists (one by one would take a dev server's sixty modules sixty round trips; all at
/// once, a few bundles' maps would push each other out of the session's cache).
const SEARCH_BATCH: usize = 4;

/// When a call's work must be done to leave time to answer by `deadline`.
fn answer_by(deadline: Instant) -> Instant {
    deadline.checked_sub(ANSWER_MARGIN).unwrap_or(deadline)
}

impl Page {
    /// The session's maps, once those of `scripts` are known (see [`MAP_WAIT`]).
    pub(super) async fn maps_for(&self, scripts: &[String], deadline: Instant) -> Resolver {
        self.maps_until(scripts, (Instant::now() + MAP_WAIT).min(answer_by(deadline))).await
    }

    /// The session's maps, once those of `scripts` are known or `until` passes, holding theirs.
    async fn maps_until(&self, scripts: &[String], until: Instant) -> Resolver {
        let headers: HashMap<String, String> = {
            let store = self.watch().store();
            scripts.iter().filter_map(|s| Some((s.clone(), wire::source_map_header(&store, s)?))).collect()
        };
        self.originals.ensure(&self.page, &self.target_id.main_frame(), scripts, &headers, until).await
    }

    /// What an answer about the records after `seq` reads its locations through: the maps of the
    /// scripts they name, and where the functions they number are (components, message listeners).
    pub(super) async fn places_since(&self, seq: u64, deadline: Instant) -> Places {
        let (mut scripts, fids) = {
            let store = self.watch().store();
            (places::scripts_since(&store, seq), places::function_fids_since(&store, seq))
        };
        let functions = match fids.is_empty() {
            true => Default::default(),
            false => self.locate().listing().locations(&fids, &self.loader_id(), deadline).await,
        };
        scripts.extend(functions.values().map(|at| at.url.clone()));
        Places { maps: self.maps_for(&scripts, deadline).await, functions }
    }
}

/// What a load report reads its messages' listeners and its storage lines through: where the
/// listeners are, and the maps of their scripts and of the storage calls' (nothing is asked for
/// when the document got no message and made no storage call).
pub(super) async fn load_places(page: &Page, deadline: Instant) -> Places {
    let (fids, mut scripts) = {
        let store = page.watch().store();
        (places::listener_fids(&store), places::storage_scripts(&store))
    };
    if fids.is_empty() && scripts.is_empty() {
        return Places::default();
    }
    let functions = match fids.is_empty() {
        true => Default::default(),
        false => page.locate().listing().locations(&fids, &page.loader_id(), deadline).await,
    };
    scripts.extend(functions.values().map(|at| at.url.clone()));
    Places { maps: page.maps_for(&scripts, deadline).await, functions }
}

/// What a subscriber's live events are read through (`Page::live_maps`): the session's maps,
/// fetched by the page they came from. Holds no page: a feed still ends when its page goes.
pub struct LiveMaps {
    originals: Arc<super::originals::Originals>,
    page: chromiumoxide::Page,
    frame: crate::browser::chromium::ids::FrameId,
}

impl Page {
    /// What the live events of this page are read through (see [`LiveMaps`]).
    pub fn live_maps(&self) -> LiveMaps {
        LiveMaps { originals: self.originals.clone(), page: self.page.clone(), frame: self.target_id.main_frame() }
    }
}

impl LiveMaps {
    /// `event`'s location read through the map of its script, waited for until `until` at most
    /// (a map not ready by then: the location as served, marked so; the fetch goes on).
    pub async fn read(&self, event: &mut super::watch::LiveEvent, until: Instant) {
        let Some(location) = &event.location else { return };
        let scripts = [location.served.url.clone()];
        // No store here to read a `SourceMap` header from: a script first named by a live event is
        // looked up by its `//# sourceMappingURL` only.
        let maps = self.originals.ensure(&self.page, &self.frame, &scripts, &HashMap::new(), until).await;
        event.read_through(&Places { maps, ..Places::default() });
    }
}

/// The text of `url` as `page` loaded it, split into lines (cached per page).
pub(super) async fn source_lines(page: &Page, url: &str, deadline: Instant) -> Option<Arc<Vec<String>>> {
    if let Some(lines) = page.watch().store().sources.get(url) {
        return Some(lines);
    }
    let captured = || page.watch().store().bodies.text_for_url(url);
    let text = sources::text_of(&page.page, &page.target_id.main_frame(), url, captured, deadline).await?;
    Some(page.watch().store().sources.insert(url, &text))
}

impl Page {
    /// Lines `line - context ..= line + context` (1-based; a long line cut to a window around
    /// `column`; context [`ORIGINAL_CONTEXT`] or [`SERVED_CONTEXT`] unless asked) of an original
    /// source file the session's maps carry, or of a script the page
    /// loaded (a relative URL resolved against the page's); the whole file (up to
    /// [`WHOLE_FILE_LINES`]) without a line.
    pub async fn source(&self, ask: &SourceAsk<'_>, deadline: Instant) -> Result<SourceView, BrowserError> {
        if !ask.url.contains("://")
            && let Some(view) = original_lines(self, ask, deadline).await?
        {
            return Ok(view);
        }
        lines_of(self, ask, deadline).await
    }
}

/// [`Page::source`] of an original file: None when no map of the page's scripts lists one ending
/// with `ask.url`. The file is looked up in what the maps read so far list (kept or let go: only
/// the map that lists it is fetched again), else the maps of the page's other scripts are read a
/// few at a time until one lists it; the call waits for them until its deadline.
async fn original_lines(
    page: &Page,
    ask: &SourceAsk<'_>,
    deadline: Instant,
) -> Result<Option<SourceView>, BrowserError> {
    let until = answer_by(deadline);
    let mut listed = page.originals.listed(ask.url);
    let mut searched = None;
    if listed.paths.is_empty() {
        let unread: Vec<String> =
            page_scripts(page, ask.url).into_iter().filter(|script| !page.originals.known(script)).collect();
        for batch in unread.chunks(SEARCH_BATCH) {
            searched = Some(page.maps_until(batch, until).await);
            listed = page.originals.listed(ask.url);
            if !listed.paths.is_empty() || Instant::now() >= until {
                break;
            }
        }
        if listed.paths.is_empty() && page.originals.loading(&page_scripts(page, ask.url)) {
            return Err(BrowserError::Timeout(format!(
                "the source maps of the page's scripts were still loading when the call's time ran out, so \
                 {:?} was not found in them yet: ask again, or give a longer timeout",
                ask.url
            )));
        }
    }
    if let [_, _, ..] = listed.paths.as_slice() {
        return Err(BrowserError::InvalidOption(format!(
            "{:?} names several of the app's source files: {}; give more of the path",
            ask.url,
            listed.paths.join(", ")
        )));
    }
    if listed.scripts.is_empty() {
        return Ok(None);
    }
    // The batch that found it holds its map (even one too large for the cache); else fetch the
    // map that lists it (again, when it was let go).
    let found = match searched.filter(|maps| !matches!(maps.find_source(ask.url), Found::None)) {
        Some(maps) => maps,
        None => page.maps_until(&listed.scripts, until).await,
    };
    let (script, index, path) = match found.find_source(ask.url) {
        Found::One { script, index, path } => (script, index, path),
        Found::Several(paths) => {
            return Err(BrowserError::InvalidOption(format!(
                "{:?} names several of the app's source files: {}; give more of the path",
                ask.url,
                paths.join(", ")
            )));
        }
        Found::None => {
            return Err(BrowserError::Timeout(format!(
                "{} is listed by the source map of {}, which the session did not keep (its 16 MiB of maps is full, \
                 or the map alone is larger) and could not read again in the call's time: ask again, or ask for \
                 the script's own lines",
                listed.paths.join(", "),
                listed.scripts.join(", ")
            )));
        }
    };
    let text = found.source_text(&script, index).ok_or_else(|| {
        BrowserError::InvalidOption(format!(
            "the source map of {script} names {path} but does not carry its text: ask for the script's own lines \
             ({script})"
        ))
    })?;
    let lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let mut view = shown(&lines, &path, ask, ORIGINAL_CONTEXT)?;
    view.script = Some(script);
    Ok(Some(view))
}

/// The scripts of the page's current document whose maps may hold `path`: those whose URL path
/// ends with it (a dev server's module), else every script that is not library code.
fn page_scripts(page: &Page, path: &str) -> Vec<String> {
    let store = page.watch().store();
    let mut scripts: Vec<String> = store
        .timeline
        .iter()
        .rev()
        .take_while(|entry| !matches!(entry.record, Record::Document { .. }))
        .filter_map(|entry| match &entry.record {
            Record::Request(r) if r.resource_type == ResourceType::Script => Some(r.url.clone()),
            _ => None,
        })
        .filter(|url| url.starts_with("http") && !is_library_path(script_key(url)))
        .take(MAX_SCRIPTS_SEARCHED)
        .collect();
    let wanted = path.trim_start_matches("./").trim_start_matches('/');
    let own: Vec<String> = scripts
        .iter()
        .filter(|url| script_key(url).split('?').next().is_some_and(|u| u.ends_with(wanted)))
        .cloned()
        .collect();
    if !own.is_empty() {
        scripts = own;
    }
    scripts.sort_unstable();
    scripts.dedup();
    scripts
}

/// [`Page::source`] of a served script.
async fn lines_of(page: &Page, ask: &SourceAsk<'_>, deadline: Instant) -> Result<SourceView, BrowserError> {
    let base = page.watch().nav.borrow().url.clone();
    let url =
        url::Url::parse(&base).and_then(|b| b.join(ask.url)).map(String::from).unwrap_or_else(|_| ask.url.to_owned());
    let lines = source_lines(page, &url, deadline).await.ok_or_else(|| {
        BrowserError::InvalidOption(format!(
            "this page has no script, document or source-mapped file {url:?}: give the URL of a script the page \
             loaded, or an app source file's path, as page errors, console entries and listeners name them"
        ))
    })?;
    shown(&lines, &url, ask, SERVED_CONTEXT)
}

/// The lines `ask` wants of a file named `url` (`context` each side of its line unless it says).
fn shown(lines: &[String], url: &str, ask: &SourceAsk<'_>, context: u32) -> Result<SourceView, BrowserError> {
    let shown = match ask.line {
        Some(line) => sources::excerpt(lines, line, ask.column, ask.context.unwrap_or(context)).ok_or_else(|| {
            BrowserError::InvalidOption(format!("line {line} is past the end of {url} ({} lines)", lines.len()))
        })?,
        None => {
            let mut whole = sources::numbered(lines, 1, WHOLE_FILE_LINES).unwrap_or_default();
            if lines.len() > WHOLE_FILE_LINES as usize {
                whole.push_str(&format!(
                    "\n… {} more lines (give line and context to see them)",
                    lines.len() - WHOLE_FILE_LINES as usize
                ));
            }
            whole
        }
    };
    Ok(SourceView { url: url.to_owned(), script: None, lines: shown, total: lines.len() })
}
