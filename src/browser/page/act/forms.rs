//! Forms: typing a value into a field (`page.fill`), choosing `<select>` options, checking boxes,
//! setting any field from one value (`page.fillForm`), and focusing an element.
//!
//! Filling types as a user does (the old text selected, the new typed, `input` events); date,
//! color and range inputs take the value set by script. Selecting sets the options a user would
//! pick (by value or by visible label) and fires `input` and `change`. Checking clicks the box like
//! a user when its state differs, then verifies the new state — a page that refuses the click is
//! reported, not papered over.

use serde_json::json;

use super::keyboard::dispatch_key;
use super::keys;
use super::listeners::{Input, ahead_of, input_on};
use super::pointer::{ClickOptions, dispatch_click};
use super::run::{Acted, ActionRun, follow_navigation, leave_field};
use crate::browser::chromium::protocol::input::InsertText;
use crate::browser::error::BrowserError;
use crate::browser::page::locate::action::Action;
use crate::browser::page::locate::answers::Field;
use crate::browser::page::locate::scripts::{FieldKindOf, FinishFill, IsChecked, SelectOptions};
use crate::browser::page::locate::target::Target;

/// The value a form field is set to.
#[derive(Debug, Clone, PartialEq)]
pub enum FieldValue {
    /// Typed into a text field, or the one option of a select.
    Text(String),
    /// Checks (true) or unchecks (false) a checkbox or radio.
    Flag(bool),
    /// The options of a (multiple) select.
    Choices(Vec<String>),
}

impl ActionRun {
    /// Types `value` into the element, replacing its text. With `refuse_password`
    /// (REFUSE_PASSWORD_FILL), password fields are refused before anything is typed.
    pub async fn fill(&self, target: &Target, value: &str, refuse_password: bool) -> Result<Acted, BrowserError> {
        let (page, deadline) = (&self.page, self.deadline);
        let ready = page.locate().ready(target, Action::Fill, "page.fill", true, deadline).await?;
        if ready.password && refuse_password {
            return Err(BrowserError::NotAllowed(format!(
                "page.fill into the password field {target} is refused: the operator set REFUSE_PASSWORD_FILL"
            )));
        }
        if ready.password {
            // Whatever the page does with it, it never shows up in what the service returns.
            page.watch().store().redactor.remember(value);
        }
        if ready.set_value {
            // Set by script: the events it dispatches are untrusted, so the listeners are asked for.
            let ahead = ahead_of(page, target, Input::Fill, None, deadline).await;
            page.locate().call(FinishFill, &[json!(value), json!(true)], deadline).await?;
            return Ok(Acted { ahead, ..Acted::of(ready, None) });
        }
        let input = input_on(page, target, Input::Fill);
        if value.is_empty() {
            // The old text is selected: deleting it is what a user would do.
            dispatch_key(page, &keys::parse("Delete")?, deadline).await?;
        } else {
            page.send(InsertText { text: value }, deadline).await?;
        }
        // The field's `change` fires with the look at the action's end; with no watch of the
        // page's (a child frame's field) there is no such look, so now.
        if input.is_none() {
            page.locate().call(FinishFill, &[json!(value), json!(false)], deadline).await?;
        }
        Ok(Acted { change: input.is_some(), ..Acted::of(ready, input) })
    }

    /// Chooses the options of a `<select>` by value or label; returns the chosen values.
    pub async fn select(&self, target: &Target, wanted: &[String]) -> Result<(Vec<String>, Acted), BrowserError> {
        let (page, deadline) = (&self.page, self.deadline);
        let ready = page.locate().ready(target, Action::Select, "page.select", true, deadline).await?;
        let ahead = ahead_of(page, target, Input::Fill, Some((ready.x, ready.y)), deadline).await;
        let chosen = page.locate().call_on(SelectOptions, target, &[json!(wanted)], deadline).await?;
        Ok((chosen, Acted { ahead, ..Acted::of(ready, None) }))
    }

    /// Checks (`want`) or unchecks a checkbox or radio by clicking it when its state differs.
    pub async fn set_checked(&self, target: &Target, want: bool) -> Result<Acted, BrowserError> {
        let (page, deadline) = (&self.page, self.deadline);
        if page.locate().call_on(IsChecked, target, &[], deadline).await? == want {
            return Ok(Acted::default());
        }
        let ready = page.locate().ready(target, Action::Check, "page.check", true, deadline).await?;
        let input = input_on(page, target, Input::Check);
        let click = ClickOptions { click_count: 1, ..Default::default() };
        let before = dispatch_click(page, ready.x, ready.y, &click, deadline).await?;
        // Followed before the state is read, in the document the click leads to.
        follow_navigation(page, before, deadline).await?;
        if page.locate().call_on(IsChecked, target, &[], deadline).await? != want {
            return Err(BrowserError::NotActionable {
                selector: target.to_string(),
                reason: format!(
                    "did not become {} when clicked (a radio cannot be unchecked by a click; a script may undo it)",
                    if want { "checked" } else { "unchecked" }
                ),
            });
        }
        Ok(Acted::of(ready, input))
    }

    /// Sets one field the way its kind takes a value: types into text fields, chooses options of
    /// selects, checks or unchecks boxes.
    pub async fn set_field(
        &self,
        target: &Target,
        value: &FieldValue,
        refuse_password: bool,
    ) -> Result<Acted, BrowserError> {
        let kind = self.page.locate().call_on(FieldKindOf, target, &[], self.deadline).await?.kind;
        match (kind, value) {
            (Field::Checkbox | Field::Radio, FieldValue::Flag(want)) => self.set_checked(target, *want).await,
            (Field::Checkbox | Field::Radio, other) => Err(BrowserError::InvalidOption(format!(
                "{target} is a {}: give true or false as its value, not {}",
                kind.name(),
                describe(other)
            ))),
            (Field::Select, FieldValue::Text(one)) => {
                self.select(target, std::slice::from_ref(one)).await.map(|(_, acted)| acted)
            }
            (Field::Select, FieldValue::Choices(many)) => self.select(target, many).await.map(|(_, acted)| acted),
            (Field::Select, FieldValue::Flag(_)) => Err(BrowserError::InvalidOption(format!(
                "{target} is a select: give an option's value or label (or an array of them), not true/false"
            ))),
            (Field::Text, FieldValue::Text(text)) => {
                // The next field is focused right after: this one is left, with its change, now.
                let acted = self.fill(target, text, refuse_password).await?;
                if acted.change {
                    leave_field(&self.page, self.deadline).await;
                }
                Ok(Acted { change: false, ..acted })
            }
            (Field::Text, other) => {
                Err(BrowserError::InvalidOption(format!("{target} takes text, not {}", describe(other))))
            }
        }
    }

    /// Gives the element keyboard focus (`focus`, `focusin`).
    pub async fn focus(&self, target: &Target) -> Result<(), BrowserError> {
        self.page.locate().ready(target, Action::Focus, "page.focus", true, self.deadline).await.map(|_| ())
    }
}

fn describe(value: &FieldValue) -> &'static str {
    match value {
        FieldValue::Text(_) => "text",
        FieldValue::Flag(_) => "true/false",
        FieldValue::Choices(_) => "an array",
    }
}
