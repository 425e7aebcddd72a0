//! What a failed call carries so the agent needs no second call to see why (`error.data.evidence`):
//! where the page is, what it shows, and what went wrong in it while the call ran.
//!
//! Gathered after the failure within [`BUDGET`] of its own (the call's deadline may be spent),
//! each part best-effort: a page too busy to answer leaves that part out rather than hiding the
//! error. Compact on purpose: a text excerpt, at most three errors of each kind, failed requests
//! only.

use std::time::Duration;

use serde_json::{Value, json};
use tokio::time::Instant;

use super::effects::Mark;
use super::handle::Page;
use super::reading::TextFormat;
use super::target::Target;

/// Time evidence may take after the failure.
const BUDGET: Duration = Duration::from_millis(1000);
/// Characters of the page's visible text shown.
const TEXT_EXCERPT: usize = 400;

impl Page {
    /// The evidence for a call that began at `mark` and failed.
    pub async fn failure_evidence(&self, mark: &Mark) -> Value {
        let deadline = Instant::now() + BUDGET;
        let mut evidence = json!({});
        if let Ok(landed) = self.landed(deadline).await {
            evidence["url"] = json!(landed.url);
            evidence["title"] = json!(landed.title);
        }
        if let Ok(text) = self.text(&Target::body(), TextFormat::Text, TEXT_EXCERPT, true, deadline).await {
            evidence["text"] = json!(if text.truncated { format!("{}…", text.text) } else { text.text });
        }
        let effects = self.effects(mark, deadline).await;
        if !effects.console_errors.is_empty() {
            evidence["consoleErrors"] = json!(effects.console_errors);
        }
        if !effects.page_errors.is_empty() {
            evidence["pageErrors"] = json!(effects.page_errors);
        }
        let failed: Vec<_> =
            effects.requests.iter().filter(|r| r.failure.is_some() || r.status.is_some_and(|s| s >= 400)).collect();
        if !failed.is_empty() {
            evidence["failedRequests"] = json!(failed);
        }
        let counts = self.signal_counts();
        if counts.console_errors + counts.page_errors + counts.failed_requests > 0 {
            evidence["signals"] = json!(counts);
        }
        evidence
    }
}
