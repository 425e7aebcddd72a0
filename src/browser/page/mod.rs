//! One session's page: a [`Page`] handle and everything a method can do with it.
//!
//! - `handle`: the handle, its CDP commands and its event pump
//! - `events`, `reorder`, `tracker`, `signals`: page events parsed leniently, put back in order,
//!   folded into navigation and network state and the console / error / network buffers, with
//!   captured bodies (`bodies`), script sources (`sources`) and secrets masked (`redact`)
//! - `script`, `resolve`, `target`, `selector`, `refs`, `action`: our helper scripts in an isolated
//!   world, and finding the element a method names
//! - one file per capability: `navigation`, `actions` (+ `keys`), `forms`, `effects`, `reading`,
//!   `evaluate`, `screenshot`, `snapshot` (+ `ax_render`), `inspect`, `code`, `find`, `axe`,
//!   `emulation`, `pulls`, `inherit` (a new tab's routes and init scripts)
//! - `siblings`, `popup_log`: what a session's tabs share, and the popups waiting to be adopted
//!
//! Everything is private to this folder; what the layers above use is re-exported here.

mod action;
mod actions;
mod assertions;
mod ax_render;
mod axe;
mod bodies;
mod chooser_hook;
mod code;
mod dialog_hook;
mod dialogs;
mod document;
mod download_log;
mod downloads;
mod effects;
mod emulation;
mod evaluate;
mod events;
mod evidence;
mod find;
mod first_load;
mod forms;
mod gestures;
mod handle;
mod har;
mod inherit;
mod inspect;
mod keys;
mod live_feed;
mod navigation;
mod popup_log;
mod pulls;
mod reading;
mod redact;
mod refs;
mod reorder;
mod resolve;
mod route_table;
mod routing;
mod screenshot;
mod script;
mod selector;
mod siblings;
mod signals;
mod snapshot;
mod sources;
mod storage;
mod target;
mod tracker;
mod upload;
mod upload_dir;
mod viewport;

pub use action::Action;
pub use actions::{ClickOptions, Modifier, MouseButton};
pub use assertions::{Expect, UrlPattern};
pub use ax_render::Snapshot;
pub use code::SourceView;
pub use dialog_hook::MAX_ARM as MAX_DIALOG_ARM;
pub use document::PdfOptions;
pub use effects::{Effects, Mark, Navigated, RequestEffect};
pub use emulation::{ColorScheme, Media, MediaType, ReducedMotion, Viewport};
pub use events::CodeLocation;
pub use find::Found;
pub use forms::FieldValue;
pub use gestures::{MAX_KEY_DELAY, ScrollPosition};
pub use handle::Page;
pub use inspect::{FormFacts, Inspection, Listener, Validity};
pub use keys::Combo as KeyCombo;
pub use live_feed::{LiveEvent, LiveKind};
pub use navigation::{Landed, WaitUntil};
pub use pulls::{NetworkPull, NetworkQuery, PendingView};
pub use reading::{PageText, TextFormat};
pub use routing::{HttpCredentials, Route, RouteAction};
pub use screenshot::{ImageType, ShotOptions};
pub use siblings::Siblings;
pub use signals::{ConsoleEntry, Level, Logs, NetworkEntry, Origin, PageError, SignalCounts};
pub use snapshot::SnapshotOptions;
pub use storage::WebStorage;
pub use target::Target;
pub use upload::UploadFile;
