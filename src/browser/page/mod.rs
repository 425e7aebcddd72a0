//! One session's page: a [`Page`] handle and everything a method can do with it.
//!
//! - `handle`: the handle, its CDP commands and its event pump
//! - `events`, `reorder`, `tracker`, `signals`: page events parsed leniently, put back in order,
//!   folded into navigation and network state and the console / error / network buffers
//! - `script`, `resolve`, `target`, `selector`, `refs`, `action`: our helper scripts in an isolated
//!   world, and finding the element a method names
//! - one file per capability: `navigation`, `actions` (+ `keys`), `reading`, `evaluate`,
//!   `screenshot`, `snapshot` (+ `ax_render`), `inspect`, `emulation`, `pulls`
//!
//! Everything is private to this folder; what the layers above use is re-exported here.

mod action;
mod actions;
mod ax_render;
mod emulation;
mod evaluate;
mod events;
mod handle;
mod inspect;
mod keys;
mod navigation;
mod pulls;
mod reading;
mod refs;
mod reorder;
mod resolve;
mod screenshot;
mod script;
mod selector;
mod signals;
mod snapshot;
mod target;
mod tracker;

pub use action::Action;
pub use actions::{ClickOptions, Modifier, MouseButton};
pub use ax_render::Snapshot;
pub use emulation::Viewport;
pub use handle::Page;
pub use inspect::Found;
pub use keys::Combo as KeyCombo;
pub use navigation::{Landed, WaitUntil};
pub use reading::{PageText, TextFormat};
pub use screenshot::{ImageType, ShotOptions};
pub use signals::{ConsoleEntry, Level, Logs, NetworkEntry, PageError, SignalCounts};
pub use snapshot::SnapshotOptions;
pub use target::Target;
