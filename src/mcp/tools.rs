//! The MCP tools: the JSON-RPC methods that name a tool in the registry (`MethodSpec::tool`), with
//! their summary, description and params taken from the OpenRPC document, the one source every
//! other description of a method is derived from. A tool's input schema is its method's params
//! without `session_id` (the MCP session supplies it), self-contained (no `$ref`s).

use std::collections::HashMap;
use std::sync::Arc;

use rmcp::model::Tool;
use serde_json::{Map, Value, json};

use crate::rpc::MethodSpec;

/// How deep `$ref`s are followed when a schema is made self-contained.
const MAX_REF_DEPTH: usize = 8;

/// Every tool and the method behind it.
pub struct Toolbox {
    pub tools: Vec<Tool>,
    /// Tool name → method name.
    pub methods: HashMap<String, &'static str>,
}

impl Toolbox {
    /// The tools of `methods`, described by `openrpc` (the document built from the same methods).
    pub fn new(methods: &[MethodSpec], openrpc: &Value) -> Self {
        let schemas = openrpc.pointer("/components/schemas").cloned().unwrap_or(Value::Null);
        let documented: HashMap<&str, &Value> = openrpc["methods"]
            .as_array()
            .map(|all| all.iter().filter_map(|m| Some((m["name"].as_str()?, m))).collect())
            .unwrap_or_default();
        let mut tools = Vec::new();
        let mut by_tool = HashMap::new();
        for spec in methods {
            let (Some(tool), Some(doc)) = (spec.tool, documented.get(spec.name)) else { continue };
            let mut description = format!("{} (JSON-RPC method {}.)", spec.summary, spec.name);
            if let Some(more) = doc["description"].as_str() {
                description.push(' ');
                description.push_str(more);
            }
            let schema = input_schema(doc, &schemas);
            tools.push(Tool::new(tool, description, Arc::new(schema)));
            by_tool.insert(tool.to_owned(), spec.name);
        }
        Self { tools, methods: by_tool }
    }
}

/// A JSON Schema object of the method's params, without `session_id`.
fn input_schema(method: &Value, schemas: &Value) -> Map<String, Value> {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for param in method["params"].as_array().into_iter().flatten() {
        let Some(name) = param["name"].as_str() else { continue };
        if name == "session_id" {
            continue;
        }
        let mut schema = inline(&param["schema"], schemas, 0);
        if let (Some(text), Some(object)) = (param["description"].as_str(), schema.as_object_mut()) {
            object.entry("description").or_insert_with(|| json!(text));
        }
        properties.insert(name.to_owned(), schema);
        if param["required"] == true {
            required.push(json!(name));
        }
    }
    let mut object = Map::new();
    object.insert("type".into(), json!("object"));
    object.insert("properties".into(), Value::Object(properties));
    if !required.is_empty() {
        object.insert("required".into(), Value::Array(required));
    }
    object
}

/// `schema` with every `#/components/schemas/…` reference replaced by the schema it names.
fn inline(schema: &Value, schemas: &Value, depth: usize) -> Value {
    match schema {
        Value::Object(map) => {
            if let Some(name) = map.get("$ref").and_then(Value::as_str).and_then(|r| r.rsplit('/').next()) {
                let target = schemas.get(name).cloned().unwrap_or(json!({}));
                return if depth < MAX_REF_DEPTH { inline(&target, schemas, depth + 1) } else { json!({}) };
            }
            Value::Object(map.iter().map(|(k, v)| (k.clone(), inline(v, schemas, depth))).collect())
        }
        Value::Array(items) => Value::Array(items.iter().map(|v| inline(v, schemas, depth)).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tools_schema_drops_session_id_and_inlines_references() {
        let method = json!({ "params": [
            { "name": "session_id", "required": true, "schema": { "type": "string" } },
            { "name": "url", "required": true, "description": "Where to go.", "schema": { "type": "string" } },
            { "name": "waitUntil", "required": false, "schema": { "$ref": "#/components/schemas/WaitUntil" } },
        ]});
        let schemas = json!({ "WaitUntil": { "enum": ["load", "networkidle"] } });
        let schema = Value::Object(input_schema(&method, &schemas));
        assert_eq!(
            schema,
            json!({ "type": "object", "required": ["url"], "properties": {
                "url": { "type": "string", "description": "Where to go." },
                "waitUntil": { "enum": ["load", "networkidle"] },
            }})
        );
    }

    #[test]
    fn the_agent_facing_methods_are_tools() {
        let methods = crate::rpc::all_methods();
        let toolbox = Toolbox::new(&methods, &crate::rpc::openrpc::document(&methods));
        let mut names: Vec<&str> = toolbox.tools.iter().map(|t| t.name.as_ref()).collect();
        names.sort_unstable();
        assert_eq!(
            names,
            vec![
                "assert_text",
                "axe",
                "click",
                "close",
                "console",
                "evaluate",
                "fill",
                "hover",
                "inspect",
                "navigate",
                "network",
                "press",
                "reload",
                "screenshot",
                "select",
                "snapshot",
                "source",
                "tabs",
                "text",
                "timeline",
                "type",
                "wait_for",
            ]
        );
        let navigate = toolbox.tools.iter().find(|t| t.name == "navigate").unwrap();
        assert_eq!(navigate.input_schema["required"], json!(["url"]));
        assert!(navigate.input_schema["properties"].get("session_id").is_none());
    }

    #[test]
    fn the_readme_lists_every_tool_with_its_method() {
        let readme = include_str!("../../README.md");
        let start = readme.find("<!-- tools: begin -->").expect("the README marks its tool list");
        let end = readme.find("<!-- tools: end -->").expect("the tool list's end marker");
        let listed = readme[start..end].replace('\n', " ");
        let methods = crate::rpc::all_methods();
        let toolbox = Toolbox::new(&methods, &crate::rpc::openrpc::document(&methods));
        for (tool, method) in &toolbox.methods {
            assert!(listed.contains(&format!("`{tool}` ({method}")), "the README lists {tool} ({method})");
        }
        assert_eq!(listed.matches("` (").count(), toolbox.methods.len(), "and no other tool: {listed}");
    }
}
