//! `downloads.list`, `downloads.read`: what the page downloaded.

use base64::Engine;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::error::ApiError;
use super::registry::{Call, MethodSpec, Params, page_method};
use crate::browser::Page;

const TIMEOUT_MS: u64 = 10_000;
/// Largest download `downloads.read` returns.
const READ_CAP: usize = 10 * 1024 * 1024;

/// The files the session's page downloaded (a link with `download`, a `Content-Disposition:
/// attachment` answer), oldest first: `{name, bytes, mime, url, state}` with `state`
/// `inProgress`, `completed` or `canceled`. Files are kept in the session's own directory and
/// deleted with the session. The action that started a download says so in `effects.downloads`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct DownloadsListParams {}

impl Params for DownloadsListParams {}

#[derive(Debug, Serialize, JsonSchema)]
pub struct DownloadEntry {
    pub name: String,
    pub bytes: u64,
    /// The response's content type; when Chromium took the download over before reporting the
    /// response, the type the file name implies.
    pub mime: String,
    pub url: String,
    pub state: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct DownloadsListResult {
    pub downloads: Vec<DownloadEntry>,
}

/// Returns a completed download's bytes, base64 (at most 10 MiB), by the name the page gave it
/// (the newest one of that name). One still arriving is `download_pending`; one that was cancelled
/// (by the page, or past DOWNLOAD_MAX_BYTES) has no file: `download_canceled`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct DownloadsReadParams {
    /// The file's name, as downloads.list shows it.
    pub name: String,
}

impl Params for DownloadsReadParams {}

#[derive(Debug, Serialize, JsonSchema)]
pub struct DownloadsReadResult {
    pub name: String,
    pub bytes: usize,
    pub base64: String,
}

pub fn methods() -> Vec<MethodSpec> {
    vec![
        page_method("downloads.list", "The files the page downloaded, with size and type.", TIMEOUT_MS, list),
        page_method("downloads.read", "A downloaded file's bytes, base64.", TIMEOUT_MS, read)
            .example(r#"{"name":"report.csv"}"#),
    ]
}

async fn list(call: Call, page: Page, _: DownloadsListParams) -> Result<DownloadsListResult, ApiError> {
    let downloads = page
        .settled(false, call.deadline)
        .await
        .downloads()
        .into_iter()
        .map(|d| DownloadEntry { name: d.name, bytes: d.bytes, mime: d.mime, url: d.url, state: d.state.to_string() })
        .collect();
    Ok(DownloadsListResult { downloads })
}

async fn read(call: Call, page: Page, p: DownloadsReadParams) -> Result<DownloadsReadResult, ApiError> {
    super::gestures::files_shared_with_the_browser(&call, "downloads.read")?;
    let bytes = page.settled(false, call.deadline).await.read_download(&p.name, READ_CAP)?;
    Ok(DownloadsReadResult {
        name: p.name,
        bytes: bytes.len(),
        base64: base64::engine::general_purpose::STANDARD.encode(&bytes),
    })
}
