//! Acting like a user, and what an action caused. One [`ActionRun`] per action: begun (the action
//! filed in the timeline, the page marked), its input dispatched (real mouse and key events
//! through CDP's Input domain, once the element is ready: `locate`), then finished: a look at the
//! page's next task, a navigation the input started followed, the network settled, and the
//! effects read from the timeline after the mark.
//!
//! - `run`: [`ActionRun`] and [`Acted`] (what an input learned), finishing an action
//! - `pointer`: click, click at a point, hover, drag, scroll
//! - `keyboard`: press, type; `keys`: key names parsed into the events a keyboard makes
//! - `forms`: fill, select, check, any field from one value (`page.fillForm`), focus
//! - `upload`: files set on a file input, or given to the page's next file chooser
//! - `settle`: waiting until what an action started has settled, and reading what it caused
//! - `listeners`: the listeners an action's events reach, and where their functions are
//! - `replaced`: an element replaced since load, and the listeners left on its predecessor
//!
//! Faithful to the user: before the probe scrolls the element into view, it checks what a user at
//! the scroll position before would have hit; the action still goes ahead and its answer says so
//! ([`Acted::approach`]). Without scrolling (`scroll: false`) the element is taken where it is.

mod forms;
mod keyboard;
pub mod keys;
pub(super) mod listeners;
mod pointer;
mod replaced;
mod run;
mod settle;
mod upload;

pub use forms::FieldValue;
pub use keyboard::MAX_KEY_DELAY;
pub use pointer::{ClickOptions, Modifier, MouseButton, ScrollPosition};
pub use replaced::history;
pub use run::{Acted, ActionRun};
pub use settle::effects;
pub use upload::UploadFile;
