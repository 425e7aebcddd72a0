//! page.hover / dblclick / type / select / check / uncheck / focus / drag / scroll / back /
//! forward on the team settings fixture: each proves what the page did, not only `ok`.

use serde_json::json;

use crate::helpers::{SessionGuard, page, shared};

async fn on_team() -> SessionGuard {
    let svc = shared();
    let sid = svc.session().await;
    svc.ok("page.goto", json!({ "session_id": sid, "url": page("/team/"), "waitUntil": "load" })).await;
    sid
}

async fn text(sid: &str, selector: &str) -> String {
    let t = shared().ok("page.text", json!({ "session_id": sid, "selector": selector })).await;
    t["text"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn hover_opens_the_account_menu() {
    let svc = shared();
    let sid = on_team().await;
    svc.ok("assert.hidden", json!({ "session_id": sid, "selector": "role=menu" })).await;
    let hovered = svc.ok("page.hover", json!({ "session_id": sid, "selector": "#account" })).await;
    assert_eq!(hovered["ok"], true, "{hovered}");
    svc.ok("assert.visible", json!({ "session_id": sid, "selector": "role=menu" })).await;
    svc.ok("page.click", json!({ "session_id": sid, "selector": "text=Profile" })).await;
    svc.ok("assert.url", json!({ "session_id": sid, "pattern": "/form" })).await;
}

#[tokio::test]
async fn type_sends_keys_the_search_listens_to_where_fill_does_not() {
    let svc = shared();
    let sid = on_team().await;
    svc.ok("page.fill", json!({ "session_id": sid, "selector": "#search", "value": "gr" })).await;
    assert_eq!(text(&sid, "#search-count").await, "3 of 3 members", "fill sends no keyup");
    svc.ok("page.fill", json!({ "session_id": sid, "selector": "#search", "value": "" })).await;
    svc.ok("page.type", json!({ "session_id": sid, "selector": "#search", "text": "gr", "delayMs": 5 })).await;
    assert_eq!(text(&sid, "#search-count").await, "1 of 3 members");
    // Without a target the keys go to the focused element, after what it holds.
    svc.ok("page.type", json!({ "session_id": sid, "text": "x" })).await;
    let value = svc.ok("page.evaluate", json!({ "session_id": sid, "expression": "search.value" })).await;
    assert_eq!(value["result"], "grx");
    let err = svc.err("page.type", json!({ "session_id": sid, "text": "a", "delayMs": 5000 })).await;
    assert_eq!((err.kind(), err.data["param"].as_str()), ("invalid_params", Some("delayMs")));
}

#[tokio::test]
async fn dblclick_on_a_name_starts_renaming_it() {
    let svc = shared();
    let sid = on_team().await;
    svc.ok("page.dblclick", json!({ "session_id": sid, "selector": "text=Grace Hopper" })).await;
    assert_eq!(text(&sid, "#status").await, "Renaming Grace Hopper");
}

#[tokio::test]
async fn select_by_label_sets_the_value_and_the_page_reacts() {
    let svc = shared();
    let sid = on_team().await;
    svc.ok("page.select", json!({ "session_id": sid, "selector": "#role", "values": "Editor" })).await;
    svc.ok("assert.value", json!({ "session_id": sid, "selector": "#role", "value": "editor" })).await;
    assert_eq!(text(&sid, "#role-note").await, "New members join as Editor");
    let err = svc.err("page.select", json!({ "session_id": sid, "selector": "#role", "values": "Owner" })).await;
    assert!(err.message.contains("Owner"), "names the missing option: {err:?}");
}

#[tokio::test]
async fn check_and_uncheck_switch_notifications_on_and_off() {
    let svc = shared();
    let sid = on_team().await;
    svc.ok("page.check", json!({ "session_id": sid, "selector": "#notify" })).await;
    svc.ok("assert.checked", json!({ "session_id": sid, "selector": "#notify" })).await;
    assert_eq!(text(&sid, "#notify-note").await, "Notifications on");
    // Checking a checked box changes nothing.
    svc.ok("page.check", json!({ "session_id": sid, "selector": "#notify" })).await;
    assert_eq!(text(&sid, "#notify-note").await, "Notifications on");
    svc.ok("page.uncheck", json!({ "session_id": sid, "selector": "#notify" })).await;
    svc.ok("assert.checked", json!({ "session_id": sid, "selector": "#notify", "checked": false })).await;
    assert_eq!(text(&sid, "#notify-note").await, "Notifications off");
}

#[tokio::test]
async fn focus_shows_the_hint_the_page_keeps_for_a_focused_field() {
    let svc = shared();
    let sid = on_team().await;
    svc.ok("assert.hidden", json!({ "session_id": sid, "selector": "#email-hint" })).await;
    svc.ok("page.focus", json!({ "session_id": sid, "selector": "#email" })).await;
    svc.ok("assert.visible", json!({ "session_id": sid, "selector": "#email-hint" })).await;
    let active = svc.ok("page.evaluate", json!({ "session_id": sid, "expression": "document.activeElement.id" })).await;
    assert_eq!(active["result"], "email");
}

#[tokio::test]
async fn dragging_a_member_onto_owners_makes_them_an_owner() {
    let svc = shared();
    let sid = on_team().await;
    let dragged =
        svc.ok("page.drag", json!({ "session_id": sid, "selector": "text=Alan Turing", "to": "#owners" })).await;
    assert_eq!(dragged["ok"], true);
    assert_eq!(text(&sid, "#owners").await, "Alan Turing");
    assert_eq!(text(&sid, "#status").await, "Alan Turing is now an owner");
}

#[tokio::test]
async fn a_native_html_drag_and_drop_carries_its_data_to_the_drop_zone() {
    let svc = shared();
    let sid = on_team().await;
    svc.ok("page.drag", json!({ "session_id": sid, "selector": "#rota li:nth-child(2)", "to": "#oncall" })).await;
    assert_eq!(text(&sid, "#oncall").await, "Margaret Hamilton is on call");
    // The page still takes clicks afterwards: the drag ended.
    svc.ok("page.check", json!({ "session_id": sid, "selector": "#notify" })).await;
    assert_eq!(text(&sid, "#notify-note").await, "Notifications on");
}

#[tokio::test]
async fn the_wheel_scrolls_the_page_and_an_element_can_be_scrolled_into_view() {
    let svc = shared();
    let sid = on_team().await;
    let wheel = svc.ok("page.scroll", json!({ "session_id": sid, "deltaY": 600 })).await;
    let y = wheel["scroll"]["y"].as_f64().unwrap();
    assert!(y > 100.0, "the wheel moved the page: {wheel}");
    assert_eq!(text(&sid, "#danger-note").await, "Not seen yet");
    let into_view = svc.ok("page.scroll", json!({ "session_id": sid, "selector": "#danger" })).await;
    assert!(into_view["scroll"]["y"].as_f64().unwrap() > y, "{into_view}");
    assert_eq!(text(&sid, "#danger-note").await, "Seen", "the page's scroll listener ran");
    let err = svc.err("page.scroll", json!({ "session_id": sid })).await;
    assert_eq!(err.kind(), "invalid_params");
}

#[tokio::test]
async fn back_and_forward_walk_the_sessions_history() {
    let svc = shared();
    let sid = svc.session().await;
    let err = svc.err("page.back", json!({ "session_id": sid })).await;
    assert_eq!(err.kind(), "invalid_params", "a new session has nowhere to go back to: {err:?}");
    svc.ok("page.goto", json!({ "session_id": sid, "url": page("/team/"), "waitUntil": "load" })).await;
    svc.ok("page.goto", json!({ "session_id": sid, "url": page("/form"), "waitUntil": "load" })).await;
    let back = svc.ok("page.back", json!({ "session_id": sid })).await;
    assert!(back["url"].as_str().unwrap().ends_with("/team/"), "{back}");
    assert_eq!(back["title"], "Team settings · Acme");
    assert_eq!(text(&sid, "h1").await, "Team", "the page is there to read");
    let forward = svc.ok("page.forward", json!({ "session_id": sid })).await;
    assert!(forward["url"].as_str().unwrap().ends_with("/form/"), "{forward}");
    let err = svc.err("page.forward", json!({ "session_id": sid })).await;
    assert!(err.message.contains("last page"), "{err:?}");
}

#[tokio::test]
async fn an_uploaded_file_reaches_the_server_through_the_page() {
    use base64::Engine;
    let svc = shared();
    let sid = svc.session().await;
    svc.ok("page.goto", json!({ "session_id": sid, "url": page("/upload/"), "waitUntil": "load" })).await;
    let csv = "name,email\nAda,ada@example.com\n";
    let files = json!([{ "name": "contacts.csv", "base64": base64::engine::general_purpose::STANDARD.encode(csv) }]);
    let uploaded = svc.ok("page.upload", json!({ "session_id": sid, "selector": "#csv", "files": files })).await;
    let request = &uploaded["effects"]["requests"][0];
    assert_eq!((request["method"].as_str(), request["status"].as_u64()), (Some("POST"), Some(200)), "{uploaded}");
    svc.ok(
        "assert.text",
        json!({ "session_id": sid, "selector": "#result",
        "text": format!("Imported contacts.csv ({} bytes): name,email", csv.len()) }),
    )
    .await;
    let err = svc.err("page.upload", json!({ "session_id": sid, "selector": "#pick", "files": files })).await;
    assert_eq!(err.kind(), "not_actionable", "a button is not a file input: {err:?}");
    let err = svc
        .err(
            "page.upload",
            json!({ "session_id": sid, "selector": "#csv", "files": [{ "name": "../x", "base64": "" }] }),
        )
        .await;
    assert_eq!(err.data["param"], "files[0].name");
}

#[tokio::test]
async fn upload_waits_for_a_file_input_the_page_renders_later() {
    use base64::Engine;
    let svc = shared();
    let sid = svc.session().await;
    svc.ok("page.goto", json!({ "session_id": sid, "url": page("/upload/"), "waitUntil": "load" })).await;
    let files =
        json!([{ "name": "contract.pdf", "base64": base64::engine::general_purpose::STANDARD.encode("%PDF-1.4") }]);
    // #contract appears 700 ms after load, when the page's plan check is done.
    svc.ok("page.upload", json!({ "session_id": sid, "selector": "#contract", "files": files })).await;
    let note = json!({ "session_id": sid, "selector": "#contract-note", "text": "Contract contract.pdf attached" });
    svc.ok("assert.text", note).await;
    let err = svc
        .err("page.upload", json!({ "session_id": sid, "selector": "#never", "files": files, "timeout": 400 }))
        .await;
    assert_eq!(err.kind(), "element_not_found", "{err:?}");
    assert!(err.message.contains("waited"), "{err:?}");
}

#[tokio::test]
async fn an_armed_file_chooser_gets_the_files_a_styled_button_asks_for() {
    use base64::Engine;
    let svc = shared();
    let sid = svc.session().await;
    svc.ok("page.goto", json!({ "session_id": sid, "url": page("/upload/"), "waitUntil": "load" })).await;
    let files = json!([{ "name": "leads.csv", "base64": base64::engine::general_purpose::STANDARD.encode("a,b\n") }]);
    let armed = svc.ok("fileChooser.arm", json!({ "session_id": sid, "files": files })).await;
    assert_eq!(armed["files"], 1);
    let clicked = svc.ok("page.click", json!({ "session_id": sid, "selector": "#pick" })).await;
    assert_eq!(clicked["effects"]["dialogs"], json!(["file chooser answered with leads.csv (armed)"]), "{clicked}");
    svc.ok("assert.text", json!({ "session_id": sid, "selector": "#result", "text": "Imported leads.csv (4 bytes)" }))
        .await;
    // Used once: the next chooser gets nothing, and says so.
    let again = svc.ok("page.click", json!({ "session_id": sid, "selector": "#pick" })).await;
    assert_eq!(again["effects"]["dialogs"][0], "file chooser opened with no fileChooser.arm: nothing chosen");
}

#[tokio::test]
async fn a_download_is_saved_listed_with_its_size_and_readable() {
    use base64::Engine;
    let svc = shared();
    let sid = on_team().await;
    let clicked = svc.ok("page.click", json!({ "session_id": sid, "selector": "#export" })).await;
    let csv = "name,role\nAda Lovelace,admin\nGrace Hopper,editor\n";
    let listed = crate::helpers::eventually(std::time::Duration::from_secs(20), "the download to complete", || async {
        let list = svc.ok("downloads.list", json!({ "session_id": sid })).await;
        // The MIME type comes from the response's own event, which may trail the download's end.
        (list["downloads"][0]["state"] == "completed" && list["downloads"][0]["mime"] != "").then_some(list)
    })
    .await;
    let download = &listed["downloads"][0];
    assert_eq!(
        (download["name"].as_str(), download["bytes"].as_u64()),
        (Some("team.csv"), Some(csv.len() as u64)),
        "{listed}"
    );
    assert!(download["url"].as_str().unwrap().ends_with("/export.csv"));
    assert_eq!(download["mime"], "text/csv", "{listed}");
    assert!(
        clicked["effects"]["downloads"][0].as_str().is_some_and(|d| d.starts_with("download team.csv")),
        "the click says it began a download: {clicked}"
    );
    let read = svc.ok("downloads.read", json!({ "session_id": sid, "name": "team.csv" })).await;
    let bytes = base64::engine::general_purpose::STANDARD.decode(read["base64"].as_str().unwrap()).unwrap();
    assert_eq!(String::from_utf8(bytes).unwrap(), csv);
    let err = svc.err("downloads.read", json!({ "session_id": sid, "name": "nope.csv" })).await;
    assert_eq!(err.data["param"], "name");
    assert_eq!(
        svc.ok("page.text", json!({ "session_id": sid, "selector": "h1" })).await["text"],
        "Team",
        "the page stayed"
    );
}

#[tokio::test]
async fn a_download_larger_than_the_cap_is_stopped_within_a_mebibyte_of_it_and_says_why() {
    const CAP: u64 = 5 * 1024 * 1024;
    let svc = crate::helpers::Instance::start(&[("DOWNLOAD_MAX_BYTES", "5242880")]);
    let sid = svc.session().await;
    svc.ok("page.goto", json!({ "session_id": sid, "url": page("/team/"), "waitUntil": "load" })).await;
    // 300 MiB sent as fast as it is taken: Chromium's own progress reports (twice a second) let
    // such a download run hundreds of megabytes past a cap.
    let start = "const a = document.createElement('a'); a.href = '/export/backup.bin?mb=300'; \
                 document.body.append(a); a.click(); 1";
    svc.ok("page.evaluate", json!({ "session_id": sid, "expression": start })).await;
    let listed = crate::helpers::eventually(std::time::Duration::from_secs(30), "the download to end", || async {
        let list = svc.ok("downloads.list", json!({ "session_id": sid })).await;
        (list["downloads"][0]["state"] == "canceled").then_some(list)
    })
    .await;
    let download = &listed["downloads"][0];
    assert_eq!(download["name"], "backup.bin");
    let bytes = download["bytes"].as_u64().unwrap();
    assert!(bytes > CAP && bytes <= CAP + 1024 * 1024, "stopped within 1 MiB past the cap: {listed}");
    let logs = svc.ok("logs.pull", json!({ "session_id": sid })).await;
    let said = logs["console"].as_array().unwrap().iter().filter_map(|e| e["text"].as_str()).any(|t| {
        t.starts_with("download backup.bin cancelled at")
            && t.ends_with("larger than DOWNLOAD_MAX_BYTES (5242880 bytes)")
    });
    assert!(said, "{logs}");
    let err = svc.err("downloads.read", json!({ "session_id": sid, "name": "backup.bin" })).await;
    assert_eq!(err.kind(), "download_canceled", "a cancelled download has its own kind: {err:?}");
    assert!(err.message.contains("DOWNLOAD_MAX_BYTES"), "{err:?}");
    assert!(!err.data["remediation"].as_str().unwrap().to_lowercase().contains("retry"), "{err:?}");
}
