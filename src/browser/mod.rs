//! The browser layer: one shared Chromium, sessions on top of it, and what a session can do.
//!
//! - `chromium`, `supervisor`: launching Chromium, pumping its CDP connection, and starting a new
//!   one when it dies
//! - `manager`, `session`, `pool`, `janitor`: session lifecycle (create, warm sessions opened
//!   ahead, turn-taking, close, TTL expiry)
//! - `options`, `storage`: what a session is created with
//! - `events`, `page_state`, `signals`: page events folded into navigation, network and log state
//! - `navigation`, `reading`, `evaluate`, `actions`, `keys`, `screenshot`, `inspect`: what the RPC
//!   methods do with a page
//! - `snapshot`, `refs`: the accessibility snapshot and the refs it hands out
//! - `script`, `selector`, `cdp`: helper scripts in an isolated world, element finding; raw CDP
//!   calls with deadlines
//! - `error`: this layer's error type

pub mod actions;
pub mod cdp;
pub mod chromium;
pub mod error;
pub mod evaluate;
pub mod events;
pub mod inspect;
pub mod janitor;
pub mod keys;
pub mod manager;
pub mod navigation;
pub mod options;
pub mod page_state;
pub mod pool;
pub mod reading;
pub mod refs;
pub mod screenshot;
pub mod script;
pub mod selector;
pub mod session;
pub mod signals;
pub mod snapshot;
pub mod storage;
pub mod supervisor;

pub use error::BrowserError;
pub use manager::SessionManager;
