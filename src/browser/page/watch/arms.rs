//! The arms: how the next dialog is answered (`alert`, `confirm`, `prompt`, `beforeunload`; see
//! `dialog.arm`) and which files the next file chooser gets (`fileChooser.arm`; the files are
//! already on disk, in the page's upload directory, when armed). The page handle sends an [`Arm`]
//! to the pump (`Watch::arm`), which hands it to the reducer before any later event; the reducer
//! keeps the hooks and uses them up. They know nothing of either.

use std::time::Duration;

use tokio::time::Instant;

use super::notes::DialogAnswer;
use crate::browser::chromium::kinds::DialogKind;

/// Default and longest life of an arm.
pub const MAX_ARM: Duration = Duration::from_secs(120);

/// How the next dialog or file chooser is to be answered.
#[derive(Debug, Clone, PartialEq)]
pub enum Arm {
    Dialog(DialogArm),
    Chooser(ChooserArm),
}

/// How the next dialog is to be answered.
#[derive(Debug, Clone, PartialEq)]
pub struct DialogArm {
    pub accept: bool,
    /// What a prompt returns when accepted (default: its default text).
    pub prompt_text: Option<String>,
    pub expires: Instant,
}

/// The dialog arm, kept by the reducer.
#[derive(Debug, Clone, Default)]
pub struct DialogHook(Option<DialogArm>);

impl DialogHook {
    /// Replaces any earlier arm.
    pub fn arm(&mut self, arm: DialogArm) {
        self.0 = Some(arm);
    }

    /// The answer to a dialog of `kind` opening `now`: the arm's (used up), or the default. The
    /// default dismisses `alert`, `confirm` and `prompt`, and accepts `beforeunload`: dismissing
    /// "Leave site?" would cancel the navigation that asked (a `page.goto` would wait for a load
    /// that never comes), and leaving is what the caller asked for.
    pub fn answer(&mut self, kind: &DialogKind, now: Instant) -> DialogAnswer {
        match self.0.take() {
            Some(arm) if arm.expires > now => {
                DialogAnswer { accept: arm.accept, prompt_text: arm.prompt_text, armed: true }
            }
            _ => DialogAnswer { accept: *kind == DialogKind::BeforeUnload, prompt_text: None, armed: false },
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct ChooserArm {
    /// Paths of the files to choose.
    pub paths: Vec<String>,
    /// Their names, for the log line.
    pub names: Vec<String>,
    pub expires: Instant,
}

/// The file chooser arm, kept by the reducer.
#[derive(Debug, Clone, Default)]
pub struct ChooserHook(Option<ChooserArm>);

impl ChooserHook {
    /// Replaces any earlier arm.
    pub fn arm(&mut self, arm: ChooserArm) {
        self.0 = Some(arm);
    }

    /// The arm for a chooser opening `now` (used up), if one is armed and alive.
    pub fn take(&mut self, now: Instant) -> Option<ChooserArm> {
        self.0.take().filter(|a| a.expires > now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::browser::page::watch::notes::DialogNote;
    use crate::browser::page::watch::views::wording;

    /// The line logs.pull and effects show for the dialog (worded by the views).
    fn describe(kind: &DialogKind, message: &str, answer: &DialogAnswer) -> String {
        wording::dialog(&DialogNote::Dialog { kind: kind.clone(), message: message.into(), answer: answer.clone() })
    }

    #[test]
    fn without_an_arm_a_dialog_is_dismissed() {
        let mut hook = DialogHook::default();
        let answer = hook.answer(&DialogKind::Alert, Instant::now());
        assert_eq!(answer, DialogAnswer { accept: false, prompt_text: None, armed: false });
        assert_eq!(
            describe(&DialogKind::Alert, "Saved", &answer),
            r#"alert("Saved") dismissed (default: no dialog.arm)"#
        );
    }

    #[test]
    fn an_arm_answers_one_dialog_and_the_last_arm_wins() {
        let mut hook = DialogHook::default();
        let expires = Instant::now() + MAX_ARM;
        hook.arm(DialogArm { accept: false, prompt_text: None, expires });
        hook.arm(DialogArm { accept: true, prompt_text: Some("Zed".into()), expires });
        let answer = hook.answer(&DialogKind::Prompt, Instant::now());
        assert!(answer.accept && answer.armed);
        assert_eq!(describe(&DialogKind::Prompt, "Name?", &answer), r#"prompt("Name?") accepted with "Zed" (armed)"#);
        assert!(!hook.answer(&DialogKind::Prompt, Instant::now()).armed, "an arm is used once");
    }

    #[test]
    fn an_expired_arm_is_ignored() {
        let mut hook = DialogHook::default();
        let now = Instant::now();
        hook.arm(DialogArm { accept: true, prompt_text: None, expires: now });
        assert!(!hook.answer(&DialogKind::Confirm, now + Duration::from_millis(1)).armed);
    }

    #[test]
    fn leaving_a_page_is_accepted_unless_armed_otherwise() {
        let mut hook = DialogHook::default();
        let answer = hook.answer(&DialogKind::BeforeUnload, Instant::now());
        assert!(answer.accept && !answer.armed);
        assert_eq!(
            describe(&DialogKind::BeforeUnload, "", &answer),
            r#"beforeunload("") accepted: the page was left (default: no dialog.arm)"#
        );
        hook.arm(DialogArm { accept: false, prompt_text: None, expires: Instant::now() + MAX_ARM });
        let stay = hook.answer(&DialogKind::BeforeUnload, Instant::now());
        assert!(!stay.accept && stay.armed);
        assert!(describe(&DialogKind::BeforeUnload, "", &stay).contains("navigation was cancelled"));
    }
    #[test]
    fn an_arm_is_used_once_and_not_after_it_expires() {
        let mut hook = ChooserHook::default();
        let now = Instant::now();
        let arm = ChooserArm {
            paths: vec!["/tmp/a".into()],
            names: vec!["a".into()],
            expires: now + std::time::Duration::from_secs(1),
        };
        hook.arm(arm.clone());
        assert_eq!(hook.take(now), Some(arm.clone()));
        assert_eq!(hook.take(now), None);
        hook.arm(arm);
        assert_eq!(hook.take(now + std::time::Duration::from_secs(2)), None);
    }
}
