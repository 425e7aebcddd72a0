//! One line per method: its name, its params with compact types, what it does — the form an agent
//! can hold. The brief form of `rpc.discover`, the `data.usage` line of an `invalid_params` error
//! and the method lines of the README's instructions block are all this line, derived from the
//! OpenRPC document and the registry's blocks (never written by hand per method).
//!
//! `page.fill {selector|ref*, value*, +act}: Replace an input's value, typing like a user`
//!
//! A `*` marks a required param; a param without a type is a string; `load|networkidle` are the
//! strings it may be; an object shows its fields (`{width*, height*}`). In the brief form the
//! params every session's method takes (`session_id`, `tab_id`, `timeout`) are left out, the
//! action options are `+act`, a method with many params shows its first ones and `…`, and the
//! summary's first clause follows: [`legend`] says so once, naming exactly which methods take the
//! params left out.

use serde_json::{Map, Value};

use super::registry::{BlockRole, MethodSpec};

/// The shared params of a session's methods, left out of brief lines (the legend names them).
const SCOPE: [&str; 3] = ["session_id", "tab_id", "timeout"];
/// A param of the action options block: a block holding it is the action options (`+act`).
const ACT_MARK: &str = "settleMs";
/// Fields an object's type shows, at most.
const OBJECT_FIELDS: usize = 3;
/// Params a brief line shows, at most (besides `+act`): the required ones and the first optional
/// ones in their declared order (the main ones come first); `…` says there are more.
const BRIEF_PARAMS: usize = 5;
/// How deep types are spelled out (an object's fields are named, not typed).
const MAX_DEPTH: usize = 2;

/// How much a line says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form<'a> {
    /// For the list of every method: without the params [`legend`] describes once, with the
    /// method's summary.
    Brief,
    /// For an error (`data.usage`): every param the method takes, and nothing else.
    Usage,
    /// For the instructions block: the required params and these ones, without the scope.
    Only(&'a [&'a str]),
}

/// What a param is to a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// `session_id`, `tab_id`, `timeout` from the shared scope block.
    Scope,
    /// One of the action options.
    Act,
    /// `selector` or `ref`: one token, `selector|ref`.
    Target {
        required: bool,
    },
    Plain,
}

/// The line of `method` (an entry of the OpenRPC document's `methods`), declared by `spec` (none
/// for the subscriptions, which the registry does not declare).
pub fn line(method: &Value, spec: Option<&MethodSpec>, components: &Value, form: Form) -> String {
    let no_schemas = Map::new();
    let schemas = components["schemas"].as_object().unwrap_or(&no_schemas);
    let (mut tokens, mut act, mut last) = (Vec::new(), Vec::new(), Vec::new());
    let mut target_shown = false;
    for param in params(method, components) {
        let name = param["name"].as_str().unwrap_or_default();
        let required = param["required"] == true;
        let kind = kind_of(name, spec);
        let shown = match form {
            Form::Brief => kind != Kind::Scope,
            Form::Usage => true,
            Form::Only(names) => kind != Kind::Scope && (required || names.contains(&name)),
        };
        match kind {
            _ if !shown => {}
            Kind::Target { required } if !target_shown => {
                target_shown = true;
                tokens.push(format!("selector|ref{}", if required { "*" } else { "" }));
            }
            Kind::Target { .. } => {}
            Kind::Act if form == Form::Brief => act = vec!["+act".to_owned()],
            Kind::Act => act.push(token(name, required, &param["schema"], schemas)),
            _ if name == "timeout" => last.push(token(name, required, &param["schema"], schemas)),
            _ => tokens.push(token(name, required, &param["schema"], schemas)),
        }
    }
    if form == Form::Brief && tokens.len() > BRIEF_PARAMS {
        // Keep the required ones (starred) and the first optional ones.
        let optional_kept = BRIEF_PARAMS.saturating_sub(tokens.iter().filter(|t| is_required(t)).count());
        let mut optional = 0;
        tokens.retain(|t| {
            is_required(t)
                || (optional < optional_kept && {
                    optional += 1;
                    true
                })
        });
        tokens.push("…".to_owned());
    }
    tokens.extend(act);
    tokens.extend(last);
    let name = method["name"].as_str().unwrap_or_default();
    let mut out = match tokens.is_empty() {
        true => name.to_owned(),
        false => format!("{name} {{{}}}", tokens.join(", ")),
    };
    if form == Form::Brief {
        out.push_str(": ");
        out.push_str(&purpose(method["summary"].as_str().unwrap_or_default()));
    }
    out
}

/// A summary's first clause (up to `; `), without its closing period.
fn purpose(summary: &str) -> String {
    let clause = summary.split("; ").next().unwrap_or(summary);
    clause.strip_suffix('.').unwrap_or(clause).to_owned()
}

/// How to read the brief lines of `methods` (the OpenRPC document's entries, `specs` their
/// declarations): the notation, and which methods take the params the lines leave out.
pub fn legend(methods: &[Value], specs: &[MethodSpec], components: &Value) -> String {
    let takes = |method: &Value, name: &str| params(method, components).iter().any(|p| p["name"] == name);
    let all: Vec<&Value> = methods.iter().collect();
    let with_session: Vec<&Value> = all.iter().copied().filter(|m| takes(m, "session_id")).collect();
    let but = |among: &[&Value], name: &str| {
        let lacking: Vec<&str> = among.iter().filter(|m| !takes(m, name)).filter_map(|m| m["name"].as_str()).collect();
        let names: Vec<&str> = among.iter().filter_map(|m| m["name"].as_str()).collect();
        namespaced(&lacking, &names)
    };
    let act: Vec<String> = specs
        .iter()
        .flat_map(|s| &s.blocks)
        .find(|b| b.role == BlockRole::Shared && b.names.iter().any(|n| n == ACT_MARK))
        .map(|b| b.names.clone())
        .unwrap_or_default();
    format!(
        "method {{params}}: what it does. name*: required; untyped: string; a|b: one of these strings; …: \
         more (rpc.discover {{\"methods\": [name]}} has all). selector|ref: the element, by selector (CSS, \
         role=button[name='Save'], text=Save, xpath=//b) or ref (e5, from page.snapshot); selector|ref*: one \
         is required. +act: {}: int (ms to wait for the requests the action started; default 2000), {}: \
         true|diff|{{selector|ref}} (the page after), {}: int (its cap). Not shown: session_id* (from \
         session.create), taken by all but {}; tab_id (default the active tab), by all with session_id but \
         {}; timeout: int (ms), by all but {}.",
        act.first().map_or("settleMs", String::as_str),
        act.get(1).map_or("snapshot", String::as_str),
        act.get(2).map_or("maxChars", String::as_str),
        but(&all, "session_id"),
        but(&with_session, "tab_id"),
        but(&all, "timeout"),
    )
}

/// `lacking` (a subset of `names`) said short: a namespace whose methods all lack it is `ns.*`.
fn namespaced(lacking: &[&str], names: &[&str]) -> String {
    let namespace = |name: &str| name.split('.').next().unwrap_or(name).to_owned();
    let mut out: Vec<String> = Vec::new();
    for name in lacking {
        let ns = namespace(name);
        let whole = names.iter().filter(|n| namespace(n) == ns).all(|n| lacking.contains(n))
            && names.iter().filter(|n| namespace(n) == ns).count() > 1;
        let said = if whole { format!("{ns}.*") } else { (*name).to_owned() };
        if !out.contains(&said) {
            out.push(said);
        }
    }
    match out.split_last() {
        None => "none".to_owned(),
        Some((only, [])) => only.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
    }
}

/// The method's params, each a content descriptor (a shared one's `$ref` followed).
fn params(method: &Value, components: &Value) -> Vec<Value> {
    method["params"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| match p.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix("#/components/")) {
            Some(path) => path.split('/').try_fold(components, |v, k| v.get(k)).cloned().unwrap_or(Value::Null),
            None => p.clone(),
        })
        .collect()
}

fn kind_of(name: &str, spec: Option<&MethodSpec>) -> Kind {
    // `session_id` and `timeout` mean the same to every method that takes them, in a shared block
    // or its own (`session.close`, `session.create`); a tab of its own (`tabs.focus`) is a param.
    let Some(spec) = spec.filter(|_| !matches!(name, "session_id" | "timeout")) else {
        return if SCOPE.contains(&name) { Kind::Scope } else { Kind::Plain };
    };
    let Some(block) = spec.blocks.iter().find(|b| b.names.iter().any(|n| n == name)) else { return Kind::Plain };
    match block.role {
        BlockRole::Target { required } => Kind::Target { required },
        BlockRole::Shared if block.names.iter().any(|n| n == ACT_MARK) => Kind::Act,
        BlockRole::Shared if SCOPE.contains(&name) => Kind::Scope,
        _ => Kind::Plain,
    }
}

/// Whether a token is of a required param (`url*`, `selector|ref*`, `count*: int`).
fn is_required(token: &str) -> bool {
    token.split(':').next().is_some_and(|name| name.ends_with('*'))
}

/// `name*: type`, or `name*` for a string.
fn token(name: &str, required: bool, schema: &Value, schemas: &Map<String, Value>) -> String {
    let star = if required { "*" } else { "" };
    match type_of(schema, schemas, 0).as_str() {
        "string" => format!("{name}{star}"),
        ty => format!("{name}{star}: {ty}"),
    }
}

/// A schema's type in a few characters: `int`, `bool`, `'load'|'networkidle'`, `string[]`,
/// `{width*, height*}`.
fn type_of(schema: &Value, schemas: &Map<String, Value>, depth: usize) -> String {
    if let Some(name) = schema.get("$ref").and_then(Value::as_str).and_then(|r| r.rsplit('/').next()) {
        return match schemas.get(name) {
            Some(def) if depth <= MAX_DEPTH => type_of(def, schemas, depth + 1),
            _ => "object".to_owned(),
        };
    }
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return values.iter().map(literal).collect::<Vec<_>>().join("|");
    }
    if let Some(value) = schema.get("const") {
        return literal(value);
    }
    if let Some([only]) = schema.get("allOf").and_then(Value::as_array).map(Vec::as_slice) {
        return type_of(only, schemas, depth);
    }
    if let Some(options) = alternatives(schema) {
        let mut parts: Vec<String> = Vec::new();
        for option in options {
            let part = type_of(option, schemas, depth + 1);
            if !parts.contains(&part) {
                parts.push(part);
            }
        }
        return parts.join("|");
    }
    match json_types(schema).as_slice() {
        ["array"] => {
            let items = type_of(schema.get("items").unwrap_or(&Value::Null), schemas, depth + 1);
            if items.contains('|') { format!("({items})[]") } else { format!("{items}[]") }
        }
        ["object"] => object(schema),
        [] => "any".to_owned(),
        ts => ts.iter().map(|t| primitive(t)).collect::<Vec<_>>().join("|"),
    }
}

/// A `oneOf` or `anyOf` schema's alternatives but `null` (which only says a param may be absent).
pub(super) fn alternatives(schema: &Value) -> Option<impl Iterator<Item = &Value>> {
    let options = ["oneOf", "anyOf"].iter().find_map(|key| schema.get(*key).and_then(Value::as_array))?;
    Some(options.iter().filter(|o| o.get("type").and_then(Value::as_str) != Some("null")))
}

/// A schema's JSON types but `null`.
pub(super) fn json_types(schema: &Value) -> Vec<&str> {
    match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).filter(|t| *t != "null").collect(),
        _ => vec![],
    }
}

/// An object's fields by name (`*` when required), at most [`OBJECT_FIELDS`].
fn object(schema: &Value) -> String {
    let star = |name: &str, required: bool| if required { format!("{name}*") } else { name.to_owned() };
    fields(schema, OBJECT_FIELDS, star).unwrap_or_else(|| "object".to_owned())
}

/// An object schema's fields, `{a, b, …}`: at most `cap`, each as `mark(name, required)`.
pub(super) fn fields(schema: &Value, cap: usize, mark: impl Fn(&str, bool) -> String) -> Option<String> {
    let properties = schema.get("properties").and_then(Value::as_object)?;
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut fields: Vec<String> =
        properties.keys().take(cap).map(|k| mark(k, required.contains(&k.as_str()))).collect();
    if properties.len() > cap {
        fields.push("…".to_owned());
    }
    Some(format!("{{{}}}", fields.join(", ")))
}

fn primitive(ty: &str) -> &str {
    match ty {
        "integer" => "int",
        "boolean" => "bool",
        other => other,
    }
}

/// A value a param may take, as it reads: `diff`, `true`, `2`.
fn literal(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rpc::openrpc;

    fn lines(form: Form) -> Vec<String> {
        let specs = crate::rpc::all_methods();
        let doc = openrpc::document(&specs);
        let methods = doc["methods"].as_array().unwrap();
        methods.iter().map(|m| line(m, specs.iter().find(|s| m["name"] == s.name), &doc["components"], form)).collect()
    }

    fn find(lines: &[String], name: &str) -> String {
        let named =
            |l: &&String| l.strip_prefix(name).is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', ':']));
        lines.iter().find(named).cloned().unwrap_or_else(|| panic!("no {name}"))
    }

    #[test]
    fn a_brief_line_leaves_the_scope_out_and_types_the_rest() {
        let brief = lines(Form::Brief);
        let click = find(&brief, "page.click");
        assert!(
            click.starts_with(
                "page.click {selector|ref, x: number, y: number, scroll: bool, button: left|right|middle, "
            ),
            "{click}"
        );
        assert!(click.contains(", …, +act}: Click an element"), "more params than a brief line shows: {click}");
        assert!(
            find(&brief, "session.create").contains("viewport: {width*, height*, deviceScaleFactor, …}"),
            "{brief:?}"
        );
        assert!(!click.contains("session_id") && !click.contains("timeout"), "{click}");
        let fill = find(&brief, "page.fill");
        assert_eq!(
            fill,
            "page.fill {selector|ref*, value*, secret: bool, +act}: Replace an input's value, typing like a user"
        );
        // A tab as the method's own (required) param is shown; the scope's is not.
        assert!(find(&brief, "tabs.focus").starts_with("tabs.focus {tab_id*}"), "{brief:?}");
        assert!(find(&brief, "session.close").starts_with("session.close: "), "{brief:?}");
    }

    #[test]
    fn a_usage_line_names_every_param_and_says_nothing_else() {
        let usage = lines(Form::Usage);
        let goto = find(&usage, "page.goto");
        assert!(goto.starts_with("page.goto {session_id*, tab_id, url*, waitUntil: load|"), "{goto}");
        assert!(goto.ends_with(", timeout: int}"), "timeout last: {goto}");
        let click = find(&usage, "page.click");
        assert!(
            click.contains("clickCount: int, settleMs: int, snapshot: bool|diff|{selector, ref}, maxChars: int"),
            "{click}"
        );
        assert!(!click.contains("Click"), "no summary: {click}");
    }

    #[test]
    fn the_legend_names_the_methods_that_lack_a_scope_param() {
        let specs = crate::rpc::all_methods();
        let doc = openrpc::document(&specs);
        let legend = legend(doc["methods"].as_array().unwrap(), &specs, &doc["components"]);
        assert!(legend.contains("taken by all but session.create, rpc.discover and events.unsubscribe"), "{legend}");
        assert!(legend.contains("by all with session_id but session.*, tabs.list and tabs.open"), "{legend}");
        assert!(legend.contains("timeout: int (ms), by all but session.close, rpc.discover and events.*"), "{legend}");
        assert!(legend.contains("+act: settleMs: int"), "{legend}");
    }

    #[test]
    fn types_are_spelled_short() {
        let schemas = Map::new();
        let t = |v: Value| type_of(&v, &schemas, 0);
        assert_eq!(t(serde_json::json!({"type": ["integer", "null"]})), "int");
        assert_eq!(t(serde_json::json!({"type": "array", "items": {"enum": ["a", "b"]}})), "(a|b)[]");
        assert_eq!(
            t(serde_json::json!({"type": "object", "properties": {"w": {}, "h": {}}, "required": ["w"]})),
            "{w*, h}"
        );
        assert_eq!(t(serde_json::json!({"type": "object", "additionalProperties": {"type": "string"}})), "object");
    }
}
