//! The file chooser hook: the files the next file chooser of the page gets (`fileChooser.arm`),
//! shared by the page handle (which arms it) and the pump (which answers the chooser when it
//! opens). The files are already on disk (the page's upload directory) when armed.

use std::sync::{Arc, Mutex};

use tokio::time::Instant;

#[derive(Debug, Clone, PartialEq)]
pub struct ChooserArm {
    /// Paths of the files to choose.
    pub paths: Vec<String>,
    /// Their names, for the log line.
    pub names: Vec<String>,
    pub expires: Instant,
}

#[derive(Debug, Clone, Default)]
pub struct ChooserHook(Arc<Mutex<Option<ChooserArm>>>);

impl ChooserHook {
    /// Replaces any earlier arm.
    pub fn arm(&self, arm: ChooserArm) {
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = Some(arm);
    }

    /// The arm for a chooser opening now (used up), if one is armed and alive.
    pub fn take(&self, now: Instant) -> Option<ChooserArm> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).take().filter(|a| a.expires > now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_arm_is_used_once_and_not_after_it_expires() {
        let hook = ChooserHook::default();
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
