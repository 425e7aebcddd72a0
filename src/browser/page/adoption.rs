//! Popups a page opened (`window.open`, a `target=_blank` link) that its session has not adopted
//! as tabs yet: the pump files them as Chromium announces them, the session takes them before its
//! next call. Also the tab id a target goes by. Knows neither side.

use std::sync::{Arc, Mutex};

/// Popups waiting at most; a page opening more before the next call loses the oldest (they stay
/// open in Chromium and are found by `tabs.list`).
const MAX_PENDING: usize = 32;

/// The tab id of a target: the first 8 characters of its id, lower case — short enough to type,
/// and known as soon as Chromium announces the target, so an action's effects can name a popup's
/// tab before the session adopts it.
pub fn tab_id(target_id: &str) -> String {
    target_id.chars().take(8).collect::<String>().to_ascii_lowercase()
}

#[derive(Debug, Clone, Default)]
pub struct PopupLog(Arc<Mutex<Vec<String>>>);

impl PopupLog {
    fn list(&self) -> std::sync::MutexGuard<'_, Vec<String>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Files a popup's target id.
    pub fn opened(&self, target_id: String) {
        let mut list = self.list();
        if list.len() == MAX_PENDING {
            list.remove(0);
        }
        list.push(target_id);
    }

    /// The popups filed since the last take, oldest first.
    pub fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.list())
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tab_id_is_the_targets_short_lower_case_prefix() {
        assert_eq!(tab_id("9A3F0C21B7D94E0F8A1B2C3D4E5F6071"), "9a3f0c21");
        assert_eq!(tab_id("AB"), "ab");
    }

    #[test]
    fn popups_are_taken_once_in_order() {
        let log = PopupLog::default();
        log.opened("A".into());
        log.opened("B".into());
        assert_eq!(log.take(), vec!["A".to_owned(), "B".to_owned()]);
        assert!(log.take().is_empty());
    }

    #[test]
    fn a_flood_of_popups_keeps_the_newest() {
        let log = PopupLog::default();
        for i in 0..MAX_PENDING + 3 {
            log.opened(i.to_string());
        }
        let taken = log.take();
        assert_eq!(taken.len(), MAX_PENDING);
        assert_eq!(taken[0], "3");
    }
}
