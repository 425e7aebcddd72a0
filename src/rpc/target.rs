//! Which element a method works on: its `selector` param, or its `ref` param (a ref from
//! page.snapshot, the same as the selector `ref=e5`). Every method that takes a selector takes
//! both, and this is the one place that checks them.

use super::error::ApiError;
use crate::browser::refs::is_ref;

/// The selector for a method that needs an element: exactly one of `selector` and `ref`.
pub fn required(selector: Option<String>, element_ref: Option<String>) -> Result<String, ApiError> {
    optional(selector, element_ref)?.ok_or_else(|| ApiError::invalid("selector", "missing selector (or ref)"))
}

/// The selector for a method whose element is optional: at most one of `selector` and `ref`.
pub fn optional(selector: Option<String>, element_ref: Option<String>) -> Result<Option<String>, ApiError> {
    match (selector, element_ref) {
        (Some(selector), None) if selector.trim().is_empty() => {
            Err(ApiError::invalid("selector", "selector must not be empty"))
        }
        (Some(selector), None) => Ok(Some(selector)),
        (None, Some(name)) if is_ref(name.trim()) => Ok(Some(format!("ref={}", name.trim()))),
        (None, Some(name)) => {
            Err(ApiError::invalid("ref", format!("{name:?} is not a ref; refs look like e5 (from page.snapshot)")))
        }
        (Some(_), Some(_)) => Err(ApiError::invalid("ref", "give selector or ref, not both")),
        (None, None) => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ref_becomes_a_ref_selector() {
        assert_eq!(required(None, Some(" e12 ".into())).unwrap(), "ref=e12");
        assert_eq!(optional(None, Some("e3".into())).unwrap().as_deref(), Some("ref=e3"));
    }

    #[test]
    fn selector_and_ref_together_are_refused() {
        let err = optional(Some("#a".into()), Some("e1".into())).unwrap_err();
        assert!(err.to_string().contains("not both"), "{err}");
    }

    #[test]
    fn things_that_are_not_refs_are_refused() {
        for bad in ["5", "e", "ex", "#e5", "ref=e5", ""] {
            assert!(optional(None, Some(bad.into())).is_err(), "{bad}");
        }
    }

    #[test]
    fn missing_or_empty_selectors_are_refused_where_one_is_needed() {
        assert!(required(None, None).is_err());
        assert!(optional(None, None).unwrap().is_none());
        assert!(optional(Some("  ".into()), None).is_err());
    }
}
