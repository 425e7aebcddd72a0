//! Results as people read them: a page's text or snapshot as text, the rest as compact JSON, a
//! `session.run` as one line per step, errors with their kind and remediation. Also picks the refs
//! out of a snapshot (for completion) and the page URL out of a result (for relative `goto`).

use serde_json::Value;

use crate::connection::CallError;
use crate::paint::Paint;

/// Fields printed as text rather than JSON.
const TEXT_FIELDS: &[&str] = &["text", "snapshot", "content", "markdown", "lines"];

/// A result as text.
pub fn result(value: &Value, paint: Paint) -> String {
    let Value::Object(fields) = value else { return value.to_string() };
    let mut out = String::new();
    let mut rest = fields.clone();
    for name in TEXT_FIELDS {
        if let Some(Value::String(text)) = rest.remove(*name) {
            out.push_str(text.trim_end());
            out.push('\n');
        }
    }
    if let Some(effects) = rest.remove("effects") {
        out.push_str(&effects_lines(&effects, paint));
    }
    if let Some(load) = rest.remove("load") {
        out.push_str(&load_lines(&load, paint));
    }
    // logs.pull and network.pull: their entries as lines too.
    let mut pulled = serde_json::Map::new();
    for field in ["console", "pageErrors", "requests"] {
        if let Some(entries) = rest.remove(field) {
            pulled.insert(field.to_owned(), entries);
        }
    }
    out.push_str(&effects_lines(&Value::Object(pulled), paint));
    if !rest.is_empty() {
        let compact = Value::Object(rest).to_string();
        out.push_str(&paint.dim(&compact));
        out.push('\n');
    }
    out
}

/// What an action caused, a line each: requests with status, initiator and body; errors with
/// their place; dialogs, downloads, popups, a navigation.
fn effects_lines(effects: &Value, paint: Paint) -> String {
    let mut lines = Vec::new();
    for request in effects["requests"].as_array().into_iter().flatten() {
        let outcome = request["failure"]
            .as_str()
            .map(str::to_owned)
            .or_else(|| request["status"].as_u64().map(|s| s.to_string()));
        let mut line =
            format!("{} {}", request["method"].as_str().unwrap_or("GET"), request["url"].as_str().unwrap_or(""));
        // What the page sent, then what it got: the two halves of most API bugs.
        if let Some(sent) = request["requestBody"].as_str() {
            line.push_str(&format!(" {}", shorten(sent, 160)));
        }
        line.push_str(&format!(" → {}", outcome.as_deref().unwrap_or("pending")));
        if let Some(from) = request["initiator"].as_str() {
            line.push_str(&format!("  from {from}"));
        }
        if let Some(body) = request["responseBody"].as_str() {
            line.push_str(&format!("  {}", shorten(body, 160)));
        }
        let failed = request["failure"].is_string() || request["status"].as_u64().is_some_and(|s| s >= 400);
        lines.push((if failed { Tone::Bad } else { Tone::Plain }, line));
    }
    for group in effects["groups"].as_array().into_iter().flatten() {
        let line = format!(
            "{} ×{} → {}",
            group["endpoint"].as_str().unwrap_or(""),
            group["count"],
            group["statuses"].as_str().unwrap_or("")
        );
        lines.push((Tone::Plain, line));
    }
    // What the service derived from the times: out of order, one after another.
    for fact in effects["facts"].as_array().into_iter().flatten().filter_map(Value::as_str) {
        lines.push((Tone::Bad, fact.to_owned()));
    }
    for change in effects["changes"].as_array().into_iter().flatten().filter_map(Value::as_str) {
        lines.push((Tone::Plain, change.to_owned()));
    }
    for field in ["consoleErrors", "console", "pageErrors"] {
        for entry in effects[field].as_array().into_iter().flatten() {
            let (what, bad) = match (field, entry["type"].as_str()) {
                ("pageErrors", _) => ("page error".to_owned(), true),
                (_, Some(level)) => (format!("console.{level}"), level == "error" || level == "assert"),
                _ => ("console.error".to_owned(), true),
            };
            let text = entry["text"].as_str().or_else(|| entry["message"].as_str()).unwrap_or("");
            let at = place(&entry["location"]);
            lines.push((if bad { Tone::Bad } else { Tone::Plain }, format!("{what}: {text}{at}")));
            // The lines around it, as the service quoted them.
            for source in entry["source"].as_str().into_iter().flat_map(str::lines) {
                lines.push((Tone::Quote, source.to_owned()));
            }
        }
    }
    for field in ["dialogs", "downloads", "popups"] {
        for said in effects[field].as_array().into_iter().flatten().filter_map(Value::as_str) {
            lines.push((Tone::Plain, said.to_owned()));
        }
    }
    if let Some(url) = effects["navigated"]["url"].as_str() {
        lines.push((Tone::Plain, format!("navigated to {url}")));
    }
    for (field, what) in
        [("moreChanges", "changes"), ("moreConsoleErrors", "console errors"), ("morePageErrors", "page errors")]
    {
        if let Some(n) = effects[field].as_u64().filter(|n| *n > 0) {
            lines.push((Tone::Plain, format!("{n} more {what}")));
        }
    }
    lines
        .into_iter()
        .map(|(tone, line)| match tone {
            Tone::Bad => format!("{}\n", paint.red(&format!("  ↳ {line}"))),
            Tone::Plain => format!("  ↳ {line}\n"),
            Tone::Quote => format!("{}\n", paint.dim(&format!("    {line}"))),
        })
        .collect()
}

/// How a page loaded (page.goto's `load`), a line, then its longest chain and facts.
fn load_lines(load: &Value, paint: Paint) -> String {
    let at = |field: &str, name: &str| load[field].as_i64().map(|ms| format!("{name} {ms} ms"));
    let parts: Vec<String> = [
        at("domContentLoadedMs", "DOMContentLoaded"),
        at("networkQuietMs", "network quiet"),
        at("contentSettledMs", "content settled"),
    ]
    .into_iter()
    .flatten()
    .collect();
    let took = load["loadMs"].as_i64().map_or_else(|| "loading".to_owned(), |ms| format!("loaded in {ms} ms"));
    let detail = if parts.is_empty() { String::new() } else { format!(" ({})", parts.join(", ")) };
    let mut out = format!("  ↳ {took}{detail}, {} requests\n", load["requests"]);
    for fact in load["longestChain"]
        .as_str()
        .into_iter()
        .chain(load["facts"].as_array().into_iter().flatten().filter_map(Value::as_str))
    {
        out.push_str(&format!("{}\n", paint.red(&format!("  ↳ {fact}"))));
    }
    out
}

/// `text` on one line, cut at `max` characters.
fn shorten(text: &str, max: usize) -> String {
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let cut: String = one_line.chars().take(max).collect();
    if cut.len() < one_line.len() { format!("{cut}…") } else { cut }
}

/// How a line of [`effects_lines`] is shown.
enum Tone {
    /// A failure: red.
    Bad,
    Plain,
    /// Source quoted under an error: indented, dim.
    Quote,
}

/// Where in the page's code a `location` (`{url, line, column}`) points, as `  (/path:line:col)`
/// — the script's path is enough, the page's origin being the one driven; "" without one.
pub fn place(location: &Value) -> String {
    let Some(url) = location["url"].as_str() else { return String::new() };
    let path = url::Url::parse(url).map_or_else(|_| url.to_owned(), |u| u.path().to_owned());
    format!("  ({path}:{}:{})", location["line"], location["column"])
}

/// A `session.run` result: one line per step, then where the page ended up.
pub fn run(value: &Value, paint: Paint) -> String {
    let mut out = String::new();
    for step in value["results"].as_array().into_iter().flatten() {
        let method = step["method"].as_str().unwrap_or("?");
        let ms = step["ms"].as_u64().unwrap_or(0);
        if step["ok"] == true {
            let detail = step_detail(&step["result"]);
            out.push_str(&format!("{} {method} {}{detail}\n", paint.green("✓"), paint.dim(&format!("{ms} ms"))));
            out.push_str(&effects_lines(&step["result"]["effects"], paint));
            out.push_str(&read_result(&step["result"], paint));
        } else {
            let error = &step["error"];
            let failure = CallError::Service {
                message: error["message"].as_str().unwrap_or("failed").to_owned(),
                data: error["data"].clone(),
            };
            out.push_str(&paint.red(&format!("✖ {method}: {failure}")));
            out.push('\n');
        }
    }
    if let Some(skipped) = value["skipped"].as_u64().filter(|n| *n > 0) {
        let steps = if skipped == 1 { "step" } else { "steps" };
        out.push_str(&paint.dim(&format!("  {skipped} {steps} skipped\n")));
    }
    out.push_str(&format!(
        "→ {} {}\n",
        value["url"].as_str().unwrap_or(""),
        paint.dim(value["title"].as_str().unwrap_or(""))
    ));
    out
}

/// What a step's result says in a few words: the status it got.
fn step_detail(result: &Value) -> String {
    result["status"].as_u64().map(|status| format!("  status {status}")).unwrap_or_default()
}

/// What a reading step returned (text, snapshot, evaluate's result, pulled logs …), indented under
/// it; nothing for an action, whose effects are shown instead.
fn read_result(result: &Value, paint: Paint) -> String {
    let Value::Object(fields) = result else { return String::new() };
    let mut read = fields.clone();
    for shown_elsewhere in ["ok", "status", "url", "title", "signals", "effects"] {
        read.remove(shown_elsewhere);
    }
    if read.is_empty() {
        return String::new();
    }
    self::result(&Value::Object(read), paint).lines().map(|line| format!("    {line}\n")).collect()
}

/// A failed call.
pub fn error(err: &CallError, paint: Paint) -> String {
    paint.red(&format!("✖ {err}"))
}

/// The refs a snapshot names (`[ref=e12]`), in order.
pub fn refs(value: &Value) -> Vec<String> {
    let Some(text) = value["snapshot"].as_str() else { return Vec::new() };
    text.split("[ref=").skip(1).filter_map(|rest| rest.split(']').next()).map(str::to_owned).collect()
}

/// The page's URL after a call, when the result says it.
pub fn page_url(value: &Value) -> Option<&str> {
    value["url"].as_str().or_else(|| value["page"]["url"].as_str()).filter(|u| u.starts_with("http"))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_read_prints_its_text_and_the_rest_as_one_json_line() {
        let shown = result(&json!({ "text": "Team\nAda", "truncated": false }), Paint::plain());
        assert_eq!(shown, "Team\nAda\n{\"truncated\":false}\n");
    }

    #[test]
    fn an_actions_effects_are_a_line_each_and_the_rest_one_json_line() {
        let value = json!({ "ok": true, "effects": {
            "requests": [{ "method": "POST", "url": "/api/pay", "status": 422, "initiator": "/view.js:16:19", "responseBody": "{\"error\":\"declined\"}" }],
            "pageErrors": [{ "message": "TypeError: x", "location": { "url": "http://h/view.js", "line": 3, "column": 7 } }],
            "groups": [{ "endpoint": "GET /api/items/{id}", "count": 12, "statuses": "200×12", "firstMs": 3 }],
            "facts": ["GET /api/search ×3 finished out of order: ?q=a started 1st, finished last at +900 ms"],
            "moreConsoleErrors": 2
        } });
        assert_eq!(
            result(&value, Paint::plain()),
            "  ↳ POST /api/pay → 422  from /view.js:16:19  {\"error\":\"declined\"}\n  ↳ GET /api/items/{id} ×12 → 200×12\n  ↳ GET /api/search ×3 finished out of order: ?q=a started 1st, finished last at +900 ms\n  ↳ page error: TypeError: x  (/view.js:3:7)\n  ↳ 2 more console errors\n{\"ok\":true}\n"
        );
    }

    #[test]
    fn a_run_is_one_line_per_step_with_the_failure_explained() {
        let value = json!({
            "results": [
                { "method": "page.goto", "ok": true, "ms": 40, "result": { "status": 200 } },
                { "method": "page.click", "ok": false, "ms": 5, "error": { "message": "no element matches #x",
                  "data": { "kind": "element_not_found", "remediation": "Take a snapshot." } } }
            ],
            "skipped": 2, "url": "http://h/a", "title": "A"
        });
        let shown = run(&value, Paint::plain());
        assert_eq!(
            shown,
            "✓ page.goto 40 ms  status 200\n✖ page.click: no element matches #x [element_not_found]\n  → Take a snapshot.\n  2 steps skipped\n→ http://h/a A\n"
        );
    }

    #[test]
    fn a_reading_step_shows_what_it_read_and_a_request_what_was_sent() {
        let value = json!({ "results": [
            { "method": "page.evaluate", "ok": true, "ms": 3, "result": { "result": 2 } },
            { "method": "page.click", "ok": true, "ms": 9, "result": { "ok": true, "effects": { "requests": [
                { "method": "POST", "url": "/api/orders", "requestBody": "{\"quantity\":2}", "status": 422 }] } } }
        ], "skipped": 1, "url": "http://h/", "title": "" });
        let shown = run(&value, Paint::plain());
        assert!(shown.contains("✓ page.evaluate 3 ms\n    {\"result\":2}\n"), "{shown}");
        assert!(shown.contains("  ↳ POST /api/orders {\"quantity\":2} → 422\n"), "{shown}");
        assert!(shown.contains("  1 step skipped\n"), "{shown}");
    }

    #[test]
    fn refs_come_from_the_snapshot_text() {
        let value = json!({ "snapshot": "- button \"Save\" [ref=e3]\n- link \"Home\" [ref=e4]" });
        assert_eq!(refs(&value), vec!["e3", "e4"]);
    }
}
