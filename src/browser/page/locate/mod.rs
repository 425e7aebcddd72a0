//! Finding the element a method names and calling our scripts in the page: one [`Locator`] per
//! page (owned by its core) holds what that takes across calls, and [`Locate`] does the work.
//!
//! - `scripts`: every script of ours, its file and its answer type, declared once; `answers`:
//!   those answers as structs
//! - `call`: calling a script in the helper world and reading its `{ok}` / `{error}` answer
//! - `world`: which execution context the helper world is for the current document (made when
//!   the DOM watcher did not make it)
//! - `target`, `selector`, `refs`: what a method's `selector` or `ref` names, parsed once; the refs
//!   page.snapshot issued
//! - `resolve`: the elements a target names, handed to scripts (role and ref targets resolved
//!   here), waiting for one to be attached
//! - `action`: what an element is about to be used for; `ready`: waiting until it is ready for
//!   that (the actionability probe), and what is at a point
//! - `lister`: the page's own function that lists the listeners an input will reach, and where
//!   their functions are
//! - `find`: `find.byRole`
//!
//! Nothing here acts: `act` does, through what is found here.

pub mod action;
pub mod answers;
mod call;
mod find;
mod lister;
mod ready;
pub mod refs;
mod resolve;
pub mod scripts;
pub mod selector;
pub mod target;
mod world;

use std::sync::Mutex;

pub use find::Found;

use super::core::{Core, lock};
use lister::Lister;
use refs::RefTable;
use world::HelperWorld;

/// What locating remembers of one page across calls.
#[derive(Debug, Default)]
pub struct Locator {
    /// The helper world the service made, when the DOM watcher's was missing (see `world`).
    world: Mutex<HelperWorld>,
    /// The page's listener lookup for the current document, with the functions it has placed.
    lister: Mutex<Option<Lister>>,
    /// The refs page.snapshot issued (see `refs`).
    refs: Mutex<RefTable>,
}

/// Locating at work on one page: its core (to send commands, read its navigation state) and its
/// locator.
#[derive(Clone, Copy)]
pub struct Locate<'a> {
    core: &'a Core,
    locator: &'a Locator,
}

impl<'a> Locate<'a> {
    pub(in crate::browser::page) fn new(core: &'a Core, locator: &'a Locator) -> Self {
        Self { core, locator }
    }

    /// The refs page.snapshot issued, to issue more.
    pub(in crate::browser::page) fn refs(&self) -> std::sync::MutexGuard<'a, RefTable> {
        lock(&self.locator.refs)
    }
}
