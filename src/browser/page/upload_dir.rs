//! A page's own temp directories — its uploads (see `upload`) and downloads (see `downloads`) —
//! removed when the page goes.

use std::path::{Path, PathBuf};

use crate::browser::error::BrowserError;

/// A directory of a page's uploaded or downloaded files, removed when the page goes.
#[derive(Debug)]
pub struct UploadDir(PathBuf);

impl UploadDir {
    /// A new directory `text-browser-<kind>-<uuid>` in the temp dir.
    pub fn create(kind: &str) -> Result<Self, BrowserError> {
        let dir = std::env::temp_dir().join(format!("text-browser-{kind}-{}", uuid::Uuid::new_v4().simple()));
        std::fs::create_dir_all(&dir)
            .map_err(|e| BrowserError::Unavailable(format!("cannot create the {kind} directory: {e}")))?;
        Ok(Self(dir))
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for UploadDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
