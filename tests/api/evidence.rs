//! Evidence in every answer: what an action caused, network bodies and pending requests, page
//! errors with their source line, why an element is as it is, and fewer round trips — each
//! proven in one call on a fixture that reproduces a real bug.

use std::time::Duration;

use serde_json::{Value, json};

use crate::helpers::{Instance, Service, SessionGuard, eventually, fixtures, metric, page, shared};

/// A session opened on `path` in one call (session.create with url).
async fn opened(svc: &Service, path: &str) -> SessionGuard {
    svc.session_with(json!({ "url": page(path) })).await
}

#[tokio::test]
async fn session_create_with_a_url_opens_the_page_in_the_same_call() {
    let svc = shared();
    let created = svc.ok("session.create", json!({ "url": page("/order/"), "waitUntil": "load" })).await;
    let sid = created["session_id"].as_str().unwrap().to_owned();
    assert_eq!(created["title"], "Checkout");
    assert_eq!(created["status"], 200);
    assert!(created["url"].as_str().unwrap().ends_with("/order/"));
    assert_eq!(created["signals"]["failedRequests"], 0);
    svc.ok("session.close", json!({ "session_id": sid })).await;
    let err = svc.err("session.create", json!({ "url": "http://example.com/" })).await;
    assert_eq!(
        err.kind(),
        "url_not_allowed",
        "a URL outside the allow-list is refused as page.goto refuses it: {err:?}"
    );
    let err = svc.err("session.create", json!({ "url": "http://127.0.0.1:9/" })).await;
    assert_eq!(err.kind(), "navigation_failed", "{err:?}");
}

#[tokio::test]
async fn a_click_that_posts_an_order_answered_422_reports_both_bodies_and_the_error_line() {
    let svc = shared();
    let sid = opened(svc, "/order/").await;
    let answer = svc
        .post(
            json!({ "jsonrpc": "2.0", "id": 1, "method": "page.click",
                      "params": { "session_id": sid, "selector": "#place-order" } })
            .to_string(),
        )
        .await
        .text()
        .await
        .unwrap();
    // 1.5 KB, and since issue 43 the outline of what the write sent (`requestOutline`).
    assert!(answer.len() < 1600, "the whole answer stays compact ({} bytes): {answer}", answer.len());
    let result: Value = serde_json::from_str::<Value>(&answer).unwrap()["result"].clone();
    let effects = &result["effects"];
    let post = &effects["requests"][0];
    assert_eq!(
        (post["method"].as_str(), post["url"].as_str(), post["status"].as_u64()),
        (Some("POST"), Some("/api/orders"), Some(422)),
        "{effects}"
    );
    assert_eq!(post["requestBody"], r#"{"product":"sku-42","quantity":0}"#, "what the page sent");
    assert!(
        post["responseBody"].as_str().unwrap().contains("quantity must be at least 1"),
        "what the server said: {post}"
    );
    assert!(post["initiator"].as_str().unwrap().starts_with("submitOrder (/order/app.js:"), "who sent it: {post}");
    let error = &effects["pageErrors"][0];
    assert!(
        error["message"].as_str().unwrap().contains("Cannot read properties of undefined (reading 'id')"),
        "{error}"
    );
    assert_eq!(error["location"]["function"], "submitOrder");
    assert!(error["location"]["url"].as_str().unwrap().ends_with("/order/app.js"));
    let source = error["source"].as_str().unwrap();
    assert!(source.contains("> 24 |   showConfirmation(data.order.id);"), "the throwing line, marked: {source}");
    assert!(source.contains('^') && source.contains("const data = await res.json();"), "{source}");
    assert_eq!(result["signals"]["failedRequests"], 1);
    assert_eq!(result["signals"]["pageErrors"], 1);
}

#[tokio::test]
async fn an_action_that_starts_nothing_reports_only_the_listeners_it_reached() {
    let svc = shared();
    let sid = opened(svc, "/signup/").await;
    let result =
        svc.ok("page.fill", json!({ "session_id": sid, "selector": "#email", "value": "ada@example.com" })).await;
    // Nothing started, changed or failed: the effects say only which listeners the input reached.
    assert_eq!(
        result["effects"],
        json!({ "reached": ["input on form#signup-form → validate (/signup/app.js:5)",
                            "change on form#signup-form → validate (/signup/app.js:5)"] }),
        "{result}"
    );
}

#[tokio::test]
async fn network_pull_shows_the_json_of_a_200_the_page_misreads() {
    let svc = shared();
    let sid = opened(svc, "/dashboard/").await;
    let errors = svc.ok("network.pull", json!({ "session_id": sid })).await;
    assert_eq!(errors["requests"], json!([]), "nothing failed: the bug hides in a 200");
    let all =
        svc.ok("network.pull", json!({ "session_id": sid, "onlyErrors": false, "urlContains": "/api/stats" })).await;
    let stats = &all["requests"][0];
    assert_eq!(stats["status"], 200, "{all}");
    assert_eq!(stats["resourceType"], "Fetch");
    assert_eq!(
        stats["responseBody"], r#"{"data":{"revenue":1234.5,"orders":17}}"#,
        "the JSON the page misreads: {stats}"
    );
    assert!(stats["initiator"].as_str().unwrap().starts_with("loadRevenue ("), "{stats}");
    assert!(stats["ms"].is_u64());
    let id = stats["requestId"].as_str().unwrap();
    let whole = svc.ok("network.body", json!({ "session_id": sid, "requestId": id })).await;
    assert_eq!(whole["body"], r#"{"data":{"revenue":1234.5,"orders":17}}"#);
    let err = svc.err("network.body", json!({ "session_id": sid, "requestId": "no-such-request" })).await;
    assert_eq!((err.code, err.data["param"].as_str()), (-32602, Some("requestId")), "{err:?}");
}

#[tokio::test]
async fn a_request_that_never_answers_is_pending_in_the_click_and_in_network_pull() {
    let svc = shared();
    let sid = opened(svc, "/dashboard/").await;
    let started = std::time::Instant::now();
    let result = svc.ok("page.click", json!({ "session_id": sid, "selector": "#refresh-live", "settleMs": 500 })).await;
    assert!(started.elapsed() < Duration::from_secs(10), "settleMs bounds the wait");
    let pending = &result["effects"]["pending"][0];
    assert_eq!(
        (pending["method"].as_str(), pending["url"].as_str()),
        (Some("GET"), Some("/api/stats/live")),
        "{result}"
    );
    assert!(pending["ageMs"].as_u64().unwrap() >= 400, "{pending}");
    let pulled = svc.ok("network.pull", json!({ "session_id": sid })).await;
    let listed = pulled["pending"].as_array().unwrap();
    assert!(listed.iter().any(|p| p["url"].as_str().unwrap().ends_with("/api/stats/live")), "{pulled}");
}

#[tokio::test]
async fn inspect_says_why_the_signup_button_is_disabled_and_which_listener_keeps_it_so() {
    let svc = shared();
    let sid = opened(svc, "/signup/").await;
    let facts = svc.ok("page.inspect", json!({ "session_id": sid, "selector": "#create-account" })).await;
    assert_eq!((facts["role"].as_str(), facts["name"].as_str()), (Some("button"), Some("Create account")), "{facts}");
    assert_eq!(facts["enabled"], false);
    assert_eq!(facts["disabledBecause"], "its disabled attribute, since the markup", "no script touched it yet");
    assert_eq!(facts["visible"], true);
    assert!(facts["form"]["invalidFields"][0].as_str().unwrap().starts_with("input#email"), "{facts}");
    let listeners = facts["listeners"].as_array().unwrap();
    let validate = listeners
        .iter()
        .find(|l| l["type"] == "input" && l["on"] == "form#signup-form")
        .unwrap_or_else(|| panic!("the form's input listener is listed: {listeners:?}"));
    assert!(validate["at"].as_str().unwrap().contains("/signup/app.js:5:"), "{validate}");
    let source = validate["source"].as_str().unwrap();
    assert!(source.contains("password.length > 12"), "the whole short handler, bug included: {source}");
    let err = svc.err("page.inspect", json!({ "session_id": sid, "selector": "#nope", "timeout": 2000 })).await;
    assert_eq!(err.kind(), "element_not_found", "{err:?}");
}

#[tokio::test]
async fn fill_form_sets_a_text_field_a_select_and_a_checkbox_and_names_a_bad_field() {
    let svc = shared();
    let sid = opened(svc, "/signup/").await;
    let result = svc
        .ok(
            "page.fillForm",
            json!({ "session_id": sid, "fields": [
                { "selector": "#email", "value": "ada@example.com" },
                { "selector": "role=combobox[name=\"Plan\"]", "value": "Pro" },
                { "selector": "#terms", "value": true },
            ]}),
        )
        .await;
    assert_eq!(result["ok"], true);
    let values = svc
        .ok(
            "page.evaluate",
            json!({ "session_id": sid, "expression":
                "[email.value, plan.value, terms.checked, document.getElementById('create-account').disabled]" }),
        )
        .await;
    assert_eq!(
        values["result"],
        json!(["ada@example.com", "pro", true, true]),
        "the button stays disabled: the password is short"
    );
    let err = svc
        .err(
            "page.fillForm",
            json!({ "session_id": sid, "fields": [
                { "selector": "#email", "value": "b@example.com" },
                { "selector": "#plan", "value": "Enterprise" },
            ]}),
        )
        .await;
    assert_eq!(err.kind(), "not_actionable", "{err:?}");
    assert!(
        err.message.contains("Enterprise") && err.message.contains("\"pro\" (Pro)"),
        "lists the options: {}",
        err.message
    );
    let err = svc
        .err("page.fillForm", json!({ "session_id": sid, "fields": [{ "selector": "#terms", "value": "yes" }] }))
        .await;
    assert_eq!((err.code, err.data["param"].as_str()), (-32602, Some("fields[0]")), "{err:?}");
}

#[tokio::test]
async fn the_favicon_404_the_browser_asks_for_is_never_a_failure() {
    // A Chromium of its own: one that has not yet remembered that this origin has no favicon.
    let svc = Instance::start(&[("WARM_SESSIONS", "0")]);
    let hits = || async {
        reqwest::get(format!("{}/favicon-hits", fixtures()))
            .await
            .unwrap()
            .text()
            .await
            .unwrap()
            .parse::<u64>()
            .unwrap()
    };
    let before = hits().await;
    let sid = svc.session().await;
    let landed = svc.ok("page.goto", json!({ "session_id": sid, "url": page("/order/"), "waitUntil": "load" })).await;
    eventually(Duration::from_secs(20), "the browser to ask for the favicon", || async {
        (hits().await > before).then_some(())
    })
    .await;
    assert_eq!(landed["signals"]["failedRequests"], 0);
    let failed = svc.ok("network.pull", json!({ "session_id": sid })).await;
    assert_eq!(failed["requests"], json!([]), "the favicon's 404 is not a failure: {failed}");
}

#[tokio::test]
async fn snapshot_diff_returns_only_the_lines_that_changed() {
    let svc = shared();
    let sid = svc.session().await;
    svc.ok("page.goto", json!({ "session_id": sid, "url": page("/projects") })).await;
    let full = svc.ok("page.snapshot", json!({ "session_id": sid })).await;
    assert!(full["snapshot"].as_str().unwrap().contains("heading \"Projects\""));
    let clicked =
        svc.ok("page.click", json!({ "session_id": sid, "selector": "text=New Project", "snapshot": "diff" })).await;
    let diff = clicked["page"]["snapshot"].as_str().unwrap();
    assert!(diff.lines().all(|l| l.starts_with("+ ") || l.starts_with("- ")), "only changed lines: {diff}");
    assert!(diff.contains("+ ") && diff.contains("textbox \"Project name\""), "the revealed input: {diff}");
    assert!(!diff.contains("heading \"Projects\""), "unchanged lines are left out: {diff}");
    assert!(clicked["page"]["unchanged"].as_u64().unwrap() > 3);
    let again = svc.ok("page.snapshot", json!({ "session_id": sid, "since": "last" })).await;
    assert_eq!(again["snapshot"], "(no change since the previous snapshot)\n");
    let part = svc
        .ok(
            "page.click",
            json!({ "session_id": sid, "selector": "#new-project", "snapshot": { "selector": "#new-project-form" } }),
        )
        .await;
    let subtree = part["page"]["snapshot"].as_str().unwrap();
    assert!(subtree.contains("textbox \"Project name\"") && !subtree.contains("heading"), "{subtree}");
}

#[tokio::test]
async fn page_source_shows_lines_of_a_script_the_page_runs() {
    let svc = shared();
    let sid = opened(svc, "/order/").await;
    let script = page("/order/app.js");
    let shown = svc.ok("page.source", json!({ "session_id": sid, "url": script, "line": 24, "context": 1 })).await;
    assert_eq!(
        shown["lines"],
        "  23 |   const data = await res.json();\n> 24 |   showConfirmation(data.order.id);\n  25 | }"
    );
    assert!(shown["total"].as_u64().unwrap() >= 27);
    // A served script's place, asked for as an answer writes it: 3 lines each side.
    let placed = svc.ok("page.source", json!({ "session_id": sid, "url": format!("{script}:24") })).await;
    let numbers: Vec<&str> = placed["lines"].as_str().unwrap().lines().filter_map(|l| l.split('|').next()).collect();
    let numbers: Vec<u32> = numbers.iter().filter_map(|n| n.trim_start_matches('>').trim().parse().ok()).collect();
    assert_eq!(numbers, (21..=27).collect::<Vec<_>>(), "{placed}");
    let whole = svc.ok("page.source", json!({ "session_id": sid, "url": "/order/app.js" })).await;
    assert_eq!(whole["url"], script, "a relative URL is the page's");
    let lines = whole["lines"].as_str().unwrap();
    assert!(
        lines.starts_with(" 1 | // Checkout") && lines.contains("24 |   showConfirmation"),
        "the whole file: {lines}"
    );
    let err = svc.err("page.source", json!({ "session_id": sid, "url": page("/nope.js"), "line": 1 })).await;
    assert_eq!(err.data["param"], "url", "{err:?}");
}

#[tokio::test]
async fn session_run_runs_steps_in_order_and_stops_at_the_first_failure() {
    let svc = shared();
    let sid = svc.session().await;
    let run = svc
        .ok(
            "session.run",
            json!({ "session_id": sid, "steps": [
                { "method": "page.goto", "params": { "url": page("/login"), "waitUntil": "load" } },
                { "method": "page.fill", "params": { "selector": "role=textbox[name=\"Username\"]", "value": "ada" } },
                { "method": "page.click", "params": { "selector": "role=button[name='Login']" } },
                { "method": "page.text", "params": { "selector": "#login-result" } },
            ]}),
        )
        .await;
    let results = run["results"].as_array().unwrap();
    assert_eq!(results.len(), 4);
    assert!(results.iter().all(|r| r["ok"] == true), "{run}");
    assert_eq!(results[3]["result"]["text"], "Welcome, ada!");
    assert!(run["url"].as_str().unwrap().contains("/login"));
    let failing = svc
        .ok(
            "session.run",
            json!({ "session_id": sid, "steps": [
                { "method": "page.click", "params": { "selector": "#missing", "timeout": 300 } },
                { "method": "page.text" },
            ]}),
        )
        .await;
    assert_eq!(failing["results"][0]["ok"], false);
    assert_eq!(failing["results"][0]["error"]["data"]["kind"], "timeout");
    assert_eq!(failing["skipped"], 1);
    let err = svc.err("session.run", json!({ "session_id": sid, "steps": [{ "method": "session.close" }] })).await;
    assert_eq!(err.data["param"], "steps[0].method", "{err:?}");
}

/// Values that must never leave the service: a password typed into a password field, the
/// Authorization token and the cookie the page sends.
const PASSWORD: &str = "Hunter2-Sup3rSecret!";
const TOKEN: &str = "token-secret-5551";
const COOKIE: &str = "cookie-secret-7771";

#[tokio::test]
async fn no_password_token_or_cookie_reaches_any_result_or_log_line() {
    let svc = Instance::start(&[]);
    let sid = svc
        .session_with(json!({ "storageState": {
            "cookies": [{ "name": "sid", "value": COOKIE, "domain": "127.0.0.1", "path": "/" }],
            "origins": [{ "origin": fixtures(), "localStorage": [{ "name": "apiToken", "value": TOKEN }] }],
        }}))
        .await;
    let mut answers = Vec::new();
    let mut call = |answer: Value| answers.push(answer.to_string());
    call(svc.ok("page.goto", json!({ "session_id": sid, "url": page("/signup/") })).await);
    // The page's check wants more than 12 characters; this password has them.
    call(
        svc.ok(
            "page.fillForm",
            json!({ "session_id": sid, "fields": [
                { "selector": "#email", "value": "ada@example.com" },
                { "selector": "#password", "value": PASSWORD },
                { "selector": "#plan", "value": "pro" },
                { "selector": "#terms", "value": true },
            ], "submit": "#create-account", "snapshot": true }),
        )
        .await,
    );
    let welcomed = eventually(Duration::from_secs(10), "the sign-up answer", || async {
        let text = svc.ok("page.text", json!({ "session_id": sid, "selector": "#signup-result" })).await;
        (text["text"] == "Welcome, ada@example.com!").then_some(text)
    })
    .await;
    call(welcomed);
    let pulled = svc.ok("network.pull", json!({ "session_id": sid, "onlyErrors": false })).await;
    let signup = pulled["requests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["url"].as_str().unwrap().ends_with("/api/signup"))
        .unwrap_or_else(|| panic!("the sign-up request: {pulled}"))
        .clone();
    assert!(signup["requestBody"].as_str().unwrap().contains("ada@example.com"), "the body is there, masked: {signup}");
    let id = signup["requestId"].as_str().unwrap().to_owned();
    call(pulled);
    call(svc.ok("network.body", json!({ "session_id": sid, "requestId": id })).await);
    call(svc.ok("logs.pull", json!({ "session_id": sid })).await);
    call(svc.ok("page.inspect", json!({ "session_id": sid, "selector": "#password" })).await);
    call(svc.ok("page.snapshot", json!({ "session_id": sid })).await);
    call(svc.ok("page.content", json!({ "session_id": sid })).await);
    call(
        svc.ok(
            "page.evaluate",
            json!({ "session_id": sid, "expression": "document.getElementById('password').value" }),
        )
        .await,
    );
    for (i, answer) in answers.iter().enumerate() {
        for secret in [PASSWORD, TOKEN, COOKIE] {
            assert!(!answer.contains(secret), "answer {i} shows {secret}: {answer}");
        }
    }
    assert!(answers.iter().any(|a| a.contains("[redacted]")), "the secrets were there to mask");
    let logs = svc.logs();
    for secret in [PASSWORD, TOKEN, COOKIE] {
        assert!(!logs.contains(secret), "the service log shows {secret}");
    }
}

#[tokio::test]
async fn captured_bodies_stay_within_the_session_cap() {
    // A service of its own, so the process-wide gauge counts this session only.
    let svc = Instance::start(&[("WARM_SESSIONS", "0")]);
    let sid = svc.session().await;
    svc.ok("page.goto", json!({ "session_id": sid, "url": page("/bodies/?n=24&kb=400"), "waitUntil": "load" })).await;
    eventually(Duration::from_secs(60), "24 responses of 400 KiB", || async {
        let text = svc.ok("page.text", json!({ "session_id": sid, "selector": "#done" })).await;
        (text["text"] == "loaded 24").then_some(())
    })
    .await;
    let pulled =
        svc.ok("network.pull", json!({ "session_id": sid, "onlyErrors": false, "urlContains": "/api/large" })).await;
    let ids: Vec<String> =
        pulled["requests"].as_array().unwrap().iter().map(|r| r["requestId"].as_str().unwrap().to_owned()).collect();
    assert_eq!(ids.len(), 24, "{pulled}");
    let held = metric(&svc.metrics().await, "text_browser_captured_body_bytes").unwrap();
    assert!(held <= 4.0 * 1024.0 * 1024.0 + 64.0 * 1024.0, "held {held} bytes, over the 4 MiB cap");
    assert!(held >= 3.0 * 1024.0 * 1024.0, "bodies were kept up to the cap ({held} bytes)");
    let newest = svc.ok("network.body", json!({ "session_id": sid, "requestId": ids[23] })).await;
    assert!(newest["body"].as_str().unwrap().len() > 400 * 1024);
    let oldest = svc.err("network.body", json!({ "session_id": sid, "requestId": ids[0] })).await;
    assert!(oldest.message.contains("evicted"), "{oldest:?}");
}
