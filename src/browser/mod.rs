//! The browser layer: one shared Chromium, sessions on top of it, and what a session can do.
//!
//! - `chromium`: launching Chromium and pumping its CDP connection
//! - `manager`, `session`, `janitor`: session lifecycle (create, turn-taking, close, TTL expiry)
//! - `options`: what a session is created with
//! - `events`, `page_state`: page events folded into navigation and network state
//! - `navigation`, `reading`, `evaluate`: what the RPC methods do with a page
//! - `script`, `cdp`: helper scripts in an isolated world; raw CDP calls with deadlines
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
pub mod reading;
pub mod refs;
pub mod screenshot;
pub mod script;
pub mod selector;
pub mod session;
pub mod signals;
pub mod snapshot;
pub mod storage;

pub use error::BrowserError;
pub use manager::SessionManager;
