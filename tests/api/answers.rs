//! Honest and complete answers: every change an action caused is in its effects, every time,
//! credited to what caused it; facts that are true statements; the listeners that ran as often as
//! they ran; changes that name what was added; the write an agent needs next; where a restored
//! page was scrolled to. Each proven on a fixture app with the bug a user would file
//! (`fixtures/answers.rs`).

use serde_json::{Value, json};

use std::time::Duration;

use crate::helpers::{Service, eventually, page, shared};

/// The strings of `value[key]` (an array of lines).
fn lines<'a>(value: &'a Value, key: &str) -> Vec<&'a str> {
    value[key].as_array().map(|a| a.iter().filter_map(Value::as_str).collect()).unwrap_or_default()
}

/// Where a navigation's answer says the browser restored the scroll to.
fn restored(answer: &Value) -> Option<(f64, f64)> {
    let at = &answer["scrollRestored"];
    Some((at["x"].as_f64()?, at["y"].as_f64()?))
}

async fn act(svc: &Service, method: &str, params: Value) -> Value {
    svc.ok(method, params).await
}

#[tokio::test]
async fn a_button_flipped_on_every_input_shows_in_each_of_fifty_fills() {
    let svc = shared();
    let sid = svc.session_with(json!({ "url": page("/register/") })).await;
    let mut disabled = false;
    for i in 0..50 {
        let value = if i % 2 == 0 { "ada@example.com" } else { "grace@example.com" };
        let filled = act(svc, "page.fill", json!({ "session_id": sid, "selector": "#email", "value": value })).await;
        disabled = !disabled;
        let now = svc
            .ok(
                "page.evaluate",
                json!({ "session_id": sid, "expression": "document.getElementById('create').disabled" }),
            )
            .await;
        assert_eq!(now["result"], json!(disabled), "the page flipped the button (fill {i})");
        let want = if disabled { "#create: disabled set" } else { "#create: disabled removed" };
        let changes = lines(&filled["effects"], "changes");
        let line = changes.iter().find(|c| c.contains(want)).unwrap_or_else(|| {
            panic!("fill {i} of 50 reports the flip ({want}): {}", filled["effects"]);
        });
        // Who made it (`by updateForm`) comes from a stack fetched after the change: a loaded machine
        // may answer first. What it followed is known at once.
        assert!(line.contains("← input on #email"), "{line}");
    }
}

#[tokio::test]
async fn a_counter_click_and_a_dialog_opening_show_every_time() {
    let svc = shared();
    let sid = svc.session_with(json!({ "url": page("/shop/") })).await;
    for n in 1..=12 {
        let clicked = act(svc, "page.click", json!({ "session_id": sid, "selector": "#add" })).await;
        let want = format!("#cart-count: text \"{}\" → \"{n}\"", n - 1);
        assert!(
            lines(&clicked["effects"], "changes").iter().any(|c| c.contains(&want)),
            "click {n} reports the count ({want}): {}",
            clicked["effects"]
        );
    }
    for round in 0..8 {
        let opened = act(svc, "page.click", json!({ "session_id": sid, "selector": "#checkout" })).await;
        assert!(
            lines(&opened["effects"], "changes").iter().any(|c| c.contains("#checkout-dialog: open set")),
            "opening {round} reports the dialog: {}",
            opened["effects"]
        );
        let closed = act(svc, "page.click", json!({ "session_id": sid, "selector": "#cancel" })).await;
        assert!(
            lines(&closed["effects"], "changes").iter().any(|c| c.contains("#checkout-dialog: open removed")),
            "closing {round} reports it: {}",
            closed["effects"]
        );
    }
}

#[tokio::test]
async fn two_identical_orders_from_one_click_are_a_fact_of_their_own_and_the_handler_ran_twice() {
    let svc = shared();
    let sid = svc.session_with(json!({ "url": page("/shop/") })).await;
    act(svc, "page.click", json!({ "session_id": sid, "selector": "#add" })).await;
    act(svc, "page.click", json!({ "session_id": sid, "selector": "#checkout" })).await;
    let placed = act(svc, "page.click", json!({ "session_id": sid, "selector": "#place" })).await;
    let effects = &placed["effects"];
    let posts: Vec<&Value> =
        effects["requests"].as_array().unwrap().iter().filter(|r| r["url"] == "/shop/api/orders").collect();
    assert_eq!(posts.len(), 2, "two orders went out: {effects}");
    let facts = lines(effects, "facts");
    assert!(!facts.iter().any(|f| f.contains("out of order")), "identical requests are no race: {facts:?}");
    let twice = facts
        .iter()
        .find(|f| f.starts_with("POST /shop/api/orders ×2 from one click, identical bodies, both 201"))
        .unwrap_or_else(|| panic!("the duplicate is a fact: {effects}"));
    assert!(twice.contains("the click reached the same handler twice"), "{twice}");
    let reached = lines(effects, "reached");
    assert!(
        reached.iter().any(|l| l.starts_with("click on button#place → ") && l.ends_with(" ×2")),
        "the listener that ran twice says so: {reached:?}"
    );
}

#[tokio::test]
async fn a_search_paced_by_the_typist_is_no_chain() {
    let svc = shared();
    let sid = svc.session_with(json!({ "url": page("/people/") })).await;
    let typed =
        act(svc, "page.type", json!({ "session_id": sid, "selector": "#who", "text": "grace", "delayMs": 250 })).await;
    let effects = &typed["effects"];
    let searches = effects["requests"].as_array().map_or(0, |r| r.len()) as u64
        + effects["groups"].as_array().map_or(0, |g| g.iter().map(|g| g["count"].as_u64().unwrap_or(0)).sum());
    assert_eq!(searches, 5, "one search per key: {effects}");
    let facts = lines(effects, "facts");
    assert!(
        !facts.iter().any(|f| f.contains("one after another") || f.contains("out of order")),
        "the typing paced them; none waited for another: {facts:?}"
    );
}

#[tokio::test]
async fn a_render_that_awaited_two_responses_names_both() {
    let svc = shared();
    let sid = svc.session_with(json!({ "url": page("/roster/") })).await;
    let clicked = act(svc, "page.click", json!({ "session_id": sid, "selector": "#refresh" })).await;
    let changes = lines(&clicked["effects"], "changes");
    let render = changes
        .iter()
        .find(|c| c.contains("#overview: text \"Not loaded\" → \"4 members · 2 projects\""))
        .unwrap_or_else(|| panic!("the render is reported: {}", clicked["effects"]));
    assert!(
        render.contains("GET /roster/api/members 200") && render.contains("GET /roster/api/projects 200"),
        "both responses it awaited: {render}"
    );
}

#[tokio::test]
async fn a_panel_that_arrives_late_is_named_as_added() {
    let svc = shared();
    let sid = svc.session_with(json!({ "url": page("/reports/") })).await;
    let clicked = act(svc, "page.click", json!({ "session_id": sid, "selector": "#show" })).await;
    let changes = lines(&clicked["effects"], "changes");
    assert!(
        changes.iter().any(|c| c.contains("section#late-panel \"Report\" added to #slot")),
        "what was added, by name: {changes:?}"
    );
}

#[tokio::test]
async fn a_button_disabled_in_the_markup_and_kept_so_says_what_kept_it() {
    let svc = shared();
    let sid = svc.session_with(json!({ "url": page("/newsletter/") })).await;
    act(svc, "page.fill", json!({ "session_id": sid, "selector": "#name", "value": "Ada" })).await;
    act(svc, "page.fill", json!({ "session_id": sid, "selector": "#address", "value": "ada@example.com" })).await;
    let inspected = svc.ok("page.inspect", json!({ "session_id": sid, "selector": "#subscribe" })).await;
    assert_eq!(inspected["enabled"], false);
    let because = inspected["disabledBecause"].as_str().unwrap_or_else(|| panic!("{inspected}"));
    assert!(because.starts_with("its disabled attribute, since the markup"), "{because}");
    assert!(
        because.contains("updateForm (/newsletter/form.js:")
            && because.contains("ran on input")
            && because.contains("left it disabled"),
        "the listener that kept it so: {because}"
    );
}

#[tokio::test]
async fn a_save_that_sends_a_stale_date_shows_its_body_and_the_value_filled() {
    let svc = shared();
    let sid = svc.session_with(json!({ "url": page("/tasks/") })).await;
    act(svc, "page.fill", json!({ "session_id": sid, "selector": "#due-date", "value": "2026-03-20" })).await;
    let saved = act(svc, "page.click", json!({ "session_id": sid, "selector": "#save" })).await;
    let effects = &saved["effects"];
    let put = effects["requests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["method"] == "PUT")
        .unwrap_or_else(|| panic!("{effects}"));
    assert_eq!((put["url"].as_str(), put["status"].as_u64()), (Some("/tasks/api/tasks/WEB-107"), Some(200)));
    assert!(put["requestBody"].as_str().unwrap_or_default().contains(r#""due":"2026-03-13""#), "what it sent: {put}");
    assert_eq!(put["requestOutline"], "{key: string, title: string, due: string, assignee: string}", "{put}");
    let facts = lines(effects, "facts");
    assert!(
        facts.iter().any(|f| f.starts_with(
            r#"PUT /tasks/api/tasks/WEB-107 sent due "2026-03-13"; input "Due date" was filled with "2026-03-20" at +"#
        )),
        "the stale value against the one filled: {facts:?}"
    );
}

#[tokio::test]
async fn a_list_cut_in_network_pull_keeps_its_outline() {
    let svc = shared();
    let sid = svc.session_with(json!({ "url": page("/tasks/") })).await;
    // The list is asked for once the task has loaded (session.create may answer before): the page
    // keeps its items once it has read it.
    eventually(Duration::from_secs(30), "the page to read the list", || async {
        let read =
            svc.ok("page.evaluate", json!({ "session_id": sid, "expression": "Array.isArray(window.board)" })).await;
        (read["result"] == true).then_some(())
    })
    .await;
    let params = json!({ "session_id": sid, "onlyErrors": false, "urlContains": "/tasks/api/tasks?page=1" });
    let pulled = svc.ok("network.pull", params).await;
    let list = &pulled["requests"][0];
    assert!(list["responseBodyBytes"].as_u64().unwrap_or(0) > 2048, "the body is cut: {list}");
    let outline = list["responseOutline"].as_str().unwrap_or_else(|| panic!("{list}"));
    assert!(outline.contains("meta: {page, pages, total}") && outline.contains("links: {next}"), "{outline}");
}

#[tokio::test]
async fn a_reload_and_history_moves_say_where_the_page_was_scrolled_to() {
    let svc = shared();
    let sid = svc.session_with(json!({ "url": page("/handbook/") })).await;
    svc.ok("page.evaluate", json!({ "session_id": sid, "expression": "window.scrollTo(0, 286); scrollY" })).await;
    let reloaded = svc.ok("page.reload", json!({ "session_id": sid })).await;
    assert_eq!(restored(&reloaded), Some((0.0, 286.0)), "{reloaded}");
    let fresh = svc.ok("page.goto", json!({ "session_id": sid, "url": page("/people/") })).await;
    assert!(fresh.get("scrollRestored").is_none(), "a new page starts at the top: {fresh}");
    let back = svc.ok("page.back", json!({ "session_id": sid })).await;
    assert_eq!(restored(&back), Some((0.0, 286.0)), "{back}");
    svc.ok("page.evaluate", json!({ "session_id": sid, "expression": "window.scrollTo(0, 0); 0" })).await;
    let forward = svc.ok("page.forward", json!({ "session_id": sid })).await;
    assert!(forward.get("scrollRestored").is_none(), "/people/ was at the top: {forward}");
    let top = svc.ok("page.reload", json!({ "session_id": sid })).await;
    assert!(top.get("scrollRestored").is_none(), "{top}");
}

#[tokio::test]
async fn networkidle_answers_on_a_page_with_an_open_event_stream_and_counts_it_as_no_request_pending() {
    let svc = shared();
    let created = svc.ok("session.create", json!({ "url": page("/ops/") })).await;
    let sid = crate::helpers::SessionGuard::adopt(svc, created["session_id"].as_str().unwrap());
    assert_eq!(created["load"]["pending"], Value::Null, "the stream is open, not pending: {created}");
    let again = svc.ok("page.goto", json!({ "session_id": sid, "url": page("/ops/") })).await;
    assert_eq!(again["status"], 200);
}
