//! The one shared Chromium: the process and its CDP connection, raw CDP calls with deadlines, and
//! the supervisor that starts a new Chromium when the old one dies.
//!
//! - `launch`: starting the Chromium process so it dies with the service, its profile directory
//! - `process`: connecting to Chromium, pumping its CDP handler, stopping it
//! - `event_routes`: which page an event belongs to; events chromiumoxide could not parse, routed raw
//! - `listen`: a page's events of one kind from chromiumoxide's typed listener, as raw JSON too
//! - `guards`: the launch flags that guard egress outside a session, checked on a browser we attach to
//! - `browser_events`: browser-level download and popup events, forwarded to their page
//! - `cdp`: sending a [`cdp::Command`] with a deadline and reading its answer once (our protection
//!   against protocol drift); Chromium's refusals parsed into what callers act on
//! - `protocol`: the commands we send, as our own typed structs by domain
//! - `ids`: CDP's ids (request, loader, frame, target …) as types of their own
//! - `kinds`: CDP's closed vocabularies (resource types, milestones, download states …) as enums
//! - `supervisor`: notices Chromium dying and swaps in a new one through a [`supervisor::Host`]
//!
//! Nothing here knows about sessions or pages: the layers above depend on this one, never back.

mod browser_events;
pub mod cdp;
mod event_routes;
mod guards;
pub mod ids;
pub mod kinds;
mod launch;
mod listen;
mod process;
pub mod protocol;
pub mod supervisor;

pub(super) use event_routes::{EventRoutes, RawEvent};
pub(super) use listen::{Listened, listen};
pub use process::{Chromium, Lifeline};
