//! Sessions: each an isolated browser context with its tabs, and everything about their life.
//!
//! - `session`: one session's lifecycle (open, turn, orderly close, dispose) and its list of tabs
//! - `tabs`: its pages (the first, popups, tabs.open), the active one, closing one
//! - `opener`: opens and disposes sessions on the current Chromium
//! - `manager`: the map of open sessions, MAX_SESSIONS, the create queue, lost sessions
//! - `pool`: warm sessions opened ahead; `janitor`: idle TTL expiry
//! - `options`, `storage`: what a session is created with, and applying its storage state
//!
//! Only the manager, the close reasons and the option types leave this folder.

mod janitor;
mod manager;
mod opener;
mod options;
mod pool;
#[allow(clippy::module_inception)]
mod session;
mod storage;
mod tabs;

pub use manager::{Readiness, SessionLimits, SessionManager};
pub use opener::SessionSetup;
pub use options::{
    Cookie, Emulation, Geolocation, OriginStorage, Proxy, SameSite, SessionOptions, StorageItem, StorageState,
};
pub use session::{CloseReason, Session};
pub use tabs::TabInfo;
