//! States a script set to the value they already had (`button.disabled = true` on a disabled
//! button), as the DOM watcher reports them ([`KeptState`]): nothing changed, so no change is
//! recorded, but `page.inspect` can say what kept a state so ("updateForm ran on input and left it
//! disabled"). Kept per document, the latest [`MAX_KEPT`] of a page.

use std::collections::VecDeque;

use serde::Deserialize;

/// A state attribute a script set to the value it already had (`button.disabled = true` on a
/// disabled button): nothing changed, but something kept it so.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct KeptState {
    /// When: ms since the Unix epoch, by the page's clock.
    #[serde(rename = "t")]
    pub at: f64,
    /// The element, as changes name it.
    #[serde(rename = "el")]
    pub element: String,
    /// The attributes kept: (name, value); `None` = absent.
    #[serde(default)]
    pub attrs: Vec<(String, Option<String>)>,
    /// The user input it followed in the same task.
    #[serde(default)]
    pub input: Option<String>,
    /// The causes of the observer callbacks that reported it.
    #[serde(default)]
    pub causes: Vec<u32>,
}

impl KeptState {
    /// Cuts what the page sent to size: `max_causes` causes, 8 attributes.
    pub fn trim(&mut self, max_causes: usize) {
        self.element = self.element.chars().take(120).collect();
        self.causes.truncate(max_causes);
        self.attrs.truncate(8);
        for (name, value) in &mut self.attrs {
            *name = name.chars().take(40).collect();
            *value = value.take().map(|v| v.chars().take(60).collect());
        }
        self.input = self.input.take().map(|i| i.chars().take(160).collect());
    }
}

/// Kept states remembered per page (the oldest go first).
pub const MAX_KEPT: usize = 64;

/// The kept states of one page, each with the document (the timeline's count of documents) it
/// happened in.
#[derive(Debug, Default)]
pub struct KeptLog {
    kept: VecDeque<(u64, KeptState)>,
}

impl KeptLog {
    pub fn push(&mut self, document: u64, kept: KeptState) {
        if self.kept.len() == MAX_KEPT {
            self.kept.pop_front();
        }
        self.kept.push_back((document, kept));
    }

    /// The times `attr` of `element` was kept in `document`, oldest first.
    pub fn of<'a>(&'a self, document: u64, element: &'a str, attr: &'a str) -> impl Iterator<Item = &'a KeptState> {
        self.kept
            .iter()
            .filter(move |(d, k)| *d == document && k.element == element && k.attrs.iter().any(|(n, _)| n == attr))
            .map(|(_, k)| k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kept(element: &str, attr: &str, at: f64) -> KeptState {
        KeptState {
            at,
            element: element.into(),
            attrs: vec![(attr.into(), Some(String::new()))],
            input: None,
            causes: vec![],
        }
    }

    #[test]
    fn kept_states_are_found_per_document_element_and_attribute_and_bounded() {
        let mut log = KeptLog::default();
        log.push(1, kept("#save", "disabled", 1.0));
        log.push(2, kept("#save", "disabled", 2.0));
        log.push(2, kept("#save", "hidden", 3.0));
        log.push(2, kept("#other", "disabled", 4.0));
        let found: Vec<f64> = log.of(2, "#save", "disabled").map(|k| k.at).collect();
        assert_eq!(found, vec![2.0]);
        for i in 0..MAX_KEPT {
            log.push(3, kept("#save", "disabled", i as f64));
        }
        assert_eq!(log.of(2, "#save", "disabled").count(), 0, "the oldest went");
        assert_eq!(log.of(3, "#save", "disabled").count(), MAX_KEPT);
    }
}
