//! The short step language people type and put in script files — `goto /projects`,
//! `click role=button[name="New Project"]`, `click e12`, `fill #name Alpha`, `assert.text Alpha` —
//! turned into method calls. Also reads JSON scripts (`[{"method", "params"}]`, or
//! `{"steps": [...]}` as `session.run` takes them). Knows nothing of connections or terminals.

use serde_json::{Map, Value, json};
use url::Url;

/// One method call, without its `session_id`.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    pub method: String,
    pub params: Map<String, Value>,
}

impl Call {
    fn new(method: &str, params: Value) -> Self {
        let params = match params {
            Value::Object(map) => map,
            _ => Map::new(),
        };
        Self { method: method.to_owned(), params }
    }

    /// The call as a `session.run` step.
    pub fn as_step(&self) -> Value {
        json!({ "method": self.method, "params": self.params })
    }
}

/// The short forms, as `.help` lists them: (form, what it calls).
pub const FORMS: &[(&str, &str)] = &[
    ("goto URL", "page.goto (a URL starting with / is taken from --base or the page's origin)"),
    ("back | forward | reload", "page.back / page.forward / page.reload"),
    ("click T | dblclick T | hover T | focus T", "the action on target T"),
    ("check T | uncheck T | scroll T", "the action on target T"),
    ("fill T VALUE", "page.fill"),
    ("type TEXT", "page.type into the focused element"),
    ("press KEY | press T KEY", "page.press (Enter, Tab, Control+A …)"),
    ("select T VALUE…", "page.select by value or label"),
    ("upload T PATH…", "page.upload"),
    ("text [T] | snapshot [T] | inspect T", "read the page or one element"),
    ("eval EXPRESSION", "page.evaluate"),
    ("wait STATE [MS]", "page.waitFor (load, domcontentloaded, networkidle, idleFor MS)"),
    ("logs [LEVEL] | network | tabs", "logs.pull / network.pull / tabs.list"),
    ("assert.text [T] TEXT", "assert.text (on the page, or in T)"),
    ("assert.visible T | assert.hidden T", "the assertion on T"),
    ("assert.checked T", "the assertion on T"),
    ("assert.value T VALUE | assert.count T N", "the assertion on T"),
    ("assert.url PATTERN | assert.title TITLE", "the assertion on the page"),
    ("METHOD [{JSON}]", "any method, with its params as a JSON object (session_id added)"),
];

/// [`FORMS`] as an aligned table, for `.help` and `--help`.
pub fn forms_table() -> String {
    FORMS.iter().map(|(form, what)| format!("  {form:<48} {what}\n")).collect()
}

/// The verbs of [`FORMS`], for completion.
pub const VERBS: &[&str] = &[
    "goto",
    "back",
    "forward",
    "reload",
    "click",
    "dblclick",
    "hover",
    "focus",
    "check",
    "uncheck",
    "scroll",
    "fill",
    "type",
    "press",
    "select",
    "upload",
    "text",
    "snapshot",
    "inspect",
    "eval",
    "wait",
    "logs",
    "network",
    "tabs",
    "assert.text",
    "assert.visible",
    "assert.hidden",
    "assert.checked",
    "assert.value",
    "assert.count",
    "assert.url",
    "assert.title",
];

/// Parses one line: `None` for a blank line or a `#` comment. `base` resolves relative URLs.
pub fn parse_line(line: &str, base: Option<&Url>) -> Result<Option<Call>, String> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return Ok(None);
    }
    let (verb, rest) = split_first(line);
    let rest = rest.trim();
    if rest.starts_with('{') {
        let params: Value = serde_json::from_str(rest).map_err(|e| format!("{verb}: its params are not JSON: {e}"))?;
        if !params.is_object() {
            return Err(format!("{verb}: params are a JSON object"));
        }
        return Ok(Some(Call::new(verb, params)));
    }
    let words = tokens(rest);
    let need = |n: usize, form: &str| {
        if words.len() < n { Err(format!("{verb} needs {form}")) } else { Ok(()) }
    };
    let call = match verb {
        "goto" => {
            need(1, "a URL: goto /projects")?;
            Call::new("page.goto", json!({ "url": resolve(&words[0], base)? }))
        }
        "back" | "forward" | "reload" => Call::new(&format!("page.{verb}"), json!({})),
        "click" | "dblclick" | "hover" | "focus" | "check" | "uncheck" | "scroll" | "inspect" => {
            need(1, &format!("a target: {verb} e12, or {verb} #save"))?;
            Call::new(&format!("page.{verb}"), target(&words[0]))
        }
        "fill" => {
            need(2, "a target and a value: fill #name Alpha")?;
            with(target(&words[0]), "value", json!(remainder(rest, 1))).named("page.fill")
        }
        "type" => {
            need(1, "text: type hello")?;
            Call::new("page.type", json!({ "text": remainder(rest, 0) }))
        }
        "press" => match words.len() {
            0 => return Err("press needs a key: press Enter (or press #field Enter)".into()),
            1 => Call::new("page.press", json!({ "key": words[0] })),
            _ => with(target(&words[0]), "key", json!(remainder(rest, 1))).named("page.press"),
        },
        "select" | "upload" => {
            need(2, &format!("a target and values: {verb} #choice one two"))?;
            let (method, key) = if verb == "select" { ("page.select", "values") } else { ("page.upload", "files") };
            with(target(&words[0]), key, json!(words[1..])).named(method)
        }
        "text" | "snapshot" => {
            let params = words.first().map_or_else(|| json!({}), |t| target(t));
            Call::new(&format!("page.{verb}"), params)
        }
        "eval" => {
            need(1, "an expression: eval document.title")?;
            Call::new("page.evaluate", json!({ "expression": rest }))
        }
        "wait" => {
            need(1, "a state: wait networkidle, or wait idleFor 500")?;
            let mut params = json!({ "state": words[0] });
            if let Some(ms) = words.get(1) {
                params["ms"] = json!(ms.parse::<u64>().map_err(|_| format!("wait: {ms:?} is not milliseconds"))?);
            }
            Call::new("page.waitFor", params)
        }
        "logs" => Call::new("logs.pull", words.first().map_or_else(|| json!({}), |level| json!({ "level": level }))),
        "network" => Call::new("network.pull", json!({})),
        "tabs" => Call::new("tabs.list", json!({})),
        "assert.text" | "assert.visible" | "assert.hidden" | "assert.checked" | "assert.value" | "assert.count"
        | "assert.url" | "assert.title" => assertion(verb, &words, rest)?,
        method if method.contains('.') && rest.is_empty() => Call::new(method, json!({})),
        other => return Err(format!("unknown step {other:?} (type .help for the forms, or METHOD {{JSON}})")),
    };
    Ok(Some(call))
}

/// An `assert.*` step: the words after its verb, and the rest of its line.
fn assertion(verb: &str, words: &[String], rest: &str) -> Result<Call, String> {
    let need = |n: usize, form: &str| {
        if words.len() < n { Err(format!("{verb} needs {form}")) } else { Ok(()) }
    };
    Ok(match verb {
        "assert.text" => {
            need(1, "text: assert.text Saved, or assert.text #status Saved")?;
            if words.len() > 1 && looks_like_target(&words[0]) {
                with(target(&words[0]), "text", json!(remainder(rest, 1))).named(verb)
            } else {
                Call::new(verb, json!({ "text": remainder(rest, 0) }))
            }
        }
        "assert.value" => {
            need(2, "a target and a value: assert.value #name Alpha")?;
            with(target(&words[0]), "value", json!(remainder(rest, 1))).named(verb)
        }
        "assert.count" => {
            need(2, "a target and a number: assert.count .row 3")?;
            let count: u64 = words[1].parse().map_err(|_| format!("assert.count: {:?} is not a number", words[1]))?;
            with(target(&words[0]), "count", json!(count)).named(verb)
        }
        "assert.url" => {
            need(1, "a pattern: assert.url */projects/*")?;
            Call::new(verb, json!({ "pattern": remainder(rest, 0) }))
        }
        "assert.title" => {
            need(1, "a title: assert.title Projects")?;
            Call::new(verb, json!({ "title": remainder(rest, 0) }))
        }
        // assert.visible, assert.hidden, assert.checked
        _ => {
            need(1, &format!("a target: {verb} #save"))?;
            Call::new(verb, target(&words[0]))
        }
    })
}

/// Parses a whole script: JSON (an array of `{method, params}` or `{"steps": [...]}`), or one step
/// per line. Errors name the line.
pub fn parse_script(text: &str, base: Option<&Url>) -> Result<Vec<Call>, String> {
    let trimmed = text.trim_start();
    if trimmed.starts_with('[') || trimmed.starts_with('{') {
        let value: Value = serde_json::from_str(trimmed).map_err(|e| format!("the script is not valid JSON: {e}"))?;
        let steps = value.get("steps").cloned().unwrap_or(value);
        let Value::Array(steps) = steps else { return Err("a JSON script is an array of steps".into()) };
        return steps
            .into_iter()
            .enumerate()
            .map(|(i, step)| {
                let method = step["method"].as_str().ok_or(format!("step {}: no \"method\"", i + 1))?;
                Ok(Call::new(method, step.get("params").cloned().unwrap_or(json!({}))))
            })
            .collect();
    }
    let mut calls = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if let Some(call) = parse_line(line, base).map_err(|e| format!("line {}: {e}", i + 1))? {
            calls.push(call);
        }
    }
    Ok(calls)
}

trait Named {
    fn named(self, method: &str) -> Call;
}

impl Named for Value {
    fn named(self, method: &str) -> Call {
        Call::new(method, self)
    }
}

fn with(mut params: Value, key: &str, value: Value) -> Value {
    params[key] = value;
    params
}

/// `e12` is a ref; anything else a selector.
fn target(word: &str) -> Value {
    if is_ref(word) { json!({ "ref": word }) } else { json!({ "selector": word }) }
}

fn is_ref(word: &str) -> bool {
    word.strip_prefix('e').is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Whether a first word of `assert.text` names an element rather than starting the text.
fn looks_like_target(word: &str) -> bool {
    is_ref(word) || word.starts_with(['#', '.', '[', '/']) || word.contains(['=', '[', '>'])
}

fn resolve(url: &str, base: Option<&Url>) -> Result<String, String> {
    if Url::parse(url).is_ok() {
        return Ok(url.to_owned());
    }
    match base {
        Some(base) => base.join(url).map(String::from).map_err(|e| format!("goto: {url:?}: {e}")),
        None => Err(format!("goto {url}: a relative URL needs --base http://host:port (or a page already open)")),
    }
}

/// The first word and the rest of the line.
fn split_first(line: &str) -> (&str, &str) {
    line.split_once(char::is_whitespace).unwrap_or((line, ""))
}

/// The line after its first `skip` words, unquoted when it is one quoted string.
fn remainder(rest: &str, skip: usize) -> String {
    let mut tail = rest.trim();
    for _ in 0..skip {
        tail = &tail[token_end(tail)..];
        tail = tail.trim_start();
    }
    match tokens(tail).as_slice() {
        [one] if is_quoted(tail) => one.clone(),
        _ => tail.to_owned(),
    }
}

fn is_quoted(text: &str) -> bool {
    let text = text.trim();
    text.len() >= 2 && (text.starts_with('"') && text.ends_with('"') || text.starts_with('\'') && text.ends_with('\''))
}

/// Where the first word of `text` ends: at whitespace outside quotes and brackets, so
/// `role=button[name="New Project"]` is one word.
fn token_end(text: &str) -> usize {
    let (mut quote, mut depth, mut escaped) = (None, 0i32, false);
    for (i, c) in text.char_indices() {
        match (quote, c) {
            _ if escaped => escaped = false,
            (Some(_), '\\') => escaped = true,
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '[' | '(') => depth += 1,
            (None, ']' | ')') => depth -= 1,
            (None, c) if c.is_whitespace() && depth <= 0 => return i,
            _ => {}
        }
    }
    text.len()
}

/// A quoted word's content: `"a \"b\""` is `a "b"`.
fn unquote(word: &str) -> String {
    let mut out = String::new();
    let mut chars = word[1..word.len() - 1].chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.extend(chars.next()),
            c => out.push(c),
        }
    }
    out
}

/// The words of `text`; a word that is wholly one quoted string loses its quotes.
fn tokens(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut rest = text.trim();
    while !rest.is_empty() {
        let end = token_end(rest);
        let word = &rest[..end];
        words.push(if is_quoted(word) { unquote(word) } else { word.to_owned() });
        rest = rest[end..].trim_start();
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(line: &str) -> Call {
        let base = Url::parse("http://127.0.0.1:3338/login").unwrap();
        parse_line(line, Some(&base)).unwrap().unwrap()
    }

    #[test]
    fn the_issue_examples_become_the_methods_they_name() {
        assert_eq!(call("goto /projects").params["url"], "http://127.0.0.1:3338/projects");
        let new = call(r#"click role=button[name="New Project"]"#);
        assert_eq!(
            (new.method.as_str(), &new.params["selector"]),
            ("page.click", &json!(r#"role=button[name="New Project"]"#))
        );
        assert_eq!(call("click e12").params["ref"], "e12");
        let fill = call("fill #name Alpha");
        assert_eq!(
            (fill.method.as_str(), fill.params["selector"].as_str(), fill.params["value"].as_str()),
            ("page.fill", Some("#name"), Some("Alpha"))
        );
        assert_eq!(call("assert.text Alpha").params, *json!({ "text": "Alpha" }).as_object().unwrap());
    }

    #[test]
    fn quotes_keep_spaces_and_are_dropped_around_a_whole_value() {
        assert_eq!(call(r#"fill #name "Alpha Beta""#).params["value"], "Alpha Beta");
        assert_eq!(call("fill e3 Alpha Beta").params["value"], "Alpha Beta");
        assert_eq!(call(r#"click "text=Sign in""#).params["selector"], "text=Sign in");
        assert_eq!(call(r#"click text="Sign in""#).params["selector"], r#"text="Sign in""#);
        let a = call(r#"assert.text #status "Paid, thank you!""#);
        assert_eq!(
            (a.params["selector"].as_str(), a.params["text"].as_str()),
            (Some("#status"), Some("Paid, thank you!"))
        );
        assert_eq!(call("assert.text Paid, thank you!").params["text"], "Paid, thank you!");
        let escaped = call(r#"click "role=button[name=\"Place order\"]""#);
        assert_eq!(escaped.params["selector"], r#"role=button[name="Place order"]"#);
    }

    #[test]
    fn any_method_takes_json_params_and_bad_lines_say_why() {
        let run = call(r#"page.scroll {"deltaY": 400}"#);
        assert_eq!((run.method.as_str(), &run.params["deltaY"]), ("page.scroll", &json!(400)));
        assert_eq!(call("storage.state").method, "storage.state");
        assert!(parse_line("fill #name", None).unwrap_err().contains("fill #name Alpha"));
        assert!(parse_line("goto /x", None).unwrap_err().contains("--base"));
        assert!(parse_line("jump", None).unwrap_err().contains(".help"));
        assert!(parse_line("page.click [1]", None).is_err());
        assert_eq!(parse_line("  # a comment", None), Ok(None));
    }

    #[test]
    fn a_script_is_json_or_one_step_per_line_and_errors_name_the_line() {
        let json = r#"{"steps": [{"method": "page.goto", "params": {"url": "http://a/"}}, {"method": "page.back"}]}"#;
        assert_eq!(parse_script(json, None).unwrap().len(), 2);
        let lines = "goto http://a/\n\n# then\nclick e1\n";
        assert_eq!(parse_script(lines, None).unwrap().len(), 2);
        assert_eq!(
            parse_script("goto http://a/\nfill e1", None).unwrap_err(),
            "line 2: fill needs a target and a value: fill #name Alpha"
        );
    }
}
