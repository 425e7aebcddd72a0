//! What the session put into the page's fields (`page.fill`, `page.type`, `page.fillForm`), as the
//! DOM watcher reports it ([`FieldInput`]): each field's name, id and label with the latest value
//! it was given and when. An action's effects set a write's body against it: a body that carries
//! a field of the same name with another value is the stale write an agent would otherwise find by
//! reading bodies (`facts::stale_values`). Never a password field's; the latest [`MAX_INPUTS`]
//! fields of a page.

use std::collections::VecDeque;

use serde::Deserialize;

/// A field the session put a value into (never a password field), as the watcher saw it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct FieldInput {
    /// When it was given the value: ms since the Unix epoch, by the page's clock.
    #[serde(rename = "t")]
    pub at: f64,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub id: String,
    /// Its label's text (or aria-label, or placeholder).
    #[serde(default)]
    pub label: String,
    /// What it holds (a checkbox: true or false), 200 characters at most.
    #[serde(default)]
    pub value: String,
}

impl FieldInput {
    /// Cuts what the page sent to size: 120 characters a name, 200 the value.
    pub fn trim(&mut self) {
        for text in [&mut self.name, &mut self.id, &mut self.label] {
            *text = text.chars().take(120).collect();
        }
        self.value = self.value.chars().take(200).collect();
    }
}

/// Fields remembered per page (the least recently given a value go first).
pub const MAX_INPUTS: usize = 64;

/// The fields of one page the session put values into, the latest last.
#[derive(Debug, Default)]
pub struct InputLog {
    fields: VecDeque<FieldInput>,
}

impl InputLog {
    /// A field was given `input.value`: it replaces what the same field (same name, id and label)
    /// had.
    pub fn push(&mut self, input: FieldInput) {
        self.fields.retain(|f| !(f.name == input.name && f.id == input.id && f.label == input.label));
        if self.fields.len() == MAX_INPUTS {
            self.fields.pop_front();
        }
        self.fields.push_back(input);
    }

    /// The fields given a value before `at` (ms since the Unix epoch), each with the latest value
    /// it had then.
    pub fn before(&self, at: f64) -> impl Iterator<Item = &FieldInput> {
        self.fields.iter().filter(move |f| f.at <= at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(id: &str, value: &str, at: f64) -> FieldInput {
        FieldInput { at, name: String::new(), id: id.into(), label: String::new(), value: value.into() }
    }

    #[test]
    fn a_field_keeps_its_latest_value_and_the_log_is_bounded() {
        let mut log = InputLog::default();
        log.push(input("due", "2026-03-13", 1.0));
        log.push(input("due", "2026-03-20", 2.0));
        let values: Vec<&str> = log.before(5.0).map(|f| f.value.as_str()).collect();
        assert_eq!(values, vec!["2026-03-20"]);
        assert_eq!(log.before(1.5).count(), 0, "given its value later");
        for i in 0..MAX_INPUTS + 3 {
            log.push(input(&format!("f{i}"), "x", 3.0));
        }
        assert_eq!(log.before(5.0).count(), MAX_INPUTS);
        assert!(log.before(5.0).all(|f| f.id != "due"), "the least recent went");
    }
}
