//! The OpenRPC document, generated from the method registry and its Rust types.
//!
//! `openrpc.json` at the repository root is this document, checked in; a test fails when the two
//! differ. Regenerate it with `text-browser --openrpc > openrpc.json`. A method's params are its
//! blocks' params in order (see `registry`); its `description` is its own params struct's doc
//! comment; the `timeout` param states the method's own default.
//!
//! Said once: a param that two or more methods take alike (`session_id`, `tab_id`, the element's
//! `selector` / `ref`, the action options, `timeout` with one default) is a content descriptor in
//! `components.contentDescriptors` that methods `$ref`; named types are schemas in
//! `components.schemas`. A descriptor's description is not repeated in its schema.

use schemars::SchemaGenerator;
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value, json};

use super::error::ErrorKind;
use super::events;
use super::registry::MethodSpec;
use crate::browser::LiveEvent;

const SCHEMAS_PATH: &str = "#/components/schemas/";
/// The most bytes openrpc.json may have (issue 27: it was 273 KB, mostly repeated text). It guards
/// against repetition, not against new fields: since issue 44 an agent reads `rpc.discover`'s
/// brief (≤ 8 KB) or one method's schema, and tools read the whole file. 128 KB leaves room for
/// the fields of issues 41–43 (about 1 KB each) with every description still said once.
pub const FILE_BUDGET: usize = 128_000;
/// schemars' names for Rust's number types: not JSON Schema formats, and `minimum` already says
/// what matters (an unsigned number is at least 0).
const RUST_FORMATS: &[&str] =
    &["uint", "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64", "float", "double"];

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
    let mut descriptors = Value::Object(share_descriptors(&mut described));
    without_rust_formats(&mut descriptors);
    reflowed(&mut descriptors);
    let mut schemas = generator.take_definitions(true);
    // Params blocks are spelled out as content descriptors; their own schemas are not needed
    // (unless another schema refers to one: an action's `snapshot` takes a `TargetParams`).
    let text = serde_json::to_string(&(&described, &schemas)).unwrap_or_default();
    for name in block_types {
        if !text.contains(&format!("\"{SCHEMAS_PATH}{name}\"")) {
            schemas.remove(&name);
        }
    }
    let mut schemas = Value::Object(schemas);
    without_rust_formats(&mut schemas);
    reflowed(&mut schemas);
    for method in &mut described {
        without_rust_formats(method);
        reflowed(method);
    }
    let errors: Map<String, Value> = ErrorKind::ALL
        .iter()
        .map(|k| {
            (
                k.as_str().to_owned(),
                // The kind is the error's key and message: data.kind is said once, in info.
                json!({ "code": k.code(), "message": k.as_str(), "data": { "remediation": k.remediation() } }),
            )
        })
        .collect();
    json!({
        "openrpc": "1.3.2",
        "info": {
            "title": "text-browser",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "See and drive JavaScript-heavy web apps through one shared headless Chromium. \
                            Every application error carries data.kind (its name in components.errors) and \
                            data.remediation.",
        },
        "servers": [{ "name": "default", "url": "http://127.0.0.1:3337/rpc" }],
        "methods": described,
        "components": { "contentDescriptors": descriptors, "schemas": schemas, "errors": errors },
    })
}

/// Every `description` in `value` as one line per paragraph (see [`reflow`]).
fn reflowed(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (key, item) in map.iter_mut() {
                match item {
                    Value::String(text) if key == "description" => *text = reflow(text),
                    other => reflowed(other),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(reflowed),
        _ => {}
    }
}

/// Doc comments wrap at the source's width; in a description those line breaks say nothing (a
/// reader reflows the text anyway). They become spaces; paragraph breaks, and a line that starts a
/// list item, stay.
fn reflow(text: &str) -> String {
    let starts_item = |line: &str| {
        let line = line.trim_start();
        let digits = line.chars().take_while(char::is_ascii_digit).count();
        line.starts_with("- ") || (digits > 0 && line[digits..].starts_with(". "))
    };
    let mut out = String::with_capacity(text.len());
    let mut previous: Option<&str> = None;
    for line in text.split('\n') {
        if let Some(previous) = previous {
            let joined = !previous.trim().is_empty() && !line.trim().is_empty() && !starts_item(line);
            out.push(if joined { ' ' } else { '\n' });
        }
        out.push_str(line);
        previous = Some(line);
    }
    out
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
            let mut schema = without_null(schema);
            let description = schema.as_object_mut().and_then(|s| s.remove("description"));
            let mut descriptor = json!({ "name": name });
            if let Some(description) = description {
                descriptor["description"] = description;
            }
            // OpenRPC's default is `required: false`: only required params say so.
            if required.contains(&name.as_str()) {
                descriptor["required"] = json!(true);
            }
            descriptor["schema"] = schema;
            if name == "timeout" { last.push(descriptor) } else { descriptors.push(descriptor) }
        }
    }
    descriptors.extend(last);
    descriptors
}

/// Moves every param descriptor that two or more methods share word for word into
/// `components.contentDescriptors` (keyed by the param's name; `timeout` by its default too) and
/// leaves a `$ref` in its place. Returns the shared descriptors.
fn share_descriptors(methods: &mut [Value]) -> Map<String, Value> {
    let mut uses: Vec<(Value, usize)> = Vec::new();
    for param in methods.iter().flat_map(|m| m["params"].as_array().into_iter().flatten()) {
        match uses.iter_mut().find(|(p, _)| p == param) {
            Some((_, n)) => *n += 1,
            None => uses.push((param.clone(), 1)),
        }
    }
    let mut shared = Map::new();
    let mut keys: Vec<(Value, String)> = Vec::new();
    for (param, _) in uses.into_iter().filter(|(_, n)| *n >= 2) {
        let name = param["name"].as_str().unwrap_or("param").to_owned();
        let key = match default_of(&param) {
            Some(ms) if name == "timeout" => format!("timeout{ms}"),
            _ => (1..)
                .map(|i| if i == 1 { name.clone() } else { format!("{name}{i}") })
                .find(|k| !shared.contains_key(k))
                .unwrap_or(name),
        };
        shared.insert(key.clone(), param.clone());
        keys.push((param, key));
    }
    for params in methods.iter_mut().filter_map(|m| m["params"].as_array_mut()) {
        for param in params.iter_mut() {
            if let Some((_, key)) = keys.iter().find(|(p, _)| p == param) {
                *param = json!({ "$ref": format!("#/components/contentDescriptors/{key}") });
            }
        }
    }
    shared
}

/// The default a `timeout` descriptor states (`… (default 30000) …`).
fn default_of(param: &Value) -> Option<u64> {
    let text = param["description"].as_str()?;
    let rest = &text[text.find("(default ")? + "(default ".len()..];
    rest[..rest.find(')')?].parse().ok()
}

/// A param's schema without the `null` an `Option` adds: the descriptor's `required: false` says
/// the param may be left out (and `null` is read as left out all the same).
fn without_null(schema: Value) -> Value {
    let Value::Object(mut map) = schema else { return schema };
    if let Some(Value::Array(types)) = map.get("type") {
        let types: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
        map.insert("type".into(), if types.len() == 1 { types[0].clone() } else { Value::Array(types) });
    }
    if let Some(Value::Array(options)) = map.get("anyOf") {
        let options: Vec<Value> = options.iter().filter(|o| o.get("type") != Some(&json!("null"))).cloned().collect();
        if let [only] = options.as_slice() {
            map.remove("anyOf");
            if let Value::Object(inner) = only {
                for (key, value) in inner {
                    map.entry(key.clone()).or_insert_with(|| value.clone());
                }
            }
        } else {
            map.insert("anyOf".into(), Value::Array(options));
        }
    }
    Value::Object(map)
}

/// Removes schemars' Rust number formats (see [`RUST_FORMATS`]) everywhere in `value`.
fn without_rust_formats(value: &mut Value) {
    match value {
        Value::Object(map) => {
            if map.get("format").and_then(Value::as_str).is_some_and(|f| RUST_FORMATS.contains(&f)) {
                map.remove("format");
            }
            map.values_mut().for_each(without_rust_formats);
        }
        Value::Array(items) => items.iter_mut().for_each(without_rust_formats),
        _ => {}
    }
}

/// The document as openrpc.json holds it: one method, content descriptor, schema or error per
/// line (compact within), so a change to one method is a change to its line and the file stays
/// small.
pub fn file_text(doc: &Value) -> String {
    fn write(out: &mut String, value: &Value, path: &[&str]) {
        let expand = matches!(path, [] | ["methods" | "info" | "components"] | ["components", _]);
        let indent = "  ".repeat(path.len());
        match value {
            Value::Object(map) if expand && !map.is_empty() => {
                out.push_str("{\n");
                for (i, (key, item)) in map.iter().enumerate() {
                    out.push_str(&format!("{indent}  {}: ", Value::String(key.clone())));
                    let mut inner = path.to_vec();
                    inner.push(key);
                    write(out, item, &inner);
                    out.push_str(if i + 1 < map.len() { ",\n" } else { "\n" });
                }
                out.push_str(&format!("{indent}}}"));
            }
            Value::Array(items) if expand && !items.is_empty() => {
                out.push_str("[\n");
                for (i, item) in items.iter().enumerate() {
                    out.push_str(&format!("{indent}  {item}"));
                    out.push_str(if i + 1 < items.len() { ",\n" } else { "\n" });
                }
                out.push_str(&format!("{indent}]"));
            }
            other => out.push_str(&other.to_string()),
        }
    }
    let mut out = String::new();
    write(&mut out, doc, &[]);
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::reflow;

    #[test]
    fn a_description_keeps_its_paragraphs_and_list_items_but_not_its_wrapping() {
        let doc = "Opens a page and\nwaits for it.\n\nThen:\n- reads it\n2. acts\non it";
        assert_eq!(reflow(doc), "Opens a page and waits for it.\n\nThen:\n- reads it\n2. acts on it");
    }
}
