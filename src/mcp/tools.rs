//! The MCP tools: the JSON-RPC methods that name a tool in the registry (`MethodSpec::tool`), with
//! their summary and params taken from the OpenRPC document, the one source every other
//! description of a method is derived from, and their annotations from the method's [`Hints`].
//!
//! An agent pays for `tools/list` on every turn, so the tools are lean: a tool's description is
//! its method's one-line summary; its input schema lists the method's params without
//! `session_id` (the MCP session supplies it), `tab_id` and `timeout` (which every page tool
//! takes: the server's instructions say so once, and the method accepts them all the same);
//! shared params (`selector`, `ref`, the action options) are typed but not described (the
//! instructions describe them once); a method's own params keep the first sentence of their
//! doc. Schemas are self-contained (no `$ref`s), without the null alternatives of optional
//! params, formats and descriptions of nested types.

use std::collections::HashMap;
use std::sync::Arc;

use rmcp::model::{Tool, ToolAnnotations};
use serde_json::{Map, Value, json};

use crate::rpc::MethodSpec;
use crate::rpc::registry::{BlockRole, Hints};

/// How deep `$ref`s are followed when a schema is made self-contained.
const MAX_REF_DEPTH: usize = 8;
/// Params every page tool (or every action) takes that its schema leaves out: the server's
/// instructions describe them once (see the module doc).
const IMPLIED: &[&str] = &["session_id", "tab_id", "timeout", "settleMs", "maxChars"];
/// A param's own description is cut at its first sentence, and at this many characters.
const DESCRIPTION_LIMIT: usize = 90;

/// Every tool and the method behind it.
pub struct Toolbox {
    pub tools: Vec<Tool>,
    /// Tool name → the method behind it and the params the tool sets when the agent does not.
    pub methods: HashMap<String, Route>,
}

/// What a tool call becomes.
#[derive(Debug, Clone)]
pub struct Route {
    pub method: &'static str,
    /// Params added when the agent leaves them out (see `ToolSpec::defaults`).
    pub defaults: Map<String, Value>,
}

impl Toolbox {
    /// The tools of `methods`, described by `openrpc` (the document built from the same methods).
    pub fn new(methods: &[MethodSpec], openrpc: &Value) -> Self {
        let components = &openrpc["components"];
        let documented: HashMap<&str, &Value> = openrpc["methods"]
            .as_array()
            .map(|all| all.iter().filter_map(|m| Some((m["name"].as_str()?, m))).collect())
            .unwrap_or_default();
        let mut tools = Vec::new();
        let mut routes = HashMap::new();
        for spec in methods {
            let (Some(tool), Some(doc)) = (spec.tool, documented.get(spec.name)) else { continue };
            let defaults: Map<String, Value> = serde_json::from_str(tool.defaults).unwrap_or_default();
            let own: Vec<&String> =
                spec.blocks.iter().filter(|b| b.role == BlockRole::Own).flat_map(|b| b.names.iter()).collect();
            let schema = input_schema(doc, components, &own, &defaults);
            tools.push(Tool::new(tool.name, spec.summary, Arc::new(schema)).annotate(annotations(tool.hints)));
            routes.insert(tool.name.to_owned(), Route { method: spec.name, defaults });
        }
        Self { tools, methods: routes }
    }

    /// The bytes `tools/list` answers with (its result, as JSON): what an agent's context pays.
    pub fn listing_bytes(&self) -> usize {
        serde_json::to_vec(&json!({ "tools": self.tools })).map(|v| v.len()).unwrap_or(0)
    }
}

/// The hints as MCP annotations. `readOnlyHint` is always said (it is what clients approve by);
/// the others only where they differ from the protocol's defaults (`destructiveHint: true`,
/// `idempotentHint: false`, `openWorldHint: true`), which clients apply to what is left out, and
/// a read-only tool says neither `destructiveHint` nor `idempotentHint` (they mean nothing for it).
fn annotations(hints: Hints) -> ToolAnnotations {
    let mut annotations = ToolAnnotations::new().read_only(hints.read_only);
    if !hints.open_world {
        annotations = annotations.open_world(false);
    }
    if !hints.read_only && !hints.destructive {
        annotations = annotations.destructive(false);
    }
    if !hints.read_only && hints.idempotent {
        annotations = annotations.idempotent(true);
    }
    annotations
}

/// A JSON Schema object of the method's params (see the module doc). `own` names the method's
/// own params (described); `defaults` are shown as each param's `default`.
fn input_schema(
    method: &Value,
    components: &Value,
    own: &[&String],
    defaults: &Map<String, Value>,
) -> Map<String, Value> {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for param in method["params"].as_array().into_iter().flatten() {
        let param = resolve(param, components, 0);
        let Some(name) = param["name"].as_str() else { continue };
        let is_own = own.iter().any(|o| *o == name);
        if name == "session_id" || (IMPLIED.contains(&name) && !is_own) {
            continue;
        }
        let mut schema = lean(&param["schema"], components, 0);
        if !is_own {
            schema = types_only(schema);
        }
        if let Some(object) = schema.as_object_mut() {
            if let Some(text) = param["description"].as_str().filter(|_| is_own && !self_evident(object)) {
                object.insert("description".into(), json!(first_sentence(text)));
            }
            if let Some(default) = defaults.get(name) {
                object.insert("default".into(), default.clone());
            }
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

/// True for a schema whose values say what the param is: a list of choices, or a list of
/// objects whose fields are named.
fn self_evident(schema: &Map<String, Value>) -> bool {
    schema.contains_key("enum") || schema.get("items").is_some_and(|items| items.get("properties").is_some())
}

/// `value` with a `{"$ref": "#/components/…"}` replaced by what it names.
fn resolve(value: &Value, components: &Value, depth: usize) -> Value {
    let Some(path) = value.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix("#/components/")) else {
        return value.clone();
    };
    if depth >= MAX_REF_DEPTH {
        return json!({});
    }
    let target = path.split('/').try_fold(components, |v, key| v.get(key)).cloned().unwrap_or(json!({}));
    resolve(&target, components, depth + 1)
}

/// A schema without `$ref`s, descriptions, titles, formats, `minimum: 0`, and the `null`
/// alternatives that only say a param is optional (`required` says that).
fn lean(schema: &Value, components: &Value, depth: usize) -> Value {
    let schema = resolve(schema, components, depth);
    let Value::Object(map) = &schema else { return schema };
    let mut out = Map::new();
    for (key, value) in map {
        match key.as_str() {
            "description" | "title" | "format" | "$schema" | "examples" | "default" | "additionalProperties" => {}
            "minimum" if value == &json!(0) => {}
            "type" if map.contains_key("enum") => {}
            "type" => {
                let types: Vec<&Value> = match value {
                    Value::Array(types) => types.iter().filter(|t| *t != "null").collect(),
                    other => vec![other],
                };
                let types = if types.len() == 1 { types[0].clone() } else { json!(types) };
                out.insert(key.clone(), types);
            }
            "anyOf" | "oneOf" | "allOf" => {
                let options: Vec<Value> = value
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter(|o| o.get("type") != Some(&json!("null")))
                    .map(|o| lean(o, components, depth + 1))
                    .collect();
                match options.as_slice() {
                    [only] => {
                        if let Value::Object(inner) = only {
                            out.extend(inner.clone());
                        }
                    }
                    _ if options.iter().all(|o| o.get("const").is_some() || o.get("enum").is_some()) => {
                        let values = options.iter().flat_map(|o| match o.get("enum") {
                            Some(Value::Array(values)) => values.clone(),
                            _ => vec![o["const"].clone()],
                        });
                        out.insert("enum".into(), values.collect());
                    }
                    _ => {
                        out.insert("anyOf".into(), Value::Array(options));
                    }
                }
            }
            "properties" => {
                let properties = value
                    .as_object()
                    .map(|p| p.iter().map(|(k, v)| (k.clone(), lean(v, components, depth + 1))).collect())
                    .unwrap_or_default();
                out.insert(key.clone(), Value::Object(properties));
            }
            _ => {
                out.insert(key.clone(), lean(value, components, depth + 1));
            }
        }
    }
    Value::Object(out)
}

/// Only the JSON types a (lean) schema allows, for a shared param the instructions describe:
/// `{"type": ["boolean", "string", "object"]}` for the action's `snapshot`.
fn types_only(schema: Value) -> Value {
    fn collect(schema: &Value, out: &mut Vec<String>) {
        match (schema.get("type"), schema.get("anyOf"), schema.get("enum")) {
            (_, Some(Value::Array(options)), _) => options.iter().for_each(|o| collect(o, out)),
            (Some(Value::String(t)), _, _) => out.push(t.clone()),
            (Some(Value::Array(ts)), _, _) => out.extend(ts.iter().filter_map(Value::as_str).map(str::to_owned)),
            (None, None, Some(Value::Array(values))) => out.extend(values.iter().map(|v| {
                match v {
                    Value::String(_) => "string",
                    Value::Bool(_) => "boolean",
                    Value::Number(_) => "number",
                    _ => "null",
                }
                .to_owned()
            })),
            _ => {}
        }
    }
    let mut types = Vec::new();
    collect(&schema, &mut types);
    let mut seen = Vec::new();
    types.retain(|t| {
        !seen.contains(t) && {
            seen.push(t.clone());
            true
        }
    });
    match types.as_slice() {
        [] => schema,
        [only] => json!({ "type": only }),
        _ => json!({ "type": types }),
    }
}

/// A description's first clause (up to `. ` or `; `), without a closing `(default …)`, cut at
/// [`DESCRIPTION_LIMIT`] characters.
fn first_sentence(text: &str) -> String {
    let text = text.replace('\n', " ");
    let end = [". ", "; "].iter().filter_map(|stop| text.find(stop)).min().map(|i| i + 1).unwrap_or(text.len());
    let mut sentence = text[..end].trim().trim_end_matches([';', '.']).trim_end();
    if let Some(open) = sentence.rfind(" (default").filter(|_| sentence.ends_with(')')) {
        sentence = &sentence[..open];
    }
    if sentence.chars().count() <= DESCRIPTION_LIMIT {
        return sentence.to_owned();
    }
    let cut: String = sentence.chars().take(DESCRIPTION_LIMIT - 1).collect();
    format!("{}…", cut.trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toolbox() -> Toolbox {
        let methods = crate::rpc::all_methods();
        Toolbox::new(&methods, &crate::rpc::openrpc::document(&methods))
    }

    #[test]
    fn a_tools_schema_is_lean_and_self_contained() {
        let method = json!({ "params": [
            { "$ref": "#/components/contentDescriptors/session_id" },
            { "name": "url", "required": true, "description": "Where to go. Any http(s) URL.",
              "schema": { "type": "string" } },
            { "name": "waitUntil", "description": "When it is done: load or settled.",
              "schema": { "anyOf": [{ "$ref": "#/components/schemas/WaitUntil" }, { "type": "null" }] } },
            { "name": "limit", "description": "At most this many (default 5).",
              "schema": { "type": ["integer", "null"], "format": "uint64", "minimum": 0 } },
            { "name": "settleMs", "description": "Said once, in the instructions.", "schema": { "type": "integer" } },
            { "name": "snapshot", "description": "Shared.",
              "schema": { "anyOf": [{ "type": "boolean" }, { "enum": ["diff"] }] } },
        ]});
        let components = json!({
            "contentDescriptors": { "session_id": { "name": "session_id", "required": true, "schema": { "type": "string" } } },
            "schemas": { "WaitUntil": { "oneOf": [{ "const": "load", "description": "x" }, { "const": "settled" }] } },
        });
        let own: Vec<String> = ["url", "waitUntil", "limit"].map(String::from).to_vec();
        let own: Vec<&String> = own.iter().collect();
        let defaults = serde_json::from_str(r#"{"waitUntil":"settled"}"#).unwrap();
        let schema = Value::Object(input_schema(&method, &components, &own, &defaults));
        assert_eq!(
            schema,
            json!({ "type": "object", "required": ["url"], "properties": {
                "url": { "type": "string", "description": "Where to go" },
                "waitUntil": { "enum": ["load", "settled"], "default": "settled" },
                "limit": { "type": "integer", "description": "At most this many" },
                "snapshot": { "type": ["boolean", "string"] },
            }})
        );
    }

    #[test]
    fn shared_params_are_typed_without_their_variants() {
        let snapshot = json!({ "anyOf": [{ "type": "boolean" }, { "type": "string", "enum": ["diff"] },
                                         { "type": "object", "properties": {} }] });
        assert_eq!(types_only(snapshot), json!({ "type": ["boolean", "string", "object"] }));
        assert_eq!(first_sentence("Pixels down (negative: up). More\ntext."), "Pixels down (negative: up)");
        assert_eq!(first_sentence("Only refs (default false)."), "Only refs");
        assert_eq!(first_sentence("The line; without it, all."), "The line");
    }

    #[test]
    fn the_agent_facing_methods_are_tools_with_their_hints() {
        let toolbox = toolbox();
        let mut names: Vec<&str> = toolbox.tools.iter().map(|t| t.name.as_ref()).collect();
        names.sort_unstable();
        assert_eq!(
            names,
            vec![
                "assert_text",
                "axe",
                "back",
                "check",
                "click",
                "close",
                "console",
                "dblclick",
                "dialog",
                "drag",
                "emulate",
                "evaluate",
                "fill",
                "fill_form",
                "forward",
                "hover",
                "inspect",
                "navigate",
                "network",
                "press",
                "reload",
                "response_body",
                "screenshot",
                "scroll",
                "select",
                "snapshot",
                "source",
                "tab_close",
                "tab_focus",
                "tab_open",
                "tabs",
                "text",
                "timeline",
                "type",
                "uncheck",
                "upload",
                "viewport",
                "wait_for",
            ]
        );
        let tool = |name: &str| toolbox.tools.iter().find(|t| t.name == name).unwrap();
        let navigate = tool("navigate");
        assert_eq!(navigate.input_schema["required"], json!(["url"]));
        assert_eq!(navigate.input_schema["properties"]["waitUntil"]["default"], json!("settled"));
        assert!(navigate.input_schema["properties"].get("session_id").is_none());
        assert!(tool("close").input_schema["properties"].get("session_id").is_none());
        // What a client reads, the protocol's defaults applied to what is left out.
        let hints = |name: &str| {
            let a = tool(name).annotations.clone().unwrap();
            (a.read_only_hint, a.is_destructive(), a.is_idempotent(), a.open_world_hint.unwrap_or(true))
        };
        assert_eq!(hints("snapshot"), (Some(true), true, false, false));
        assert_eq!(hints("click"), (Some(false), true, false, true));
        assert_eq!(hints("navigate"), (Some(false), false, true, true));
        assert_eq!(hints("viewport"), (Some(false), false, true, false));
        assert_eq!(hints("close"), (Some(false), true, true, false));
    }

    #[test]
    fn tools_list_fits_the_context_budget() {
        // What an agent pays on every turn; issue 27's budget is 16,000 bytes with every tool.
        let bytes = toolbox().listing_bytes();
        assert!(bytes <= crate::mcp::TOOLS_LIST_BUDGET, "tools/list is {bytes} bytes");
    }

    #[test]
    fn the_readme_lists_every_tool_with_its_method() {
        let readme = include_str!("../../README.md");
        let start = readme.find("<!-- tools: begin -->").expect("the README marks its tool list");
        let end = readme.find("<!-- tools: end -->").expect("the tool list's end marker");
        let listed = readme[start..end].replace('\n', " ");
        let toolbox = toolbox();
        for (tool, route) in &toolbox.methods {
            assert!(
                listed.contains(&format!("`{tool}` ({}", route.method)),
                "the README lists {tool} ({})",
                route.method
            );
        }
        assert_eq!(listed.matches("` (").count(), toolbox.methods.len(), "and no other tool: {listed}");
    }
}
