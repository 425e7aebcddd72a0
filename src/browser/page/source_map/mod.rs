//! Source maps: from a served script's location to the app's own source.
//!
//! Apps built with a bundler run code the browser was served (Vite's transformed modules, a minified
//! bundle), not the code their authors wrote; a source map says where each piece came from. This
//! folder is pure (no CDP, no I/O): it reads a map someone fetched and answers questions about it.
//!
//! - `map`: one parsed map ([`SourceMap`]): parsed from JSON or an inline `data:` URL (index maps
//!   flattened), a generated position to its original source, line, column and name
//!   (`Original`); each source's display path, whether it is library code, its original
//!   text, the sources a path suffix names
//! - `names`: a frame's original function name, from the map's `names` at the function's own name
//!   token (how bundlers record a renamed function), found from the frame's position and V8's
//!   (minified) name
//! - `library`: which paths are library code (`node_modules`, Vite's `/@vite/` and optimised deps,
//!   webpack's runtime), beside the map's own `ignoreList` / `x_google_ignoreList`
//! - `cache`: a session's maps, bounded in bytes ([`MapCache`], [`CACHE_CAP`]); `mapped`: what it
//!   keeps of a script ([`Mapped`]: its map, its served text, the function names found)
//! - `resolver`: a served location read through one snapshot of the session's maps, for an
//!   answer ([`Resolver`]): its original place, library code, or why it is given as served
//!
//! Positions in are 0-based, as CDP and source maps count them; what is handed out for people
//! (an original line and column) is 1-based, as the service's answers print them.

mod cache;
mod library;
mod map;
mod mapped;
mod names;
mod resolver;

pub use cache::{CACHE_CAP, MapCache, Weigh};
pub use library::{is_library_path, package_of};
pub use map::{MAX_MAP_BYTES, SourceMap, names_path};
pub use mapped::Mapped;
pub use names::ScriptText;
pub use resolver::{Found, Known, OriginalPlace, Resolved, Resolver, Served, Snapshot, Unmapped, Why, script_key};
#[cfg(test)]
pub use resolver::{NOT_KEPT, NOT_KEPT_AGAIN};
