//! The OpenRPC document, generated from the method registry and its Rust types.
//!
//! `openrpc.json` at the repository root is this document, checked in; a test fails when the two
//! differ. Regenerate it with `text-browser --openrpc > openrpc.json`. A method's params are its
//! blocks' params in order (see `registry`); its `description` is its own params struct's doc
//! comment; the `timeout` param states the method's own default.

use schemars::SchemaGenerator;
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value, json};

use super::error::ErrorKind;
use super::events;
use super::registry::MethodSpec;
use crate::browser::LiveEvent;

const SCHEMAS_PATH: &str = "#/components/schemas/";

/// The whole OpenRPC 1.3 document for `methods`.
pub fn document(methods: &[MethodSpec]) -> Value {
    let mut generator = SchemaSettings::draft07()
        .with(|s| {
            s.definitions_path = SCHEMAS_PATH.into();
        })
        .into_generator();
    let mut block_types = Vec::new();
    let mut described: Vec<Value> = methods
        .iter()
        .map(|m| {
            let blocks: Vec<Value> = m
                .blocks
                .iter()
                .map(|b| {
                    let reference = (b.schema)(&mut generator);
                    resolve(&generator, reference.as_value(), &mut block_types)
                })
                .collect();
            let result = (m.result_schema)(&mut generator);
            let mut method = json!({
                "name": m.name,
                "summary": m.summary,
                "paramStructure": "by-name",
                "params": content_descriptors(&blocks, m.default_timeout_ms),
                "result": { "name": "result", "schema": result },
            });
            // The method's own params struct (the last block) describes the method.
            if let Some(description) = blocks.last().and_then(|b| b.get("description")) {
                method["description"] = description.clone();
            }
            method
        })
        .collect();
    described.extend(subscriptions(&mut generator, &mut block_types));
    let mut schemas = generator.take_definitions(true);
    // Params blocks are spelled out as content descriptors; their own schemas are not needed.
    for name in block_types {
        schemas.remove(&name);
    }
    let errors: Map<String, Value> = ErrorKind::ALL
        .iter()
        .map(|k| {
            (
                k.as_str().to_owned(),
                json!({ "code": k.code(), "message": k.as_str(), "data": { "kind": k.as_str(), "remediation": k.remediation() } }),
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
/// `events.subscribe` and `events.unsubscribe` (WebSocket only; declared beside their handler in
/// `events`). OpenRPC has no shape for a subscription, so it is described as a method answering
/// the subscription id, the notifications it sends named in `x-notification` (their schema is the
/// event's own type) and the method ending it in `x-unsubscribe`.
fn subscriptions(generator: &mut SchemaGenerator, block_types: &mut Vec<String>) -> Vec<Value> {
    let reference = generator.subschema_for::<events::SubscribeParams>();
    let params = resolve(generator, reference.as_value(), block_types);
    let event = generator.subschema_for::<LiveEvent>();
    let id = json!({ "type": ["integer", "string"], "description": "The subscription id." });
    let mut subscribe = json!({
        "name": events::SUBSCRIBE,
        "summary": events::SUMMARY,
        "paramStructure": "by-name",
        "params": content_descriptors(std::slice::from_ref(&params), None),
        "result": { "name": "subscription", "schema": id },
        "x-notification": {
            "name": events::NOTIFICATION,
            "description": events::NOTIFICATION_DOC,
            "schema": event,
        },
        "x-unsubscribe": events::UNSUBSCRIBE,
    });
    if let Some(description) = params.get("description") {
        subscribe["description"] = description.clone();
    }
    let unsubscribe = json!({
        "name": events::UNSUBSCRIBE,
        "summary": "End an events.subscribe subscription.",
        "paramStructure": "by-position",
        "params": [{ "name": "subscription", "required": true, "description": "The id events.subscribe answered.", "schema": id }],
        "result": { "name": "ended", "schema": { "type": "boolean" } },
    });
    vec![subscribe, unsubscribe]
}

fn resolve(generator: &SchemaGenerator, schema: &Value, names: &mut Vec<String>) -> Value {
    match schema.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix(SCHEMAS_PATH)) {
        Some(name) => {
            names.push(name.to_owned());
            generator.definitions().get(name).cloned().unwrap_or(Value::Null)
        }
        None => schema.clone(),
    }
}

/// One OpenRPC content descriptor per property of the params blocks, in order (`timeout`, which
/// every page method takes, last).
fn content_descriptors(blocks: &[Value], default_timeout_ms: Option<u64>) -> Vec<Value> {
    let mut descriptors = Vec::new();
    let mut last = Vec::new();
    for block in blocks {
        let required: Vec<&str> = block
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let Some(properties) = block.get("properties").and_then(Value::as_object) else { continue };
        for (name, schema) in properties {
            let mut schema = schema.clone();
            if let (Some(ms), "timeout") = (default_timeout_ms, name.as_str()) {
                schema["description"] =
                    json!(format!("Milliseconds the call may take (default {ms}); capped by MAX_CALL_MS."));
            }
            let mut descriptor =
                json!({ "name": name, "required": required.contains(&name.as_str()), "schema": schema });
            if let Some(description) = schema.get("description") {
                descriptor["description"] = description.clone();
            }
            if name == "timeout" { last.push(descriptor) } else { descriptors.push(descriptor) }
        }
    }
    descriptors.extend(last);
    descriptors
}
