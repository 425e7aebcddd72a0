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
//! One per session (`Siblings`): every tab's answers share its maps. Its fetches stop when the
//! session goes.

mod discover;
mod fetch;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::watch;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use self::fetch::Fetched;
use crate::browser::chromium::ids::FrameId;
use crate::browser::page::source_map::{
    Known, MapCache, Mapped, Resolver, Snapshot, Unmapped, Weigh, Why, is_library_path, script_key,
};

/// How long one map's fetch may take, whoever waits for it (a 30 MB map on a loaded machine).
const FETCH_TIME: Duration = Duration::from_secs(20);
/// Scripts whose outcome is remembered (maps or why none), at most; past it the outcomes without
/// a map are forgotten (asked again when named again).
const MAX_SCRIPTS: usize = 4096;

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
}

#[derive(Default)]
struct State {
    /// What is known of each script, by URL without its fragment; `Mapped` ones are in `cache`.
    known: HashMap<String, Status>,
    cache: MapCache<Mapped>,
    /// What resolvers read: rebuilt whenever `known` changes.
    snapshot: Arc<Snapshot>,
}

#[derive(Debug, Clone)]
enum Status {
    Loading,
    /// In the cache (when evicted since, looked for again).
    Mapped,
    Unmapped(Unmapped),
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
        let shared = Shared { state: Mutex::new(State::default()), settled: watch::channel(0).0 };
        Self { shared: Arc::new(shared), stop: CancellationToken::new(), off: AtomicBool::new(false) }
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

    /// Looks for the maps of `scripts` that nobody looked for yet (fetched by `page`, whose main
    /// frame is `frame`) and waits until every map of `scripts` is known or `until` passes;
    /// fetches still under way then go on.
    pub async fn ensure(
        &self,
        page: &chromiumoxide::Page,
        frame: &FrameId,
        scripts: &[String],
        map_headers: &HashMap<String, String>,
        until: Instant,
    ) {
        if scripts.is_empty() || self.off.load(Ordering::Relaxed) {
            return;
        }
        let mut settled = self.shared.settled.subscribe();
        for script in self.shared.start(scripts) {
            let (shared, stop, page, frame) = (self.shared.clone(), self.stop.clone(), page.clone(), frame.clone());
            let header = map_headers.get(&script).cloned();
            tokio::spawn(async move {
                let deadline = Instant::now() + FETCH_TIME;
                let fetched = tokio::select! {
                    () = stop.cancelled() => return,
                    fetched = fetch::map_of(&page, &frame, (&script, header.as_deref()), deadline) => fetched,
                };
                shared.file(&script, fetched);
            });
        }
        while self.shared.loading(scripts) {
            let Ok(Ok(())) = tokio::time::timeout_at(until, settled.changed()).await else { return };
        }
    }
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Marks the scripts of `scripts` nobody looked for (or whose map was evicted) as loading, and
    /// answers them: the fetches to start.
    fn start(&self, scripts: &[String]) -> Vec<String> {
        let mut state = self.lock();
        let mut started = Vec::new();
        for script in scripts {
            let key = script_key(script);
            if !key.starts_with("http") || is_library_path(key) {
                continue;
            }
            let fresh = match state.known.get(key) {
                None => true,
                // Asked about again: the most recently used now (`get`), or evicted since.
                Some(Status::Mapped) => state.cache.get(key).is_none(),
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

    /// Files what a fetch came to, and tells the waiting answers.
    fn file(&self, script: &str, fetched: Fetched) {
        let mut state = self.lock();
        let kept_before = state.cache.bytes() as i64;
        match fetched {
            Fetched::Mapped(mapped) if mapped.bytes() > state.cache.cap() => {
                let why = Why::Unreadable(format!(
                    "parsed, it holds {} bytes, more than the {} a session keeps for maps",
                    mapped.bytes(),
                    state.cache.cap()
                ));
                let map_url = mapped.map_url.clone().unwrap_or_else(|| "an inline map".to_owned());
                state.known.insert(script.to_owned(), Status::Unmapped(Unmapped::NotFetched { map_url, why }));
            }
            Fetched::Mapped(mapped) => {
                state.cache.insert(script, *mapped);
                state.known.insert(script.to_owned(), Status::Mapped);
                tracing::debug!(script, kept = state.cache.bytes(), "source map kept");
            }
            Fetched::Unmapped(unmapped) => {
                state.known.insert(script.to_owned(), Status::Unmapped(unmapped));
            }
            Fetched::Unavailable => {
                state.known.remove(script);
            }
        }
        if state.known.len() > MAX_SCRIPTS {
            state.known.retain(|_, status| !matches!(status, Status::Unmapped(_)));
        }
        state.rebuild();
        crate::metrics::SOURCE_MAP_BYTES.add(state.cache.bytes() as i64 - kept_before);
        drop(state);
        self.settled.send_modify(|n| *n += 1);
    }
}

impl State {
    /// The snapshot resolvers read, from what is known now (a map the cache evicted is forgotten).
    fn rebuild(&mut self) {
        let cache = &mut self.cache;
        self.known.retain(|script, status| !matches!(status, Status::Mapped) || cache.contains(script));
        let scripts = self
            .known
            .iter()
            .filter_map(|(script, status)| {
                let known = match status {
                    Status::Loading => Known::Loading,
                    Status::Mapped => Known::Mapped(cache.peek(script)?),
                    Status::Unmapped(unmapped) => Known::Unmapped(unmapped.clone()),
                };
                Some((script.clone(), known))
            })
            .collect();
        self.snapshot = Arc::new(Snapshot { scripts });
    }
}
