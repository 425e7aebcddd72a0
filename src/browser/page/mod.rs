//! One session's page: a [`Page`] handle and everything a method can do with it, in rooms with one
//! owner each.
//!
//! - `core`: [`core::Core`], the one owner of the page's connection and state (the chromiumoxide
//!   page, its target, its watch, its routes and pump), the typed commands sent to it and the
//!   barrier that waits for its events; `handle`: [`Page`], the cheap handle the layers above hold
//!   (its core and its locator), and what it takes to open, adopt and look at a page
//! - `watch/`: every page event parsed once into typed events, reduced into one bounded timeline
//!   per page (requests, console, errors, dialogs, downloads, popups, DOM changes, actions) with
//!   its side effects run on the page's task set, and the views each answer reads
//! - `locate/`: finding the element a method names and calling our page scripts (declared once
//!   with their answers), in the helper world the page's scripts cannot touch
//! - `act/`: acting like a user — one `ActionRun` per action: input, the look at the next task, a
//!   navigation followed, the effects read — and what an action's events reached
//! - `settled`: what the watch holds, read once the page's events so far are applied (the
//!   timeline, logs, network, HAR, downloads, the load breakdown)
//! - `snapshot/`: page.snapshot, the accessibility tree as compact text with refs
//! - one file per capability: `navigation` (goto, reload, history, load states, where the page
//!   is), `reading` (text, HTML), `evaluate`, `screenshot`, `inspect` (and axe), `code`
//!   (page.source, on served scripts and original files), `emulation` (+ `viewport`), `document` (init scripts, PDF, metrics),
//!   `site_data` (cookies, web storage), `assertions`, `evidence` (what a failed call carries),
//!   `wait` (page.waitFor on elements), `interception` (network.route: + `route_table`, the routes
//!   the pump consults; `url_glob`: the bounded URL patterns of routes and assert.url)
//! - what a session's tabs share: `siblings`, `adoption` (popups waiting to be adopted as tabs),
//!   `scratch` (a page's own temp directories)
//! - `source_map/`: source maps read (pure): a served location to the app's own file, line and
//!   function, library code told apart, original lines, a session's maps bounded in bytes
//! - `originals/`: a session's source maps found and fetched (through its egress) for the scripts
//!   an answer names, within the answer's budget; what answers read locations through
//!
//! Everything is private to this folder; what the layers above use is re-exported here.

mod act;
mod adoption;
mod assertions;
mod code;
mod core;
mod document;
mod emulation;
mod evaluate;
mod evidence;
mod handle;
mod inspect;
mod interception;
mod locate;
mod navigation;
mod originals;
mod reading;
mod route_table;
mod scratch;
mod screenshot;
mod settled;
mod siblings;
mod site_data;
mod snapshot;
mod source_map;
mod url_glob;
mod viewport;
mod wait;
mod watch;

pub use crate::browser::chromium::kinds::{Level, ResourceType};
pub use act::keys::Combo as KeyCombo;
pub use act::{
    Acted, ActionRun, ClickOptions, FieldValue, MAX_KEY_DELAY, Modifier, MouseButton, ScrollPosition, UploadFile,
};
pub use assertions::{Expect, UrlPattern};
pub use code::{LiveMaps, SourceAsk, SourceView};
pub use document::PdfOptions;
pub use emulation::{ColorScheme, Media, MediaType, ReducedMotion, Viewport};
pub use handle::Page;
pub use interception::{HttpCredentials, Route, RouteAction};
pub use locate::Found;
pub use locate::action::Action;
pub use locate::answers::{FormFacts, Inspection, Listener, Validity};
pub use locate::scripts::SetLocalStorage;
pub use locate::target::Target;
pub use navigation::{Landed, WaitUntil};
pub use reading::{PageText, TextFormat};
pub use screenshot::{ImageType, ShotOptions};
pub use settled::{Load, TimelineView};
pub use siblings::Siblings;
pub use site_data::WebStorage;
pub use snapshot::{Snapshot, SnapshotOptions};
pub use url_glob::{UrlGlob, Wildcards};
pub use wait::{ElementState, Waited};
pub use watch::MAX_ARM as MAX_DIALOG_ARM;
pub use watch::cdp_events::CodeLocation;
pub use watch::notes::{ActionNote, ActionTarget};
pub use watch::views::SignalCounts;
pub use watch::views::effects::{Effects, Mark, Navigated, RequestEffect, RequestGroup};
pub use watch::views::lines::{EntryKind, Since};
pub use watch::views::live::{LiveEvent, LiveKind};
pub use watch::views::logs::{ConsoleEntry, Logs, Origin, PageError};
pub use watch::views::network::{NetworkEntry, NetworkPull, NetworkQuery, PendingView};
