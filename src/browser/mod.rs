//! The browser layer: one shared Chromium, sessions on top of it, and what a session's page can do.
//!
//! - `chromium`: the Chromium process, raw CDP calls with deadlines, the supervisor
//! - `session`: sessions' lives (manager, warm pool, janitor, options)
//! - `page`: the [`Page`] handle and one file per capability (navigation, actions, reading …)
//! - `redact`: a session's secrets, masked in every form in everything the service returns
//! - `pointer`: what a user's pointer meets (the element a point hits, what an action's scroll
//!   avoided), shared by answers and errors
//! - `error`: this layer's error type
//! - `owned_dir`: temp directories marked with their owner, removed at a later start if it died
//! - `process_state`: whether a process runs, is ending or is gone, as /proc says
//!
//! The dependencies run one way: `session` → `page` → `chromium`. The layers above use what is
//! re-exported here.

mod chromium;
mod error;
mod owned_dir;
mod page;
pub mod pointer;
mod process_state;
mod redact;
mod session;

pub use chromium::supervisor::{self, BrowserSource};
pub use chromium::{Chromium, Lifeline, cdp};
pub use error::BrowserError;
pub use page::{
    Acted, Action, ActionNote, ActionRun, ActionTarget, ClickOptions, CodeLocation, ColorScheme, ConsoleEntry, Effects,
    ElementState, EntryKind, Expect, FieldValue, FormFacts, Found, HttpCredentials, ImageType, Inspection, KeyCombo,
    Landed, Level, Listener, LiveEvent, LiveKind, LiveMaps, Load, Logs, MAX_DIALOG_ARM, MAX_KEY_DELAY, Mark, Media,
    MediaType, Modifier, MouseButton, Navigated, NetworkEntry, NetworkPull, NetworkQuery, Origin, Page, PageError,
    PageText, PdfOptions, PendingView, ReducedMotion, RequestEffect, RequestGroup, ResourceType, Route, RouteAction,
    ScrollPosition, ShotOptions, SignalCounts, Since, Snapshot, SnapshotOptions, SourceAsk, SourceView, Target,
    TextFormat, TimelineView, UploadFile, UrlGlob, UrlPattern, Validity, Viewport, WaitUntil, Waited, WebStorage,
    Wildcards,
};
pub use session::{
    CloseReason, Cookie, Emulation, Geolocation, OriginStorage, Proxy, Readiness, SameSite, Session, SessionLimits,
    SessionManager, SessionOptions, SessionSetup, StorageItem, StorageState, TabInfo,
};
