//! Which element a method works on: its `selector` param, or its `ref` param (a ref from
//! page.snapshot, the same as the selector `ref=e5`). Every method that takes an element takes
//! both, through this one block, and gets a parsed [`Target`] — a required one ([`Target`]) or an
//! optional one (`Option<Target>`) as its handler declares.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use super::error::ApiError;
use super::registry::{Block, BlockRole, ParamSet, Params};
use crate::browser::Target;

/// The element params.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct TargetParams {
    /// The element: CSS (default), role=button[name="Save"], text=Save, xpath=//button, or
    /// ref=e5. Give this or `ref`.
    pub selector: Option<String>,
    /// A ref from page.snapshot (e5); the same as selector ref=e5.
    #[serde(rename = "ref")]
    pub element_ref: Option<String>,
}

impl Params for TargetParams {}

impl TargetParams {
    /// At most one of `selector` and `ref`, parsed.
    pub fn into_target(self) -> Result<Option<Target>, ApiError> {
        match (self.selector, self.element_ref) {
            (Some(selector), None) if selector.trim().is_empty() => {
                Err(ApiError::invalid("selector", "selector must not be empty"))
            }
            (Some(selector), None) => Target::parse(&selector).map(Some).map_err(ApiError::from),
            (None, Some(name)) => Target::from_ref(&name).map(Some).map_err(|_| {
                ApiError::invalid("ref", format!("{name:?} is not a ref; refs look like e5 (from page.snapshot)"))
            }),
            (Some(_), Some(_)) => Err(ApiError::invalid("ref", "give selector or ref, not both")),
            (None, None) => Ok(None),
        }
    }
}

/// A method that needs an element: exactly one of `selector` and `ref`.
impl ParamSet for Target {
    fn blocks() -> Vec<Block> {
        vec![Block { role: BlockRole::Target { required: true }, ..Block::of::<TargetParams>() }]
    }
    fn parse(params: &Value) -> Result<Self, ApiError> {
        TargetParams::parse(params)?
            .into_target()?
            .ok_or_else(|| ApiError::invalid("selector", "missing selector (or ref)"))
    }
}

/// A method whose element is optional: at most one of `selector` and `ref`.
impl ParamSet for Option<Target> {
    fn blocks() -> Vec<Block> {
        vec![Block { role: BlockRole::Target { required: false }, ..Block::of::<TargetParams>() }]
    }
    fn parse(params: &Value) -> Result<Self, ApiError> {
        TargetParams::parse(params)?.into_target()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn required(params: Value) -> Result<Target, ApiError> {
        <Target as ParamSet>::parse(&params)
    }

    fn optional(params: Value) -> Result<Option<Target>, ApiError> {
        <Option<Target> as ParamSet>::parse(&params)
    }

    #[test]
    fn a_ref_param_is_the_same_target_as_a_ref_selector() {
        assert_eq!(required(json!({"ref": " e12 "})).unwrap(), Target::parse("ref=e12").unwrap());
        assert_eq!(optional(json!({"ref": "e3"})).unwrap(), Some(Target::parse("ref=e3").unwrap()));
    }

    #[test]
    fn selector_and_ref_together_are_refused() {
        let err = optional(json!({"selector": "#a", "ref": "e1"})).unwrap_err();
        assert!(err.to_string().contains("not both"), "{err}");
    }

    #[test]
    fn things_that_are_not_refs_are_refused_naming_the_ref_param() {
        for bad in ["5", "e", "ex", "#e5", "ref=e5", ""] {
            match optional(json!({ "ref": bad })) {
                Err(ApiError::InvalidParams { param, .. }) => assert_eq!(param.as_deref(), Some("ref"), "{bad}"),
                other => panic!("{bad}: {other:?}"),
            }
        }
    }

    #[test]
    fn missing_or_empty_selectors_are_refused_where_one_is_needed() {
        assert!(required(json!({})).is_err());
        assert!(optional(json!({})).unwrap().is_none());
        assert!(optional(json!({"selector": "  "})).is_err());
    }

    #[test]
    fn a_malformed_selector_is_invalid_selector() {
        let err = required(json!({"selector": "role=button[name=Login]"})).unwrap_err();
        assert_eq!(err.kind(), crate::rpc::error::ErrorKind::InvalidSelector);
    }
}
