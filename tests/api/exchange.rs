//! What a page exchanges beyond request and response — sockets, an EventSource stream, cookies
//! across redirects, messages between frames, Web Storage — on apps whose bug lives there, and
//! the loads the service must take from it (a socket flood, a thousand cookies, a password sent
//! every way there is).
//!
//! Each test reproduces the bug a user would file, through the service, as an agent meets it
//! today; they are the baseline the watched exchanges (issue 42) strengthen.

use std::time::Duration;

use base64::Engine;
use serde_json::{Value, json};

use crate::helpers::{SessionGuard, eventually, fixtures, page, shared};

/// The text of `selector` on the session's page.
async fn text(sid: &str, selector: &str) -> String {
    let read = shared().ok("page.text", json!({ "session_id": sid, "selector": selector })).await;
    read["text"].as_str().unwrap_or_default().to_owned()
}

/// Waits (generously: the machine is loaded) until `selector`'s text contains `wanted`.
async fn wait_text(sid: &str, selector: &str, wanted: &str) {
    let params = json!({ "session_id": sid, "selector": selector, "text": wanted, "timeout": 30000 });
    shared().ok("assert.text", params).await;
}

/// Opens `path` in a new session, waiting for its load event (its load answer and the session's
/// guard). Not for the network to be idle: pages with an open stream never are.
async fn open(path: &str) -> (Value, SessionGuard) {
    let svc = shared();
    let created = svc.ok("session.create", json!({ "url": page(path), "waitUntil": "load" })).await;
    let guard = SessionGuard::adopt(svc, created["session_id"].as_str().expect("session_id"));
    (created, guard)
}

#[tokio::test]
async fn the_incident_board_shows_live_and_empty_while_its_feed_refused_the_subscription() {
    let (created, sid) = open("/ops/").await;
    assert_eq!(created["status"], 200, "{created}");
    // The deploy stream delivers (so streaming works) and stays open; the socket is open too.
    wait_text(&sid, "#deploys", "checkout 1.88.0 by ana").await;
    wait_text(&sid, "#open-count", "2 open in eu-west").await;
    wait_text(&sid, "#live", "Live").await;
    assert_eq!(text(&sid, "#incidents").await, "No open incidents", "yet the two open incidents never arrive");

    // Asking again: the click's answer shows the subscription it sent and the error frame the
    // feed answered with, and says which answered which.
    let clicked = shared().ok("page.click", json!({ "session_id": sid, "selector": "#resubscribe" })).await;
    assert_eq!(clicked["ok"], true, "{clicked}");
    let effects = &clicked["effects"];
    let sockets: Vec<&str> =
        effects["sockets"].as_array().map_or(vec![], |l| l.iter().filter_map(Value::as_str).collect());
    let sent = r#"→ {op: "subscribe", topic: "incidents:eu-west"} on /ops/socket"#;
    let refused = r#"← error frame {op: "error", code: "unknown_topic"} on /ops/socket"#;
    assert!(sockets.iter().any(|l| l.contains(sent)), "{clicked}");
    assert!(sockets.iter().any(|l| l.contains(refused) && l.contains("topics: [2 × string]")), "{clicked}");
    let facts = effects["facts"].to_string();
    assert!(facts.contains(r#"the server answered → {op: \"subscribe\", topic: \"incidents:eu-west\"} on /ops/socket with an error frame {op: \"error\", code: \"unknown_topic\"}"#), "{clicked}");
    assert_eq!(text(&sid, "#incidents").await, "No open incidents", "{clicked}");

    // The timeline holds the socket from its opening (with the script line that opened it) and
    // the deploy stream's messages.
    let params = json!({ "session_id": sid, "kinds": ["socket"] });
    let timeline = shared().ok("page.timeline", params).await;
    let lines = timeline["timeline"].as_str().unwrap_or_default();
    assert!(lines.contains("socket /ops/socket open (101) ← (/ops/board.js:18)"), "{timeline}");
    assert!(lines.contains("← {service: string, version: string, by: string} on stream /ops/deploys"), "{timeline}");
}

#[tokio::test]
async fn signing_in_to_the_portal_lands_back_on_the_sign_in_page() {
    let svc = shared();
    let (_, sid) = open("/portal/signin/").await;
    svc.ok("page.fill", json!({ "session_id": sid, "selector": "#email", "value": "ops@example.com" })).await;
    svc.ok("page.fill", json!({ "session_id": sid, "selector": "#password", "value": "Harbour-Lights-9" })).await;
    let clicked = svc.ok("page.click", json!({ "session_id": sid, "selector": "text=Sign in" })).await;
    let effects = &clicked["effects"];
    // The one answer shows the whole chain: each hop, the cookie the sign-in set (and that its
    // Path was defaulted), and that the browser withheld it from the page it redirected to.
    assert_eq!(
        effects["navigated"]["chain"],
        json!([
            "POST /portal/api/session 303",
            "GET /portal/home 302",
            "GET /portal/signin/?next=%2Fportal%2Fhome 200"
        ]),
        "{clicked}"
    );
    let hops: Vec<(Value, Value, Value)> = effects["requests"]
        .as_array()
        .unwrap_or_else(|| panic!("{clicked}"))
        .iter()
        .map(|r| (r["url"].clone(), r["status"].clone(), r["redirectedTo"].clone()))
        .collect();
    assert!(hops.contains(&(json!("/portal/api/session"), json!(303), json!("/portal/home"))), "{clicked}");
    assert!(
        hops.contains(&(json!("/portal/home"), json!(302), json!("/portal/signin/?next=%2Fportal%2Fhome"))),
        "{clicked}"
    );
    let cookies = effects["cookies"].to_string();
    let set = "cookie portal_sid set (HttpOnly, SameSite=Lax, session cookie, Path=/portal/api, defaulted from /portal/api/session)";
    assert!(cookies.contains(set), "{clicked}");
    let withheld = "not sent: portal_sid — its Path /portal/api does not cover /portal/home (GET /portal/home)";
    assert!(cookies.contains(withheld), "{clicked}");
    let fact = "portal_sid, set by POST /portal/api/session (303), was not sent to GET /portal/home: its Path \
                /portal/api does not cover /portal/home; that answered 302 → /portal/signin/?next=%2Fportal%2Fhome";
    assert!(effects["facts"].to_string().contains(fact), "{clicked}");
    assert!(!clicked.to_string().contains(&session_id_of_portal(&sid).await), "no cookie value is shown");
}

/// The portal session id the browser holds (read from the cookie jar, not from any answer about
/// the page).
async fn session_id_of_portal(sid: &str) -> String {
    let jar = shared().ok("cookies.get", json!({ "session_id": sid })).await;
    let cookies = jar["cookies"].as_array().unwrap_or_else(|| panic!("{jar}"));
    let sid = cookies.iter().find(|c| c["name"] == "portal_sid").unwrap_or_else(|| panic!("{jar}"));
    sid["value"].as_str().unwrap_or_default().to_owned()
}

#[tokio::test]
async fn the_portals_headers_are_pulled_on_request_with_credential_values_masked() {
    let svc = shared();
    let (_, sid) = open("/portal/signin/").await;
    let bare =
        svc.ok("network.pull", json!({ "session_id": sid, "onlyErrors": false, "urlContains": "/portal/" })).await;
    assert!(bare["requests"].as_array().is_some_and(|r| !r.is_empty()), "the sign-in page's load: {bare}");
    assert!(!bare.to_string().contains("requestHeaders"), "headers are opt-in: {bare}");
    svc.ok("page.fill", json!({ "session_id": sid, "selector": "#email", "value": "ops@example.com" })).await;
    svc.ok("page.fill", json!({ "session_id": sid, "selector": "#password", "value": "Harbour-Lights-9" })).await;
    svc.ok("page.click", json!({ "session_id": sid, "selector": "text=Sign in" })).await;
    let params = json!({ "session_id": sid, "onlyErrors": false, "urlContains": "/portal/", "headers": true });
    let pulled = svc.ok("network.pull", params).await;
    let requests = pulled["requests"].as_array().unwrap_or_else(|| panic!("{pulled}"));
    let hop = |path: &str| {
        requests
            .iter()
            .find(|r| r["url"].as_str().is_some_and(|u| u.ends_with(path)))
            .unwrap_or_else(|| panic!("{path}: {pulled}"))
    };
    let header = |list: &Value, name: &str| -> Option<String> {
        list.as_array()?
            .iter()
            .find(|h| h[0].as_str().is_some_and(|n| n.eq_ignore_ascii_case(name)))
            .map(|h| h[1].as_str().unwrap_or_default().into())
    };
    let post = hop("/portal/api/session");
    assert_eq!(
        header(&post["requestHeaders"], "content-type").as_deref(),
        Some("application/x-www-form-urlencoded"),
        "{post}"
    );
    assert_eq!(header(&post["responseHeaders"], "location").as_deref(), Some("/portal/home"), "{post}");
    let set_cookies: Vec<&Value> = post["responseHeaders"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|h| h[0].as_str().is_some_and(|n| n.eq_ignore_ascii_case("set-cookie")))
        .collect();
    // The attributes stay; the value never does (`…`, or `[redacted]` for a secret-named cookie).
    let session = |v: &str| v.starts_with("portal_sid=") && v.ends_with("; HttpOnly; SameSite=Lax");
    assert!(set_cookies.iter().any(|h| h[1].as_str().is_some_and(session)), "{post}");
    let home = hop("/portal/home");
    assert_eq!(home["redirectedTo"].as_str().map(|u| u.ends_with("/portal/signin/?next=%2Fportal%2Fhome")), Some(true));
    // The first sign-in's session cookie is sent to /portal/api only; the language cookie everywhere.
    assert_eq!(header(&home["requestHeaders"], "cookie").as_deref(), Some("portal_lang=…"), "{home}");
    assert!(home["cookies"].to_string().contains("sent: portal_lang"), "{home}");
    // network.body and the HAR carry the same headers.
    let last = requests
        .iter()
        .rev()
        .find(|r| r["url"].as_str().is_some_and(|u| u.contains("/portal/signin/?next=")))
        .unwrap_or_else(|| panic!("{pulled}"));
    let body = svc.ok("network.body", json!({ "session_id": sid, "requestId": last["requestId"] })).await;
    assert!(header(&body["requestHeaders"], "cookie").is_some_and(|c| c.contains("portal_lang=…")), "{body}");
    let har = svc.ok("network.har", json!({ "session_id": sid })).await;
    let entries = har["har"]["log"]["entries"].as_array().unwrap_or_else(|| panic!("{har}"));
    let post_entry = entries
        .iter()
        .find(|e| e["request"]["url"].as_str().is_some_and(|u| u.ends_with("/portal/api/session")))
        .unwrap_or_else(|| panic!("{har}"));
    assert!(
        post_entry["response"]["redirectURL"].as_str().is_some_and(|u| u.ends_with("/portal/home")),
        "{post_entry}"
    );
    let set = &post_entry["response"]["cookies"];
    assert!(
        set.as_array().is_some_and(|c| c
            .iter()
            .any(|c| c["name"] == "portal_sid" && c["value"] == "" && c["path"] == "/portal/api")),
        "{post_entry}"
    );
    let jar = session_id_of_portal(&sid).await;
    for answer in [&pulled, &body, &har] {
        assert!(!answer.to_string().contains(&jar), "a cookie value in an answer: {answer}");
    }
}

#[tokio::test]
async fn the_support_page_never_shows_the_scheduler_whose_ready_message_it_dropped() {
    let svc = shared();
    // The load's answer (once the network is quiet: the widget posts when its frame has loaded)
    // holds the message, the frame and origin it came from, and that the listener it reached
    // started nothing.
    let created = svc.ok("session.create", json!({ "url": page("/support/") })).await;
    let sid = SessionGuard::adopt(svc, created["session_id"].as_str().expect("session_id"));
    let origin = fixtures();
    let messages: Vec<&str> =
        created["load"]["messages"].as_array().map_or(vec![], |l| l.iter().filter_map(Value::as_str).collect());
    let line = format!(
        "message from iframe#scheduler (/support/scheduler/) at {origin} to {origin}: {{type: \"scheduler:ready\"}} \
         ({{type: string, height: number}}); onSchedulerMessage (/support/embed.js:7) started nothing"
    );
    assert!(messages.iter().any(|l| l.ends_with(&line)), "{line}\n{created}");
    let facts = created["load"]["facts"].to_string();
    assert!(facts.contains("reached onSchedulerMessage (/support/embed.js:7), which started nothing"), "{created}");
    // The widget said it was ready (the parent can read the frame: same origin) …
    let sent = "document.querySelector('#scheduler').contentDocument.body.dataset.readySent === 'true'";
    eventually(Duration::from_secs(30), "the scheduler to post scheduler:ready", || async {
        let answer = svc.ok("page.evaluate", json!({ "session_id": sid, "expression": sent })).await;
        (answer["result"] == true).then_some(())
    })
    .await;
    // … and the page still waits for it, its frame hidden.
    assert_eq!(text(&sid, "#scheduler-status").await, "Loading the scheduler…");
    let frame_hidden = "document.querySelector('#scheduler').hidden";
    let hidden = svc.ok("page.evaluate", json!({ "session_id": sid, "expression": frame_hidden })).await;
    assert_eq!(hidden["result"], true, "{hidden}");
}

#[tokio::test]
async fn the_readers_display_settings_are_gone_after_a_reload() {
    let svc = shared();
    let (_, sid) = open("/reader/").await;
    assert_eq!(text(&sid, "#applied").await, "Showing medium text on a light page.");
    svc.ok("page.select", json!({ "session_id": sid, "selector": "#size", "values": "Large" })).await;
    svc.ok("page.select", json!({ "session_id": sid, "selector": "#theme", "values": "Sepia" })).await;
    // The Save click's answer shows the write: the key, the value's outline (never the value) and
    // the line that wrote it.
    let clicked = svc.ok("page.click", json!({ "session_id": sid, "selector": "#save-display" })).await;
    let written = clicked["effects"]["storage"].to_string();
    let write = "localStorage readerPrefs = {size: string, theme: string} by /reader/settings.js:5";
    assert!(written.contains(write), "{clicked}");
    // Timed by the call: before the changes applyPrefs made after it, however long reading it took.
    let at = |line: Option<&Value>| {
        let line = line.and_then(Value::as_str).unwrap_or_else(|| panic!("{clicked}"));
        line.trim_start_matches('+').split(' ').next().and_then(|n| n.parse::<i64>().ok())
    };
    let changes = clicked["effects"]["changes"].as_array().cloned().unwrap_or_default();
    let applied = changes.iter().find(|line| line.as_str().is_some_and(|l| l.contains("#applied")));
    assert!(at(clicked["effects"]["storage"].get(0)) <= at(applied), "{clicked}");
    wait_text(&sid, "#display-status", "Saved").await;
    assert_eq!(text(&sid, "#applied").await, "Showing large text on a sepia page.");

    // The reload's answer shows the boot script's read of another key, never written, and says so.
    let reloaded = svc.ok("page.reload", json!({ "session_id": sid })).await;
    let read = "localStorage reader-prefs → null (never written) by loadPrefs (/reader/prefs.js:6)";
    assert!(reloaded["load"]["storage"].to_string().contains(read), "{reloaded}");
    let fact = "loadPrefs (/reader/prefs.js:6) read localStorage reader-prefs, which nothing in this session wrote \
                (null); it wrote the similar key readerPrefs (by /reader/settings.js:5)";
    assert!(reloaded["load"]["facts"].to_string().contains(fact), "{reloaded}");
    assert_eq!(text(&sid, "#applied").await, "Showing medium text on a light page.", "the choice did not survive");
    // It was saved: under another key than the one the boot script reads.
    let stored = svc.ok("storage.local", json!({ "session_id": sid })).await;
    assert_eq!(
        stored["items"],
        json!([{ "name": "readerPrefs", "value": "{\"size\":\"large\",\"theme\":\"sepia\"}" }])
    );
}

#[tokio::test]
async fn a_page_flooding_its_socket_leaves_the_service_answering_every_session() {
    let svc = shared();
    // 10,000 frames a second for 3 s (the caps' benchmark floods for 10 s).
    let (_, sid) = open("/firehose/?rate=10000&seconds=3").await;
    let other = svc.session_with(json!({ "url": page("/projects/") })).await;
    let params = json!({ "session_id": sid, "selector": "#state", "text": "Done", "timeout": 60000 });
    let flood = async { svc.ok("assert.text", params).await };
    let reads = async {
        // Another session reads its page while the flood runs; every read answers.
        for _ in 0..5 {
            let read = svc.ok("page.text", json!({ "session_id": other, "selector": "h1" })).await;
            assert_eq!(read["text"], "Projects", "{read}");
        }
    };
    tokio::join!(flood, reads);
    assert_eq!(text(&sid, "#sent").await, "30000");
    eventually(Duration::from_secs(30), "the server to acknowledge every frame", || async {
        (text(&sid, "#acked").await == "30000").then_some(())
    })
    .await;
}

#[tokio::test]
async fn a_page_setting_a_thousand_cookies_loads_and_its_session_reads_them() {
    let svc = shared();
    let (_, sid) = open("/cookie-jar/?n=1000").await;
    wait_text(&sid, "#state", "1000 cookies set").await;
    let state = text(&sid, "#state").await;
    let kept: usize = state.rsplit(' ').next().and_then(|n| n.parse().ok()).unwrap_or_else(|| panic!("{state}"));
    assert!(kept > 0 && kept < 1000, "Chromium keeps a bounded number of cookies per site: {state}");
    let jar = svc.ok("cookies.get", json!({ "session_id": sid })).await;
    let names = jar["cookies"].as_array().unwrap_or_else(|| panic!("{jar}"));
    assert_eq!(names.iter().filter(|c| c["name"].as_str().is_some_and(|n| n.starts_with("jar_"))).count(), kept);
}

/// Typed into the vault; the page then sends it in a cookie, in headers, over a socket and in a
/// message to a frame, and the server echoes it back in a header, a cookie and a frame.
const MASTER: &str = "Gull-Wing#Harbor-77";

/// The password as each way the vault sends it writes it.
fn encodings() -> Vec<String> {
    let b64 = |s: &str| base64::engine::general_purpose::STANDARD.encode(s);
    let percent: String = url::form_urlencoded::byte_serialize(MASTER.as_bytes()).collect();
    vec![MASTER.to_owned(), percent, MASTER.replace('#', "%23"), b64(MASTER), b64(&format!("owner:{MASTER}"))]
}

/// What the vault's server received, read directly (not through the service).
async fn vault_received() -> Value {
    reqwest::get(format!("{}/vault/api/received", fixtures())).await.unwrap().json().await.unwrap()
}

/// The answers that hold `encodings()` of the password, named by what gave them.
fn leaks<'a>(answers: impl IntoIterator<Item = &'a (String, String)>) -> Vec<String> {
    answers
        .into_iter()
        .filter(|(_, answer)| encodings().iter().any(|e| answer.contains(e.as_str())))
        .map(|(what, answer)| format!("{what}: {answer}"))
        .collect()
}

#[tokio::test]
async fn a_password_the_vault_sends_every_way_is_in_no_answer_or_event() {
    let svc = shared();
    let (_, sid) = open("/vault/").await;
    let mut events = crate::helpers::websocket(svc).await;
    crate::helpers::subscribe_on(&mut events, json!({ "session_id": sid })).await;
    let mut answers: Vec<(String, String)> = Vec::new();
    let mut call = async |method: &str, params: Value| {
        let mut params = params;
        params["session_id"] = json!(sid.to_string());
        let request = json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params });
        let answer = svc.post(request.to_string()).await.text().await.expect("an answer");
        answers.push((format!("{method} {params}"), answer.clone()));
        serde_json::from_str::<Value>(&answer).unwrap_or(Value::Null)
    };
    call("page.type", json!({ "selector": "#master", "text": MASTER })).await;
    call("page.click", json!({ "selector": "text=Unlock" })).await;
    let params = json!({ "selector": "#state", "text": "keeper, server, socket", "timeout": 30000 });
    let unlocked = call("assert.text", params).await;
    assert_eq!(unlocked["result"]["ok"], true, "{unlocked}");

    // The password really went every way (the server saw it) …
    let received = vault_received().await;
    let basic = base64::engine::general_purpose::STANDARD.encode(format!("owner:{MASTER}"));
    assert_eq!(received["header"], MASTER, "{received}");
    assert_eq!(received["socket"], MASTER, "{received}");
    assert_eq!(received["authorization"], format!("Basic {basic}"), "{received}");
    assert!(received["cookie"].as_str().is_some_and(|c| c.contains("vault_hint=Gull-Wing%23Harbor-77")), "{received}");

    // … and no answer about what the page did holds it, in any of those encodings.
    let pulled = call("network.pull", json!({ "onlyErrors": false, "headers": true })).await;
    let requests = pulled["result"]["requests"].as_array().cloned().unwrap_or_default();
    let unlock = requests.iter().find(|r| r["url"].as_str().is_some_and(|u| u.ends_with("/vault/api/unlock")));
    let id = unlock.and_then(|r| r["requestId"].as_str()).unwrap_or_else(|| panic!("the unlock request: {pulled}"));
    call("network.body", json!({ "requestId": id })).await;
    for (method, params) in [
        ("network.har", json!({ "bodies": true })),
        ("logs.pull", json!({})),
        ("page.timeline", json!({})),
        ("page.text", json!({})),
        ("page.content", json!({})),
        ("page.snapshot", json!({})),
        ("storage.local", json!({})),
        ("storage.session", json!({})),
    ] {
        call(method, params).await;
    }
    // What returns the page's own data verbatim (the cookie jar's values, a script's result) too.
    for (method, params) in [("cookies.get", json!({})), ("storage.state", json!({}))] {
        call(method, params).await;
    }
    call("page.evaluate", json!({ "expression": "document.cookie" })).await;
    let streamed = crate::helpers::drain(&mut events).await;
    assert!(streamed.contains("/vault/api/unlock"), "the subscription streamed the page's requests: {streamed}");
    answers.push(("events".to_owned(), streamed));
    let found = leaks(&answers);
    assert!(found.is_empty(), "the password in {} answer(s):\n{}", found.len(), found.join("\n"));
}

#[tokio::test]
async fn a_password_the_vault_sends_every_way_is_in_no_mcp_result() {
    let svc = shared();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let python = root.join(crate::mcp::MCP_PYTHON);
    assert!(python.exists(), "{} is missing: run `bash .ci/setup` (it installs the pinned MCP SDK)", python.display());
    let args =
        [root.join("tests/mcp/vault.py").display().to_string(), svc.base.clone(), crate::helpers::API_KEY.into()];
    let args = [&args[..], &[fixtures().to_owned(), MASTER.to_owned()]].concat();
    let output = tokio::task::spawn_blocking(move || std::process::Command::new(python).args(args).output())
        .await
        .unwrap()
        .expect("the MCP client runs");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(output.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    let results: Vec<(String, String)> = stdout
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .map(|r| (r["tool"].as_str().unwrap_or_default().to_owned(), r["text"].as_str().unwrap_or_default().to_owned()))
        .collect();
    let tools: Vec<&str> = results.iter().map(|(tool, _)| tool.as_str()).collect();
    assert!(tools.contains(&"response_body") && tools.contains(&"timeline"), "every read ran: {stdout}");
    assert!(tools.contains(&"evaluate"), "the page's own data was read: {stdout}");
    let found = leaks(&results);
    assert!(found.is_empty(), "the password in {} MCP result(s):\n{}", found.len(), found.join("\n"));
}
