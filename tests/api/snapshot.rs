//! page.snapshot and refs: the accessibility tree with refs, acting on refs (iframes, shadow
//! roots), stale refs, and snapshots returned by actions.

use serde_json::{Value, json};

use crate::helpers::{Service, SessionGuard, page, shared};

/// The ref on the snapshot line that contains `needle`.
fn ref_of(snapshot: &str, needle: &str) -> String {
    let line = snapshot
        .lines()
        .find(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no line with {needle:?} in\n{snapshot}"));
    let start = line.find("[ref=").unwrap_or_else(|| panic!("no ref on {line:?}")) + 5;
    line[start..].split(']').next().unwrap().to_owned()
}

async fn snapshot(svc: &Service, sid: &str, extra: Value) -> Value {
    let mut params = json!({ "session_id": sid });
    params.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
    svc.ok("page.snapshot", params).await
}

async fn fresh(svc: &Service) -> SessionGuard {
    let sid = svc.session().await;
    svc.ok("page.goto", json!({ "session_id": sid, "url": page("/snapshot/") })).await;
    sid
}

#[tokio::test]
async fn snapshot_shows_roles_states_values_and_refs_across_frames_and_shadow_roots() {
    let svc = shared();
    let sid = fresh(svc).await;
    let snap = snapshot(svc, &sid, json!({})).await;
    let text = snap["snapshot"].as_str().unwrap();
    for expected in [
        "  - heading \"Projects\" [level=1]\n",
        "  - textbox \"Name\" [ref=",
        "]: current value\n",
        "  - checkbox \"Remember me\" [checked] [ref=",
        "    - listitem: Item 1\n",
        "    - … 35 more listitem\n",
        "  - generic [ref=",
        "  - button \"Shadow button\" [ref=",
        "  - iframe \"Same origin\":\n    - button \"same button\" [ref=",
        "  - iframe \"Cross origin\":\n    - button \"cross button\" [ref=",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in\n{text}");
    }
    assert_eq!(snap["refs"], 13, "{text}");
    assert_eq!(snap["truncated"], false);
}

#[tokio::test]
async fn clicking_and_filling_by_ref_works_in_iframes_and_shadow_roots() {
    let svc = shared();
    let sid = fresh(svc).await;
    let text = snapshot(svc, &sid, json!({})).await["snapshot"].as_str().unwrap().to_owned();
    for who in ["same", "cross"] {
        let button = ref_of(&text, &format!("button \"{who} button\""));
        svc.ok("page.click", json!({ "session_id": sid, "ref": button })).await;
        let input = ref_of(&text, &format!("textbox \"{who} input\""));
        svc.ok(
            "page.fill",
            json!({ "session_id": sid, "selector": format!("ref={input}"), "value": format!("{who} typed") }),
        )
        .await;
    }
    let shadow = ref_of(&text, "button \"Shadow button\"");
    svc.ok("page.click", json!({ "session_id": sid, "ref": shadow })).await;
    let shadow_input = ref_of(&text, "textbox \"Shadow input\"");
    svc.ok("page.fill", json!({ "session_id": sid, "ref": shadow_input, "value": "in the shadow" })).await;

    let after = snapshot(svc, &sid, json!({})).await["snapshot"].as_str().unwrap().to_owned();
    for expected in [
        "button \"same clicked\"",
        "button \"cross clicked\"",
        "]: same typed",
        "]: cross typed",
        "button \"Shadow clicked\"",
        "]: in the shadow",
    ] {
        assert!(after.contains(expected), "missing {expected:?} in\n{after}");
    }
}

#[tokio::test]
async fn a_re_rendered_element_s_ref_is_stale_and_survivors_keep_theirs() {
    let svc = shared();
    let sid = fresh(svc).await;
    let before = snapshot(svc, &sid, json!({})).await["snapshot"].as_str().unwrap().to_owned();
    let victim = ref_of(&before, "\"Re-rendered soon\"");
    let stay = ref_of(&before, "\"Stays put\"");
    svc.ok("page.click", json!({ "session_id": sid, "selector": "#rerender" })).await;
    let err = svc.err("page.click", json!({ "session_id": sid, "ref": victim })).await;
    assert_eq!(err.kind(), "stale_ref", "{err:?}");
    let after = snapshot(svc, &sid, json!({})).await["snapshot"].as_str().unwrap().to_owned();
    assert_eq!(ref_of(&after, "\"Stays put\""), stay, "a surviving element keeps its ref");
    assert_ne!(ref_of(&after, "\"Re-rendered soon\""), victim, "the new element gets a new ref");

    svc.ok("page.goto", json!({ "session_id": sid, "url": page("/form") })).await;
    let err = svc.err("page.click", json!({ "session_id": sid, "ref": stay })).await;
    assert_eq!(err.kind(), "stale_ref", "after a navigation: {err:?}");
    let err = svc.err("page.click", json!({ "session_id": sid, "ref": "e999999" })).await;
    assert_eq!(err.kind(), "stale_ref");
    let err = svc.err("page.click", json!({ "session_id": sid, "ref": "button" })).await;
    assert_eq!(err.kind(), "invalid_params");
}

#[tokio::test]
async fn an_action_can_return_the_page_snapshot() {
    let svc = shared();
    let sid = fresh(svc).await;
    let result = svc
        .ok("page.click", json!({ "session_id": sid, "selector": "#clicky", "snapshot": true, "maxChars": 100000 }))
        .await;
    let page_after = &result["page"];
    assert_eq!(page_after["title"], "Snapshot");
    assert!(page_after["url"].as_str().unwrap().ends_with("/snapshot/"));
    assert!(page_after["snapshot"].as_str().unwrap().contains("]: Clicked div"), "{page_after}");
    let plain = svc.ok("page.click", json!({ "session_id": sid, "selector": "#stay" })).await;
    assert!(plain.get("page").is_none());
}

#[tokio::test]
async fn a_big_page_lists_every_interactive_element_and_stays_within_max_chars() {
    let svc = shared();
    let sid = svc.session().await;
    svc.ok("page.goto", json!({ "session_id": sid, "url": page("/big/") })).await;
    let full = snapshot(svc, &sid, json!({ "maxChars": 2000000 })).await;
    assert_eq!(full["refs"], 180, "60 links and 120 buttons");
    assert_eq!(full["truncated"], false);
    let text = full["snapshot"].as_str().unwrap();
    assert!(text.contains("- … 295 more row") || text.contains("more row"), "{text}");
    let small = snapshot(svc, &sid, json!({ "maxChars": 2000 })).await;
    assert_eq!(small["truncated"], true);
    assert!(small["snapshot"].as_str().unwrap().chars().count() <= 2000);
    let interactive = snapshot(svc, &sid, json!({ "interactiveOnly": true, "maxChars": 2000000 })).await;
    assert_eq!(interactive["refs"], 180);
    let scoped = snapshot(svc, &sid, json!({ "selector": "nav" })).await;
    assert_eq!(scoped["refs"], 60, "{}", scoped["snapshot"]);
}
