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

/// The HTTP-auth notes logs.pull files (kind `dialog`).
async fn auth_notes(sid: &str) -> Vec<String> {
    let logs = shared().ok("logs.pull", json!({ "session_id": sid })).await;
    logs["console"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == "dialog")
        .map(|e| e["text"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn http_credentials_sign_in_to_a_basic_auth_site_and_wrong_ones_get_the_401() {
    let svc = shared();
    let admin = page("/admin/");
    let sid = svc.session_with(json!({ "httpCredentials": { "username": "admin", "password": "s3cret" } })).await;
    let landed = svc.ok("page.goto", json!({ "session_id": sid, "url": admin, "waitUntil": "load" })).await;
    assert_eq!((landed["status"].as_u64(), landed["title"].as_str()), (Some(200), Some("Admin · Acme")), "{landed}");
    // The page's own API call behind the same realm is signed in too.
    svc.ok("assert.text", json!({ "session_id": sid, "selector": "#audit", "text": "3 audit events" })).await;
    let notes = auth_notes(&sid).await;
    assert!(
        notes
            .iter()
            .any(|n| n.contains(r#"realm "Acme admin""#) && n.ends_with("answered with httpCredentials (admin)")),
        "{notes:?}"
    );

    let wrong = svc.session_with(json!({ "httpCredentials": { "username": "admin", "password": "guess" } })).await;
    let landed = svc.ok("page.goto", json!({ "session_id": wrong, "url": admin, "waitUntil": "load" })).await;
    assert_eq!(landed["title"], "401 Unauthorized", "the page gets the server's 401: {landed}");
    let notes = auth_notes(&wrong).await;
    assert!(notes.iter().any(|n| n.ends_with("cancelled: the server refused the httpCredentials")), "{notes:?}");

    // Such a session refuses routes, saying why.
    let route = json!({ "session_id": sid, "urlPattern": "*/api/*", "abort": true });
    let refused = svc.err("network.route", route).await;
    assert_eq!(refused.kind(), "invalid_params");
    assert!(refused.message.contains("httpCredentials"), "{}", refused.message);

    // Without credentials headless Chromium gives up on the challenge; the error says what to do.
    let without = svc.session().await;
    let failed = svc.err("page.goto", json!({ "session_id": without, "url": admin, "waitUntil": "load" })).await;
    assert_eq!(failed.kind(), "navigation_failed");
    assert!(failed.message.contains("create the session with httpCredentials"), "{}", failed.message);

    let bad = svc.err("session.create", json!({ "httpCredentials": { "username": "", "password": "b" } })).await;
    assert_eq!((bad.kind(), bad.data["param"].as_str()), ("invalid_params", Some("httpCredentials.username")));
}
