//! Key names for `page.press`, following Playwright's (`Enter`, `Control+A`, `ArrowDown`, `a`).
//!
//! A combo is modifiers joined with `+` and one key last. Each key becomes the CDP
//! `Input.dispatchKeyEvent` fields a real keyboard would produce.

use crate::browser::error::BrowserError;

#[derive(Debug, Clone, PartialEq)]
pub struct Key {
    pub key: String,
    pub code: String,
    pub key_code: u32,
    /// The text the key types (none for Enter-less control keys and under Control/Alt/Meta).
    pub text: Option<String>,
}

/// A parsed combo: modifier keys in order, then the main key, and the CDP modifiers bitmask.
#[derive(Debug, Clone, PartialEq)]
pub struct Combo {
    pub modifiers: Vec<Key>,
    pub key: Key,
    pub mask: u32,
}

/// CDP modifier bits.
const ALT: u32 = 1;
const CONTROL: u32 = 2;
const META: u32 = 4;
const SHIFT: u32 = 8;

fn named(name: &str) -> Option<(&'static str, &'static str, u32, Option<&'static str>)> {
    Some(match name {
        "Enter" => ("Enter", "Enter", 13, Some("\r")),
        "Tab" => ("Tab", "Tab", 9, None),
        "Backspace" => ("Backspace", "Backspace", 8, None),
        "Delete" => ("Delete", "Delete", 46, None),
        "Escape" => ("Escape", "Escape", 27, None),
        "Space" | " " => (" ", "Space", 32, Some(" ")),
        "ArrowUp" => ("ArrowUp", "ArrowUp", 38, None),
        "ArrowDown" => ("ArrowDown", "ArrowDown", 40, None),
        "ArrowLeft" => ("ArrowLeft", "ArrowLeft", 37, None),
        "ArrowRight" => ("ArrowRight", "ArrowRight", 39, None),
        "Home" => ("Home", "Home", 36, None),
        "End" => ("End", "End", 35, None),
        "PageUp" => ("PageUp", "PageUp", 33, None),
        "PageDown" => ("PageDown", "PageDown", 34, None),
        "Insert" => ("Insert", "Insert", 45, None),
        "Shift" => ("Shift", "ShiftLeft", 16, None),
        "Control" => ("Control", "ControlLeft", 17, None),
        "Alt" => ("Alt", "AltLeft", 18, None),
        "Meta" => ("Meta", "MetaLeft", 91, None),
        _ => return None,
    })
}

fn modifier_bit(name: &str) -> Option<u32> {
    match name {
        "Alt" => Some(ALT),
        "Control" | "Ctrl" => Some(CONTROL),
        "Meta" | "Command" | "Cmd" => Some(META),
        "Shift" => Some(SHIFT),
        _ => None,
    }
}

/// One key by name, or a single character.
fn key(name: &str, shift: bool) -> Option<Key> {
    if let Some((key, code, key_code, text)) = named(name) {
        return Some(Key { key: key.into(), code: code.into(), key_code, text: text.map(str::to_owned) });
    }
    if let Some(n) = name.strip_prefix('F').and_then(|n| n.parse::<u32>().ok()).filter(|n| (1..=12).contains(n)) {
        return Some(Key { key: name.into(), code: name.into(), key_code: 111 + n, text: None });
    }
    let mut chars = name.chars();
    let (Some(c), None) = (chars.next(), chars.next()) else { return None };
    let (code, key_code) = match c {
        'a'..='z' | 'A'..='Z' => (format!("Key{}", c.to_ascii_uppercase()), c.to_ascii_uppercase() as u32),
        '0'..='9' => (format!("Digit{c}"), c as u32),
        _ => (String::new(), 0),
    };
    let typed = if shift && c.is_ascii_lowercase() { c.to_ascii_uppercase() } else { c };
    Some(Key { key: typed.to_string(), code, key_code, text: Some(typed.to_string()) })
}

impl std::str::FromStr for Combo {
    type Err = BrowserError;

    fn from_str(combo: &str) -> Result<Self, BrowserError> {
        parse(combo)
    }
}

pub fn parse(combo: &str) -> Result<Combo, BrowserError> {
    let invalid = |why: String| BrowserError::InvalidOption(format!("key {}: {why}", crate::quote::quote(combo)));
    if combo.is_empty() {
        return Err(invalid("empty".into()));
    }
    // "+" alone, or a trailing "++", means the plus key itself.
    let parts: Vec<&str> = if combo == "+" {
        vec!["+"]
    } else if let Some(head) = combo.strip_suffix("++") {
        head.split('+').chain(std::iter::once("+")).collect()
    } else {
        combo.split('+').collect()
    };
    let (last, mods) = parts.split_last().ok_or_else(|| invalid("empty".into()))?;
    let mut mask = 0;
    let mut modifiers = Vec::new();
    for m in mods {
        let bit =
            modifier_bit(m).ok_or_else(|| invalid(format!("{m:?} is not a modifier (Shift, Control, Alt, Meta)")))?;
        mask |= bit;
        let canonical = match bit {
            ALT => "Alt",
            CONTROL => "Control",
            META => "Meta",
            _ => "Shift",
        };
        modifiers.push(key(canonical, false).ok_or_else(|| invalid(format!("{canonical} is not a key")))?);
    }
    let mut main = key(last, mask & SHIFT != 0).ok_or_else(|| {
        invalid(format!("unknown key {last:?}; use a character or a name such as Enter, Tab, ArrowDown, F5"))
    })?;
    if mask & (CONTROL | ALT | META) != 0 {
        main.text = None;
        // Control+A on a real keyboard reports "a": only Shift makes a letter upper case.
        if mask & SHIFT == 0 && main.key.len() == 1 {
            main.key = main.key.to_ascii_lowercase();
        }
    }
    Ok(Combo { modifiers, key: main, mask })
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_keys_and_characters() {
        let enter = parse("Enter").unwrap();
        assert_eq!((enter.key.key.as_str(), enter.key.key_code, enter.key.text.as_deref()), ("Enter", 13, Some("\r")));
        let a = parse("a").unwrap();
        assert_eq!((a.key.code.as_str(), a.key.key_code, a.key.text.as_deref()), ("KeyA", 65, Some("a")));
        assert_eq!(parse("ArrowDown").unwrap().key.key_code, 40);
        assert_eq!(parse("F5").unwrap().key.key_code, 116);
    }

    #[test]
    fn combos_set_modifiers_and_suppress_text() {
        let c = parse("Control+A").unwrap();
        assert_eq!(c.mask, CONTROL);
        assert_eq!(c.modifiers.len(), 1);
        assert_eq!(c.key.text, None);
        assert_eq!(c.key.key, "a");
        let s = parse("Shift+a").unwrap();
        assert_eq!(s.key.text.as_deref(), Some("A"));
        assert_eq!(parse("Control+Shift+ArrowLeft").unwrap().mask, CONTROL | SHIFT);
        assert_eq!(parse("Shift++").unwrap().key.key, "+");
    }

    #[test]
    fn unknown_keys_are_named_in_the_error() {
        let err = parse("Enterr").unwrap_err().to_string();
        assert!(err.contains("unknown key \"Enterr\""), "{err}");
        let err = parse("Hyper+a").unwrap_err().to_string();
        assert!(err.contains("not a modifier"), "{err}");
    }
}
