//! Sessions: each an isolated browser context with one page, and everything about their life.
//!
//! - `session`: one session's lifecycle (open, turn, orderly close, dispose)
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

pub use manager::{Readiness, SessionLimits, SessionManager};
pub use options::{
    Cookie, Emulation, Geolocation, OriginStorage, Proxy, SameSite, SessionOptions, StorageItem, StorageState,
};
pub use session::CloseReason;
