//! One parsed source map and what it answers: where a generated position came from, each source's
//! path for people, whether a source is library code, its original lines, and which source a
//! path suffix names.
//!
//! Parsing and decoding the mappings is the `sourcemap` crate's (Sentry's; see Cargo.toml); what
//! is here is what the service needs on top: the older `x_google_ignoreList` (Vite's optimised
//! deps still write it), `data:` URLs in any encoding, the memory a map holds (for the cache's
//! cap), paths as a person reads them, and lookups that refuse to guess (a position on a line
//! with no mapping of its own is unmapped, a suffix that names two sources names none).

use std::sync::Arc;

use base64::Engine;
use serde::Deserialize;

use super::library::is_library_path;

/// The largest map parsed (bytes of JSON): past it a map is refused before parsing. Bundles of
/// whole apps with `sourcesContent` reach a few MB; 32 MiB leaves room for the largest seen.
pub const MAX_MAP_BYTES: usize = 32 * 1024 * 1024;

/// Why a map could not be used.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum MapError {
    #[error("the source map is {bytes} bytes, more than the {MAX_MAP_BYTES} read")]
    TooLarge { bytes: usize },
    #[error("not a source map: {0}")]
    Invalid(String),
    #[error("not a data: URL of a source map ({0})")]
    DataUrl(&'static str),
    #[error("an index map whose sections name other maps by URL (only embedded sections are read)")]
    SectionsByUrl,
}

impl From<sourcemap::Error> for MapError {
    fn from(e: sourcemap::Error) -> Self {
        match e {
            sourcemap::Error::CannotFlatten(_) => MapError::SectionsByUrl,
            other => MapError::Invalid(other.to_string()),
        }
    }
}

/// A source map, parsed, with what the service derives from it once.
#[derive(Debug)]
pub struct SourceMap {
    map: sourcemap::SourceMap,
    /// Per source: its path for people (see [`SourceMap::path`]).
    paths: Vec<Arc<str>>,
    /// Per source: library code (the map's ignore list, or a library path).
    library: Vec<bool>,
    /// What the parsed map holds in memory, estimated from what it holds (see [`SourceMap::bytes`]).
    bytes: usize,
}

/// Where a generated position came from. `line` and `column` are 1-based.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Original<'a> {
    /// The source's index in the map (for [`SourceMap::lines`]).
    pub source: u32,
    /// The source's path for people (`src/components/ClaimForm.tsx`).
    pub path: &'a str,
    pub line: u32,
    pub column: u32,
    /// The original name of the identifier at that position, when the map records one.
    pub name: Option<&'a str>,
    /// The source is library code (ignore-listed by the map, or under a library path).
    pub library: bool,
}

/// The ignore lists as the map's JSON spells them (the crate reads only `ignoreList`).
#[derive(Deserialize)]
struct IgnoreLists {
    #[serde(rename = "ignoreList")]
    ignore_list: Option<Vec<u32>>,
    #[serde(rename = "x_google_ignoreList")]
    google: Option<Vec<u32>>,
}

impl SourceMap {
    /// Parses a map's JSON; `map_url` (where it was fetched from, or the script's URL for an
    /// inline map) is what relative sources are read against.
    pub fn parse(json: &[u8], map_url: &str) -> Result<Self, MapError> {
        if json.len() > MAX_MAP_BYTES {
            return Err(MapError::TooLarge { bytes: json.len() });
        }
        let mut map = match sourcemap::decode_slice(json)? {
            sourcemap::DecodedMap::Regular(map) => map,
            sourcemap::DecodedMap::Index(index) => index.flatten()?,
            // A map with Metro's `x_facebook_sources` (React Native for the web): its plain part.
            sourcemap::DecodedMap::Hermes(hermes) => (*hermes).clone(),
        };
        // Only read the JSON a second time when the older list is in it and the newer one is not.
        if map.ignore_list().next().is_none() && contains(json, b"\"x_google_ignoreList\"") {
            let lists: IgnoreLists = serde_json::from_slice(json).map_err(|e| MapError::Invalid(e.to_string()))?;
            for source in lists.ignore_list.or(lists.google).unwrap_or_default() {
                map.add_to_ignore_list(source);
            }
        }
        Ok(Self::derive(map, map_url))
    }

    /// Parses an inline map, `data:application/json[;charset=utf-8][;base64],…` (as a
    /// `//# sourceMappingURL=` comment or a script's `sourceMapURL` gives it); `script_url` is the
    /// script it came with.
    pub fn from_data_url(url: &str, script_url: &str) -> Result<Self, MapError> {
        let rest = url.strip_prefix("data:").ok_or(MapError::DataUrl("no data: scheme"))?;
        let (meta, data) = rest.split_once(',').ok_or(MapError::DataUrl("no comma before the data"))?;
        let mut params = meta.split(';').map(str::trim);
        let media = params.next().unwrap_or_default().to_ascii_lowercase();
        if !matches!(media.as_str(), "application/json" | "text/plain" | "") {
            return Err(MapError::DataUrl("not JSON"));
        }
        let base64 = params.any(|p| p.eq_ignore_ascii_case("base64"));
        if data.len() > MAX_MAP_BYTES * 4 / 3 + 4 {
            return Err(MapError::TooLarge { bytes: data.len() * 3 / 4 });
        }
        let bytes: Vec<u8> = if base64 {
            let data: String = data.chars().filter(|c| !c.is_ascii_whitespace()).collect();
            let engine = &base64::engine::general_purpose::STANDARD;
            engine
                .decode(data.trim_end_matches('='))
                .or_else(|_| engine.decode(&data))
                .map_err(|_| MapError::DataUrl("bad base64"))?
        } else {
            percent_encoding::percent_decode_str(data).collect()
        };
        Self::parse(&bytes, script_url)
    }

    fn derive(map: sourcemap::SourceMap, map_url: &str) -> Self {
        let ignored: Vec<u32> = map.ignore_list().copied().collect();
        let root = map.get_source_root().unwrap_or_default().to_owned();
        let mut paths = Vec::with_capacity(map.get_source_count() as usize);
        let mut library = Vec::with_capacity(paths.capacity());
        for (i, source) in map.sources().enumerate() {
            let path = display_path(&root, source, map_url);
            library.push(ignored.contains(&(i as u32)) || is_library_path(&path) || is_library_path(source));
            paths.push(Arc::from(path));
        }
        let bytes = estimate_bytes(&map, &paths);
        Self { map, paths, library, bytes }
    }

    /// Where the generated position (0-based `line`, `column`) came from: the mapping at or before
    /// it on the same generated line, if that mapping names a source.
    pub fn original(&self, line: u32, column: u32) -> Option<Original<'_>> {
        let token = self.map.lookup_token(line, column)?;
        if token.get_dst_line() != line || !token.has_source() {
            return None;
        }
        let source = token.get_src_id();
        Some(Original {
            source,
            path: self.path(source)?,
            line: token.get_src_line() + 1,
            column: token.get_src_col() + 1,
            name: token.get_name(),
            library: self.is_library(source),
        })
    }

    /// The source's path for people: a bundler's path with its climb out of the output folder
    /// dropped (`../../src/App.tsx` → `src/App.tsx`), a path relative to the map read against the
    /// map's folder (Vite's dev maps: `ClaimForm.tsx` beside `/src/components/ClaimForm.tsx`), an
    /// `http(s)` URL as its path, a bundler's scheme (`webpack://app/./src/x.ts`) dropped.
    pub fn path(&self, source: u32) -> Option<&str> {
        self.paths.get(source as usize).map(|p| &**p)
    }

    /// Every source's path (see [`Self::path`]).
    pub fn paths(&self) -> &[Arc<str>] {
        &self.paths
    }

    /// How many sources the map has.
    pub fn source_count(&self) -> u32 {
        self.paths.len() as u32
    }

    /// Whether the source is library code: in the map's ignore list, or under a library path.
    pub fn is_library(&self, source: u32) -> bool {
        self.library.get(source as usize).copied().unwrap_or(false)
    }

    /// The source's whole original text, from the map's `sourcesContent`.
    pub fn source_text(&self, source: u32) -> Option<&str> {
        self.map.get_source_contents(source)
    }

    /// The sources whose path ends with `suffix` at a path boundary (`ClaimForm.tsx`,
    /// `components/ClaimForm.tsx`, `/src/components/ClaimForm.tsx`; not `Form.tsx`).
    pub fn sources_ending(&self, suffix: &str) -> Vec<u32> {
        let suffix = suffix.trim_start_matches("./").trim_start_matches('/');
        if suffix.is_empty() {
            return Vec::new();
        }
        (0..self.source_count()).filter(|&i| ends_at_boundary(&self.paths[i as usize], suffix)).collect()
    }

    /// What the parsed map holds in memory (its mappings, names, paths and sources' text),
    /// estimated from their sizes: what the session's cache counts against its cap.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// The crate's map, for `names`.
    pub(super) fn inner(&self) -> &sourcemap::SourceMap {
        &self.map
    }
}

/// Whether `suffix` (as [`SourceMap::sources_ending`] reads it) names `path`.
pub fn names_path(path: &str, suffix: &str) -> bool {
    let suffix = suffix.trim_start_matches("./").trim_start_matches('/');
    !suffix.is_empty() && ends_at_boundary(path, suffix)
}

/// `path` ends with `suffix`, which starts at a `/` boundary of it (or is all of it).
fn ends_at_boundary(path: &str, suffix: &str) -> bool {
    path.strip_suffix(suffix).is_some_and(|head| head.is_empty() || head.ends_with('/'))
}

/// See [`SourceMap::path`].
fn display_path(root: &str, source: &str, map_url: &str) -> String {
    let joined = if root.is_empty() || source.contains("://") || source.starts_with('/') {
        source.to_owned()
    } else {
        format!("{}/{source}", root.trim_end_matches('/'))
    };
    let path = match joined.split_once("://") {
        // `webpack://app/./src/x.ts`, `http://host/src/x.ts`: the path after the host or app name.
        Some((_, rest)) => rest.find('/').map_or(String::new(), |slash| rest[slash..].to_owned()),
        None if joined.starts_with('/') || joined.starts_with("../") => joined,
        // Relative to the map, not climbing out of it: read against the map's folder.
        None => format!("{}{joined}", map_folder(map_url)),
    };
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty() && *s != "." && *s != "..").collect();
    segments.join("/")
}

/// The folder of the map's URL path (`http://h/src/components/x.tsx` → `/src/components/`).
fn map_folder(map_url: &str) -> &str {
    let path = map_url.split(['?', '#']).next().unwrap_or_default();
    let path = match path.split_once("://") {
        Some((_, rest)) => rest.find('/').map_or("/", |slash| &rest[slash..]),
        None if path.starts_with("data:") => "/",
        None => path,
    };
    path.rfind('/').map_or("/", |slash| &path[..=slash])
}

/// See [`SourceMap::bytes`]: each mapping as the crate stores it, each name and path with its
/// allocation, each source's text with the offsets of its lines (kept once a line is read).
fn estimate_bytes(map: &sourcemap::SourceMap, paths: &[Arc<str>]) -> usize {
    const PER_STRING: usize = 2 * size_of::<usize>() + 16; // an Arc<str>: pointer, length, counts
    let tokens = map.get_token_count() as usize * size_of::<sourcemap::RawToken>();
    let names: usize = map.names().map(|n| n.len() + PER_STRING).sum();
    let sources: usize = map.sources().map(|s| s.len() + PER_STRING).sum();
    let paths: usize = paths.iter().map(|p| p.len() + PER_STRING).sum();
    let contents: usize = map
        .source_contents()
        .flatten()
        .map(|text| text.len() + PER_STRING + 8 * (text.bytes().filter(|&b| b == b'\n').count() + 1))
        .sum();
    size_of::<SourceMap>() + tokens + names + sources + paths + contents
}

/// Whether `needle` occurs in `haystack`.
fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

#[cfg(test)]
mod tests {
    //! `testdata/basket.js(.map)` is a real production build: Vite 8 (rolldown, minified, one bundle
    //! with its map beside it, as the framework fixtures are built) of a small module (`src/basket.ts`,
    //! `src/http.ts`) and a dependency under `node_modules` (`tiny-format`), whose sources are in the
    //! map's `sourcesContent`. Its second line follows a `…` (one UTF-16 unit, three bytes).

    use base64::Engine;

    use super::*;
    use crate::browser::page::source_map::names::ScriptText;

    const BUNDLE: &str = include_str!("testdata/basket.js");
    const MAP: &str = include_str!("testdata/basket.js.map");
    const MAP_URL: &str = "http://127.0.0.1:3338/shop/assets/basket.js.map";

    fn basket() -> SourceMap {
        SourceMap::parse(MAP.as_bytes(), MAP_URL).expect("the bundle's map parses")
    }

    /// The 0-based generated position (column in UTF-16 units) of the first `needle` in the bundle.
    fn position(needle: &str) -> (u32, u32) {
        BUNDLE
            .lines()
            .enumerate()
            .find_map(|(line, text)| {
                text.find(needle).map(|at| (line as u32, text[..at].encode_utf16().count() as u32))
            })
            .unwrap_or_else(|| panic!("{needle:?} is not in the bundle"))
    }

    #[test]
    fn a_bundle_position_maps_to_its_original_file_line_and_column() {
        let map = basket();
        let (line, column) = position("Error(`${r.status}");
        let original = map.original(line, column).expect("mapped");
        assert_eq!((original.path, original.line, original.column), ("src/http.ts", 8, 15));
        assert!(!original.library);
        let (line, column) = position("TypeError(");
        let original = map.original(line, column).expect("mapped");
        assert_eq!(original.path, "node_modules/tiny-format/index.js");
        assert!(original.library, "ignore-listed by the map and under node_modules");
    }

    #[test]
    fn a_position_on_a_line_without_its_own_mapping_is_unmapped() {
        let map = basket();
        assert_eq!(map.original(1, 0), None, "the mapping before it is on the line above");
        assert_eq!(map.original(40, 0), None, "past the end");
    }

    #[test]
    fn frames_get_their_functions_original_names_from_the_names_at_their_declarations() {
        let map = basket();
        let script = ScriptText::new(BUNDLE);
        let name_at = |needle: &str, v8_name: &str| {
            let (line, column) = position(needle);
            map.function_name(&script, line, column, v8_name)
        };
        assert_eq!(name_at("Error(`${r.status}", "t").as_deref(), Some("request"), "async function t(…)");
        assert_eq!(name_at("t(`POST`", "i").as_deref(), Some("checkout"), "after a `…` on its line");
        assert_eq!(name_at("e(t.price", "n").as_deref(), Some("describeLine"), "an arrow function assigned");
        assert_eq!(name_at("TypeError(", "e").as_deref(), Some("formatMoney"), "library code too");
        assert_eq!(name_at("this.lines.push", "Object.add").as_deref(), Some("add"), "a method, not renamed");
        assert_eq!(name_at("e+t.price", ""), None, "an anonymous callback has no name");
        assert_eq!(name_at("e+t.price", "zz"), None, "no declaration of that name");
        // A listener's location is its function's start, before the name token.
        let (line, column) = position("function r(e,t)");
        assert_eq!(map.function_name(&script, line, column, "r").as_deref(), Some("renderBasket"));
    }

    #[test]
    fn original_lines_come_from_the_maps_sources_content() {
        let map = basket();
        let [source] = map.sources_ending("basket.ts")[..] else { panic!("one basket.ts") };
        assert_eq!(map.path(source), Some("src/basket.ts"));
        let text = map.source_text(source).expect("the source's text is in the map");
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[18..21],
            [
                "  const total = lines.reduce((sum, line) => sum + line.price, 0);",
                "  await request('POST', '/orders', { lines, total });",
                "}",
            ]
        );
        assert_eq!(lines.len(), 28);
    }

    #[test]
    fn a_source_is_found_by_a_path_suffix_only_at_a_path_boundary() {
        let map = basket();
        assert_eq!(map.sources_ending("src/http.ts"), [1]);
        assert_eq!(map.sources_ending("/src/http.ts"), [1]);
        assert_eq!(map.sources_ending("./http.ts"), [1]);
        assert_eq!(map.sources_ending("ttp.ts"), Vec::<u32>::new());
        assert_eq!(map.sources_ending(""), Vec::<u32>::new());
        let json = serde_json::json!({
            "version": 3, "names": [], "mappings": "AAAA;AACA",
            "sources": ["../src/orders/index.ts", "../src/users/index.ts"],
        });
        let two = SourceMap::parse(json.to_string().as_bytes(), MAP_URL).unwrap();
        let several: Vec<_> = two.sources_ending("index.ts").into_iter().filter_map(|i| two.path(i)).collect();
        assert_eq!(several, ["src/orders/index.ts", "src/users/index.ts"]);
        assert_eq!(two.sources_ending("users/index.ts"), [1]);
    }

    #[test]
    fn paths_read_as_the_app_names_them() {
        let prod = "http://h/apps/expenses/assets/index.js.map";
        let dev = "http://127.0.0.1:5173/src/components/ClaimForm.tsx";
        assert_eq!(display_path("", "../../src/components/ClaimForm.tsx", prod), "src/components/ClaimForm.tsx");
        assert_eq!(display_path("", "ClaimForm.tsx", dev), "src/components/ClaimForm.tsx");
        assert_eq!(display_path("", "webpack://shop/./src/cart.ts", prod), "src/cart.ts");
        assert_eq!(display_path("/", "src/a.ts", prod), "src/a.ts");
        assert_eq!(display_path("", "http://h/src/x.ts", prod), "src/x.ts");
        assert_eq!(display_path("", "x.ts", "data:application/json;base64,e30="), "x.ts");
    }

    #[test]
    fn the_older_x_google_ignore_list_marks_library_sources_too() {
        let json = serde_json::json!({
            "version": 3, "names": [], "mappings": "AAAA,CCAA", "sources": ["vendor.js", "app.js"],
            "x_google_ignoreList": [0],
        });
        let map = SourceMap::parse(json.to_string().as_bytes(), MAP_URL).unwrap();
        assert!(map.is_library(0), "ignore-listed although its path looks like the app's");
        assert!(!map.is_library(1));
        assert!(!map.is_library(7), "no such source");
    }

    #[test]
    fn inline_maps_are_read_from_data_urls_in_any_encoding() {
        let script = "http://127.0.0.1:5173/src/basket.ts";
        let base64 = base64::engine::general_purpose::STANDARD.encode(MAP);
        for url in [
            format!("data:application/json;base64,{base64}"),
            format!("data:application/json;charset=utf-8;base64,{base64}"),
            format!(
                "data:application/json,{}",
                percent_encoding::utf8_percent_encode(MAP, percent_encoding::NON_ALPHANUMERIC)
            ),
        ] {
            let map = SourceMap::from_data_url(&url, script).unwrap_or_else(|e| panic!("{e}: {}", &url[..40]));
            assert_eq!(map.source_count(), 3);
        }
        assert_eq!(SourceMap::from_data_url("data:text/html,<p>", script).unwrap_err(), MapError::DataUrl("not JSON"));
        assert_eq!(
            SourceMap::from_data_url("data:application/json;base64,%%%", script).unwrap_err(),
            MapError::DataUrl("bad base64")
        );
        assert!(matches!(
            SourceMap::from_data_url("data:application/json,not%20json", script),
            Err(MapError::Invalid(_))
        ));
        assert!(matches!(SourceMap::from_data_url("http://h/x.map", script), Err(MapError::DataUrl(_))));
    }

    #[test]
    fn an_index_map_is_read_as_one_map() {
        let inner: serde_json::Value = serde_json::from_str(MAP).unwrap();
        let json = serde_json::json!({
            "version": 3, "file": "all.js",
            "sections": [
                { "offset": { "line": 0, "column": 0 }, "map": inner },
                { "offset": { "line": 5, "column": 0 },
                  "map": { "version": 3, "sources": ["../src/late.ts"], "names": [], "mappings": "AAAA", "sourcesContent": ["late();"] } },
            ],
        });
        let map = SourceMap::parse(json.to_string().as_bytes(), MAP_URL).unwrap();
        assert_eq!(map.original(5, 0).map(|o| (o.path, o.line)), Some(("src/late.ts", 1)));
        let (line, column) = position("Error(`${r.status}");
        assert_eq!(map.original(line, column).map(|o| o.path), Some("src/http.ts"));
        let by_url = serde_json::json!({
            "version": 3, "sections": [{ "offset": { "line": 0, "column": 0 }, "url": "other.js.map" }],
        });
        assert!(SourceMap::parse(by_url.to_string().as_bytes(), MAP_URL).is_err(), "sections by URL are not fetched");
    }

    #[test]
    fn what_is_not_a_source_map_is_refused_with_a_reason() {
        assert!(matches!(SourceMap::parse(b"<!doctype html><p>Not found", MAP_URL), Err(MapError::Invalid(_))));
        assert!(matches!(SourceMap::parse(br#"{"version":3,"mappings":"!!"}"#, MAP_URL), Err(MapError::Invalid(_))));
        let huge = vec![b' '; MAX_MAP_BYTES + 1];
        assert_eq!(SourceMap::parse(&huge, MAP_URL).unwrap_err(), MapError::TooLarge { bytes: MAX_MAP_BYTES + 1 });
    }

    #[test]
    fn a_maps_bytes_count_what_it_holds() {
        let map = basket();
        let text: usize = map.inner().source_contents().flatten().map(str::len).sum();
        assert!(map.bytes() > text + map.inner().get_token_count() as usize * 24, "{}", map.bytes());
        assert!(map.bytes() < 4 * MAP.len(), "{} for a {}-byte map", map.bytes(), MAP.len());
    }
}
