//! Forms: choosing `<select>` options, checking boxes, and setting any field from one value
//! (`page.fillForm`).
//!
//! Selecting sets the options a user would pick (by value or by visible label) and fires `input`
//! and `change`. Checking clicks the box like a user when its state differs, then verifies the new
//! state — a page that refuses the click is reported, not papered over.

use serde_json::{Value, json};
use tokio::time::Instant;

use super::action::Action;
use super::actions::{Acted, ClickOptions};
use super::handle::Page;
use super::reach::Input;
use super::target::Target;
use crate::browser::error::BrowserError;

const FIELD_KIND_JS: &str = include_str!("../../js/field_kind.js");
const SELECT_OPTIONS_JS: &str = include_str!("../../js/select_options.js");
const IS_CHECKED_JS: &str = include_str!("../../js/is_checked.js");

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

impl Page {
    /// Chooses the options of a `<select>` by value or label; returns the chosen values.
    pub async fn select(
        &self,
        target: &Target,
        wanted: &[String],
        deadline: Instant,
    ) -> Result<(Vec<String>, Acted), BrowserError> {
        let ready = self.wait_ready(target, Action::Select, "page.select", deadline).await?;
        let ahead = self.ahead_of(target, Input::Fill, Some((ready.x, ready.y)), deadline).await;
        let chosen = self.call_helper_on(SELECT_OPTIONS_JS, target, &[json!(wanted)], deadline).await?;
        let chosen = chosen
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_str).map(str::to_owned).collect())
            .unwrap_or_default();
        Ok((chosen, Acted { ahead, ..Acted::of(ready, None) }))
    }

    /// Checks (`want`) or unchecks a checkbox or radio by clicking it when its state differs.
    pub async fn set_checked(&self, target: &Target, want: bool, deadline: Instant) -> Result<Acted, BrowserError> {
        if self.is_checked(target, deadline).await? == want {
            return Ok(Acted::default());
        }
        let ready = self.wait_ready(target, Action::Check, "page.check", deadline).await?;
        let input = self.input_on(target, Input::Check);
        let click = ClickOptions { click_count: 1, ..Default::default() };
        let before = self.dispatch_click(ready.x, ready.y, &click, deadline).await?;
        // Followed before the state is read, in the document the click leads to.
        self.follow_navigation(before, deadline).await?;
        if self.is_checked(target, deadline).await? != want {
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

    async fn is_checked(&self, target: &Target, deadline: Instant) -> Result<bool, BrowserError> {
        Ok(self.call_helper_on(IS_CHECKED_JS, target, &[], deadline).await?.as_bool().unwrap_or(false))
    }

    /// Sets one field the way its kind takes a value: types into text fields, chooses options of
    /// selects, checks or unchecks boxes.
    pub async fn set_field(
        &self,
        target: &Target,
        value: &FieldValue,
        refuse_password: bool,
        deadline: Instant,
    ) -> Result<Acted, BrowserError> {
        let kind = self.call_helper_on(FIELD_KIND_JS, target, &[], deadline).await?;
        let kind = kind["kind"].as_str().unwrap_or("text");
        match (kind, value) {
            ("checkbox" | "radio", FieldValue::Flag(want)) => self.set_checked(target, *want, deadline).await,
            ("checkbox" | "radio", other) => Err(BrowserError::InvalidOption(format!(
                "{target} is a {kind}: give true or false as its value, not {}",
                describe(other)
            ))),
            ("select", FieldValue::Text(one)) => {
                self.select(target, std::slice::from_ref(one), deadline).await.map(|(_, acted)| acted)
            }
            ("select", FieldValue::Choices(many)) => self.select(target, many, deadline).await.map(|(_, acted)| acted),
            ("select", FieldValue::Flag(_)) => Err(BrowserError::InvalidOption(format!(
                "{target} is a select: give an option's value or label (or an array of them), not true/false"
            ))),
            (_, FieldValue::Text(text)) => {
                // The next field is focused right after: this one is left, with its change, now.
                let acted = self.fill(target, text, refuse_password, deadline).await?;
                if acted.change {
                    self.leave_field(deadline).await;
                }
                Ok(Acted { change: false, ..acted })
            }
            (_, other) => Err(BrowserError::InvalidOption(format!("{target} takes text, not {}", describe(other)))),
        }
    }
}

fn describe(value: &FieldValue) -> &'static str {
    match value {
        FieldValue::Text(_) => "text",
        FieldValue::Flag(_) => "true/false",
        FieldValue::Choices(_) => "an array",
    }
}
