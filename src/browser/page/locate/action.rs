//! [`Action`]: what an element is about to be used for. The page scripts know the same names
//! (`ACTIONS` in `js/lib.js`) and decide from it which actionability checks apply; a name they do
//! not know is an error on the page side, never a silently skipped check.

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    /// Attached, visible, enabled, stable for a frame, and what a click at its centre hits.
    Click,
    /// Attached, visible, enabled and editable; focused with its text selected.
    Fill,
    /// Attached, visible and enabled; focused.
    Press,
    /// Attached, visible and stable: read or captured (element screenshots), any match.
    Read,
    /// Attached, visible and enabled: a `<select>` whose options are chosen.
    Select,
    /// Like a click: a checkbox or radio button to be checked or unchecked.
    Check,
    /// Attached, visible, stable and what the pointer at its centre is over: hovered or dragged.
    Hover,
    /// Attached and focusable: focused.
    Focus,
}

impl Action {
    /// Every action, for the test that each is known to the page scripts.
    pub const ALL: [Action; 8] = [
        Action::Click,
        Action::Fill,
        Action::Press,
        Action::Read,
        Action::Select,
        Action::Check,
        Action::Hover,
        Action::Focus,
    ];

    /// The name the page scripts know it by.
    pub fn name(self) -> &'static str {
        match self {
            Self::Click => "click",
            Self::Fill => "fill",
            Self::Press => "press",
            Self::Read => "read",
            Self::Select => "select",
            Self::Check => "check",
            Self::Hover => "hover",
            Self::Focus => "focus",
        }
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wire_name_is_the_name() {
        for action in Action::ALL {
            assert_eq!(serde_json::to_value(action).unwrap(), action.name());
        }
    }
}
