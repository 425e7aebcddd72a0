//! page.emulateMedia and page.setViewport change what the page's CSS and layout see.

use serde_json::json;

use crate::helpers::{page, shared};

#[tokio::test]
async fn dark_mode_changes_the_computed_background() {
    let svc = shared();
    let sid = svc.session().await;
    svc.ok("page.goto", json!({ "session_id": sid, "url": page("/team/"), "waitUntil": "load" })).await;
    let background = json!({ "session_id": sid, "expression": "getComputedStyle(document.body).backgroundColor" });
    assert_eq!(svc.ok("page.evaluate", background.clone()).await["result"], "rgb(255, 255, 255)");
    let dark = svc.ok("page.emulateMedia", json!({ "session_id": sid, "colorScheme": "dark" })).await;
    assert_eq!(dark["prefersDark"], true, "{dark}");
    assert_eq!(svc.ok("page.evaluate", background.clone()).await["result"], "rgb(17, 17, 17)");
    let print = svc.ok("page.emulateMedia", json!({ "session_id": sid, "media": "print" })).await;
    assert_eq!(
        (print["prefersDark"].clone(), print["print"].clone()),
        (json!(false), json!(true)),
        "each call replaces the last"
    );
    let err = svc.err("page.emulateMedia", json!({ "session_id": sid, "colorScheme": "sepia" })).await;
    assert_eq!(err.data["param"], "colorScheme");
}

#[tokio::test]
async fn a_phone_viewport_changes_the_layout_size_and_the_screenshot() {
    let svc = shared();
    let sid = svc.session().await;
    svc.ok("page.goto", json!({ "session_id": sid, "url": page("/team/"), "waitUntil": "load" })).await;
    let set = svc
        .ok(
            "page.setViewport",
            json!({ "session_id": sid, "width": 390, "height": 844, "deviceScaleFactor": 2, "isMobile": true }),
        )
        .await;
    assert_eq!(set["viewport"]["width"], 390);
    let size = svc
        .ok("page.evaluate", json!({ "session_id": sid, "expression": "[innerWidth, innerHeight, devicePixelRatio]" }))
        .await;
    assert_eq!(size["result"], json!([390, 844, 2]));
    let shot = svc.ok("screenshot", json!({ "session_id": sid })).await;
    let png = base64_decode(shot["base64"].as_str().unwrap());
    let (w, h) =
        (u32::from_be_bytes(png[16..20].try_into().unwrap()), u32::from_be_bytes(png[20..24].try_into().unwrap()));
    assert_eq!((w, h), (780, 1688), "device pixels");
    let err = svc
        .err("page.setViewport", json!({ "session_id": sid, "width": 390, "height": 844, "deviceScaleFactor": 9 }))
        .await;
    assert_eq!(err.data["param"], "deviceScaleFactor");
    let err = svc.err("page.setViewport", json!({ "session_id": sid, "width": 0, "height": 844 })).await;
    assert_eq!(err.kind(), "invalid_params");
}

fn base64_decode(text: &str) -> Vec<u8> {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.decode(text).unwrap()
}

#[tokio::test]
async fn a_session_created_with_a_locale_zone_position_and_headers_shows_them() {
    let svc = shared();
    let sid = svc
        .session_with(json!({
            "locale": "de-DE", "timezoneId": "Asia/Tokyo", "colorScheme": "dark",
            "geolocation": { "latitude": 52.52, "longitude": 13.405 },
            "extraHTTPHeaders": { "x-tenant": "acme-eu" },
        }))
        .await;
    svc.ok("page.goto", json!({ "session_id": sid, "url": page("/team/"), "waitUntil": "load" })).await;
    let seen = svc
        .ok(
            "page.evaluate",
            json!({ "session_id": sid, "expression": "(async () => ({
            number: new Intl.NumberFormat().format(1234.5),
            zone: Intl.DateTimeFormat().resolvedOptions().timeZone,
            hour: new Date(0).getHours(),
            dark: matchMedia('(prefers-color-scheme: dark)').matches,
            latitude: (await new Promise((ok, no) => navigator.geolocation.getCurrentPosition(ok, no))).coords.latitude,
            tenant: (await (await fetch('/api/headers')).json())['x-tenant'],
        }))()" }),
        )
        .await;
    assert_eq!(
        seen["result"],
        json!({ "number": "1.234,5", "zone": "Asia/Tokyo", "hour": 9, "dark": true, "latitude": 52.52, "tenant": "acme-eu" })
    );
    let err = svc.err("session.create", json!({ "timezoneId": "Mars/Olympus" })).await;
    assert_eq!(err.data["param"], "timezoneId", "{err:?}");
    let err = svc.err("session.create", json!({ "geolocation": { "latitude": 120, "longitude": 0 } })).await;
    assert_eq!(err.data["param"], "geolocation");
}

#[tokio::test]
async fn with_javascript_disabled_the_page_scripts_do_not_run_but_the_service_still_reads() {
    let svc = shared();
    let sid = svc.session_with(json!({ "javaScriptEnabled": false })).await;
    svc.ok("page.goto", json!({ "session_id": sid, "url": page("/flags/"), "waitUntil": "load" })).await;
    let beta = svc.ok("page.text", json!({ "session_id": sid, "selector": "#beta" })).await;
    assert_eq!(beta["text"], "", "the page's script never filled it");
    let h1 = svc.ok("page.text", json!({ "session_id": sid, "selector": "h1" })).await;
    assert_eq!(h1["text"], "Release notes");
}
