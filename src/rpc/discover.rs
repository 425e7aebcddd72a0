//! `rpc.discover`: the API as an agent learns it, at the cost it chooses.
//!
//! - no params: the whole OpenRPC document (what OpenRPC tools expect; openrpc.json);
//! - `brief: true`: one line per method (see `brief`) and a legend, all methods in a few KB;
//! - `methods: ["page.click", "network."]`: only those methods (names, or prefixes ending in a
//!   dot), each with its full schema, as an OpenRPC document of its own: their params spelled out
//!   and the schemas they reach, nothing else. With `brief`, their lines only.
//!
//! Everything is derived once, at start-up, from the registry ([`Discovery::new`]), and so is the
//! usage line an `invalid_params` error carries (`data.usage`, see `ApiError::with_usage`).

use std::collections::BTreeSet;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::brief::{self, Form};
use super::error::ApiError;
use super::registry::{MethodSpec, Params, method};
use super::{RpcContext, openrpc};

const SCHEMAS_PATH: &str = "#/components/schemas/";

// `rpc.discover`'s params (no doc comment: the summary says it all, and openrpc.json is near
// its budget).
#[derive(Debug, Deserialize, JsonSchema)]
pub struct DiscoverParams {
    /// Only these: names (page.click) or prefixes (page.).
    pub methods: Option<Vec<String>>,
    /// A line per method (params, types, purpose) instead of schemas.
    pub brief: Option<bool>,
}

impl Params for DiscoverParams {}

/// The `rpc.discover` method.
pub fn spec() -> MethodSpec {
    method(
        "rpc.discover",
        "The OpenRPC document: whole, a line per method (brief), or only some methods (methods).",
        |ctx: Arc<RpcContext>, params: DiscoverParams| {
            let answer = ctx.discovery.answer(&params);
            async move { answer }
        },
    )
    .example(r#"{"brief": true}"#)
}

/// What `rpc.discover` answers from, built once from the registry.
pub struct Discovery {
    /// The whole OpenRPC document.
    pub document: Value,
    /// How to read the brief lines.
    legend: String,
    /// Every method the document describes, in its order.
    lines: Vec<Lines>,
}

/// One method's lines.
struct Lines {
    name: String,
    brief: String,
    usage: Arc<str>,
}

impl Discovery {
    pub fn new(methods: &[MethodSpec]) -> Self {
        let document = openrpc::document(methods);
        let components = &document["components"];
        let described = document["methods"].as_array().cloned().unwrap_or_default();
        let lines = described
            .iter()
            .map(|m| {
                let spec = methods.iter().find(|s| m["name"] == s.name);
                Lines {
                    name: m["name"].as_str().unwrap_or_default().to_owned(),
                    brief: brief::line(m, spec, components, Form::Brief),
                    usage: brief::line(m, spec, components, Form::Usage).into(),
                }
            })
            .collect();
        let legend = brief::legend(&described, methods, components);
        Self { document, legend, lines }
    }

    /// Method `name`'s params in one line (`page.goto {session_id*, tab_id, url*, …}`).
    pub fn usage(&self, name: &str) -> Option<Arc<str>> {
        self.lines.iter().find(|l| l.name == name).map(|l| l.usage.clone())
    }

    /// What `rpc.discover` answers to `params`.
    pub fn answer(&self, params: &DiscoverParams) -> Result<Value, ApiError> {
        let names = match &params.methods {
            None => None,
            Some(patterns) => Some(self.select(patterns)?),
        };
        let wanted = |name: &str| names.as_ref().is_none_or(|n| n.iter().any(|w| w == name));
        Ok(match (params.brief.unwrap_or(false), &names) {
            (true, _) => json!({
                "legend": self.legend,
                "methods": self.lines.iter().filter(|l| wanted(&l.name)).map(|l| &l.brief).collect::<Vec<_>>(),
            }),
            (false, None) => self.document.clone(),
            (false, Some(_)) => self.only(wanted),
        })
    }

    /// The names `patterns` select, in the document's order; an entry that selects nothing is an
    /// error naming it (with the method it probably meant).
    fn select(&self, patterns: &[String]) -> Result<Vec<String>, ApiError> {
        if patterns.is_empty() {
            return Err(ApiError::invalid(
                "methods",
                "methods is empty: name a method (page.click) or a prefix (page.)",
            ));
        }
        let names: Vec<String> = self.lines.iter().map(|l| l.name.clone()).collect();
        let matches = |pattern: &str, name: &str| match pattern.strip_suffix('*').unwrap_or(pattern) {
            prefix if prefix.ends_with('.') => name.starts_with(prefix),
            exact => name == exact,
        };
        for (i, pattern) in patterns.iter().enumerate() {
            if !names.iter().any(|n| matches(pattern, n)) {
                let hint = match super::suggest_method(pattern, &names) {
                    Some(meant) => format!(" (did you mean {meant}?)"),
                    None => " (rpc.discover {\"brief\": true} lists every method)".to_owned(),
                };
                let quoted = crate::quote::quote(pattern);
                return Err(ApiError::invalid(format!("methods[{i}]"), format!("no method is {quoted}{hint}")));
            }
        }
        Ok(names.into_iter().filter(|n| patterns.iter().any(|p| matches(p, n))).collect())
    }

    /// An OpenRPC document of the methods `wanted` accepts: their params spelled out (no shared
    /// descriptors to look up) and the schemas they reach.
    fn only(&self, wanted: impl Fn(&str) -> bool) -> Value {
        let components = &self.document["components"];
        let methods: Vec<Value> = self.document["methods"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|m| wanted(m["name"].as_str().unwrap_or_default()))
            .map(|m| {
                let mut m = m.clone();
                if let Some(params) = m["params"].as_array_mut() {
                    for param in params.iter_mut() {
                        *param = descriptor(param, components);
                    }
                }
                m
            })
            .collect();
        let all = components["schemas"].as_object().cloned().unwrap_or_default();
        let mut reached = BTreeSet::new();
        methods.iter().for_each(|m| reach(m, &all, &mut reached));
        let schemas: Map<String, Value> = all.into_iter().filter(|(name, _)| reached.contains(name)).collect();
        json!({
            "openrpc": self.document["openrpc"],
            "info": self.document["info"],
            "methods": methods,
            "components": { "schemas": schemas },
        })
    }
}

/// A param as its content descriptor (a shared one's `$ref` followed).
fn descriptor(param: &Value, components: &Value) -> Value {
    match param.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix("#/components/")) {
        Some(path) => path.split('/').try_fold(components, |v, k| v.get(k)).cloned().unwrap_or(Value::Null),
        None => param.clone(),
    }
}

/// Adds to `reached` every schema `value` refers to, and those they refer to.
fn reach(value: &Value, schemas: &Map<String, Value>, reached: &mut BTreeSet<String>) {
    match value {
        Value::Object(map) => {
            if let Some(name) = map.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix(SCHEMAS_PATH))
                && reached.insert(name.to_owned())
                && let Some(schema) = schemas.get(name)
            {
                reach(schema, schemas, reached);
            }
            map.values().for_each(|v| reach(v, schemas, reached));
        }
        Value::Array(items) => items.iter().for_each(|v| reach(v, schemas, reached)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn discovery() -> Discovery {
        Discovery::new(&crate::rpc::all_methods())
    }

    fn ask(params: Value) -> Result<Value, ApiError> {
        discovery().answer(&serde_json::from_value(params).unwrap())
    }

    #[test]
    fn a_prefix_selects_a_namespace_and_a_name_one_method() {
        let d = discovery();
        let names = d.select(&["network.".into(), "page.click".into()]).unwrap();
        assert!(names.iter().all(|n| n.starts_with("network.") || n == "page.click"), "{names:?}");
        assert!(names.contains(&"network.pull".to_owned()) && names.len() > 3, "{names:?}");
        assert_eq!(d.select(&["tabs.*".into()]).unwrap().len(), d.select(&["tabs.".into()]).unwrap().len());
    }

    #[test]
    fn an_unknown_method_is_named_with_the_one_meant() {
        let err = ask(json!({ "methods": ["page.clik"] })).unwrap_err();
        let message = err.to_string();
        assert!(message.contains("no method is \"page.clik\" (did you mean page.click?)"), "{message}");
        let obj = err.to_error_object();
        assert!(obj.data().unwrap().get().contains("\"param\":\"methods[0]\""), "{:?}", obj.data());
        assert!(ask(json!({ "methods": [] })).is_err());
        assert!(ask(json!({ "methods": ["nothing."] })).unwrap_err().to_string().contains("brief"));
    }

    #[test]
    fn some_methods_come_with_the_schemas_they_reach_and_no_others() {
        let doc = ask(json!({ "methods": ["page.goto"] })).unwrap();
        assert_eq!(doc["methods"].as_array().unwrap().len(), 1);
        let text = doc.to_string();
        assert!(!text.contains("#/components/contentDescriptors/"), "params are spelled out: {text}");
        let schemas = doc["components"]["schemas"].as_object().unwrap();
        assert!(schemas.contains_key("WaitUntil"), "{schemas:?}");
        assert!(!schemas.contains_key("Effects"), "page.goto's answer has no effects: {schemas:?}");
        let mut reached = BTreeSet::new();
        reach(&doc["methods"], schemas, &mut reached);
        assert_eq!(reached.len(), schemas.len(), "every schema is reached, none dangles");
    }

    #[test]
    fn brief_lists_every_method_of_the_document_once() {
        let d = discovery();
        let all = d.answer(&DiscoverParams { methods: None, brief: Some(true) }).unwrap();
        let lines = all["methods"].as_array().unwrap();
        assert_eq!(lines.len(), d.document["methods"].as_array().unwrap().len());
        assert!(all["legend"].as_str().unwrap().starts_with("method {params}: what it does."));
        let some = ask(json!({ "brief": true, "methods": ["page.click", "session."] })).unwrap();
        let names: Vec<&str> = some["methods"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l.as_str().unwrap().split([' ', ':']).next().unwrap())
            .collect();
        assert_eq!(names, ["session.create", "session.close", "session.run", "page.click"]);
    }

    #[test]
    fn no_params_is_the_whole_document() {
        let d = discovery();
        assert_eq!(d.answer(&DiscoverParams { methods: None, brief: None }).unwrap(), d.document);
        assert_eq!(d.answer(&DiscoverParams { methods: None, brief: Some(false) }).unwrap(), d.document);
    }
}
