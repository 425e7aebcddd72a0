//! `testdata/basket.js(.map)` is a real production build: Vite 8 (rolldown, minified, one bundle
//! with its map beside it, as the framework fixtures are built) of a small module (`src/basket.ts`,
//! `src/http.ts`) and a dependency under `node_modules` (`tiny-format`), whose sources are in the
//! map's `sourcesContent`. Its second line follows a `…` (one UTF-16 unit, three bytes).

use base64::Engine;

use super::*;
use crate::browser::page::source_map::names::ScriptText;

const BUNDLE: &str = include_str!("../testdata/basket.js");
const MAP: &str = include_str!("../testdata/basket.js.map");
const MAP_URL: &str = "http://127.0.0.1:3338/shop/assets/basket.js.map";

fn basket() -> SourceMap {
    SourceMap::parse(MAP.as_bytes(), MAP_URL).expect("the bundle's map parses")
}

/// The 0-based generated position (column in UTF-16 units) of the first `needle` in the bundle.
fn position(needle: &str) -> (u32, u32) {
    BUNDLE
        .lines()
        .enumerate()
        .find_map(|(line, text)| text.find(needle).map(|at| (line as u32, text[..at].encode_utf16().count() as u32)))
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
    assert!(matches!(SourceMap::from_data_url("data:application/json,not%20json", script), Err(MapError::Invalid(_))));
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
