//! `fileChooser.arm`: the files the page's next file chooser gets.

use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::error::ApiError;
use super::gestures::{FileParam, decode_files};
use super::registry::{Call, MethodSpec, Params, page_method};
use crate::browser::{MAX_DIALOG_ARM, Page};

const TIMEOUT_MS: u64 = 10_000;

/// Arms the page's next file chooser (a styled "Choose file…" button clicking a hidden `<input
/// type=file>`) with `files` (`[{name, base64}]`, as `page.upload` takes them). Arm first, then
/// click: `input` and `change` fire and `effects.dialogs` says `file chooser answered with
/// contacts.csv (armed)`. The last arm wins; it is used once and expires after `timeoutMs` (default
/// and at most 120000). An unarmed chooser gets nothing and is noted in `logs.pull`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FileChooserArmParams {
    /// [{"name": "contacts.csv", "base64": "…"}]
    pub files: Vec<FileParam>,
    /// How long the arm waits for a chooser, 1 to 120000 ms (default 120000).
    pub timeout_ms: Option<u64>,
}

impl Params for FileChooserArmParams {}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FileChooserArmResult {
    pub armed: bool,
    /// How many files the chooser will get.
    pub files: usize,
    pub expires_in_ms: u64,
}

pub fn methods() -> Vec<MethodSpec> {
    vec![
        page_method("fileChooser.arm", "Give the next file chooser these files.", TIMEOUT_MS, arm)
            .example(r#"{"files":[{"name":"contacts.csv","base64":"bmFtZSxlbWFpbAo="}]}"#),
    ]
}

async fn arm(call: Call, page: Page, p: FileChooserArmParams) -> Result<FileChooserArmResult, ApiError> {
    let max = MAX_DIALOG_ARM.as_millis() as u64;
    let ms = match p.timeout_ms {
        None => max,
        Some(ms) if (1..=max).contains(&ms) => ms,
        Some(_) => return Err(ApiError::invalid("timeoutMs", format!("timeoutMs must be 1 to {max}"))),
    };
    if p.files.is_empty() {
        return Err(ApiError::invalid("files", "give at least one file"));
    }
    super::gestures::files_shared_with_the_browser(&call, "fileChooser.arm")?;
    let files = decode_files(p.files)?;
    page.arm_file_chooser(&files, Duration::from_millis(ms), call.deadline).await?;
    Ok(FileChooserArmResult { armed: true, files: files.len(), expires_in_ms: ms })
}
