//! `dialog.arm`: how the page's next `alert`, `confirm`, `prompt` or `beforeunload` is answered.

use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::error::ApiError;
use super::registry::{Call, Hints, MethodSpec, Params, page_method};
use crate::browser::{MAX_DIALOG_ARM, Page};

const TIMEOUT_MS: u64 = 5_000;

/// Arms the answer to the page's next dialog: `accept` it (a `prompt` returns `promptText`) or
/// dismiss it. Arm first, then act: `effects.dialogs` says which dialog opened and how it was
/// answered. Unarmed dialogs are dismissed at once (a "Leave site?" accepted), so a page never hangs
/// on one. The last arm wins; it answers one dialog and expires after `timeoutMs` (default and at most
/// 120000).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DialogArmParams {
    /// true accepts (OK), false dismisses (Cancel).
    pub accept: bool,
    /// What an accepted prompt returns (default: the prompt's default text).
    pub prompt_text: Option<String>,
    /// How long the arm waits for a dialog, 1 to 120000 ms (default 120000).
    pub timeout_ms: Option<u64>,
}

impl Params for DialogArmParams {}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DialogArmResult {
    pub armed: bool,
    /// How long the arm stays valid.
    pub expires_in_ms: u64,
}

pub fn methods() -> Vec<MethodSpec> {
    vec![
        page_method(
            "dialog.arm",
            "Accept or dismiss the next alert, confirm, prompt or beforeunload.",
            TIMEOUT_MS,
            arm,
        )
        .example(r#"{"accept":true,"promptText":"Zephyr"}"#)
        .tool("dialog", Hints::SET),
    ]
}

async fn arm(_call: Call, page: Page, p: DialogArmParams) -> Result<DialogArmResult, ApiError> {
    let max = MAX_DIALOG_ARM.as_millis() as u64;
    let ms = match p.timeout_ms {
        None => max,
        Some(ms) if (1..=max).contains(&ms) => ms,
        Some(_) => return Err(ApiError::invalid("timeoutMs", format!("timeoutMs must be 1 to {max}"))),
    };
    if p.prompt_text.is_some() && !p.accept {
        return Err(ApiError::invalid("promptText", "promptText only goes with accept: true"));
    }
    page.arm_dialog(p.accept, p.prompt_text, Duration::from_millis(ms));
    Ok(DialogArmResult { armed: true, expires_in_ms: ms })
}
