//! The app's own source behind the scripts a session's pages run: which map a script has, fetching
//! it through the session's egress, the session's maps kept within a byte cap, and the snapshot
//! answers read their locations through (`source_map::Resolver`).
//!
//! - `discover`: where a script's map is (a header, its last `sourceMappingURL` comment), read
//!   against the script's URL
//! - `fetch`: one script's map fetched: its text from the browser's copy, an inline map decoded, a
//!   map file loaded by the page's network stack (through the egress proxy and its allow-list)
//!
//! Lazily: a map is looked for only when an answer names a location in its script, and only for
//! scripts that are not library code by their URL (a dev server's optimised packages already
//! carry readable names, and their maps are the largest). An answer waits for the maps it needs at
//! most until a budget it gives ([`Originals::ensure`]); a fetch still under way then goes on in
//! the background, and the answer gives those locations as served, marked so.
//!
//! Past the session's cap the least recently used map is let go: its script stays known as
//! `Evicted` (a location in it is given as served and marked so, never as if it had no map), and
//! what its map lists (the original sources' paths, a few KB) stays in an index, so `page.source`
//! of an original file fetches again only the map that lists it. An answer fetches a let-go map
//! again when it names the script (at most once per answer, within its budget), and holds the
//! maps it read its locations through until it is rendered: a map fetched for an answer is not
//! lost to that answer because a later one in the same answer filled the cache. Bounded too: an
//! answer holds at most [`HOLD_CAP`] bytes of maps (past it, a map the cache let go is marked not
//! kept), and a session fetches [`FETCHES_AT_ONCE`] maps at a time, so however many scripts an
//! answer names, a session's maps stay within the cache, one answer's hold and those fetches.
//!
//! One per session (`Siblings`): every tab's answers share its maps. Its fetches stop when the
//! session goes.

mod discover;
mod fetch;

use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{Semaphore, watch};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use self::fetch::Fetched;
use crate::browser::chromium::ids::FrameId;
use crate::browser::page::source_map::{
    CACHE_CAP, Known, MapCache, Mapped, Resolver, Snapshot, Unmapped, Weigh, Why, is_library_path, names_path,
    script_key,
};

/// How long one map's fetch may take, whoever waits for it (a 30 MB map on a loaded machine).
const FETCH_TIME: Duration = Duration::from_secs(20);
/// Scripts whose outcome is remembered (maps or why none), at most; past it the outcomes without
/// a map are forgotten (asked again when named again).
const MAX_SCRIPTS: usize = 4096;
/// Bytes of maps one answer holds (see [`Holding`]): twice the session's cap, so an answer never
/// holds more than the cache's worth of maps it let go.
const HOLD_CAP: usize = 2 * CACHE_CAP;
/// Maps a session fetches at once (each up to `MAX_MAP_BYTES` of text while it is parsed); the
/// others wait their turn.
const FETCHES_AT_ONCE: usize = 4;

/// A session's maps (see the module doc).
pub struct Originals {
    shared: Arc<Shared>,
    stop: CancellationToken,
    /// Turned off (session.create's `sourceMaps: false`): no map is looked for, every location
    /// is given as served.
    off: AtomicBool,
}

struct Shared {
    state: Mutex<State>,
    /// Bumped when a fetch ends.
    settled: watch::Sender<u64>,
    /// One permit a fetch under way ([`FETCHES_AT_ONCE`]).
    fetches: Semaphore,
}

#[derive(Default)]
struct State {
    /// What is known of each script, by URL without its fragment; `Mapped` ones are in `cache`.
    known: HashMap<String, Status>,
    cache: MapCache<Mapped>,
    /// The original sources' paths each mapped script's map lists, kept after the map is let go.
    sources: HashMap<String, Arc<[Arc<str>]>>,
    /// What resolvers read: rebuilt whenever `known` changes.
    snapshot: Arc<Snapshot>,
}

#[derive(Debug, Clone)]
enum Status {
    Loading,
    /// In the cache (`rebuild` turns it `Evicted` when the cache lets it go).
    Mapped,
    /// Its map was let go: fetched again when an answer names the script.
    Evicted,
    Unmapped(Unmapped),
}

/// Maps an answer holds while it is put together (see the module doc).
type Held = Arc<Mutex<Holding>>;

/// The maps an answer holds, by script, within a byte cap ([`HOLD_CAP`]): past it a map is not
/// held, so the answer reads it through the cache while the cache keeps it, else gives its
/// locations as served, marked not kept.
struct Holding {
    maps: HashMap<String, Arc<Mapped>>,
    bytes: usize,
    cap: usize,
}

impl Default for Holding {
    fn default() -> Self {
        Self::with_cap(HOLD_CAP)
    }
}

impl Holding {
    fn with_cap(cap: usize) -> Self {
        Self { maps: HashMap::new(), bytes: 0, cap }
    }

    fn hold(&mut self, script: &str, mapped: Arc<Mapped>) {
        if self.maps.contains_key(script) || self.bytes + mapped.bytes() > self.cap {
            return;
        }
        self.bytes += mapped.bytes();
        self.maps.insert(script.to_owned(), mapped);
    }

    fn holds(&self, script: &str) -> bool {
        self.maps.contains_key(script)
    }

    fn take(&mut self) -> HashMap<String, Arc<Mapped>> {
        self.bytes = 0;
        std::mem::take(&mut self.maps)
    }
}

/// The original sources a path suffix names, by what the session's maps list (kept or let go).
#[derive(Debug, Default)]
pub struct Listed {
    /// The scripts whose maps list one of them.
    pub scripts: Vec<String>,
    /// Their paths, sorted, each once.
    pub paths: Vec<String>,
}

impl Drop for Originals {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

/// The maps go with the last of the session and its fetches.
impl Drop for Shared {
    fn drop(&mut self) {
        crate::metrics::SOURCE_MAP_BYTES.sub(self.lock().cache.bytes() as i64);
    }
}

impl Default for Originals {
    fn default() -> Self {
        Self {
            shared: Arc::new(Shared::new(State::default())),
            stop: CancellationToken::new(),
            off: AtomicBool::new(false),
        }
    }
}

impl Originals {
    /// A resolver over the maps as they are now (see `source_map::Resolver`); none when off.
    pub fn resolver(&self) -> Resolver {
        if self.off.load(Ordering::Relaxed) {
            return Resolver::default();
        }
        Resolver::new(self.shared.lock().snapshot.clone())
    }

    /// Turns the maps on or off for the session's answers from now on.
    pub fn set_on(&self, on: bool) {
        self.off.store(!on, Ordering::Relaxed);
    }

    /// Looks for the maps of `scripts` that nobody looked for yet or that were let go (fetched by
    /// `page`, whose main frame is `frame`), waits until every map of `scripts` is known or `until`
    /// passes (fetches still under way then go on), and answers a resolver that holds the maps of
    /// `scripts` it found (none when off).
    pub async fn ensure(
        &self,
        page: &chromiumoxide::Page,
        frame: &FrameId,
        scripts: &[String],
        map_headers: &HashMap<String, String>,
        until: Instant,
    ) -> Resolver {
        if scripts.is_empty() || self.off.load(Ordering::Relaxed) {
            return self.resolver();
        }
        let held = Held::default();
        let mut settled = self.shared.settled.subscribe();
        for script in self.shared.start(scripts, &held) {
            let (shared, stop, page, frame) = (self.shared.clone(), self.stop.clone(), page.clone(), frame.clone());
            let header = map_headers.get(&script).cloned();
            let held = held.clone();
            tokio::spawn(async move {
                let fetched = tokio::select! {
                    () = stop.cancelled() => return,
                    fetched = async {
                        // Never closed: a permit always comes.
                        let _turn = shared.fetches.acquire().await;
                        let deadline = Instant::now() + FETCH_TIME;
                        fetch::map_of(&page, &frame, (&script, header.as_deref()), deadline).await
                    } => fetched,
                };
                // Held before the answer is told, so that it reads the map even when the cache
                // let it go at once for another one.
                if let Fetched::Mapped(mapped) = &fetched {
                    lock(&held).hold(&script, mapped.clone());
                }
                shared.file(&script, fetched);
            });
        }
        while self.shared.loading(scripts) {
            let Ok(Ok(())) = tokio::time::timeout_at(until, settled.changed()).await else { break };
        }
        let snapshot = self.shared.hold(scripts, &held);
        let held = lock(&held).take();
        Resolver::holding(snapshot, held)
    }

    /// The scripts whose maps list an original source `suffix` names, and those sources' paths:
    /// from the index of what every map read so far lists, kept or let go.
    pub fn listed(&self, suffix: &str) -> Listed {
        let state = self.shared.lock();
        let (mut scripts, mut paths) = (Vec::new(), BTreeSet::new());
        for (script, listed) in &state.sources {
            let named: Vec<&Arc<str>> = listed.iter().filter(|path| names_path(path, suffix)).collect();
            if !named.is_empty() {
                scripts.push(script.clone());
                paths.extend(named.into_iter().map(|path| path.to_string()));
            }
        }
        scripts.sort_unstable();
        Listed { scripts, paths: paths.into_iter().collect() }
    }

    /// Whether the session knows what `script`'s map is (or that it has none), or is fetching it.
    pub fn known(&self, script: &str) -> bool {
        self.shared.lock().known.contains_key(script_key(script))
    }

    /// Whether any of `scripts`' maps is still being fetched.
    pub fn loading(&self, scripts: &[String]) -> bool {
        self.shared.loading(scripts)
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

impl Shared {
    fn new(state: State) -> Self {
        Self { state: Mutex::new(state), settled: watch::channel(0).0, fetches: Semaphore::new(FETCHES_AT_ONCE) }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        lock(&self.state)
    }

    /// Marks the scripts of `scripts` nobody looked for (or whose map was let go) as loading, and
    /// answers them: the fetches to start. The maps of the others that are kept go into `held`.
    fn start(&self, scripts: &[String], held: &Held) -> Vec<String> {
        let mut state = self.lock();
        let mut started = Vec::new();
        for script in scripts {
            let key = script_key(script);
            if !key.starts_with("http") || is_library_path(key) {
                continue;
            }
            let fresh = match state.known.get(key) {
                None | Some(Status::Evicted) => true,
                // Asked about again: the most recently used now (`get`), held for the answer.
                Some(Status::Mapped) => match state.cache.get(key) {
                    Some(mapped) => {
                        lock(held).hold(key, mapped);
                        false
                    }
                    None => true,
                },
                Some(_) => false,
            };
            if fresh && !started.iter().any(|s| s == key) {
                state.known.insert(key.to_owned(), Status::Loading);
                started.push(key.to_owned());
            }
        }
        if !started.is_empty() {
            state.rebuild();
        }
        started
    }

    /// Whether any of `scripts` is still being fetched.
    fn loading(&self, scripts: &[String]) -> bool {
        let state = self.lock();
        scripts.iter().any(|s| matches!(state.known.get(script_key(s)), Some(Status::Loading)))
    }

    /// The snapshot now, with the kept maps of `scripts` (another answer's fetches) put in `held`.
    fn hold(&self, scripts: &[String], held: &Held) -> Arc<Snapshot> {
        let state = self.lock();
        let mut held = lock(held);
        for script in scripts {
            let key = script_key(script);
            if !held.holds(key)
                && let Some(mapped) = state.cache.peek(key)
            {
                held.hold(key, mapped);
            }
        }
        state.snapshot.clone()
    }

    /// Files what a fetch came to, and tells the waiting answers.
    fn file(&self, script: &str, fetched: Fetched) {
        let mut state = self.lock();
        let kept_before = state.cache.bytes() as i64;
        match fetched {
            Fetched::Mapped(mapped) if mapped.bytes() > state.cache.cap() => {
                state.sources.insert(script.to_owned(), mapped.map.paths().into());
                let why = Why::Unreadable(format!(
                    "parsed, it holds {} bytes, more than the {} a session keeps for maps",
                    mapped.bytes(),
                    state.cache.cap()
                ));
                let map_url = mapped.map_url.clone().unwrap_or_else(|| "an inline map".to_owned());
                state.known.insert(script.to_owned(), Status::Unmapped(Unmapped::NotFetched { map_url, why }));
            }
            Fetched::Mapped(mapped) => {
                state.sources.insert(script.to_owned(), mapped.map.paths().into());
                state.cache.insert(script, mapped);
                state.known.insert(script.to_owned(), Status::Mapped);
                tracing::debug!(script, kept = state.cache.bytes(), "source map kept");
            }
            Fetched::Unmapped(unmapped) => {
                state.sources.remove(script);
                state.known.insert(script.to_owned(), Status::Unmapped(unmapped));
            }
            Fetched::Unavailable => {
                // Known as before (a let-go map stays let go), else asked again when named again.
                let evicted = state.sources.contains_key(script);
                match evicted {
                    true => state.known.insert(script.to_owned(), Status::Evicted),
                    false => state.known.remove(script),
                };
            }
        }
        if state.known.len() > MAX_SCRIPTS {
            state.known.retain(|_, status| !matches!(status, Status::Unmapped(_)));
            let State { known, sources, .. } = &mut *state;
            sources.retain(|script, _| known.contains_key(script));
        }
        state.rebuild();
        crate::metrics::SOURCE_MAP_BYTES.add(state.cache.bytes() as i64 - kept_before);
        drop(state);
        self.settled.send_modify(|n| *n += 1);
    }
}

impl State {
    /// The snapshot resolvers read, from what is known now (a map the cache let go is `Evicted`).
    fn rebuild(&mut self) {
        let cache = &self.cache;
        for (script, status) in &mut self.known {
            if matches!(status, Status::Mapped) && !cache.contains(script) {
                *status = Status::Evicted;
            }
        }
        let scripts = self
            .known
            .iter()
            .map(|(script, status)| {
                let known = match status {
                    Status::Loading => Known::Loading,
                    Status::Mapped => cache.peek(script).map_or(Known::Evicted, Known::Mapped),
                    Status::Evicted => Known::Evicted,
                    Status::Unmapped(unmapped) => Known::Unmapped(unmapped.clone()),
                };
                (script.clone(), known)
            })
            .collect();
        self.snapshot = Arc::new(Snapshot { scripts });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::browser::page::source_map::{NOT_KEPT, NOT_KEPT_AGAIN, ScriptText, Served, SourceMap};

    /// Script `n`'s map: its one source `src/big-n.ts` carries `kb` KiB of text.
    fn mapped(n: usize, kb: usize) -> Arc<Mapped> {
        let text = format!("throw new Error('big {n}');\n{}", "x".repeat(kb * 1024));
        let json = serde_json::json!({
            "version": 3, "sources": [format!("src/big-{n}.ts")], "names": [], "mappings": "AAAA",
            "sourcesContent": [text],
        });
        let map = SourceMap::parse(json.to_string().as_bytes(), "http://h/app.js.map").expect("a map");
        Arc::new(Mapped::new(map, ScriptText::new("throw new Error('big');"), None))
    }

    fn script(n: usize) -> String {
        format!("http://h/app-{n}.js")
    }

    /// A session's maps whose cache holds two of [`mapped`]`(_, 400)` but not three.
    fn shared() -> Shared {
        Shared::new(State { cache: MapCache::with_cap(1000 * 1024), ..State::default() })
    }

    /// The three scripts' maps fetched for one answer, as `Originals::ensure` files them.
    fn three_fetched(shared: &Shared) -> Held {
        let held = Held::default();
        let scripts: Vec<String> = (0..3).map(script).collect();
        assert_eq!(shared.start(&scripts, &held), scripts, "nobody looked for them yet");
        for n in 0..3 {
            let map = mapped(n, 400);
            lock(&held).hold(&script(n), map.clone());
            shared.file(&script(n), Fetched::Mapped(map));
        }
        held
    }

    fn at(url: &str) -> Served<'_> {
        Served { url, line: 1, column: 7, function: "" }
    }

    #[test]
    fn a_map_the_cache_let_go_stays_known_as_evicted_and_is_fetched_again_when_named() {
        let shared = shared();
        three_fetched(&shared);
        let later = Resolver::new(shared.lock().snapshot.clone());
        // The first map was let go for the third: marked, never given as if it had no map.
        let first = later.resolve(at(&script(0)));
        assert_eq!((first.original, first.note.as_deref()), (None, Some(NOT_KEPT)));
        assert!(later.resolve(at(&script(1))).original.is_some() && later.resolve(at(&script(2))).original.is_some());
        // The next answer that names it fetches it again (and only it); one that does not, does not.
        let held = Held::default();
        assert!(shared.start(&[script(1)], &held).is_empty());
        assert!(lock(&held).holds(&script(1)), "a kept map is held for the answer");
        assert_eq!(shared.start(&[script(0), script(1), script(2)], &Held::default()), [script(0)]);
        assert!(shared.start(&[script(0)], &Held::default()).is_empty(), "once: it is loading now");
    }

    #[test]
    fn an_answer_reads_every_map_it_fetched_though_the_cache_let_one_go() {
        let shared = shared();
        let held = three_fetched(&shared);
        let scripts: Vec<String> = (0..3).map(script).collect();
        let snapshot = shared.hold(&scripts, &held);
        let answer = Resolver::holding(snapshot, lock(&held).take());
        for n in 0..3 {
            let place = answer.resolve(at(&script(n))).original.expect("read through its map");
            assert_eq!(place.source, format!("src/big-{n}.ts"));
        }
        let state = shared.lock();
        assert!(state.cache.bytes() <= state.cache.cap(), "the cap still holds");
    }

    #[test]
    fn every_location_of_a_let_go_map_is_marked_and_why_is_said_once_per_answer() {
        let shared = shared();
        three_fetched(&shared);
        let answer = Resolver::new(shared.lock().snapshot.clone());
        let notes: Vec<Option<String>> = (0..3).map(|_| answer.resolve(at(&script(0))).note).collect();
        assert_eq!(
            notes,
            [Some(NOT_KEPT.to_owned()), Some(NOT_KEPT_AGAIN.to_owned()), Some(NOT_KEPT_AGAIN.to_owned())]
        );
        let next = Resolver::new(shared.lock().snapshot.clone());
        assert_eq!(next.resolve(at(&script(0))).note.as_deref(), Some(NOT_KEPT), "a new answer says why again");
    }

    #[test]
    fn the_sources_index_finds_a_file_whose_map_was_let_go_and_only_its_script() {
        let originals =
            Originals { shared: Arc::new(shared()), stop: CancellationToken::new(), off: AtomicBool::new(false) };
        three_fetched(&originals.shared);
        assert!(!originals.shared.lock().cache.contains(&script(0)), "big-0's map was let go");
        let listed = originals.listed("big-0.ts");
        assert_eq!((listed.scripts, listed.paths), (vec![script(0)], vec!["src/big-0.ts".to_owned()]));
        let listed = originals.listed("src/big-2.ts");
        assert_eq!(listed.scripts, [script(2)]);
        assert!(originals.listed("ig-0.ts").paths.is_empty(), "a suffix names a whole path segment");
        assert!(originals.listed("src/other.ts").scripts.is_empty());
        // A map gone since (its server now answers 404) lists nothing any more.
        originals
            .shared
            .file(&script(0), Fetched::Unmapped(Unmapped::NotFetched { map_url: "m".into(), why: Why::Status(404) }));
        assert!(originals.listed("big-0.ts").scripts.is_empty());
    }

    #[test]
    fn an_answer_holds_maps_up_to_its_cap_and_one_neither_held_nor_kept_is_marked() {
        // The cache keeps two of five; the answer holds two (its cap): the first two fetched are
        // held, the last two kept, the middle one neither.
        let shared = shared();
        let held: Held = Arc::new(Mutex::new(Holding::with_cap(2 * mapped(0, 400).bytes() + 1)));
        let scripts: Vec<String> = (0..5).map(script).collect();
        assert_eq!(shared.start(&scripts, &held), scripts);
        for n in 0..5 {
            let map = mapped(n, 400);
            lock(&held).hold(&script(n), map.clone());
            shared.file(&script(n), Fetched::Mapped(map));
        }
        let snapshot = shared.hold(&scripts, &held);
        let holding = lock(&held);
        assert!(holding.bytes <= holding.cap, "{} held past {}", holding.bytes, holding.cap);
        drop(holding);
        let answer = Resolver::holding(snapshot, lock(&held).take());
        let read: Vec<bool> = (0..5).map(|n| answer.resolve(at(&script(n))).original.is_some()).collect();
        assert_eq!(read, [true, true, false, true, true]);
        assert_eq!(answer.resolve(at(&script(2))).note.as_deref(), Some(NOT_KEPT_AGAIN), "marked, not as unmapped");
    }
}
