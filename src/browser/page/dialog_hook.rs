//! The dialog hook: how the pump answers the next `alert`, `confirm`, `prompt` or
//! `beforeunload` (see `dialogs` for why and for arming it).
//!
//! Shared between the page handle (which arms it) and the pump (which uses it up); it knows
//! nothing of either.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::time::Instant;

/// Default and longest life of an arm.
pub const MAX_ARM: Duration = Duration::from_secs(120);

/// How the next dialog is to be answered.
#[derive(Debug, Clone, PartialEq)]
pub struct DialogArm {
    pub accept: bool,
    /// What a prompt returns when accepted (default: its default text).
    pub prompt_text: Option<String>,
    pub expires: Instant,
}

/// The arm a session's page shares with its pump.
#[derive(Debug, Clone, Default)]
pub struct DialogHook(Arc<Mutex<Option<DialogArm>>>);

/// The answer given to one dialog.
#[derive(Debug, Clone, PartialEq)]
pub struct DialogAnswer {
    pub accept: bool,
    pub prompt_text: Option<String>,
    /// An arm chose it (otherwise the dialog was dismissed by default).
    pub armed: bool,
}

impl DialogHook {
    /// Replaces any earlier arm.
    pub fn arm(&self, arm: DialogArm) {
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = Some(arm);
    }

    /// The answer to a dialog opening now: the arm's (used up), or dismiss.
    pub fn answer(&self, now: Instant) -> DialogAnswer {
        let arm = self.0.lock().unwrap_or_else(|p| p.into_inner()).take();
        match arm {
            Some(arm) if arm.expires > now => {
                DialogAnswer { accept: arm.accept, prompt_text: arm.prompt_text, armed: true }
            }
            _ => DialogAnswer { accept: false, prompt_text: None, armed: false },
        }
    }
}

/// The line `logs.pull` and `effects` show for an answered dialog:
/// `confirm("Delete project?") accepted (armed)`.
pub fn describe(kind: &str, message: &str, answer: &DialogAnswer) -> String {
    let verdict = if answer.accept { "accepted" } else { "dismissed" };
    let how = if answer.armed { "armed" } else { "default: no dialog.arm" };
    let with = match (&answer.prompt_text, answer.accept && kind == "prompt") {
        (Some(text), true) => format!(" with {}", serde_json::Value::from(text.as_str())),
        _ => String::new(),
    };
    format!("{kind}({}) {verdict}{with} ({how})", serde_json::Value::from(message))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_an_arm_a_dialog_is_dismissed() {
        let hook = DialogHook::default();
        let answer = hook.answer(Instant::now());
        assert_eq!(answer, DialogAnswer { accept: false, prompt_text: None, armed: false });
        assert_eq!(describe("alert", "Saved", &answer), r#"alert("Saved") dismissed (default: no dialog.arm)"#);
    }

    #[test]
    fn an_arm_answers_one_dialog_and_the_last_arm_wins() {
        let hook = DialogHook::default();
        let expires = Instant::now() + MAX_ARM;
        hook.arm(DialogArm { accept: false, prompt_text: None, expires });
        hook.arm(DialogArm { accept: true, prompt_text: Some("Zed".into()), expires });
        let answer = hook.answer(Instant::now());
        assert!(answer.accept && answer.armed);
        assert_eq!(describe("prompt", "Name?", &answer), r#"prompt("Name?") accepted with "Zed" (armed)"#);
        assert!(!hook.answer(Instant::now()).armed, "an arm is used once");
    }

    #[test]
    fn an_expired_arm_is_ignored() {
        let hook = DialogHook::default();
        let now = Instant::now();
        hook.arm(DialogArm { accept: true, prompt_text: None, expires: now });
        assert!(!hook.answer(now + Duration::from_millis(1)).armed);
    }
}
