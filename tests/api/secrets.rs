//! A password typed in a session never leaves the service in an answer, whatever reads it.
//!
//! The change-password fixture is careless in every way a real app can be (it echoes the new
//! password in a hint, logs it, stores a draft in localStorage and the URL, puts it in the title,
//! and shows an API answer that repeats it). One session types two passwords into it and then
//! calls every method the service has; no answer may contain either password.

use std::collections::BTreeSet;

use serde_json::{Value, json};

use crate::helpers::{Service, page, shared};
use text_browser::rpc::all_methods;

/// Typed with page.fill and with page.type (key by key).
const FILLED: &str = "Old-Secret-2024";
const TYPED: &str = "Tr0ub4dor-horse-42";

/// Every answer the session got, as sent.
struct Transcript<'a> {
    svc: &'a Service,
    answers: Vec<(String, String)>,
    called: BTreeSet<String>,
}

impl Transcript<'_> {
    /// Calls `method` and keeps its raw answer; returns it parsed.
    async fn call(&mut self, method: &str, params: Value) -> Value {
        let request = json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params });
        let text = self.svc.post(request.to_string()).await.text().await.expect("an answer");
        self.called.insert(method.to_owned());
        self.answers.push((format!("{method} {params}"), text.clone()));
        serde_json::from_str(&text).unwrap_or(Value::Null)
    }

    /// Pulls every request of session `sid` and reads each one's body; answers the pull.
    async fn pull_with_bodies(&mut self, sid: &str) -> Value {
        let pulled = self.call("network.pull", json!({ "onlyErrors": false, "session_id": sid })).await;
        let requests = pulled["result"]["requests"].as_array().cloned().unwrap_or_default();
        for id in requests.iter().filter_map(|r| r["requestId"].as_str()) {
            self.call("network.body", json!({ "requestId": id, "session_id": sid })).await;
        }
        pulled
    }
}

#[tokio::test]
async fn a_typed_password_is_in_no_answer_of_any_method() {
    let svc = shared();
    let sid = svc.session().await;
    let mut t = Transcript { svc, answers: Vec::new(), called: BTreeSet::new() };
    let s = |params: Value| {
        let mut params = params;
        params["session_id"] = json!(sid.to_string());
        params
    };

    t.call("page.goto", s(json!({ "url": page("/password/") }))).await;
    t.call("page.fill", s(json!({ "selector": "#current", "value": FILLED }))).await;
    let typed = t.call("page.type", s(json!({ "selector": "#new-password", "text": TYPED }))).await;
    assert_eq!(typed["result"]["ok"], true, "{typed}");
    t.call("page.click", s(json!({ "selector": "role=button[name=\"Save password\"]" }))).await;
    let saved = t.call("assert.text", s(json!({ "selector": "#result", "text": "we saved", "timeout": 10000 }))).await;
    assert_eq!(saved["result"]["ok"], true, "the page showed the API's answer: {saved}");

    // What reads the fields and the echoes directly, passing and failing.
    let value = t.call("assert.value", s(json!({ "selector": "#new-password", "value": TYPED }))).await;
    assert_eq!(value["result"]["actual"], json!({ "count": 1, "value": "••••" }), "compared, not shown: {value}");
    let wrong = t.call("assert.value", s(json!({ "selector": "#current", "value": "guess", "timeout": 300 }))).await;
    assert_eq!(wrong["error"]["data"]["actual"], json!({ "count": 1, "value": "••••" }), "{wrong}");
    assert_eq!(wrong["error"]["data"]["expected"], json!({ "value": "••••" }), "{wrong}");
    for (method, params) in readers() {
        t.call(method, s(params)).await;
    }
    let pulled = t.call("network.pull", s(json!({ "urlContains": "/api/signup" }))).await;
    if let Some(id) = pulled["result"]["requests"][0]["requestId"].as_str() {
        t.call("network.body", s(json!({ "requestId": id }))).await;
    }

    // Then every other method, with its README example; the ones that leave the page last.
    let last = ["tabs.open", "tabs.list", "tabs.focus", "tabs.close", "page.goto", "page.reload", "page.back"];
    let methods = all_methods();
    let (later, now): (Vec<_>, Vec<_>) =
        methods.iter().partition(|m| last.contains(&m.name) || m.name == "page.forward");
    for method in now.into_iter().chain(later) {
        if t.called.contains(method.name) && !last.contains(&method.name) {
            continue;
        }
        let mut params: Value = serde_json::from_str(method.example).expect("example params are JSON");
        let names = method.param_names();
        if names.iter().any(|n| n == "session_id") {
            params = s(params);
        }
        if names.iter().any(|n| n == "timeout") && params.get("timeout").is_none() {
            params["timeout"] = json!(300);
        }
        if method.name == "session.create" {
            params = json!({});
        }
        let answer = t.call(method.name, params).await;
        if method.name == "session.create"
            && let Some(other) = answer["result"]["session_id"].as_str()
        {
            t.call("session.close", json!({ "session_id": other })).await;
        }
    }
    t.call("page.reload", s(json!({}))).await;
    t.call("tabs.list", s(json!({}))).await;
    t.call("session.close", s(json!({}))).await;

    let every: BTreeSet<String> = methods.iter().map(|m| m.name.to_owned()).collect();
    assert_eq!(every.difference(&t.called).collect::<Vec<_>>(), Vec::<&String>::new(), "every method was called");
    let leaks: Vec<&(String, String)> =
        t.answers.iter().filter(|(_, answer)| answer.contains(FILLED) || answer.contains(TYPED)).collect();
    assert!(leaks.is_empty(), "a password in {} answer(s):\n{leaks:#?}", leaks.len());
}

/// What reads the fields and their echoes, passing and failing, as (method, params without the
/// session).
fn readers() -> Vec<(&'static str, Value)> {
    vec![
        ("assert.text", json!({ "selector": "#hint", "text": TYPED })),
        ("assert.text", json!({ "selector": "#result", "text": "nothing like this", "timeout": 300 })),
        ("assert.title", json!({ "title": "Change password" })),
        ("assert.url", json!({ "pattern": "**/password/*" })),
        ("page.inspect", json!({ "selector": "#new-password" })),
        ("page.inspect", json!({ "selector": "#hint" })),
        ("page.inspect", json!({ "selector": "#result" })),
        ("page.text", json!({})),
        ("page.text", json!({ "format": "markdown" })),
        ("page.content", json!({})),
        ("page.snapshot", json!({})),
        ("page.evaluate", json!({ "expression": "[document.querySelector('#new-password').value, location.href]" })),
        ("page.evaluate", json!({ "expression": "localStorage.getItem('password-draft')" })),
        ("page.evaluate", json!({ "expression": "(() => { throw new Error(document.title) })()" })),
        ("logs.pull", json!({})),
        ("network.pull", json!({})),
        ("network.har", json!({ "bodies": true })),
        ("storage.state", json!({})),
        ("storage.local", json!({})),
        ("find.byRole", json!({ "role": "status" })),
        ("page.click", json!({ "selector": "text=strong password", "timeout": 300 })),
        (
            "session.run",
            json!({ "steps": [{ "method": "page.text" }, { "method": "page.inspect", "params": { "selector": "#hint" } }] }),
        ),
    ]
}

/// Typed into the members' sign-in: every character an encoding escapes (space, `@`, `!`, a
/// non-ASCII letter, a quote, a backslash, `&`, `<`).
const MEMBER: &str = "Hunt3r 2@!é\"x\\y&<";
/// Typed in another tab of the same session.
const DRAFTED: &str = "Tr0ub4dor&3<\"pw";

/// `encodeURIComponent`'s escapes.
const COMPONENT: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'!')
    .remove(b'~')
    .remove(b'*')
    .remove(b'\'')
    .remove(b'(')
    .remove(b')');

/// `password` as pages and their servers write it: as typed, form-encoded (`+`, `%XX`),
/// percent-encoded as `encodeURIComponent` does, JSON-escaped (once, and again inside another
/// JSON string), HTML-escaped as an attribute's value, and the part of `base64("ada:" +
/// password)` that only the password decides.
fn forms_of(password: &str) -> Vec<(&'static str, String)> {
    let json = serde_json::to_string(password).expect("a string");
    let twice = serde_json::to_string(&json).expect("a string");
    let b64 = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, format!("ada:{password}"));
    vec![
        ("plain", password.to_owned()),
        ("form", url::form_urlencoded::byte_serialize(password.as_bytes()).collect()),
        ("percent", percent_encoding::utf8_percent_encode(password, COMPONENT).to_string()),
        ("json", json[1..json.len() - 1].to_owned()),
        ("json in json", twice[3..twice.len() - 3].to_owned()),
        ("html", password.replace('&', "&amp;").replace('"', "&quot;").replace('<', "&lt;")),
        ("html attribute", password.replace('&', "&amp;").replace('"', "&quot;")),
        ("base64", b64[6..b64.len() - 4].to_owned()),
    ]
}

/// The answers holding `password` in any of its forms, each with the form: looked for in the
/// answer as sent and in every string it holds (a form with a quote or a backslash is escaped
/// again in the JSON that carries it).
fn leaks_of(password: &str, answers: &[(String, String)]) -> Vec<String> {
    let forms = forms_of(password);
    let mut found = Vec::new();
    for (what, answer) in answers {
        let mut texts = vec![answer.clone()];
        for line in answer.lines() {
            strings_in(&serde_json::from_str(line).unwrap_or(Value::Null), &mut texts);
        }
        for (form, written) in &forms {
            if texts.iter().any(|text| text.contains(written.as_str())) {
                found.push(format!("{form} in {what}: {answer}"));
            }
        }
    }
    found
}

/// Every string `value` holds, keys included.
fn strings_in(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(s) => out.push(s.clone()),
        Value::Array(items) => items.iter().for_each(|v| strings_in(v, out)),
        Value::Object(map) => map.iter().for_each(|(k, v)| {
            out.push(k.clone());
            strings_in(v, out);
        }),
        _ => {}
    }
}

/// A new session on the members' sign-in, loaded (its guard).
async fn members() -> crate::helpers::SessionGuard {
    let svc = shared();
    let created = svc.ok("session.create", json!({ "url": page("/members/"), "waitUntil": "load" })).await;
    crate::helpers::SessionGuard::adopt(svc, created["session_id"].as_str().expect("session_id"))
}

#[tokio::test]
async fn a_password_typed_in_pieces_is_in_no_answer_or_event_in_any_encoding() {
    let svc = shared();
    let sid = members().await;
    let mut events = crate::helpers::websocket(svc).await;
    crate::helpers::subscribe_on(&mut events, json!({ "session_id": sid.to_string() })).await;
    let mut t = Transcript { svc, answers: Vec::new(), called: BTreeSet::new() };
    let s = |params: Value| {
        let mut params = params;
        params["session_id"] = json!(sid.to_string());
        params
    };

    // Two characters at a time: no piece is a secret on its own; together they are.
    let chars: Vec<char> = MEMBER.chars().collect();
    for piece in chars.chunks(2) {
        let text: String = piece.iter().collect();
        let typed = t.call("page.type", s(json!({ "selector": "#pw", "text": text }))).await;
        assert_eq!(typed["result"]["ok"], true, "{typed}");
    }
    t.call("page.click", s(json!({ "selector": "#go" }))).await;
    let failed = t
        .call("assert.text", s(json!({ "selector": "#state", "text": "401, 401, 401, 401, 404", "timeout": 30000 })))
        .await;
    assert_eq!(failed["result"]["ok"], true, "every request was answered: {failed}");

    let pulled = t.pull_with_bodies(&sid.to_string()).await;
    let ids =
        pulled["result"]["requests"].as_array().map_or(0, |r| r.iter().filter(|r| r["requestId"].is_string()).count());
    assert!(ids >= 5, "the sign-in's requests: {pulled}");
    for (method, params) in [
        ("network.har", json!({ "bodies": true })),
        ("logs.pull", json!({})),
        ("page.timeline", json!({})),
        ("page.text", json!({})),
        ("page.content", json!({})),
        ("page.snapshot", json!({})),
        ("page.inspect", json!({ "selector": "#pw" })),
        ("storage.local", json!({})),
        ("storage.state", json!({})),
        ("cookies.get", json!({})),
        ("page.evaluate", json!({ "expression": "[document.cookie, localStorage.getItem('members-draft')]" })),
    ] {
        t.call(method, s(params)).await;
    }
    // The classic sign-in puts it in the address.
    t.call("page.click", s(json!({ "selector": "#classic" }))).await;
    let moved = t.call("assert.url", s(json!({ "pattern": "**/members/?user=ada*", "timeout": 30000 }))).await;
    assert_eq!(moved["result"]["ok"], true, "{moved}");
    let carried =
        t.call("page.evaluate", s(json!({ "expression": "location.search.includes('&pw=Hunt3r+2%40')" }))).await;
    assert_eq!(carried["result"]["result"], true, "the address holds the password: {carried}");
    for method in ["page.url", "tabs.list", "page.timeline", "network.pull"] {
        t.call(method, s(json!({}))).await;
    }
    let streamed = crate::helpers::drain(&mut events).await;
    assert!(streamed.contains("/api/members/session"), "the subscription streamed the sign-in: {streamed}");
    t.answers.push(("events".to_owned(), streamed));

    let found = leaks_of(MEMBER, &t.answers);
    assert!(found.is_empty(), "the password in {} place(s):\n{}", found.len(), found.join("\n"));
}

#[tokio::test]
async fn a_password_typed_in_one_tab_is_masked_in_every_tab_and_after_that_tab_closed() {
    let svc = shared();
    let sid = members().await;
    let listed = svc.ok("tabs.list", json!({ "session_id": sid.to_string() })).await;
    let first = listed["tabs"][0]["tab_id"].as_str().expect("the first tab").to_owned();
    let mut events = crate::helpers::websocket(svc).await;
    crate::helpers::subscribe_on(&mut events, json!({ "session_id": sid.to_string(), "tab_id": first })).await;
    let mut t = Transcript { svc, answers: Vec::new(), called: BTreeSet::new() };
    let s = |params: Value| {
        let mut params = params;
        params["session_id"] = json!(sid.to_string());
        params
    };
    let opened =
        t.call("tabs.open", s(json!({ "url": page("/members/"), "waitUntil": "load", "timeout": 30000 }))).await;
    let second = opened["result"]["tab_id"].as_str().unwrap_or_else(|| panic!("a second tab: {opened}")).to_owned();
    let typed = t.call("page.type", s(json!({ "tab_id": second, "selector": "#pw", "text": DRAFTED }))).await;
    assert_eq!(typed["result"]["ok"], true, "{typed}");

    // The first tab hears of it (a storage event), shows it and logs it.
    let params =
        json!({ "tab_id": first, "selector": "#other-tab", "text": "Drafted in another tab", "timeout": 30000 });
    let heard = t.call("assert.text", s(params)).await;
    assert_eq!(heard["result"]["ok"], true, "{heard}");
    for (method, params) in [
        ("page.text", json!({ "tab_id": first })),
        ("page.content", json!({ "tab_id": first })),
        ("logs.pull", json!({ "tab_id": first })),
        ("page.timeline", json!({ "tab_id": first })),
        ("tabs.close", json!({ "tab_id": second })),
        ("storage.state", json!({})),
        ("cookies.get", json!({})),
        ("page.evaluate", json!({ "tab_id": first, "expression": "localStorage.getItem('members-draft')" })),
        ("page.text", json!({ "tab_id": first })),
    ] {
        t.call(method, s(params)).await;
    }
    let streamed = crate::helpers::drain(&mut events).await;
    assert!(streamed.contains("draft from another tab"), "the first tab's log streamed: {streamed}");
    t.answers.push(("events".to_owned(), streamed));

    let found = leaks_of(DRAFTED, &t.answers);
    assert!(found.is_empty(), "the password in {} place(s):\n{}", found.len(), found.join("\n"));
}

#[tokio::test]
async fn a_value_the_caller_marks_secret_is_masked_like_a_password_in_a_plain_field() {
    const KEY: &str = "ada-Key-7f3Q9&x";
    let svc = shared();
    let sid = members().await;
    let mut t = Transcript { svc, answers: Vec::new(), called: BTreeSet::new() };
    let s = |params: Value| {
        let mut params = params;
        params["session_id"] = json!(sid.to_string());
        params
    };
    // Unmarked, a plain field's value is page data like any other: the mask is the flag's doing.
    t.call("page.fill", s(json!({ "selector": "#user", "value": "ada-public-2024" }))).await;
    let read = t.call("page.evaluate", s(json!({ "expression": "document.querySelector('#user').value" }))).await;
    assert_eq!(read["result"]["result"], "ada-public-2024", "{read}");

    let filled = t.call("page.fill", s(json!({ "selector": "#user", "value": KEY, "secret": true }))).await;
    assert_eq!(filled["result"]["ok"], true, "{filled}");
    t.call("page.type", s(json!({ "selector": "#pw", "text": "pw-for-the-key-test" }))).await;
    t.call("page.click", s(json!({ "selector": "#go" }))).await;
    let answered = t
        .call("assert.text", s(json!({ "selector": "#state", "text": "401, 401, 401, 401, 404", "timeout": 30000 })))
        .await;
    assert_eq!(answered["result"]["ok"], true, "every request was answered: {answered}");
    for (method, params) in [
        ("network.pull", json!({ "onlyErrors": false })),
        ("network.har", json!({ "bodies": true })),
        ("logs.pull", json!({})),
        ("page.timeline", json!({})),
        ("page.content", json!({})),
        ("page.evaluate", json!({ "expression": "document.querySelector('#user').value" })),
    ] {
        t.call(method, s(params)).await;
    }
    let sent =
        t.answers.iter().any(|(what, answer)| what.starts_with("network.pull") && answer.contains("/api/members"));
    assert!(sent, "the sign-in sent its requests: {:?}", t.answers.last());
    let found = leaks_of(KEY, &t.answers);
    assert!(found.is_empty(), "the marked value in {} place(s):\n{}", found.len(), found.join("\n"));
}

/// Typed into the windows-1251 cash desk: Cyrillic letters that charset has, an `é` it lacks
/// (sent as `&#233;`), a space.
const CASHIER: &str = "Пароль-é 7ъ!";

/// `password` as `escape()` writes it: `%XX` under 256, `%uXXXX` above.
fn escaped(password: &str) -> String {
    password
        .chars()
        .map(|c| match c {
            'A'..='Z' | 'a'..='z' | '0'..='9' | '@' | '*' | '_' | '+' | '-' | '.' | '/' => c.to_string(),
            c if u32::from(c) < 0x100 => format!("%{:02X}", u32::from(c)),
            c => format!("%u{:04X}", u32::from(c)),
        })
        .collect()
}

#[tokio::test]
async fn a_password_sent_by_a_page_in_a_legacy_charset_is_in_no_answer() {
    let svc = shared();
    let created = svc.ok("session.create", json!({ "url": page("/kassa/"), "waitUntil": "load" })).await;
    let sid = crate::helpers::SessionGuard::adopt(svc, created["session_id"].as_str().expect("session_id"));
    let mut events = crate::helpers::websocket(svc).await;
    crate::helpers::subscribe_on(&mut events, json!({ "session_id": sid.to_string() })).await;
    let mut t = Transcript { svc, answers: Vec::new(), called: BTreeSet::new() };
    let s = |params: Value| {
        let mut params = params;
        params["session_id"] = json!(sid.to_string());
        params
    };
    let charset = t.call("page.evaluate", s(json!({ "expression": "document.characterSet" }))).await;
    assert_eq!(charset["result"]["result"], "windows-1251", "{charset}");

    t.call("page.type", s(json!({ "selector": "#parol", "text": CASHIER }))).await;
    t.call("page.click", s(json!({ "selector": "#check" }))).await;
    let checked =
        t.call("assert.text", s(json!({ "selector": "#state", "text": "check: 401", "timeout": 30000 }))).await;
    assert_eq!(checked["result"]["ok"], true, "{checked}");
    t.call("page.click", s(json!({ "selector": "#enter" }))).await;
    let moved = t.call("assert.url", s(json!({ "pattern": "**/api/members/session", "timeout": 30000 }))).await;
    assert_eq!(moved["result"]["ok"], true, "the form was sent: {moved}");

    t.pull_with_bodies(&sid.to_string()).await;
    for (method, params) in [
        ("network.har", json!({ "bodies": true })),
        ("logs.pull", json!({})),
        ("page.timeline", json!({})),
        ("page.text", json!({})),
        ("page.content", json!({})),
        ("page.url", json!({})),
    ] {
        t.call(method, s(params)).await;
    }
    let streamed = crate::helpers::drain(&mut events).await;
    assert!(streamed.contains("/api/members/session"), "the subscription streamed the sign-in: {streamed}");
    t.answers.push(("events".to_owned(), streamed));

    // The page sent it: the fixture server echoes what it received.
    let (bytes, _, _) = encoding_rs::WINDOWS_1251.encode(CASHIER);
    let form: String = url::form_urlencoded::byte_serialize(&bytes).collect();
    // (asked as a yes or no: the page's text itself is masked)
    let expression = format!("document.body.innerText.includes('parol={form}')");
    let echoed = t.call("page.evaluate", s(json!({ "expression": expression }))).await;
    assert_eq!(echoed["result"]["result"], true, "the form went as windows-1251: {echoed}");
    let mut found = leaks_of(CASHIER, &t.answers);
    for (form, written) in [("windows-1251 form", form), ("escape()", escaped(CASHIER))] {
        for (what, answer) in &t.answers {
            if answer.contains(&written) {
                found.push(format!("{form} in {what}: {answer}"));
            }
        }
    }
    assert!(found.is_empty(), "the password in {} place(s):\n{}", found.len(), found.join("\n"));
}
