//! What a failed call carries so the agent needs no second call to see why (`error.data.evidence`):
//! where the page is, what it shows, and what went wrong in it while the call ran.
//!
//! Gathered after the failure within [`BUDGET`] of its own (the call's deadline may be spent),
//! each part best-effort: a page too busy to answer leaves that part out rather than hiding the
//! error. Compact on purpose: a text excerpt, at most three errors of each kind, failed requests
//! only; with `session.create({evidence: true})` also the viewport as a small JPEG.

use std::time::Duration;

use serde_json::{Value, json};
use tokio::time::Instant;

use super::act::effects;
use super::handle::Page;
use super::locate::target::Target;
use super::reading::TextFormat;
use super::watch::views::effects::Mark;
use crate::browser::chromium::protocol::page::{CaptureScreenshot, Clip, GetLayoutMetrics, ImageFormat};

/// JPEG quality and scale of an evidence screenshot: small enough to ride along (10–30 KB).
const SHOT_QUALITY: u8 = 40;
const SHOT_SCALE: f64 = 0.5;

/// Time evidence may take after the failure.
const BUDGET: Duration = Duration::from_millis(1000);
/// Characters of the page's visible text shown.
const TEXT_EXCERPT: usize = 400;

impl Page {
    /// The evidence for a call that began at `mark` and failed.
    pub async fn failure_evidence(&self, mark: &Mark) -> Value {
        gather(self, mark).await
    }
}

/// The viewport at half size as a low-quality JPEG, base64.
async fn evidence_shot(page: &Page, deadline: Instant) -> Option<String> {
    let view = page.send(GetLayoutMetrics {}, deadline).await.ok()?.css_visual_viewport;
    let clip = Clip {
        x: view.page_x,
        y: view.page_y,
        width: view.client_width,
        height: view.client_height,
        scale: SHOT_SCALE,
    };
    let shot = CaptureScreenshot {
        format: ImageFormat::Jpeg,
        quality: Some(SHOT_QUALITY),
        clip: Some(clip),
        capture_beyond_viewport: None,
        optimize_for_speed: true,
    };
    Some(page.send(shot, deadline).await.ok()?.data)
}

/// [`Page::failure_evidence`].
async fn gather(page: &Page, mark: &Mark) -> Value {
    let deadline = Instant::now() + BUDGET;
    let mut evidence = json!({});
    if let Ok(landed) = page.nav().landed(deadline).await {
        evidence["url"] = json!(landed.url);
        evidence["title"] = json!(landed.title);
    }
    if let Ok(text) = page.text(&Target::body(), TextFormat::Text, TEXT_EXCERPT, true, deadline).await {
        evidence["text"] = json!(if text.truncated { format!("{}…", text.text) } else { text.text });
    }
    let effects = effects(page, mark, deadline).await;
    if !effects.console_errors.is_empty() {
        evidence["consoleErrors"] = json!(effects.console_errors);
    }
    if !effects.page_errors.is_empty() {
        evidence["pageErrors"] = json!(effects.page_errors);
    }
    let failed: Vec<_> = effects.requests.iter().filter(|r| r.failed()).collect();
    if !failed.is_empty() {
        evidence["failedRequests"] = json!(failed);
    }
    if page.evidence_shots.load(std::sync::atomic::Ordering::Relaxed)
        && let Some(shot) = evidence_shot(page, deadline).await
    {
        evidence["screenshot"] = json!({ "mime": "image/jpeg", "base64": shot });
    }
    let counts = page.seen().signal_counts();
    if counts.console_errors + counts.page_errors + counts.failed_requests > 0 {
        evidence["signals"] = json!(counts);
    }
    evidence
}
