//! A session's source maps, bounded in bytes.
//!
//! Maps are parsed only for locations an answer names, then kept for the session's other answers:
//! an app's bundle map or a dev server's hundred module maps are asked about again and again. What
//! an entry holds (a [`SourceMap`], or a map with the script text it belongs to: anything that
//! [`Weigh`]s itself) is counted against [`CACHE_CAP`]; past it the least recently used go first.
//! An entry larger than the cap alone is not kept (it is used for the answer at hand and parsed
//! again when asked again), so the cache never holds more than its cap.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use super::map::SourceMap;

/// Bytes of parsed maps one session keeps: a production bundle's map with React or Vue and their
/// sources' text takes 2–4 MB parsed, a dev server's module maps a few KB each, so 16 MiB holds a
/// whole app's maps several times over while 160 sessions at most hold 2.5 GiB only if every one
/// debugs such an app at once.
pub const CACHE_CAP: usize = 16 * 1024 * 1024;

/// What a cached entry holds in memory, in bytes (what the cap counts).
pub trait Weigh {
    fn bytes(&self) -> usize;
}

impl Weigh for SourceMap {
    fn bytes(&self) -> usize {
        SourceMap::bytes(self)
    }
}

/// Parsed maps by the script URL they belong to, least recently used first out.
#[derive(Debug)]
pub struct MapCache<T: Weigh = SourceMap> {
    cap: usize,
    maps: HashMap<String, Arc<T>>,
    /// Keys, least recently used first.
    order: VecDeque<String>,
    bytes: usize,
}

impl<T: Weigh> Default for MapCache<T> {
    fn default() -> Self {
        Self::with_cap(CACHE_CAP)
    }
}

impl<T: Weigh> MapCache<T> {
    pub fn with_cap(cap: usize) -> Self {
        Self { cap, maps: HashMap::new(), order: VecDeque::new(), bytes: 0 }
    }

    /// The map of `script`, if cached (now the most recently used).
    pub fn get(&mut self, script: &str) -> Option<Arc<T>> {
        let map = self.maps.get(script)?.clone();
        self.touch(script);
        Some(map)
    }

    /// Keeps `map` as `script`'s, evicting the least recently used maps until it fits; a map
    /// larger than the whole cap is handed back without being kept.
    pub fn insert(&mut self, script: &str, map: impl Into<Arc<T>>) -> Arc<T> {
        let map = map.into();
        self.remove(script);
        if map.bytes() > self.cap {
            return map;
        }
        while self.bytes + map.bytes() > self.cap {
            let Some(oldest) = self.order.front().cloned() else { break };
            self.remove(&oldest);
        }
        self.bytes += map.bytes();
        self.maps.insert(script.to_owned(), map.clone());
        self.order.push_back(script.to_owned());
        map
    }

    /// Bytes the cached maps hold (never more than the cap).
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Whether `script`'s map is kept (without making it the most recently used).
    pub fn contains(&self, script: &str) -> bool {
        self.maps.contains_key(script)
    }

    /// The map of `script`, if cached, without making it the most recently used.
    pub fn peek(&self, script: &str) -> Option<Arc<T>> {
        self.maps.get(script).cloned()
    }

    /// The most bytes it keeps.
    pub fn cap(&self) -> usize {
        self.cap
    }

    /// The cached maps, most recently used last.
    #[cfg(test)]
    pub fn maps(&self) -> impl Iterator<Item = (&str, &Arc<T>)> {
        self.order.iter().filter_map(|key| self.maps.get_key_value(key).map(|(k, m)| (k.as_str(), m)))
    }

    fn remove(&mut self, script: &str) {
        if let Some(old) = self.maps.remove(script) {
            self.bytes -= old.bytes();
            self.order.retain(|key| key != script);
        }
    }

    fn touch(&mut self, script: &str) {
        if let Some(at) = self.order.iter().position(|key| key == script)
            && let Some(key) = self.order.remove(at)
        {
            self.order.push_back(key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A map whose one source's text is `kb` KiB.
    fn map_of(kb: usize) -> SourceMap {
        let text = "x".repeat(kb * 1024);
        let json = serde_json::json!({
            "version": 3, "sources": ["a.js"], "names": [], "mappings": "AAAA", "sourcesContent": [text],
        });
        SourceMap::parse(json.to_string().as_bytes(), "http://h/a.js.map").unwrap()
    }

    #[test]
    fn the_least_recently_used_map_goes_first_and_the_cap_holds() {
        let mut cache = MapCache::with_cap(300 * 1024);
        cache.insert("a.js", map_of(100));
        cache.insert("b.js", map_of(100));
        assert!(cache.get("a.js").is_some(), "a is now the most recently used");
        cache.insert("c.js", map_of(100));
        assert!(cache.get("b.js").is_none(), "b was the least recently used");
        assert!(cache.get("a.js").is_some() && cache.get("c.js").is_some());
        assert!(cache.bytes() <= 300 * 1024, "{}", cache.bytes());
        let order: Vec<&str> = cache.maps().map(|(k, _)| k).collect();
        assert_eq!(order, ["a.js", "c.js"]);
    }

    #[test]
    fn a_map_larger_than_the_cap_is_used_but_not_kept() {
        let mut cache = MapCache::with_cap(64 * 1024);
        cache.insert("small.js", map_of(10));
        let big = cache.insert("big.js", map_of(100));
        assert_eq!(big.source_count(), 1, "the caller still gets the map");
        assert!(cache.get("big.js").is_none());
        assert!(cache.get("small.js").is_some(), "nothing was evicted for a map that cannot fit");
        assert!(cache.bytes() <= 64 * 1024);
    }

    #[test]
    fn a_map_inserted_again_replaces_the_old_one_and_its_bytes() {
        let mut cache = MapCache::with_cap(1024 * 1024);
        cache.insert("a.js", map_of(100));
        let once = cache.bytes();
        cache.insert("a.js", map_of(100));
        assert_eq!(cache.bytes(), once);
        assert_eq!(cache.maps().count(), 1);
    }
}
