//! One session's page: a [`Page`] handle and everything a method can do with it.
//!
//! - `handle`: the handle, its CDP commands, and the page's watch
//! - `watch/`: every page event parsed once into typed events, reduced into one bounded timeline
//!   per page (requests, console, errors, dialogs, downloads, popups, DOM changes, actions) with
//!   its side effects run on the page's task set, and the views each answer reads
//! - `script` (+ `helper_world`: which context they run in), `resolve`, `target`, `selector`,
//!   `refs`, `action`: our helper scripts in an isolated world, and finding the element a method
//!   names
//! - one file per capability: `navigation` (+ `load`: the load breakdown), `actions` (+ `keys`,
//!   `gestures`), `forms`, `effects` (+ `reach`: the listeners an action's events reach;
//!   `replaced`: an element replaced since load and its detached predecessor's listeners),
//!   `reading`, `evaluate`, `screenshot`, `snapshot` (+
//!   `ax_fetch`, `ax_prune`: what is left out of the fetch, `ax_render`), `inspect`, `code`, `find`, `axe`, `emulation`, `viewport`, `document`,
//!   `storage`, `assertions`, `evidence`, `pulls` (logs.pull, network.pull), `har`, `timeline`
//!   (page.timeline), `wait` (page.waitFor on elements), `dialogs`, `downloads`, `upload` (+
//!   `upload_dir`), `routing` (+ `route_table`,
//!   `url_glob`: the bounded URL patterns of routes and assert.url), `first_load` (a popup's first load), `inherit`
//!   (a new tab's routes and init scripts)
//! - `siblings`, `popup_log`: what a session's tabs share, and the popups waiting to be adopted
//!
//! Everything is private to this folder; what the layers above use is re-exported here.

mod action;
mod actions;
mod assertions;
mod ax_fetch;
mod ax_prune;
mod ax_render;
mod axe;
mod code;
mod dialogs;
mod document;
mod downloads;
mod effects;
mod emulation;
mod evaluate;
mod evidence;
mod find;
mod first_load;
mod forms;
mod gestures;
mod handle;
mod har;
mod helper_world;
mod inherit;
mod inspect;
mod keys;
mod load;
mod navigation;
mod popup_log;
mod pulls;
mod reach;
mod reading;
mod refs;
mod replaced;
mod resolve;
mod route_table;
mod routing;
mod screenshot;
mod script;
mod selector;
mod siblings;
mod snapshot;
mod storage;
mod target;
mod timeline;
mod upload;
mod upload_dir;
mod url_glob;
mod viewport;
mod wait;
mod watch;

pub use crate::browser::chromium::kinds::{Level, ResourceType};
pub use action::Action;
pub use actions::{Acted, ClickOptions, Modifier, MouseButton};
pub use assertions::{Expect, UrlPattern};
pub use ax_render::Snapshot;
pub use code::SourceView;
pub use document::PdfOptions;
pub use emulation::{ColorScheme, Media, MediaType, ReducedMotion, Viewport};
pub use find::Found;
pub use forms::FieldValue;
pub use gestures::{MAX_KEY_DELAY, ScrollPosition};
pub use handle::Page;
pub use inspect::{FormFacts, Inspection, Listener, Validity};
pub use keys::Combo as KeyCombo;
pub use load::Load;
pub use navigation::{Landed, WaitUntil};
pub use reading::{PageText, TextFormat};
pub use routing::{HttpCredentials, Route, RouteAction};
pub use screenshot::{ImageType, ShotOptions};
pub use siblings::Siblings;
pub use snapshot::SnapshotOptions;
pub use storage::WebStorage;
pub use target::Target;
pub use timeline::TimelineView;
pub use upload::UploadFile;
pub use url_glob::{UrlGlob, Wildcards};
pub use wait::{ElementState, Waited};
pub use watch::MAX_ARM as MAX_DIALOG_ARM;
pub use watch::events::CodeLocation;
pub use watch::views::SignalCounts;
pub use watch::views::effects::{Effects, Mark, Navigated, RequestEffect, RequestGroup};
pub use watch::views::lines::{EntryKind, Since};
pub use watch::views::live::{LiveEvent, LiveKind};
pub use watch::views::logs::{ConsoleEntry, Logs, Origin, PageError};
pub use watch::views::network::{NetworkEntry, NetworkPull, NetworkQuery, PendingView};
