//! Which code is a library's, by its path: what a location names only when the app's own code
//! offers nothing better.
//!
//! A map can say it itself (`ignoreList`, or the older `x_google_ignoreList`: see `map`); many
//! scripts have no map, or a map without the list, so the paths bundlers and dev servers give to
//! library code are library code too. The rules match a path segment, never a substring of a name:
//! `src/node_modules_view.ts` is app code.

/// Path segments (anywhere in the path) that only library code lives under.
const LIBRARY_SEGMENTS: [&str; 3] = [
    // npm packages, bundled or served as they are (`/node_modules/react-dom/…`, a map's
    // `../../node_modules/react/…`), Vite's optimised deps (`/node_modules/.vite/deps/…`) included.
    "node_modules",
    // Vite's dev client (`/@vite/client`, `/@vite/env`).
    "@vite",
    // Bower's packages, still met in older apps.
    "bower_components",
];

/// Path prefixes or whole paths of code a bundler or dev server writes itself.
const GENERATED: [&str; 6] = [
    // webpack's runtime and bootstrap (`webpack/runtime/…`, `webpack/bootstrap`, `(webpack)/…`).
    "webpack/runtime/",
    "webpack/bootstrap",
    "(webpack)/",
    // Vite's React Fast Refresh runtime and its virtual modules (`/@id/__x00__…`).
    "@react-refresh",
    "@id/__x00__",
    // Vite's stand-in for Node built-ins in the browser.
    "__vite-browser-external",
];

/// Whether `path` (a script's URL or a source map's source, absolute or relative) is library code.
pub fn is_library_path(path: &str) -> bool {
    let path = path_part(path);
    let segments = path.split('/').filter(|s| !s.is_empty() && *s != "." && *s != "..");
    let mut normalized = String::with_capacity(path.len());
    for segment in segments {
        if LIBRARY_SEGMENTS.contains(&segment) {
            return true;
        }
        normalized.push_str(segment);
        normalized.push('/');
    }
    GENERATED.iter().any(|generated| normalized.starts_with(generated))
}

/// The package library code at `path` belongs to, as a cause is named when no app code made it:
/// `react-dom` (`…/node_modules/react-dom/cjs/…`, Vite's `…/.vite/deps/react-dom_client.js`),
/// `@vue/runtime-dom`; None when the path names none.
pub fn package_of(path: &str) -> Option<String> {
    let path = path_part(path);
    let (_, inside) = path.rsplit_once("node_modules/")?;
    let mut parts = inside.split('/');
    let first = parts.next().filter(|p| !p.is_empty())?;
    let name = match first {
        ".vite" => {
            let file = parts.nth(1)?;
            file.split(['_', '.']).next().filter(|stem| !stem.is_empty())?.to_owned()
        }
        scope if scope.starts_with('@') => format!("{scope}/{}", parts.next()?),
        name => name.to_owned(),
    };
    Some(name)
}

/// The path of a URL (`http://host/a/b.js?v=1` → `/a/b.js`), or of a bundler's source name
/// (`webpack://app/./src/x.ts` → `/./src/x.ts`); a plain path as it is, without query or fragment.
fn path_part(path: &str) -> &str {
    let path = path.split(['?', '#']).next().unwrap_or_default();
    match path.split_once("://") {
        Some((_, rest)) => rest.find('/').map_or("", |slash| &rest[slash..]),
        None => path,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packages_and_the_dev_servers_own_code_are_library_code() {
        for path in [
            "http://127.0.0.1:5173/node_modules/.vite/deps/react-dom_client.js?v=6cb2b59c",
            "http://127.0.0.1:5173/@vite/client",
            "/@vite/env",
            "../../node_modules/react-dom/cjs/react-dom-client.production.js",
            "webpack://shop/./node_modules/lodash/lodash.js",
            "webpack://shop/webpack/runtime/jsonp chunk loading",
            "webpack://shop/webpack/bootstrap",
            "http://127.0.0.1:5173/@react-refresh",
            "/@id/__x00__plugin-vue:export-helper",
            "/work/app/node_modules/vue/dist/vue.runtime.esm-bundler.js",
        ] {
            assert!(is_library_path(path), "{path} is library code");
        }
    }

    #[test]
    fn library_code_is_named_by_its_package() {
        for (path, package) in [
            ("../../node_modules/react-dom/cjs/react-dom-client.production.js", Some("react-dom")),
            ("http://127.0.0.1:5173/node_modules/.vite/deps/react-dom_client.js?v=6cb2b59c", Some("react-dom")),
            ("../../node_modules/@vue/runtime-dom/dist/runtime-dom.esm-bundler.js", Some("@vue/runtime-dom")),
            ("/work/app/node_modules/vue/dist/vue.runtime.esm-bundler.js", Some("vue")),
            ("http://127.0.0.1:5173/@vite/client", None),
        ] {
            assert_eq!(package_of(path).as_deref(), package, "{path}");
        }
    }

    #[test]
    fn the_apps_own_files_are_not_library_code_even_with_lookalike_names() {
        for path in [
            "http://127.0.0.1:5173/src/components/ClaimForm.tsx",
            "../../src/api/http.ts",
            "webpack://shop/./src/cart.ts",
            "/src/node_modules_view.ts",
            "/src/vite/config-panel.vue",
            "http://127.0.0.1:3338/apps/expenses/assets/index--YXK1WRH.js",
            "/webpack/runtime-settings.js",
            "http://127.0.0.1:5173/src/App.vue?vue&type=style&index=0&lang.css",
        ] {
            assert!(!is_library_path(path), "{path} is the app's own");
        }
    }
}
