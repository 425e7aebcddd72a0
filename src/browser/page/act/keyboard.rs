//! What a user does with a keyboard: a key or combination on an element (`page.press`), and text
//! typed key by key into the focused element or one named (`page.type`), with `keydown`,
//! `keypress`, `input` and `keyup` for every character. A combination's events go out at once, in
//! order (`Core::send_in_order`).

use std::time::Duration;

use tokio::time::Instant;

use super::keys;
use super::listeners::{Input, input_on};
use super::run::{Acted, ActionRun, marks};
use crate::browser::chromium::protocol::input::{DispatchKeyEvent, KeyEventType};
use crate::browser::error::BrowserError;
use crate::browser::page::handle::Page;
use crate::browser::page::locate::action::Action;
use crate::browser::page::locate::scripts::FocusedPassword;
use crate::browser::page::locate::target::Target;

/// Longest pause between two typed keys.
pub const MAX_KEY_DELAY: Duration = Duration::from_secs(1);

impl ActionRun {
    pub async fn press(&self, target: &Target, combo: &keys::Combo) -> Result<Acted, BrowserError> {
        let (page, deadline) = (&self.page, self.deadline);
        let ready = page.locate().ready(target, Action::Press, "page.press", true, deadline).await?;
        let input = input_on(page, target, Input::Keys);
        let before = marks(page);
        dispatch_key(page, combo, deadline).await?;
        Ok(Acted { follow: Some(before), ..Acted::of(ready, input) })
    }

    /// Types `text` key by key into the focused element (or `target`, focused first), with
    /// `delay` between keys. Typed into a password field, the text is a secret like a filled
    /// password: refused under REFUSE_PASSWORD_FILL (`refuse_password`), else kept out of every
    /// answer.
    pub async fn type_text(
        &self,
        target: Option<&Target>,
        text: &str,
        delay: Duration,
        refuse_password: bool,
    ) -> Result<Acted, BrowserError> {
        let (page, deadline) = (&self.page, self.deadline);
        let mut acted = Acted::default();
        if let Some(target) = target {
            let ready = page.locate().ready(target, Action::Press, "page.type", true, deadline).await?;
            acted = Acted::of(ready, None);
        }
        let password = page.locate().call(FocusedPassword, &[], deadline).await?.is_some();
        if password {
            if refuse_password {
                return Err(BrowserError::NotAllowed(
                    "page.type into a password field is refused: the operator set REFUSE_PASSWORD_FILL".into(),
                ));
            }
            page.watch().store().redactor.remember(text);
        }
        acted.input = match target {
            Some(target) => input_on(page, target, Input::Keys),
            None => Some(Input::Keys),
        };
        for (i, c) in text.chars().enumerate() {
            if i > 0 && !delay.is_zero() {
                tokio::time::sleep(delay.min(MAX_KEY_DELAY)).await;
            }
            let combo = match c {
                '\n' | '\r' => keys::parse("Enter")?,
                '\t' => keys::parse("Tab")?,
                c => keys::parse(&c.to_string())?,
            };
            dispatch_key(page, &combo, deadline).await?;
        }
        if password {
            // Typed in pieces, the field holds them joined: that is the secret. (Gone when the
            // keys moved focus or left the page: then what was typed is all there is.)
            if let Ok(Some(value)) = page.locate().call(FocusedPassword, &[], deadline).await {
                page.watch().store().redactor.remember(&value);
            }
        }
        Ok(acted)
    }
}

/// Presses `combo`: its modifiers down, the key down and up, the modifiers up, sent at once.
pub(super) async fn dispatch_key(page: &Page, combo: &keys::Combo, deadline: Instant) -> Result<(), BrowserError> {
    let mut events: Vec<DispatchKeyEvent> =
        combo.modifiers.iter().map(|modifier| key_event(KeyEventType::RawKeyDown, modifier, combo.mask)).collect();
    let down = if combo.key.text.is_some() { KeyEventType::KeyDown } else { KeyEventType::RawKeyDown };
    events.push(key_event(down, &combo.key, combo.mask));
    events.push(key_event(KeyEventType::KeyUp, &combo.key, combo.mask));
    events.extend(combo.modifiers.iter().rev().map(|modifier| key_event(KeyEventType::KeyUp, modifier, 0)));
    page.send_in_order(events, deadline).await
}

/// One `Input.dispatchKeyEvent` of `key` (a `keyDown` carries the text it types).
fn key_event(kind: KeyEventType, key: &keys::Key, modifiers: u32) -> DispatchKeyEvent<'_> {
    let text = key.text.as_deref().filter(|_| kind == KeyEventType::KeyDown);
    DispatchKeyEvent {
        kind,
        key: &key.key,
        code: &key.code,
        windows_virtual_key_code: key.key_code,
        native_virtual_key_code: key.key_code,
        modifiers,
        text,
        unmodified_text: text,
    }
}
