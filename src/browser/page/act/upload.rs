//! `page.upload`: files set on a file input as a user choosing them would.
//!
//! Callers send the files' contents (they are rarely on the service's machine); each is written
//! into the session's upload directory — removed with the page, since the page reads a chosen
//! file lazily, when it sends it — and set on the input with `DOM.setFileInputFiles`, which fires
//! `input` and `change`. The page's next file chooser (a styled "Choose file" button) can be
//! armed with files the same way (`fileChooser.arm`).

use std::path::PathBuf;
use std::time::Duration;

use tokio::time::Instant;

use super::run::ActionRun;
use crate::browser::chromium::protocol::dom::{DescribeNode, SetFileInputFiles};
use crate::browser::chromium::protocol::page::SetInterceptFileChooserDialog;
use crate::browser::error::BrowserError;
use crate::browser::page::core::lock;
use crate::browser::page::handle::Page;
use crate::browser::page::locate::target::Target;
use crate::browser::page::scratch::ScratchDir;
use crate::browser::page::watch::{Arm, ChooserArm, MAX_ARM};

/// A file to upload: its name and bytes.
#[derive(Debug, Clone, PartialEq)]
pub struct UploadFile {
    pub name: String,
    pub bytes: Vec<u8>,
}

impl ActionRun {
    /// Sets `files` on the file input `target` (an empty list clears it).
    pub async fn upload(&self, target: &Target, files: &[UploadFile]) -> Result<(), BrowserError> {
        let (page, deadline) = (&self.page, self.deadline);
        // A file input is often hidden behind a styled button: it needs to be attached, not visible.
        let node = page.locate().wait_attached(target, deadline).await?;
        let describe = DescribeNode { backend_node_id: Some(node), ..DescribeNode::default() };
        let kind = page.send(describe, deadline).await?.node;
        let is_file_input = kind.node_name == "INPUT"
            && kind
                .attributes
                .chunks(2)
                .any(|kv| kv[0] == "type" && kv.get(1).is_some_and(|v| v.eq_ignore_ascii_case("file")));
        if !is_file_input {
            return Err(BrowserError::NotActionable {
                selector: target.to_string(),
                reason: "is not an <input type=file>: give the file input itself (it may be hidden)".into(),
            });
        }
        let paths = store_files(page, files)?;
        page.send(SetFileInputFiles { files: paths, backend_node_id: node }, deadline).await?;
        Ok(())
    }
}

impl Page {
    /// Answers the page's next file chooser (a click on a styled "Choose file" button) with
    /// `files`, for `within` (at most [`MAX_ARM`]).
    pub async fn arm_file_chooser(
        &self,
        files: &[UploadFile],
        within: Duration,
        deadline: Instant,
    ) -> Result<(), BrowserError> {
        let paths = store_files(self, files)?;
        let names = files.iter().map(|f| f.name.clone()).collect();
        let expires = Instant::now() + within.min(MAX_ARM);
        self.watch().arm(Arm::Chooser(ChooserArm { paths, names, expires }));
        self.send(SetInterceptFileChooserDialog { enabled: true }, deadline).await.map(|_| ())
    }
}

/// Writes `files` into a fresh folder of the page's upload directory; returns their paths.
fn store_files(page: &Page, files: &[UploadFile]) -> Result<Vec<String>, BrowserError> {
    let mut paths = Vec::new();
    if files.is_empty() {
        return Ok(paths);
    }
    let sub = upload_dir(page)?.join(uuid::Uuid::new_v4().simple().to_string());
    std::fs::create_dir_all(&sub).map_err(|e| BrowserError::Unavailable(format!("cannot store the upload: {e}")))?;
    for file in files {
        let path = sub.join(&file.name);
        std::fs::write(&path, &file.bytes)
            .map_err(|e| BrowserError::Unavailable(format!("cannot store {}: {e}", file.name)))?;
        paths.push(path.display().to_string());
    }
    Ok(paths)
}

/// The page's upload directory, made on first use.
fn upload_dir(page: &Page) -> Result<PathBuf, BrowserError> {
    let mut slot = lock(&page.uploads);
    if slot.is_none() {
        *slot = Some(ScratchDir::create("upload")?);
    }
    Ok(slot.as_ref().map(|d| d.path().to_owned()).unwrap_or_default())
}
