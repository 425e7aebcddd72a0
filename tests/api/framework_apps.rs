//! Real framework apps (`fixtures/apps`: Vite + React + TypeScript, Vite + Vue 3 + TypeScript),
//! each from its Vite dev server and from its production build: their bugs reproduce through the
//! service in a few calls, as a user would meet them.
//!
//! The answers speak the apps' own source: every location read through the source maps Vite
//! serves (inline in dev, a `.map` beside the bundle in prod) — the original `.tsx` / `.vue` file,
//! line and function, library code (React, Vue, Vite's client) set aside, the component's own
//! handler behind the framework's delegation — and `page.source` shows the original lines of a
//! location taken from an answer as it is written.

use serde_json::{Value, json};

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::helpers::{App, Service, SessionGuard, eventually, fixtures, next_json, shared, subscribe_on, websocket};

#[derive(Debug, Clone, Copy)]
enum Mode {
    /// The Vite dev server: one transformed module per source file, the HMR client, StrictMode.
    Dev,
    /// The production build: one minified bundle with its source map beside it.
    Prod,
}

fn url(app: App, mode: Mode) -> String {
    match mode {
        Mode::Dev => app.dev().to_owned(),
        Mode::Prod => app.prod(),
    }
}

/// A session opened on the app in one call, with its answer.
async fn open(svc: &Service, app: App, mode: Mode) -> (SessionGuard, Value) {
    let created = svc.ok("session.create", json!({ "url": url(app, mode) })).await;
    let sid = SessionGuard::adopt(svc, created["session_id"].as_str().expect("session_id"));
    (sid, created)
}

/// The script a location names, as the page served it.
fn served_script(location: &Value) -> &str {
    location["url"].as_str().unwrap_or_default()
}

/// The page errors logs.pull has given until one with `message` arrives (polled: a dev server's app
/// runs its first effects some time after the load, later still on a loaded machine).
async fn page_error_eventually(svc: &Service, sid: &str, message: &str) -> Value {
    eventually(Duration::from_secs(30), &format!("a page error with {message:?}"), || async {
        let logs = svc.ok("logs.pull", json!({ "session_id": sid })).await;
        let errors = logs["pageErrors"].as_array().cloned().unwrap_or_default();
        errors.into_iter().find(|e| e["message"].as_str().is_some_and(|m| m.contains(message)))
    })
    .await
}

/// The component's load-time error reaches the agent with its message and where it was thrown:
/// served (`component`'s module in dev, the bundle in prod) and, read through the map, the
/// original file (`component` itself) and line, its stack in the original source with library
/// frames folded; `page.source` on that location as written shows the throwing line. (On a loaded
/// machine session.create can answer before the app's first effects ran, so its `signals` are not
/// asserted here.)
async fn load_error_is_reported(app: App, mode: Mode, message: &str, (component, line): (&str, u64)) {
    let svc = shared();
    let (sid, _) = open(svc, app, mode).await;
    let error = page_error_eventually(svc, &sid, message).await;
    assert_eq!(error["kind"], "unhandledrejection", "{error}");
    let script = served_script(&error["location"]);
    match mode {
        Mode::Dev => assert!(script.ends_with(component), "dev serves the component's own module: {error}"),
        Mode::Prod => {
            let bundle = format!("/apps/{}/assets/index-", app.name());
            assert!(script.contains(&bundle) && script.ends_with(".js"), "prod names the bundle: {error}")
        }
    }
    let original = &error["location"]["original"];
    let file = component.trim_start_matches('/');
    assert_eq!((original["source"].as_str(), original["line"].as_u64()), (Some(file), Some(line)), "{error}");
    let stack = error["stack"].as_str().unwrap_or_default();
    assert!(stack.contains(&format!("{file}:{line}")), "the stack in the original source: {stack}");
    assert!(!names_library_or_bundle(stack), "library frames folded, no bundle location: {stack}");
    assert!(error["source"].as_str().is_some_and(|s| s.contains(file)), "the original lines: {error}");
    let shown = source_of(svc, &sid, &format!("{file}:{line}")).await;
    assert!(shown.contains(&format!("> {line} |")), "{shown}");
}

/// Whether `text` names library code or a served bundle as a location.
fn names_library_or_bundle(text: &str) -> bool {
    ["node_modules", "/assets/index-", "react-dom", "runtime-core", "/@vite/"].iter().any(|bad| text.contains(bad))
}

/// page.source's lines for `location` exactly as an answer wrote it (`src/a.tsx:18`).
async fn source_of(svc: &Service, sid: &str, location: &str) -> String {
    let shown = svc.ok("page.source", json!({ "session_id": sid, "url": location })).await;
    shown["lines"].as_str().unwrap_or_default().to_owned()
}

#[tokio::test]
async fn a_react_component_throwing_at_load_is_reported_with_where_it_threw_from_the_dev_server() {
    let message = "Cannot read properties of undefined (reading 'perUsd')";
    load_error_is_reported(App::Expenses, Mode::Dev, message, ("/src/components/RateBadge.tsx", 10)).await;
}

#[tokio::test]
async fn a_react_component_throwing_at_load_is_reported_with_where_it_threw_from_the_production_build() {
    let message = "Cannot read properties of undefined (reading 'perUsd')";
    load_error_is_reported(App::Expenses, Mode::Prod, message, ("/src/components/RateBadge.tsx", 10)).await;
}

#[tokio::test]
async fn a_vue_component_throwing_at_load_is_reported_with_where_it_threw_from_the_dev_server() {
    let message = "Cannot read properties of undefined (reading 'find')";
    load_error_is_reported(App::Rooms, Mode::Dev, message, ("/src/components/OpeningHours.vue", 10)).await;
}

#[tokio::test]
async fn a_vue_component_throwing_at_load_is_reported_with_where_it_threw_from_the_production_build() {
    let message = "Cannot read properties of undefined (reading 'find')";
    load_error_is_reported(App::Rooms, Mode::Prod, message, ("/src/components/OpeningHours.vue", 10)).await;
}

/// The expenses bug: "Submit claim" shows "✓ Claim submitted", yet the claim never arrives. The
/// click's effects hold the whole story: the POST answered 422 ("date is required") because the
/// form sent `spentOn`, the wrapper's unhandled ApiError, and the status line the form rendered.
async fn claim_refused_while_the_form_says_submitted(mode: Mode) {
    let svc = shared();
    let (sid, _) = open(svc, App::Expenses, mode).await;
    for (field, value) in [("Description", "Taxi to the airport"), ("Amount (EUR)", "23.50")] {
        let selector = format!("role=textbox[name=\"{field}\"]");
        svc.ok("page.fill", json!({ "session_id": sid, "selector": selector, "value": value })).await;
    }
    let clicked =
        svc.ok("page.click", json!({ "session_id": sid, "selector": "role=button[name=\"Submit claim\"]" })).await;
    let effects = &clicked["effects"];
    let post = effects["requests"]
        .as_array()
        .and_then(|requests| requests.iter().find(|r| r["method"] == "POST"))
        .unwrap_or_else(|| panic!("the click sent the claim: {effects}"));
    assert_eq!((post["url"].as_str(), post["status"].as_u64()), (Some("/api/expenses/claims"), Some(422)), "{post}");
    let sent: Value = serde_json::from_str(post["requestBody"].as_str().unwrap_or_default()).expect("JSON sent");
    assert_eq!(sent, json!({ "description": "Taxi to the airport", "amount": 23.5, "spentOn": "2026-03-13" }));
    assert!(post["responseBody"].as_str().unwrap_or_default().contains("date is required"), "{post}");
    assert!(post["initiator"].as_str().is_some_and(|i| !i.is_empty()), "who sent it is named: {post}");
    let error = &effects["pageErrors"][0];
    assert_eq!(error["message"], "ApiError: 422 date is required", "the wrapper's rejection: {effects}");
    assert_eq!(clicked["signals"]["failedRequests"], 1, "{clicked}");
    // The status line the click rendered, in the timeline too.
    let timeline = svc.ok("page.timeline", json!({ "session_id": sid, "kinds": ["dom"] })).await;
    let lines = timeline["timeline"].as_str().unwrap_or_default();
    assert!(
        lines.lines().any(|line| line.contains("span.status \"✓ Claim submitted\" added to #root section")
            && line.contains("← click on #root button")),
        "the status line the click rendered: {lines}"
    );
    let status = svc.ok("page.text", json!({ "session_id": sid, "selector": "role=status" })).await;
    assert_eq!(status["text"], "✓ Claim submitted", "what the user sees");
    let heading = svc.ok("page.text", json!({ "session_id": sid, "selector": "#claims" })).await;
    assert_eq!(heading["text"], "Your claims (3)", "the list reloaded without the claim");
}

/// An expenses session (`mode`) in which a "Taxi" claim was filled in and "Submit claim" clicked,
/// with the click's answer.
async fn submit_taxi_claim(svc: &Service, mode: Mode) -> (SessionGuard, Value) {
    let (sid, _) = open(svc, App::Expenses, mode).await;
    let selector = "role=textbox[name=\"Description\"]";
    svc.ok("page.fill", json!({ "session_id": sid, "selector": selector, "value": "Taxi" })).await;
    let clicked =
        svc.ok("page.click", json!({ "session_id": sid, "selector": "role=button[name=\"Submit claim\"]" })).await;
    (sid, clicked)
}

/// One click on "Submit claim" says, in the app's own source: the component's handler the click
/// reached through React's delegation (`onClick = submit in <ClaimForm> (…ClaimForm.tsx:16)`), the
/// request's chain back to it through the shared wrapper, the status line it rendered named by
/// `<ClaimForm>`, and no library or bundle location as a cause; page.source shows the handler's
/// line from the location the answer wrote.
async fn the_claim_click_speaks_the_apps_own_source(mode: Mode) {
    let svc = shared();
    let (sid, clicked) = submit_taxi_claim(svc, mode).await;
    let effects = &clicked["effects"];
    let reached = texts_of(&effects["reached"]);
    let handler = "click on button → onClick = submit in <ClaimForm> (src/components/ClaimForm.tsx:16)";
    assert!(reached.iter().any(|line| line.starts_with(handler)), "the component's own handler: {reached:#?}");
    assert!(!reached.iter().any(|line| names_library_or_bundle(line)), "{reached:#?}");
    let post = effects["requests"]
        .as_array()
        .and_then(|requests| requests.iter().find(|r| r["method"] == "POST"))
        .unwrap_or_else(|| panic!("the click sent the claim: {effects}"));
    let chain = post["initiator"].as_str().unwrap_or_default();
    let expected = [
        "request (src/api/http.ts:14)",
        "submitClaim (src/api/claims.ts:25)",
        "submit (src/components/ClaimForm.tsx:18)",
    ];
    assert!(chain.starts_with(&expected.join(" ← ")), "the async chain back to the handler: {chain}");
    // The DOM change it causes names the component that rendered it.
    let changes = texts_of(&effects["changes"]);
    assert!(
        changes.iter().any(|line| line.contains("\"✓ Claim submitted\" added") && line.contains(" in <ClaimForm>")),
        "the status line named by its component: {changes:#?}"
    );
    let error = &effects["pageErrors"][0];
    assert_eq!(error["location"]["original"]["source"], "src/api/http.ts", "{error}");
    // Thrown in the shared wrapper while handling the POST's answer, not the list's GET after it.
    let during = error["during"].as_str().unwrap_or_default();
    assert!(during.starts_with("response of POST /api/expenses/claims 422"), "{error}");
    // The served location stays beside the original (`url`: the bundle in prod), never as the cause.
    let named = [chain, error["source"].as_str().unwrap_or_default(), &error["location"]["original"].to_string()];
    for said in named.iter().chain(texts_of(&effects["changes"]).iter().map(String::as_str).collect::<Vec<_>>().iter())
    {
        assert!(!names_library_or_bundle(said), "no library or bundle location as a cause: {said}");
    }
    let spot = handler.rsplit_once('(').map(|(_, spot)| spot.trim_end_matches(')')).unwrap_or_default();
    let shown = source_of(svc, &sid, spot).await;
    assert!(shown.contains("> 16 |   function submit() {"), "the handler's original line: {shown}");
}

#[tokio::test]
async fn a_react_click_names_the_components_handler_and_the_requests_chain_in_original_source_from_the_production_build()
 {
    the_claim_click_speaks_the_apps_own_source(Mode::Prod).await;
}

#[tokio::test]
async fn a_react_click_names_the_components_handler_and_the_requests_chain_in_original_source_from_the_dev_server() {
    the_claim_click_speaks_the_apps_own_source(Mode::Dev).await;
}

/// The app keeps its list's revision in localStorage: the submit click's answer shows the write
/// and the reload's load report the boot read, each with its line in the app's own source (the
/// load report read through the maps too, never the bundle's or the dev server's served line).
async fn the_claims_revision_is_written_and_read_back_in_the_apps_own_source(mode: Mode) {
    let svc = shared();
    let (sid, clicked) = submit_taxi_claim(svc, mode).await;
    let written = texts_of(&clicked["effects"]["storage"]);
    let write = "localStorage expenses:revision = string (1 chars) by ";
    assert!(
        written.iter().any(|line| line.contains(write) && line.contains("src/App.tsx:12")),
        "the write with its original line: {written:#?}"
    );
    let reloaded = svc.ok("page.reload", json!({ "session_id": sid })).await;
    let read = texts_of(&reloaded["load"]["storage"]);
    assert!(
        read.iter()
            .any(|line| line.contains("localStorage expenses:revision → found by ") && line.contains("src/App.tsx:9")),
        "the boot read with its original line: {reloaded}"
    );
    assert!(!read.iter().any(|line| names_library_or_bundle(line) || line.contains("/src/App.tsx")), "{read:#?}");
}

#[tokio::test]
async fn a_react_apps_storage_write_and_boot_read_name_their_original_lines_from_the_production_build() {
    the_claims_revision_is_written_and_read_back_in_the_apps_own_source(Mode::Prod).await;
}

#[tokio::test]
async fn a_react_apps_storage_write_and_boot_read_name_their_original_lines_from_the_dev_server() {
    the_claims_revision_is_written_and_read_back_in_the_apps_own_source(Mode::Dev).await;
}

#[tokio::test]
async fn a_react_claim_refused_422_while_the_form_says_submitted_from_the_dev_server() {
    claim_refused_while_the_form_says_submitted(Mode::Dev).await;
}

#[tokio::test]
async fn a_react_claim_refused_422_while_the_form_says_submitted_from_the_production_build() {
    claim_refused_while_the_form_says_submitted(Mode::Prod).await;
}

/// A rooms session (`mode`) in which the user picked Birch and clicked "Book", with the click's answer.
async fn book_birch(svc: &Service, mode: Mode) -> (SessionGuard, Value) {
    let (sid, _) = open(svc, App::Rooms, mode).await;
    let birch = "role=radio[name=\"Birch (8 seats)\"]";
    svc.ok("page.check", json!({ "session_id": sid, "selector": birch })).await;
    let clicked = svc.ok("page.click", json!({ "session_id": sid, "selector": "role=button[name=\"Book\"]" })).await;
    (sid, clicked)
}

/// The rooms bug: booking Birch books Atlas. The click's effects show the booking request and the
/// confirmation its answer rendered; network.pull shows the room's index sent as its id.
async fn booking_birch_books_atlas(mode: Mode) {
    let svc = shared();
    let (sid, clicked) = book_birch(svc, mode).await;
    let effects = &clicked["effects"];
    let post = &effects["requests"][0];
    assert_eq!(
        (post["method"].as_str(), post["url"].as_str(), post["status"].as_u64()),
        (Some("POST"), Some("/api/rooms/bookings"), Some(201)),
        "{effects}"
    );
    assert!(post["initiator"].as_str().is_some_and(|i| !i.is_empty()), "who sent it is named: {post}");
    let changes = effects["changes"].as_array().map(|c| c.iter().filter_map(Value::as_str).collect::<Vec<_>>());
    assert!(
        changes.is_some_and(|c| c.iter().any(|line| line.contains("section") && line.contains("bookings 201"))),
        "the confirmation the answer rendered: {effects}"
    );
    let booked = svc.ok("page.text", json!({ "session_id": sid, "selector": "#booked" })).await;
    assert_eq!(booked["text"], "Booked Atlas at 14:00", "what the user sees after picking Birch");
    let pulled = svc
        .ok("network.pull", json!({ "session_id": sid, "onlyErrors": false, "urlContains": "/api/rooms/bookings" }))
        .await;
    let sent = pulled["requests"][0]["requestBody"].as_str().unwrap_or_default();
    assert_eq!(sent, r#"{"roomId":1,"start":"14:00"}"#, "Birch's index went out as the room's id: {pulled}");
}

#[tokio::test]
async fn a_vue_booking_of_birch_books_atlas_from_the_dev_server() {
    booking_birch_books_atlas(Mode::Dev).await;
}

#[tokio::test]
async fn a_vue_booking_of_birch_books_atlas_from_the_production_build() {
    booking_birch_books_atlas(Mode::Prod).await;
}

/// One click on "Book" says, in the app's own source: the component's handler the click reached
/// through Vue's invoker (`book in <BookingForm> (…BookingForm.vue:13)`), the request's chain back
/// to it through the shared wrapper, the confirmation's change named by the component that rendered
/// it, and no library or bundle location as a cause; page.source shows the handler's line from the
/// location the answer wrote.
async fn the_booking_click_speaks_the_apps_own_source(mode: Mode) {
    let svc = shared();
    let (sid, clicked) = book_birch(svc, mode).await;
    let effects = &clicked["effects"];
    let reached = texts_of(&effects["reached"]);
    let handler = "click on button → book in <BookingForm> (src/components/BookingForm.vue:13)";
    assert!(reached.iter().any(|line| line.starts_with(handler)), "the component's own handler: {reached:#?}");
    assert!(!reached.iter().any(|line| names_library_or_bundle(line)), "{reached:#?}");
    let post = &effects["requests"][0];
    let chain = post["initiator"].as_str().unwrap_or_default();
    let expected =
        ["request (src/api/http.ts:14)", "bookRoom (src/api/rooms.ts:26)", "book (src/components/BookingForm.vue:16)"];
    assert!(chain.starts_with(&expected.join(" ← ")), "the async chain back to the handler: {chain}");
    let changes = texts_of(&effects["changes"]);
    assert!(
        changes.iter().any(|line| line.contains("in <BookingConfirmation>") && line.contains("bookings 201")),
        "the confirmation named by its component: {changes:#?}"
    );
    for said in changes.iter().map(String::as_str).chain([chain]) {
        assert!(!names_library_or_bundle(said), "no library or bundle location as a cause: {said}");
    }
    let spot = handler.rsplit_once('(').map(|(_, spot)| spot.trim_end_matches(')')).unwrap_or_default();
    let shown = source_of(svc, &sid, spot).await;
    assert!(shown.contains("> 13 | async function book() {"), "the handler's original line: {shown}");
}

#[tokio::test]
async fn a_vue_click_names_the_components_handler_and_the_requests_chain_in_original_source_from_the_dev_server() {
    the_booking_click_speaks_the_apps_own_source(Mode::Dev).await;
}

#[tokio::test]
async fn a_vue_click_names_the_components_handler_and_the_requests_chain_in_original_source_from_the_production_build()
{
    the_booking_click_speaks_the_apps_own_source(Mode::Prod).await;
}

/// A click on a v-model radio reaches Vue's `change` listener (the click's default action fires
/// it): the answer names the model update the component compiled from its template, never "no
/// listener" (a fresh agent read that as the pick not being recorded).
async fn a_radio_click_reaches_its_v_model(mode: Mode) {
    let svc = shared();
    let (sid, _) = open(svc, App::Rooms, mode).await;
    let birch = "role=radio[name=\"Birch (8 seats)\"]";
    let clicked = svc.ok("page.click", json!({ "session_id": sid, "selector": birch })).await;
    let effects = &clicked["effects"];
    assert_ne!(effects["reached"], "no listener", "Vue's change listener ran: {effects}");
    let reached = texts_of(&effects["reached"]);
    let model = "change on input → v-model in <RoomPicker> (src/components/RoomPicker.vue:13)";
    assert!(reached.iter().any(|line| line.starts_with(model)), "the model update it reached: {reached:#?}");
    assert!(!reached.iter().any(|line| names_library_or_bundle(line)), "{reached:#?}");
}

#[tokio::test]
async fn a_vue_radio_click_names_the_v_model_update_it_reached_from_the_dev_server() {
    a_radio_click_reaches_its_v_model(Mode::Dev).await;
}

#[tokio::test]
async fn a_vue_radio_click_names_the_v_model_update_it_reached_from_the_production_build() {
    a_radio_click_reaches_its_v_model(Mode::Prod).await;
}

/// The other places that name code read the production bundle through its map too: page.inspect's
/// listeners (the component's handler in place of React's root listeners, with its original
/// lines), the live event stream's locations (events.subscribe), the HAR's initiators and
/// page.timeline's lines; none names a bundle or library location.
#[tokio::test]
async fn page_inspect_live_events_the_har_and_the_timeline_name_the_react_production_builds_original_source() {
    let svc = shared();
    let (sid, _) = open(svc, App::Expenses, Mode::Prod).await;
    let button = "role=button[name=\"Submit claim\"]";
    let inspected = svc.ok("page.inspect", json!({ "session_id": sid, "selector": button })).await;
    let listeners = inspected["listeners"].as_array().cloned().unwrap_or_default();
    let handler = listeners
        .iter()
        .find(|l| l["handler"] == "onClick = submit in <ClaimForm>")
        .unwrap_or_else(|| panic!("the component's handler: {inspected}"));
    assert!(handler["at"].as_str().is_some_and(|at| at.starts_with("src/components/ClaimForm.tsx:16:")), "{handler}");
    assert!(handler["source"].as_str().is_some_and(|s| s.contains("function submit() {")), "{handler}");
    for listener in &listeners {
        assert!(!names_library_or_bundle(&listener["at"].to_string()), "no bundle or library place: {inspected}");
    }
    let mut ws = websocket(svc).await;
    subscribe_on(&mut ws, json!({ "session_id": sid, "kinds": ["pageerror"] })).await;
    let selector = "role=textbox[name=\"Description\"]";
    svc.ok("page.fill", json!({ "session_id": sid, "selector": selector, "value": "Taxi" })).await;
    svc.ok("page.click", json!({ "session_id": sid, "selector": button })).await;
    let event = next_json(&mut ws).await["params"]["result"].clone();
    assert_eq!(event["location"]["original"]["source"], "src/api/http.ts", "the live page error: {event}");
    let har = svc.ok("network.har", json!({ "session_id": sid })).await["har"].clone();
    let entries = har["log"]["entries"].as_array().cloned().unwrap_or_default();
    let post = entries.iter().find(|e| e["request"]["method"] == "POST").unwrap_or_else(|| panic!("{har}"));
    let chain = post["_initiator"]["text"].as_str().unwrap_or_default();
    let expected =
        "request (src/api/http.ts:14) ← submitClaim (src/api/claims.ts:25) ← submit (src/components/ClaimForm.tsx:18)";
    assert!(chain.starts_with(expected), "the HAR's initiator: {post}");
    let timeline = svc.ok("page.timeline", json!({ "session_id": sid })).await;
    let lines = timeline["timeline"].as_str().unwrap_or_default();
    let sent = lines.lines().find(|line| line.contains("POST /api/expenses/claims")).unwrap_or_default();
    assert!(sent.contains(&format!("← {expected}")), "the timeline's line for the POST: {lines}");
    // React's first render (no component, no app frame) is named by its package, not a place in it.
    let render = lines.lines().find(|line| line.contains("main \"New claim\" added to #root")).unwrap_or_default();
    assert!(render.ends_with(" by react-dom"), "{lines}");
    for line in lines.lines().filter(|line| !line.contains(" GET /apps/expenses/")) {
        assert!(
            !line.contains("node_modules") && !line.contains("/assets/index-"),
            "no library or bundle place: {line}"
        );
    }
}

/// `sourceMaps: false` (the benchmark's "maps off"): the same click's answer names the code as
/// the browser served it, in the production bundle, and reads no map.
#[tokio::test]
async fn a_session_with_source_maps_off_names_the_code_as_served() {
    let svc = shared();
    let created = svc.ok("session.create", json!({ "url": App::Expenses.prod(), "sourceMaps": false })).await;
    let sid = SessionGuard::adopt(svc, created["session_id"].as_str().expect("session_id"));
    let selector = "role=textbox[name=\"Description\"]";
    svc.ok("page.fill", json!({ "session_id": sid, "selector": selector, "value": "Taxi" })).await;
    let clicked =
        svc.ok("page.click", json!({ "session_id": sid, "selector": "role=button[name=\"Submit claim\"]" })).await;
    let reached = texts_of(&clicked["effects"]["reached"]);
    assert!(reached.iter().any(|line| line.contains("/assets/index-")), "as served: {reached:#?}");
    assert!(!clicked.to_string().contains("ClaimForm.tsx"), "no map read: {clicked}");
}

/// The line numbers page.source shows (`> 16 |`, `  3 |`), first to last.
fn shown_numbers(lines: &str) -> Vec<u32> {
    lines.lines().filter_map(|line| line.trim_start_matches('>').split('|').next()?.trim().parse().ok()).collect()
}

/// A place in an app's own file, asked for as an answer wrote it (no context), shows 15 lines each
/// side: the handler and what it calls, where 3 lines showed only its first statement.
#[tokio::test]
async fn page_source_of_an_app_file_shows_fifteen_lines_each_side_by_default() {
    let svc = shared();
    let (sid, _) = open(svc, App::Expenses, Mode::Prod).await;
    let shown = source_of(svc, &sid, "src/components/ClaimForm.tsx:16").await;
    assert_eq!(shown_numbers(&shown), (1..=31).collect::<Vec<_>>(), "lines 1 to 31: {shown}");
    assert!(shown.contains("> 16 |   function submit() {") && shown.contains("setStatus('submitted')"), "{shown}");
    let asked = svc
        .ok(
            "page.source",
            json!({ "session_id": sid, "url": "src/components/ClaimForm.tsx", "line": 16, "context": 2 }),
        )
        .await;
    assert_eq!(shown_numbers(asked["lines"].as_str().unwrap_or_default()), (14..=18).collect::<Vec<_>>(), "{asked}");
}

/// A real dev stack's noise — the Vite client and React's refresh runtime, a `data:` image — is
/// kept out of network.pull unless asked for (`includeNoise`), and then a `data:` URL is shown cut;
/// the app's own requests (StrictMode's doubled effects: each load-time request twice) stay. The
/// page logs what makes it a dev stack: the HMR client's lines, React's DevTools banner.
#[tokio::test]
async fn the_react_dev_server_pages_own_client_and_data_urls_are_noise_shown_only_when_asked() {
    let svc = shared();
    let (sid, created) = open(svc, App::Expenses, Mode::Dev).await;
    let noisy = |url: &str| url.starts_with("data:") || url.contains("/@vite/") || url.contains("/@react-refresh");
    let said = created.to_string();
    assert!(!said.contains("data:image") && !said.contains("/@vite/client"), "no noise in the load's answer: {said}");
    // What the page logged and requested, gathered until all of it is there: on a loaded machine the
    // HMR socket, the effects and the favicon can come well after session.create answered.
    let (mut console, mut urls, mut noise) = (Vec::<String>::new(), Vec::<String>::new(), Vec::<String>::new());
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let logs = svc.ok("logs.pull", json!({ "session_id": sid })).await;
        console.extend(texts(&logs["console"], "text"));
        let pulled = svc.ok("network.pull", json!({ "session_id": sid, "onlyErrors": false })).await;
        urls.extend(texts(&pulled["requests"], "url"));
        let asked = json!({ "session_id": sid, "onlyErrors": false, "includeNoise": true });
        noise.extend(texts(&svc.ok("network.pull", asked).await["requests"], "url"));
        let all_there = console.iter().any(|line| line == "[vite] connected.")
            && urls.iter().filter(|url| url.ends_with("/api/expenses/rates")).count() >= 2
            && urls.iter().any(|url| url.ends_with("/favicon.svg"));
        if all_there || Instant::now() > deadline {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(console.iter().any(|line| line == "[vite] connected."), "the HMR client connected its socket: {console:?}");
    assert!(console.iter().any(|line| line.contains("Download the React DevTools")), "{console:?}");
    let rates = urls.iter().filter(|url| url.ends_with("/api/expenses/rates")).count();
    assert_eq!(rates, 2, "StrictMode runs the rate badge's effect twice: {urls:?}");
    assert!(urls.iter().any(|url| url.ends_with("/favicon.svg")), "{urls:?}");
    assert!(urls.iter().any(|url| url.contains("/node_modules/.vite/deps/react-dom")), "{urls:?}");
    assert!(!urls.iter().any(|url| noisy(url)), "no noise unless asked: {urls:?}");
    assert!(noise.iter().any(|url| url.contains("/@vite/client")), "asked for: {noise:?}");
    let logo = noise.iter().find(|url| url.starts_with("data:image/svg+xml,")).expect("the inlined logo");
    assert!(logo.chars().count() < 120 && logo.ends_with(" bytes)"), "a data: URL shown cut: {logo}");
}

/// A script whose source map is outside the session's allow-list (on 127.0.0.2, where a server
/// counts connections): its error is given as served, the answer says the map was not fetched and
/// why, and nothing reached the server.
#[tokio::test]
async fn a_source_map_outside_the_allow_list_is_not_fetched_and_the_answer_says_so() {
    let svc = shared();
    let listener = tokio::net::TcpListener::bind("127.0.0.2:0").await.expect("127.0.0.2 is a loopback address");
    let map = format!("http://127.0.0.2:{}/foreign.js.map", listener.local_addr().expect("bound").port());
    let connections = Arc::new(AtomicUsize::new(0));
    let counted = connections.clone();
    let server = tokio::spawn(async move {
        while listener.accept().await.is_ok() {
            counted.fetch_add(1, Ordering::SeqCst);
        }
    });
    let url = format!("{}/source-maps/foreign?map={map}", fixtures());
    let created = svc.ok("session.create", json!({ "url": url })).await;
    let sid = SessionGuard::adopt(svc, created["session_id"].as_str().expect("session_id"));
    let error = page_error_eventually(svc, &sid, "prices unavailable").await;
    assert!(served_script(&error["location"]).contains("/source-maps/foreign.js"), "given as served: {error}");
    assert!(error["location"]["original"].is_null(), "{error}");
    // Said once in the answer, where the map's script is first named (the stack, then its location).
    let said = format!("source map {map} not fetched: its URL is outside the allow-list");
    assert_eq!(error.to_string().matches(&said).count(), 1, "the answer says why, once: {error}");
    assert_eq!(connections.load(Ordering::SeqCst), 0, "no request left for the map");
    server.abort();
}

/// The strings of a list (`effects.reached`, `effects.changes`).
fn texts_of(list: &Value) -> Vec<String> {
    list.as_array().into_iter().flatten().filter_map(|line| line.as_str().map(str::to_owned)).collect()
}

/// The `field` of each entry of a pulled list.
fn texts(list: &Value, field: &str) -> Vec<String> {
    list.as_array().into_iter().flatten().filter_map(|entry| entry[field].as_str().map(str::to_owned)).collect()
}
