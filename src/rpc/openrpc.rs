//! The OpenRPC document, generated from the method list and its Rust types.
//!
//! `openrpc.json` at the repository root is this document, checked in; a test fails when the two
//! differ. Regenerate it with `text-browser --openrpc > openrpc.json`.

use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, SchemaGenerator};
use serde_json::{Map, Value, json};

use super::MethodSpec;
use super::error::KINDS;

const SCHEMAS_PATH: &str = "#/components/schemas/";

/// The names of the params `P` accepts (its schema's properties), for unknown-param checks.
pub fn param_names<P: JsonSchema>() -> Vec<String> {
    let schema = SchemaGenerator::default().root_schema_for::<P>();
    schema.get("properties").and_then(Value::as_object).map(|props| props.keys().cloned().collect()).unwrap_or_default()
}

/// The whole OpenRPC 1.3 document for `methods`.
pub fn document(methods: &[MethodSpec]) -> Value {
    let mut generator = SchemaSettings::draft07()
        .with(|s| {
            s.definitions_path = SCHEMAS_PATH.into();
        })
        .into_generator();
    let mut params_types = Vec::new();
    let described: Vec<Value> = methods
        .iter()
        .map(|m| {
            let params_ref = (m.params_schema)(&mut generator);
            let params_schema = resolve(&generator, params_ref.as_value(), &mut params_types);
            let result = (m.result_schema)(&mut generator);
            json!({
                "name": m.name,
                "summary": m.summary,
                "paramStructure": "by-name",
                "params": content_descriptors(&params_schema),
                "result": { "name": "result", "schema": result },
            })
        })
        .collect();
    let mut schemas = generator.take_definitions(true);
    // Params structs are spelled out as content descriptors; their own schema is not needed.
    for name in params_types {
        schemas.remove(&name);
    }
    let errors: Map<String, Value> = KINDS
        .iter()
        .map(|k| {
            (
                k.kind.to_owned(),
                json!({ "code": k.code, "message": k.kind, "data": { "kind": k.kind, "remediation": k.remediation } }),
            )
        })
        .collect();
    json!({
        "openrpc": "1.3.2",
        "info": {
            "title": "text-browser",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "See and drive JavaScript-heavy web apps through one shared headless Chromium. \
                            Every application error carries data.kind and data.remediation (components.errors).",
        },
        "servers": [{ "name": "default", "url": "http://127.0.0.1:3337/rpc" }],
        "methods": described,
        "components": { "schemas": schemas, "errors": errors },
    })
}

/// Follows a `$ref` into the generator's definitions, noting the referenced name.
fn resolve(generator: &SchemaGenerator, schema: &Value, names: &mut Vec<String>) -> Value {
    match schema.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix(SCHEMAS_PATH)) {
        Some(name) => {
            names.push(name.to_owned());
            generator.definitions().get(name).cloned().unwrap_or(Value::Null)
        }
        None => schema.clone(),
    }
}

/// One OpenRPC content descriptor per property of a params object schema.
fn content_descriptors(params: &Value) -> Vec<Value> {
    let required: Vec<&str> = params
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(properties) = params.get("properties").and_then(Value::as_object) else { return Vec::new() };
    properties
        .iter()
        .map(|(name, schema)| {
            let mut descriptor =
                json!({ "name": name, "required": required.contains(&name.as_str()), "schema": schema });
            if let Some(description) = schema.get("description") {
                descriptor["description"] = description.clone();
            }
            descriptor
        })
        .collect()
}
