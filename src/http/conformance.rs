//! Exactly JSON-RPC 2.0 over HTTP, in front of jsonrpsee.
//!
//! jsonrpsee answers a notification with the body `null`, cannot echo an id that is a negative,
//! fractional or very large number, and calls a request with a non-string method a parse error.
//! This layer reads each POSTed request (or batch) first, per the specification
//! (<https://www.jsonrpc.org/specification>):
//!
//! - invalid JSON: one `-32700 Parse error`, id null;
//! - not a request object (wrong `jsonrpc`, a `method` that is not a string, an `id` that is not a
//!   string, number or null, `params` that are neither object nor array): `-32600`, id null;
//! - an empty batch, or one of more than [`MAX_BATCH`] requests: one `-32600` (naming the cap);
//! - a method that does not exist: `-32601`, naming the one probably meant;
//! - notifications (no `id`) run, and get no answer: a request or batch of only notifications is
//!   answered with HTTP 204 and no body;
//! - every other request goes to jsonrpsee under a stand-in id, and its answer gets back the id
//!   exactly as the client wrote it (`-7`, `1.5`, `1e400`); a batch is answered in its order.
//!
//! Ordinary requests (one call with a string or small non-negative integer id, a known method)
//! pass through untouched. Every answer made here is counted in `rpc_requests_total` under the
//! bounded method label `unknown`.

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use crate::rpc::error::ErrorKind;

/// Requests a batch may hold (each is a call, and each is counted by the rate limit); the same cap
/// holds over WebSocket, where `rpc::answers` checks it.
pub use crate::rpc::answers::MAX_BATCH;

/// What to do with a POSTed body.
#[derive(Debug, PartialEq)]
pub enum Prepared {
    /// Answer with this body (HTTP 200), or with 204 and no body when `None`, without jsonrpsee.
    Answer(Option<String>),
    /// Give jsonrpsee the body as it is and its answer to the client as it is.
    PassThrough,
    /// Give jsonrpsee `body`, then [`finish`] its answer with `plan`.
    Forward { body: String, plan: Plan },
}

/// How to turn jsonrpsee's answer to a rewritten request back into the client's.
#[derive(Debug, PartialEq)]
pub struct Plan {
    batch: bool,
    entries: Vec<Entry>,
}

#[derive(Debug, PartialEq)]
enum Entry {
    /// An answer made here (invalid request, unknown method).
    Local(String),
    /// A call sent on with the id `stand_in`: its answer gets `id` (the client's, as written) back.
    Call { id: String, stand_in: String },
    /// A notification: run, never answered.
    Notification,
}

/// An error made here, and how it is counted.
#[derive(Debug, Clone, PartialEq)]
pub struct Rejection {
    pub kind: ErrorKind,
}

/// The members of a request, each as the client wrote it.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(default, borrow, deserialize_with = "present")]
    jsonrpc: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    id: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    method: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    params: Option<&'a RawValue>,
}

/// A member that is present, even as `null` (which `Option` alone would read as absent).
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(d).map(Some)
}

/// Prepares a POSTed body; `known` says whether a method exists, `suggest` names a near one;
/// `count` is called once per answer made here.
pub fn prepare(
    body: &str,
    known: impl Fn(&str) -> bool,
    suggest: impl Fn(&str) -> Option<String>,
    mut count: impl FnMut(Rejection),
) -> Prepared {
    let Ok(raw) = serde_json::from_str::<&RawValue>(body) else {
        count(Rejection { kind: ErrorKind::ParseError });
        return Prepared::Answer(Some(error(ErrorKind::ParseError, "null", "the body is not valid JSON")));
    };
    let text = raw.get().trim_start();
    if text.starts_with('[') {
        let Ok(items) = serde_json::from_str::<Vec<&RawValue>>(text) else {
            count(Rejection { kind: ErrorKind::ParseError });
            return Prepared::Answer(Some(error(ErrorKind::ParseError, "null", "the body is not valid JSON")));
        };
        if items.is_empty() {
            count(Rejection { kind: ErrorKind::InvalidRequest });
            return Prepared::Answer(Some(error(ErrorKind::InvalidRequest, "null", "an empty batch is not a request")));
        }
        if items.len() > MAX_BATCH {
            count(Rejection { kind: ErrorKind::InvalidRequest });
            let why = format!(
                "a batch holds at most {MAX_BATCH} requests and this one has {}: split it (nothing in it was run)",
                items.len()
            );
            return Prepared::Answer(Some(error(ErrorKind::InvalidRequest, "null", &why)));
        }
        let mut entries = Vec::with_capacity(items.len());
        let mut forward = Vec::new();
        for item in items {
            entries.push(classify(item, &known, &suggest, &mut count, &mut forward));
        }
        return plan(true, entries, forward);
    }
    // One request: the common case may pass through as it is.
    let mut forward = Vec::new();
    let entry = classify(raw, &known, &suggest, &mut count, &mut forward);
    if let Entry::Call { id, .. } = &entry
        && ordinary_id(id)
    {
        return Prepared::PassThrough;
    }
    plan(false, vec![entry], forward)
}

/// The plan for `entries`, whose forwardable requests are `forward`.
fn plan(batch: bool, entries: Vec<Entry>, forward: Vec<String>) -> Prepared {
    if forward.is_empty() {
        return Prepared::Answer(combine(batch, entries.into_iter().filter_map(local)));
    }
    let body = if batch || forward.len() > 1 { format!("[{}]", forward.join(",")) } else { forward.concat() };
    Prepared::Forward { body, plan: Plan { batch, entries } }
}

fn local(entry: Entry) -> Option<String> {
    match entry {
        Entry::Local(answer) => Some(answer),
        _ => None,
    }
}

/// One request of the body: answered here, or added to `forward` (as it will be sent on).
fn classify(
    raw: &RawValue,
    known: &impl Fn(&str) -> bool,
    suggest: &impl Fn(&str) -> Option<String>,
    count: &mut impl FnMut(Rejection),
    forward: &mut Vec<String>,
) -> Entry {
    let invalid = |count: &mut dyn FnMut(Rejection), why: &str| {
        count(Rejection { kind: ErrorKind::InvalidRequest });
        Entry::Local(error(ErrorKind::InvalidRequest, "null", why))
    };
    if !raw.get().trim_start().starts_with('{') {
        return invalid(count, "a request is an object: {\"jsonrpc\":\"2.0\",\"method\":…,\"id\":…}");
    }
    let Ok(envelope) = serde_json::from_str::<Envelope>(raw.get()) else {
        return invalid(count, "the request object could not be read (duplicate members?)");
    };
    if envelope.jsonrpc.map(RawValue::get) != Some("\"2.0\"") {
        return invalid(count, "\"jsonrpc\" must be exactly \"2.0\"");
    }
    let Some(method) = envelope.method.and_then(|m| serde_json::from_str::<String>(m.get()).ok()) else {
        return invalid(count, "\"method\" must be a string");
    };
    if let Some(id) = envelope.id
        && !matches!(id.get().as_bytes().first(), Some(b'"' | b'-' | b'0'..=b'9' | b'n'))
    {
        return invalid(count, "\"id\" must be a string, a number or null");
    }
    if let Some(params) = envelope.params
        && !matches!(params.get().as_bytes().first(), Some(b'{' | b'['))
    {
        return invalid(count, "\"params\" must be an object (by name) or an array");
    }
    if !known(&method) {
        count(Rejection { kind: ErrorKind::MethodNotFound });
        let Some(id) = envelope.id else { return Entry::Notification };
        let hint = suggest(&method).map(|m| format!(" (did you mean {m}?)")).unwrap_or_default();
        let why = format!("there is no method {}{hint}; rpc.discover lists them all", crate::quote::quote(&method));
        return Entry::Local(error(ErrorKind::MethodNotFound, id.get(), &why));
    }
    let params = envelope.params.map(|p| format!(",\"params\":{}", p.get())).unwrap_or_default();
    let method = envelope.method.map(RawValue::get).unwrap_or("\"\"");
    match envelope.id {
        None => {
            forward.push(format!("{{\"jsonrpc\":\"2.0\",\"method\":{method}{params}}}"));
            Entry::Notification
        }
        Some(id) => {
            let stand_in = format!("tb-{}", forward.len());
            forward.push(format!("{{\"jsonrpc\":\"2.0\",\"method\":{method}{params},\"id\":\"{stand_in}\"}}"));
            Entry::Call { id: id.get().to_owned(), stand_in }
        }
    }
}

/// An id jsonrpsee echoes exactly: a string, or a non-negative integer of at most 18 digits.
fn ordinary_id(id: &str) -> bool {
    (id.starts_with('"') && !id.contains('\\'))
        || (!id.is_empty() && id.len() <= 18 && id.bytes().all(|b| b.is_ascii_digit()))
}

/// Turns jsonrpsee's answer to a forwarded body into the client's answer (`None`: no body, 204).
pub fn finish(plan: Plan, answer: &str) -> Option<String> {
    let answers: Vec<Map<String, Value>> = match serde_json::from_str::<Value>(answer) {
        Ok(Value::Array(items)) => items.into_iter().filter_map(|v| v.as_object().cloned()).collect(),
        Ok(Value::Object(one)) => vec![one],
        _ => Vec::new(),
    };
    let mut out = Vec::new();
    for entry in plan.entries {
        match entry {
            Entry::Local(answer) => out.push(answer),
            Entry::Notification => {}
            Entry::Call { id, stand_in } => {
                let stand_in = Value::String(stand_in);
                let found = answers.iter().find(|a| a.get("id") == Some(&stand_in));
                out.push(match found {
                    Some(answer) => with_id(answer, &id),
                    None => error(ErrorKind::InternalError, &id, "the call was not answered"),
                });
            }
        }
    }
    combine(plan.batch, out.into_iter())
}

/// `answer` with the client's `id` (as written) in place of the stand-in.
fn with_id(answer: &Map<String, Value>, id: &str) -> String {
    #[derive(Serialize)]
    struct Answer<'a> {
        jsonrpc: &'static str,
        #[serde(flatten)]
        rest: Map<String, Value>,
        id: &'a RawValue,
    }
    let rest: Map<String, Value> =
        answer.iter().filter(|(k, _)| *k != "id" && *k != "jsonrpc").map(|(k, v)| (k.clone(), v.clone())).collect();
    let id = serde_json::from_str::<&RawValue>(id).unwrap_or(RawValue::NULL);
    serde_json::to_string(&Answer { jsonrpc: "2.0", rest, id }).unwrap_or_default()
}

/// One answer, a batch of answers, or none (when a batch's requests were all notifications).
fn combine(batch: bool, mut answers: impl Iterator<Item = String>) -> Option<String> {
    if batch {
        let all: Vec<String> = answers.collect();
        (!all.is_empty()).then(|| format!("[{}]", all.join(",")))
    } else {
        answers.next()
    }
}

/// A JSON-RPC error answer with `kind`'s code, `why` as its message and the usual data.
fn error(kind: ErrorKind, id: &str, why: &str) -> String {
    let message = match kind {
        ErrorKind::ParseError => "Parse error",
        ErrorKind::InvalidRequest => "Invalid Request",
        ErrorKind::MethodNotFound => "Method not found",
        _ => "Internal error",
    };
    let error = json!({
        "code": kind.code(),
        "message": format!("{message}: {why}"),
        "data": { "kind": kind.as_str(), "remediation": kind.remediation() },
    });
    format!("{{\"jsonrpc\":\"2.0\",\"error\":{error},\"id\":{id}}}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(body: &str) -> (Prepared, Vec<ErrorKind>) {
        let mut counted = Vec::new();
        let prepared = prepare(
            body,
            |m| m == "page.text" || m == "ok",
            |m| (m == "page.txt").then(|| "page.text".to_owned()),
            |r| counted.push(r.kind),
        );
        (prepared, counted)
    }

    fn answered(body: &str) -> Value {
        match run(body).0 {
            Prepared::Answer(Some(text)) => serde_json::from_str(&text).unwrap(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn invalid_json_is_one_parse_error_with_a_null_id() {
        let answer = answered(r#"{"jsonrpc":"2.0","method":"ok","params":"bar","baz]"#);
        assert_eq!((answer["error"]["code"].as_i64(), &answer["id"]), (Some(-32700), &Value::Null));
        assert_eq!(run("nope").1, [ErrorKind::ParseError]);
    }

    #[test]
    fn a_method_that_is_not_a_string_is_an_invalid_request() {
        // The specification's own example: --> {"jsonrpc": "2.0", "method": 1, "params": "bar"}
        let answer = answered(r#"{"jsonrpc": "2.0", "method": 1, "params": "bar"}"#);
        assert_eq!((answer["error"]["code"].as_i64(), &answer["id"]), (Some(-32600), &Value::Null));
    }

    #[test]
    fn ids_of_other_types_are_invalid_requests_with_a_null_id() {
        for id in [r#"{"a":1}"#, "[1]", "true"] {
            let answer = answered(&format!(r#"{{"jsonrpc":"2.0","method":"ok","id":{id}}}"#));
            assert_eq!((answer["error"]["code"].as_i64(), &answer["id"]), (Some(-32600), &Value::Null), "{id}");
        }
    }

    #[test]
    fn an_empty_batch_is_one_invalid_request() {
        let answer = answered("[]");
        assert_eq!(answer["error"]["code"], -32600, "one answer, not an array: {answer}");
    }

    #[test]
    fn a_batch_over_the_cap_is_one_invalid_request_naming_it() {
        let call = r#"{"jsonrpc":"2.0","method":"ok","id":1}"#;
        let batch = |n: usize| format!("[{}]", vec![call; n].join(","));
        assert!(matches!(run(&batch(MAX_BATCH)).0, Prepared::Forward { .. }));
        let answer = answered(&batch(MAX_BATCH + 1));
        assert_eq!((answer["error"]["code"].as_i64(), &answer["id"]), (Some(-32600), &Value::Null));
        assert!(answer["error"]["message"].as_str().unwrap().contains("at most 50 requests and this one has 51"));
    }

    #[test]
    fn numbers_jsonrpsee_cannot_echo_are_forwarded_under_a_stand_in_and_restored() {
        let (prepared, _) = run(r#"{"jsonrpc":"2.0","method":"ok","id":-7}"#);
        let Prepared::Forward { body, plan } = prepared else { panic!() };
        assert_eq!(body, r#"{"jsonrpc":"2.0","method":"ok","id":"tb-0"}"#);
        let restored = finish(plan, r#"{"jsonrpc":"2.0","id":"tb-0","result":{"x":1}}"#).unwrap();
        assert_eq!(restored, r#"{"jsonrpc":"2.0","result":{"x":1},"id":-7}"#);
        for id in ["1.5", "-0", "1e400", "123456789012345678901234567890"] {
            let (prepared, _) = run(&format!(r#"{{"jsonrpc":"2.0","method":"ok","id":{id}}}"#));
            let Prepared::Forward { plan, .. } = prepared else { panic!("{id}") };
            let restored = finish(plan, r#"{"jsonrpc":"2.0","id":"tb-0","result":0}"#).unwrap();
            assert!(restored.ends_with(&format!(r#""id":{id}}}"#)), "{id}: {restored}");
        }
    }

    #[test]
    fn an_ordinary_call_passes_through_untouched() {
        assert_eq!(run(r#"{"jsonrpc":"2.0","method":"ok","id":7}"#).0, Prepared::PassThrough);
        assert_eq!(run(r#"{"jsonrpc":"2.0","method":"ok","id":"a"}"#).0, Prepared::PassThrough);
    }

    #[test]
    fn a_notification_and_a_batch_of_notifications_get_no_answer() {
        let (prepared, _) = run(r#"{"jsonrpc":"2.0","method":"ok"}"#);
        let Prepared::Forward { plan, .. } = prepared else { panic!() };
        assert_eq!(finish(plan, "null"), None);
        let (prepared, _) = run(r#"[{"jsonrpc":"2.0","method":"ok"},{"jsonrpc":"2.0","method":"ok","params":[1]}]"#);
        let Prepared::Forward { plan, .. } = prepared else { panic!() };
        assert_eq!(finish(plan, ""), None);
        assert_eq!(
            run(r#"{"jsonrpc":"2.0","method":"nope"}"#).0,
            Prepared::Answer(None),
            "an unknown notification too"
        );
    }

    #[test]
    fn a_mixed_batch_answers_the_calls_in_order() {
        let body = r#"[{"jsonrpc":"2.0","method":"ok","id":"1"},{"jsonrpc":"2.0","method":"ok"},
                       {"foo":"boo"},{"jsonrpc":"2.0","method":"page.txt","id":"5"},{"jsonrpc":"2.0","method":"ok","id":2.5}]"#;
        let (prepared, counted) = run(body);
        assert_eq!(counted, [ErrorKind::InvalidRequest, ErrorKind::MethodNotFound]);
        let Prepared::Forward { body, plan } = prepared else { panic!() };
        assert_eq!(body.matches("\"method\"").count(), 3, "the calls and the notification go on: {body}");
        let answer =
            finish(plan, r#"[{"jsonrpc":"2.0","id":"tb-2","result":"b"},{"jsonrpc":"2.0","id":"tb-0","result":"a"}]"#)
                .unwrap();
        let answer: Vec<Value> = serde_json::from_str(&answer).unwrap();
        let ids: Vec<String> = answer.iter().map(|a| a["id"].to_string()).collect();
        assert_eq!(ids, [r#""1""#, "null", r#""5""#, "2.5"]);
        assert_eq!(answer[0]["result"], "a");
        assert_eq!(answer[2]["error"]["code"], -32601);
        assert!(answer[2]["error"]["message"].as_str().unwrap().contains("did you mean page.text?"));
        assert_eq!(answer[3]["result"], "b");
    }
}
