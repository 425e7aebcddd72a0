//! What a user's pointer meets, in the words answers and errors share: the element a point hits
//! ([`PointerTarget`]: what it is, where, whether a user can see it), and what happened on the way
//! to an element an action scrolled into view ([`Approach`]: what a user at the scroll position
//! before would have hit instead, and how far the page scrolled). The page scripts measure it
//! (`js/lib.js` `pointerTarget`, `actionable`); these are the shapes it is read into.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A box in the viewport, in CSS pixels.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Rect {
    pub x: i64,
    pub y: i64,
    pub width: i64,
    pub height: i64,
}

impl std::fmt::Display for Rect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}×{} at {}, {}", self.width, self.height, self.x, self.y)
    }
}

/// The element a pointer at some point hits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PointerTarget {
    /// tag#id.class "text".
    pub element: String,
    /// Why a user cannot see it: `opacity 0`, `opacity 0 on div.toast-region`, `transparent`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invisible: Option<String>,
    /// Whether a user can see it.
    pub visible: bool,
    /// A click there goes to it (pointer-events is not none).
    pub catches_pointer: bool,
    /// Its box in the viewport.
    pub rect: Rect,
}

impl PointerTarget {
    /// `div.toast-region (invisible: opacity 0; 1280×96 at 0, 624)`.
    pub fn describe(&self) -> String {
        let seen = match &self.invisible {
            Some(why) => format!("invisible: {why}"),
            None => "visible".to_owned(),
        };
        format!("{} ({seen}; {})", self.element, self.rect)
    }
}

/// CSS pixels scrolled (positive: down, right).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Offset {
    pub x: i64,
    pub y: i64,
}

/// What happened on the way to an element before an action acted on it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Approach {
    /// What a user at the scroll position before the action would have hit at the element's
    /// centre, when that is something else (the action then scrolled and still reached it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_would_hit: Option<PointerTarget>,
    /// How far the action scrolled the page to bring the element to the middle of the viewport.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scrolled_by: Option<Offset>,
}

impl Approach {
    /// The first of two approaches that says anything (`page.fillForm` acts several times).
    pub fn or(self, other: Approach) -> Approach {
        Approach {
            user_would_hit: self.user_would_hit.or(other.user_would_hit),
            scrolled_by: self.scrolled_by.or(other.scrolled_by),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cover_reads_with_its_box_and_why_it_cannot_be_seen() {
        let cover = PointerTarget {
            element: "div.toast-region".into(),
            invisible: Some("opacity 0".into()),
            visible: false,
            catches_pointer: true,
            rect: Rect { x: 0, y: 624, width: 1280, height: 96 },
        };
        assert_eq!(cover.describe(), "div.toast-region (invisible: opacity 0; 1280×96 at 0, 624)");
        let json = serde_json::to_value(&cover).unwrap();
        assert_eq!(json["catchesPointer"], true);
        assert_eq!(json["rect"]["height"], 96);
    }
}
