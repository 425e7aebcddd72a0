//! The Input domain: mouse, keyboard, text and drag events, dispatched as a user's would be.

use serde::Serialize;
use serde_json::Value;

use super::{Done, command};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum MouseEventType {
    #[serde(rename = "mousePressed")]
    Pressed,
    #[serde(rename = "mouseReleased")]
    Released,
    #[serde(rename = "mouseMoved")]
    Moved,
    #[serde(rename = "mouseWheel")]
    Wheel,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum MouseButton {
    Left,
    Right,
    Middle,
}

/// One mouse event at viewport point (`x`, `y`); what it does not set is left out.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DispatchMouseEvent {
    #[serde(rename = "type")]
    pub kind: MouseEventType,
    pub x: f64,
    pub y: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub button: Option<MouseButton>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub click_count: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub modifiers: Option<u32>,
    /// The buttons held (1: the left one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub buttons: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delta_x: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delta_y: Option<f64>,
}
command!(DispatchMouseEvent, "Input.dispatchMouseEvent", Done);

impl DispatchMouseEvent {
    /// An event of `kind` at (`x`, `y`) and nothing else.
    pub fn at(kind: MouseEventType, x: f64, y: f64) -> Self {
        Self {
            kind,
            x,
            y,
            button: None,
            click_count: None,
            modifiers: None,
            buttons: None,
            delta_x: None,
            delta_y: None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum KeyEventType {
    /// A key that types its text.
    KeyDown,
    /// A key that types nothing (a modifier, an arrow).
    RawKeyDown,
    KeyUp,
}

/// One key event, with the fields a real keyboard's has.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DispatchKeyEvent<'a> {
    #[serde(rename = "type")]
    pub kind: KeyEventType,
    pub key: &'a str,
    pub code: &'a str,
    pub windows_virtual_key_code: u32,
    pub native_virtual_key_code: u32,
    pub modifiers: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unmodified_text: Option<&'a str>,
}
command!(DispatchKeyEvent<'a>, "Input.dispatchKeyEvent", Done);

/// Text put in as an input method would (one `input` event, no keys).
#[derive(Debug, Clone, Serialize)]
pub struct InsertText<'a> {
    pub text: &'a str,
}
command!(InsertText<'a>, "Input.insertText", Done);

/// Hands native drags to the service (`Input.dragIntercepted`) instead of running them.
#[derive(Debug, Clone, Serialize)]
pub struct SetInterceptDrags {
    pub enabled: bool,
}
command!(SetInterceptDrags, "Input.setInterceptDrags", Done);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum DragEventType {
    DragEnter,
    DragOver,
    Drop,
}

/// One drag event at (`x`, `y`) carrying the intercepted drag's data.
#[derive(Debug, Clone, Serialize)]
pub struct DispatchDragEvent<'a> {
    #[serde(rename = "type")]
    pub kind: DragEventType,
    pub x: f64,
    pub y: f64,
    pub data: &'a Value,
}
command!(DispatchDragEvent<'a>, "Input.dispatchDragEvent", Done);

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_mouse_event_sends_only_what_it_sets_in_chromiums_names() {
        let press = DispatchMouseEvent {
            button: Some(MouseButton::Left),
            click_count: Some(1),
            buttons: Some(1),
            ..DispatchMouseEvent::at(MouseEventType::Pressed, 1.0, 2.5)
        };
        assert_eq!(
            serde_json::to_value(press).unwrap(),
            json!({ "type": "mousePressed", "x": 1.0, "y": 2.5, "button": "left", "clickCount": 1, "buttons": 1 })
        );
        let key = DispatchKeyEvent {
            kind: KeyEventType::RawKeyDown,
            key: "Shift",
            code: "ShiftLeft",
            windows_virtual_key_code: 16,
            native_virtual_key_code: 16,
            modifiers: 8,
            text: None,
            unmodified_text: None,
        };
        assert_eq!(serde_json::to_value(key).unwrap()["type"], "rawKeyDown");
    }
}
