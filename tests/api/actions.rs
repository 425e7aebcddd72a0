//! page.click / page.fill / page.press: auto-waiting, real input, clear failures.

use serde_json::{Value, json};

use text_browser::browser::Action;

use crate::helpers::{SessionGuard, page, shared};

async fn on(path: &str) -> SessionGuard {
    let svc = shared();
    let sid = svc.session().await;
    svc.ok("page.goto", json!({ "session_id": sid, "url": page(path), "waitUntil": "load" })).await;
    sid
}

async fn text(sid: &str, selector: &str) -> String {
    let t = shared().ok("page.text", json!({ "session_id": sid, "selector": selector })).await;
    t["text"].as_str().unwrap().to_owned()
}

/// Every `Action` the service sends goes through the real probe script (lib.js's `ACTIONS`), and a
/// name the scripts do not know is refused by the page side instead of skipping checks.
#[tokio::test]
async fn every_action_is_known_to_the_page_scripts() {
    const LIB_JS: &str = concat!(include_str!("../../src/js/watch_name.js"), include_str!("../../src/js/lib.js"));
    const PROBE_JS: &str = include_str!("../../src/js/probe.js");
    let svc = shared();
    let sid = on("/form").await;
    // The helper library, loaded into the page's own world for this test.
    svc.ok("page.evaluate", json!({ "session_id": sid, "expression": LIB_JS })).await;
    let probe = |action: Value| {
        json!({
            "session_id": sid,
            "expression": format!("(a) => ({PROBE_JS})(a.spec, a.action, true)"),
            "arg": { "spec": { "kind": "css", "value": "#name", "source": "#name" }, "action": action },
        })
    };
    for action in Action::ALL {
        let answer = svc.ok("page.evaluate", probe(json!(action))).await;
        let ready = &answer["result"]["ok"];
        assert!(ready["x"].is_number(), "{action:?} must reach a ready answer through the probe: {answer}");
    }
    let answer = svc.ok("page.evaluate", probe(json!("hover-but-unknown"))).await;
    assert_eq!(answer["result"]["error"]["kind"], "unknown_action", "{answer}");
}

#[tokio::test]
async fn click_new_project_reveals_an_input_that_fill_updates() {
    let svc = shared();
    let sid = svc.session().await;
    svc.ok("page.goto", json!({ "session_id": sid, "url": page("/projects") })).await;
    let err = svc
        .err("page.fill", json!({ "session_id": sid, "selector": "#project-name", "value": "x", "timeout": 500 }))
        .await;
    assert_eq!(err.kind(), "timeout", "hidden until the button is clicked: {err:?}");
    assert!(err.message.contains("#project-name is not visible"), "{}", err.message);
    let clicked = svc.ok("page.click", json!({ "session_id": sid, "selector": "text=New Project" })).await;
    assert_eq!(clicked["ok"], true);
    svc.ok(
        "page.fill",
        json!({ "session_id": sid, "selector": "role=textbox[name=\"Project name\"]", "value": "Zephyr" }),
    )
    .await;
    assert!(text(&sid, "body").await.contains("New project: Zephyr"));
}

#[tokio::test]
async fn click_on_role_button_login_logs_in() {
    let svc = shared();
    let sid = on("/login").await;
    svc.ok("page.fill", json!({ "session_id": sid, "selector": "role=textbox[name=\"Username\"]", "value": "ada" }))
        .await;
    svc.ok("page.click", json!({ "session_id": sid, "selector": "role=button[name='Login']" })).await;
    assert_eq!(text(&sid, "#login-result").await, "Welcome, ada!");
}

#[tokio::test]
async fn click_waits_for_a_button_that_becomes_enabled() {
    let svc = shared();
    let sid = on("/delayed").await;
    svc.ok("page.click", json!({ "session_id": sid, "selector": "#go", "timeout": 10000 })).await;
    assert_eq!(text(&sid, "#result").await, "Continued");
}

#[tokio::test]
async fn click_on_a_disabled_button_times_out_saying_disabled() {
    let svc = shared();
    let sid = on("/delayed").await;
    let err = svc.err("page.click", json!({ "session_id": sid, "selector": "#go", "timeout": 300 })).await;
    assert_eq!(err.kind(), "timeout");
    assert!(err.message.contains("#go is disabled"), "{}", err.message);
}

#[tokio::test]
async fn click_on_a_covered_element_names_what_covers_it() {
    let svc = shared();
    let sid = on("/covered").await;
    let err = svc.err("page.click", json!({ "session_id": sid, "selector": "#under", "timeout": 1000 })).await;
    assert_eq!(err.kind(), "timeout");
    assert!(err.message.contains("#under is covered by div#modal.modal"), "{}", err.message);
    // Once the modal is dismissed, the click goes through.
    svc.ok("page.click", json!({ "session_id": sid, "selector": "role=button[name=\"Close\"]" })).await;
    svc.ok("page.click", json!({ "session_id": sid, "selector": "#under" })).await;
    assert_eq!(text(&sid, "#result").await, "Bought");
}

#[tokio::test]
async fn click_waits_for_an_animation_to_settle() {
    let svc = shared();
    let sid = on("/animated").await;
    svc.ok("page.click", json!({ "session_id": sid, "selector": "#slider" })).await;
    assert_eq!(text(&sid, "#result").await, "Clicked at 0px", "clicked only once it stopped moving");
}

#[tokio::test]
async fn click_waits_for_a_script_that_moves_the_element_on_every_frame() {
    let svc = shared();
    let sid = on("/animated").await;
    svc.ok("page.click", json!({ "session_id": sid, "selector": "#drawer" })).await;
    assert_eq!(text(&sid, "#result").await, "Drawer clicked at translateX(0px)", "clicked only once it stopped");
}

#[tokio::test]
async fn ambiguous_selector_fails_listing_candidates() {
    let svc = shared();
    let sid = on("/form").await;
    let err = svc.err("page.click", json!({ "session_id": sid, "selector": "role=button[name=\"Delete\"]" })).await;
    assert_eq!(err.kind(), "ambiguous_selector");
    assert!(err.message.contains("matches 2 elements"), "{}", err.message);
    assert!(err.message.contains("button.delete \"Delete\""), "{}", err.message);
    // Reading methods take the first match instead.
    assert_eq!(text(&sid, ".delete").await, "Delete");
}

#[tokio::test]
async fn click_supports_modifiers_count_and_right_button() {
    let svc = shared();
    let sid = on("/form").await;
    svc.ok("page.click", json!({ "session_id": sid, "selector": "#save", "modifiers": ["Shift"], "clickCount": 2 }))
        .await;
    assert_eq!(text(&sid, "#result").await, "Saved Old name (shift) x2");
    svc.ok("page.click", json!({ "session_id": sid, "selector": "#cancel", "button": "right" })).await;
    assert_eq!(text(&sid, "#result").await, "Cancel right-clicked");
}

#[tokio::test]
async fn fill_replaces_the_value_and_fires_input_and_change() {
    let svc = shared();
    let sid = on("/form").await;
    svc.ok("page.fill", json!({ "session_id": sid, "selector": "#name", "value": "Ada Lovelace" })).await;
    let value = svc
        .ok("page.evaluate", json!({ "session_id": sid, "expression": "document.querySelector('#name').value" }))
        .await;
    assert_eq!(value["result"], "Ada Lovelace", "the old value was replaced, not appended to");
    assert_eq!(text(&sid, "#events").await, "input;change;");
    svc.ok("page.fill", json!({ "session_id": sid, "selector": "#name", "value": "" })).await;
    let value = svc
        .ok("page.evaluate", json!({ "session_id": sid, "expression": "document.querySelector('#name').value" }))
        .await;
    assert_eq!(value["result"], "");
    svc.ok("page.fill", json!({ "session_id": sid, "selector": "#birthday", "value": "2024-02-29" })).await;
    svc.ok("page.fill", json!({ "session_id": sid, "selector": "#bio", "value": "line one\nline two" })).await;
    let values =
        svc.ok("page.evaluate", json!({ "session_id": sid, "expression": "[birthday.value, bio.value]" })).await;
    assert_eq!(values["result"], json!(["2024-02-29", "line one\nline two"]));
}

#[tokio::test]
async fn a_fields_change_fires_whether_the_fill_settles_or_not() {
    // A typed fill's change rides on the look at the action's end; answered without settling
    // there is no such look, and it fires all the same (the field keeps the focus, so the
    // browser fires none of its own).
    let svc = shared();
    let sid = on("/form").await;
    let fields = json!([{ "selector": "#email", "value": "a@b.org" }, { "selector": "#name", "value": "Grace" }]);
    svc.ok("page.fillForm", json!({ "session_id": sid, "fields": fields })).await;
    assert_eq!(text(&sid, "#events").await, "input;change;", "the form's last field");
    svc.ok("page.fill", json!({ "session_id": sid, "selector": "#name", "value": "Ada", "settleMs": 0 })).await;
    assert_eq!(text(&sid, "#events").await, "input;change;input;change;", "answered without settling");
}

#[tokio::test]
async fn fill_refuses_elements_that_cannot_take_text() {
    let svc = shared();
    let sid = on("/form").await;
    let err = svc.err("page.fill", json!({ "session_id": sid, "selector": "#remember", "value": "x" })).await;
    assert_eq!(err.kind(), "not_actionable");
    assert!(err.message.contains("checkbox"), "{}", err.message);
    let err = svc.err("page.fill", json!({ "session_id": sid, "selector": "#readonly", "value": "x" })).await;
    assert_eq!(err.kind(), "not_actionable");
    assert!(err.message.contains("read-only"), "{}", err.message);
}

#[tokio::test]
async fn press_sends_keys_and_combinations() {
    let svc = shared();
    let sid = on("/form").await;
    svc.ok("page.press", json!({ "session_id": sid, "selector": "#email", "key": "Control+A" })).await;
    assert_eq!(text(&sid, "#last-key").await, "Control+a");
    svc.ok("page.press", json!({ "session_id": sid, "selector": "#email", "key": "ArrowDown" })).await;
    assert_eq!(text(&sid, "#last-key").await, "ArrowDown");
    svc.ok("page.press", json!({ "session_id": sid, "selector": "#email", "key": "x" })).await;
    let value = svc.ok("page.evaluate", json!({ "session_id": sid, "expression": "email.value" })).await;
    assert_eq!(value["result"], "x", "a printable key types its character");
    let err = svc.err("page.press", json!({ "session_id": sid, "selector": "#email", "key": "Entr" })).await;
    assert_eq!(err.data["param"], "key");
    assert!(err.message.contains("unknown key"), "{}", err.message);
}

#[tokio::test]
async fn press_enter_submits_and_follows_the_navigation() {
    let svc = shared();
    let sid = on("/").await;
    svc.ok("page.evaluate", json!({ "session_id": sid,
        "expression": "document.body.insertAdjacentHTML('beforeend', '<form action=\"/login\"><input id=q name=q></form>')" }))
    .await;
    svc.ok("page.press", json!({ "session_id": sid, "selector": "#q", "key": "Enter" })).await;
    let title = svc.ok("page.evaluate", json!({ "session_id": sid, "expression": "document.title" })).await;
    assert_eq!(title["result"], "Login", "the navigation the key started has loaded");
}

#[tokio::test]
async fn selector_engines_agree_on_the_same_element() {
    let svc = shared();
    let sid = on("/form").await;
    for selector in [
        "#save",
        "text=Save",
        "text=\"Save\"",
        "xpath=//button[@id='save']",
        "role=button[name=\"save\"]",
        "role=button[name=\"Save\" s]",
    ] {
        assert_eq!(text(&sid, selector).await, "Save", "{selector}");
    }
    assert_eq!(text(&sid, "role=heading[level=2]").await, "Profile");
    let err = svc
        .err("page.click", json!({ "session_id": sid, "selector": "role=button[name=\"save\" s]", "timeout": 300 }))
        .await;
    assert!(err.message.contains("matches no element"), "exact match is case-sensitive: {}", err.message);
}

#[tokio::test]
async fn invalid_selectors_are_invalid_selector_errors() {
    let svc = shared();
    let sid = on("/form").await;
    for selector in ["button[", "role=button[name=Save]", "xpath=//button[", "frob=x"] {
        let err = svc.err("page.click", json!({ "session_id": sid, "selector": selector })).await;
        assert_eq!(err.kind(), "invalid_selector", "{selector}: {err:?}");
    }
}

#[tokio::test]
async fn action_results_carry_signal_counts() {
    let svc = shared();
    let sid = on("/errors").await;
    svc.ok("page.waitFor", json!({ "session_id": sid, "state": "networkidle" })).await;
    let clicked: Value = svc.ok("page.click", json!({ "session_id": sid, "selector": "#throw" })).await;
    let signals = &clicked["signals"];
    assert!(signals["consoleErrors"].as_u64().unwrap() >= 1, "{signals}");
    assert!(signals["pageErrors"].as_u64().unwrap() >= 2, "{signals}");
    assert!(signals["failedRequests"].as_u64().unwrap() >= 2, "{signals}");
}

#[tokio::test]
async fn clicking_a_link_returns_once_the_new_page_has_loaded() {
    let svc = shared();
    let sid = on("/").await;
    svc.ok("page.click", json!({ "session_id": sid, "selector": "role=link[name=\"Login\"]" })).await;
    assert_eq!(text(&sid, "h1").await, "Login");
    // A fragment link loads nothing: the click returns and the page is the same document.
    svc.ok(
        "page.evaluate",
        json!({ "session_id": sid,
        "expression": "document.body.insertAdjacentHTML('beforeend', '<a id=frag href=\"#bottom\">down</a>')" }),
    )
    .await;
    svc.ok("page.evaluate", json!({ "session_id": sid, "expression": "window.sameDocument = true" })).await;
    svc.ok("page.click", json!({ "session_id": sid, "selector": "#frag" })).await;
    let same = svc
        .ok("page.evaluate", json!({ "session_id": sid, "expression": "[window.sameDocument, location.hash]" }))
        .await;
    assert_eq!(same["result"], json!([true, "#bottom"]));
}

#[tokio::test]
async fn a_click_brings_the_pointer_over_the_element_with_trusted_events() {
    let svc = shared();
    let sid = svc.session().await;
    svc.ok("page.goto", json!({ "session_id": sid, "url": page("/form/") })).await;
    svc.ok(
        "page.evaluate",
        json!({ "session_id": sid, "expression": "window.seen = []; \
            for (const t of ['mouseover', 'mouseenter', 'pointerdown', 'mousedown', 'mouseup', 'click']) \
              document.querySelector('#save').addEventListener(t, (e) => seen.push(e.isTrusted ? t : t + ' (untrusted)')); 1" }),
    )
    .await;
    svc.ok("page.click", json!({ "session_id": sid, "selector": "#save" })).await;
    let seen = svc
        .ok(
            "page.evaluate",
            json!({ "session_id": sid, "expression": "[seen, !!document.querySelector('#save:hover')]" }),
        )
        .await;
    assert_eq!(
        seen["result"],
        json!([["mouseover", "mouseenter", "pointerdown", "mousedown", "mouseup", "click"], true]),
        "hover comes with the press, every event is trusted"
    );
}
