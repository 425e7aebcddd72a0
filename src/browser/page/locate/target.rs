//! [`Target`]: the element a method works on, parsed once where it enters the service.
//!
//! A method's `selector` param (any selector form) or its `ref` param (`e5`, from page.snapshot)
//! becomes a `Target`: the parsed [`Selector`] plus the text the caller gave, kept only to name the
//! element in messages ("#save is covered by …"). Everything below the RPC layer takes a `&Target`;
//! nothing turns it back into a string to parse again.

use std::fmt;

use serde_json::{Value, json};

use super::refs::is_ref;
use super::selector::Selector;
use crate::browser::error::BrowserError;

#[derive(Debug, Clone, PartialEq)]
pub struct Target {
    selector: Selector,
    /// How the caller wrote it, for messages.
    source: String,
}

impl Target {
    /// A selector in any form (CSS, `role=`, `text=`, `xpath=`, `ref=e5`).
    pub fn parse(selector: &str) -> Result<Self, BrowserError> {
        Ok(Self { selector: Selector::parse(selector)?, source: selector.trim().to_owned() })
    }

    /// A ref from page.snapshot, such as `e5`.
    pub fn from_ref(name: &str) -> Result<Self, BrowserError> {
        let name = name.trim();
        if !is_ref(name) {
            return Err(BrowserError::InvalidSelector {
                selector: name.to_owned(),
                reason: "not a ref; refs look like e5 (from page.snapshot)".into(),
            });
        }
        Ok(Self { selector: Selector::Ref(name.to_owned()), source: format!("ref={name}") })
    }

    /// The whole document's body: what reading methods use when no element is named.
    pub fn body() -> Self {
        Self { selector: Selector::Css("body".into()), source: "body".into() }
    }

    pub fn selector(&self) -> &Selector {
        &self.selector
    }

    /// The ref name, when the target is a ref.
    pub fn ref_name(&self) -> Option<&str> {
        match &self.selector {
            Selector::Ref(name) => Some(name),
            _ => None,
        }
    }

    /// What the page-side scripts receive (`lib.js` `query(spec, handles)`): the engine and its
    /// value, or `handles` when the service resolved the elements itself (roles, refs).
    pub fn spec(&self) -> Value {
        let source = &self.source;
        match &self.selector {
            Selector::Css(css) => json!({ "kind": "css", "value": css, "source": source }),
            Selector::Text { text, exact } => {
                json!({ "kind": "text", "value": text, "exact": exact, "source": source })
            }
            Selector::XPath(xpath) => json!({ "kind": "xpath", "value": xpath, "source": source }),
            Selector::Role(_) | Selector::Ref(_) => json!({ "kind": "handles", "source": source }),
        }
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // In messages: a selector is input, so at most 200 characters of it.
        f.write_str(&crate::quote::clip(&self.source))
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ref_param_and_a_ref_selector_are_the_same_target() {
        assert_eq!(Target::from_ref(" e12 ").unwrap(), Target::parse("ref=e12").unwrap());
        assert_eq!(Target::from_ref("e12").unwrap().ref_name(), Some("e12"));
        assert_eq!(Target::from_ref("e3").unwrap().to_string(), "ref=e3");
    }

    #[test]
    fn things_that_are_not_refs_are_refused() {
        for bad in ["5", "e", "ex", "#e5", "ref=e5", ""] {
            assert!(Target::from_ref(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_spec_names_the_engine_and_keeps_the_callers_text() {
        let t = Target::parse("text=\"Sign in\"").unwrap();
        assert_eq!(t.spec(), json!({"kind":"text","value":"Sign in","exact":true,"source":"text=\"Sign in\""}));
        let t = Target::parse("role=button[name=\"Save\"]").unwrap();
        assert_eq!(t.spec()["kind"], "handles");
    }
}
