//! A page's own temp directories — its uploads (see `act::upload`) and downloads (see `settled`) —
//! removed when the page goes.

use std::path::{Path, PathBuf};

use crate::browser::error::BrowserError;
use crate::browser::owned_dir;

/// A directory of a page's uploaded or downloaded files, removed when the page goes.
#[derive(Debug)]
pub struct ScratchDir(PathBuf);

impl ScratchDir {
    /// A new directory `text-browser-<kind>-<uuid>` in the temp dir, owned by this process (a
    /// later start removes it if this process dies without doing so; see `owned_dir`).
    pub fn create(kind: &str) -> Result<Self, BrowserError> {
        owned_dir::create(&format!("text-browser-{kind}-"))
            .map(Self)
            .map_err(|e| BrowserError::Unavailable(format!("cannot create the {kind} directory: {e}")))
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
