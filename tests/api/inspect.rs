//! screenshot, find.byRole, axe.run.

use base64::Engine;
use serde_json::json;

use crate::helpers::{page, shared};

/// Width and height from a PNG's IHDR chunk.
fn png_size(b64: &str) -> (u32, u32) {
    let bytes = base64::engine::general_purpose::STANDARD.decode(b64).unwrap();
    assert_eq!(&bytes[1..4], b"PNG");
    let be = |i: usize| u32::from_be_bytes(bytes[i..i + 4].try_into().unwrap());
    (be(16), be(20))
}

#[tokio::test]
async fn full_page_screenshot_is_taller_than_the_viewport_one() {
    let svc = shared();
    let sid = svc.session().await;
    svc.ok("page.goto", json!({ "session_id": sid, "url": page("/tall"), "waitUntil": "load" })).await;
    let viewport = svc.ok("screenshot", json!({ "session_id": sid })).await;
    assert_eq!(viewport["mime"], "image/png");
    assert_eq!(png_size(viewport["base64"].as_str().unwrap()), (1280, 800));
    let full = svc.ok("screenshot", json!({ "session_id": sid, "fullPage": true })).await;
    let (w, h) = png_size(full["base64"].as_str().unwrap());
    assert_eq!(w, 1280);
    assert!(h > 4000, "full page height {h}");
    // The session's viewport is unchanged afterwards.
    let again = svc.ok("screenshot", json!({ "session_id": sid })).await;
    assert_eq!(png_size(again["base64"].as_str().unwrap()), (1280, 800));
}

#[tokio::test]
async fn element_screenshot_is_the_elements_size() {
    let svc = shared();
    let sid = svc.session().await;
    svc.ok("page.goto", json!({ "session_id": sid, "url": page("/tall"), "waitUntil": "load" })).await;
    let shot = svc.ok("screenshot", json!({ "session_id": sid, "selector": "#top" })).await;
    assert_eq!(png_size(shot["base64"].as_str().unwrap()), (300, 200));
}

#[tokio::test]
async fn jpeg_screenshots_honour_quality() {
    let svc = shared();
    let sid = svc.session().await;
    svc.ok("page.goto", json!({ "session_id": sid, "url": page("/tall"), "waitUntil": "load" })).await;
    let shot = svc.ok("screenshot", json!({ "session_id": sid, "mime": "image/jpeg", "quality": 50 })).await;
    let bytes = base64::engine::general_purpose::STANDARD.decode(shot["base64"].as_str().unwrap()).unwrap();
    assert_eq!(&bytes[..2], &[0xFF, 0xD8], "a JPEG");
    let err = svc.err("screenshot", json!({ "session_id": sid, "quality": 50 })).await;
    assert_eq!(err.data["param"], "quality");
    let err = svc.err("screenshot", json!({ "session_id": sid, "mime": "image/gif" })).await;
    assert_eq!(err.data["param"], "mime");
}

#[tokio::test]
async fn find_by_role_output_clicks_the_right_element() {
    let svc = shared();
    let sid = svc.session().await;
    svc.ok("page.goto", json!({ "session_id": sid, "url": page("/form"), "waitUntil": "load" })).await;
    let found =
        svc.ok("find.byRole", json!({ "session_id": sid, "role": "button", "name": "Save", "exact": true })).await;
    assert_eq!(found["count"], 1);
    svc.ok("page.click", json!({ "session_id": sid, "selector": found["selector"] })).await;
    let result = svc.ok("page.text", json!({ "session_id": sid, "selector": "#result" })).await;
    assert_eq!(result["text"], "Saved Old name x1");

    // Two "Delete" buttons: the selector still names exactly the first one.
    let found = svc.ok("find.byRole", json!({ "session_id": sid, "role": "button", "name": "delete" })).await;
    assert_eq!(found["count"], 2);
    let marked = svc
        .ok("page.evaluate", json!({ "session_id": sid, "expression": "(s) => document.querySelectorAll(s).length === 1 && document.querySelector(s) === document.querySelectorAll('.delete')[0]", "arg": found["selector"] }))
        .await;
    assert_eq!(marked["result"], true, "{found}");
    let err = svc.err("find.byRole", json!({ "session_id": sid, "role": "button", "name": "Nope" })).await;
    assert_eq!(err.kind(), "element_not_found");
}

#[tokio::test]
async fn axe_run_reports_image_alt() {
    let svc = shared();
    let sid = svc.session().await;
    svc.ok("page.goto", json!({ "session_id": sid, "url": page("/a11y"), "waitUntil": "load" })).await;
    // A page that breaks builtins cannot break axe: it runs in the isolated world.
    svc.ok(
        "page.evaluate",
        json!({ "session_id": sid, "expression": "Array.prototype.map = null; window.axe = 'fake'; 1" }),
    )
    .await;
    let result = svc.ok("axe.run", json!({ "session_id": sid })).await;
    let violations = result["violations"].as_array().unwrap();
    let image_alt = violations.iter().find(|v| v["id"] == "image-alt").expect("image-alt is reported");
    assert_eq!(image_alt["impact"], "critical");
    assert!(image_alt["helpUrl"].as_str().unwrap().contains("image-alt"));
    assert!(image_alt["nodes"][0]["html"].as_str().unwrap().starts_with("<img"));
    assert_eq!(image_alt["nodes"][0]["target"], json!(["img"]));
    let scoped = svc.ok("axe.run", json!({ "session_id": sid, "include": "#ok-button" })).await;
    assert!(scoped["violations"].as_array().unwrap().iter().all(|v| v["id"] != "image-alt"));
}
