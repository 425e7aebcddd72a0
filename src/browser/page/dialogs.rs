//! Dialogs: `alert`, `confirm`, `prompt` and `beforeunload` never wedge a page.
//!
//! While a dialog is open the page's scripts stop, and with them every call into the page. The
//! pump answers each dialog the moment it opens (`watch::arms`): as the caller armed with
//! `dialog.arm` (accept or dismiss, the text a prompt returns), or else dismissed — except
//! `beforeunload` ("Leave site?"), which is accepted, so a navigation is never held up by it. Either way the
//! dialog is filed in `logs.pull` (kind `dialog`, as a warning) and reported in the `effects` of
//! the action that opened it, so an agent sees that `confirm("Delete project?")` was answered,
//! and how. The last arm wins; an arm is used once and expires.

use std::time::Duration;

use tokio::time::Instant;

use super::handle::Page;
use super::watch::{DialogArm, MAX_ARM};

impl Page {
    /// Arms the answer to the page's next dialog, for `within` (at most [`MAX_ARM`]).
    pub fn arm_dialog(&self, accept: bool, prompt_text: Option<String>, within: Duration) {
        let expires = Instant::now() + within.min(MAX_ARM);
        self.watch().env.dialogs.arm(DialogArm { accept, prompt_text, expires });
    }
}
