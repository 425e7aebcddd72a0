//! page.snapshot and refs: the accessibility tree with refs, acting on refs (iframes, shadow
//! roots), stale refs, and snapshots returned by actions.

use serde_json::{Value, json};

use crate::helpers::{Instance, Service, SessionGuard, page, shared};

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
    // A ref given where a selector goes (as agents do) is the ref, not a CSS tag `e12` that never appears.
    svc.ok("page.click", json!({ "session_id": sid, "selector": shadow })).await;
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

/// The expected snapshot `name` (tests/api/snapshots/), as the whole accessibility tree renders.
fn expected(name: &str) -> String {
    std::fs::read_to_string(format!("{}/tests/api/snapshots/{name}.txt", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

#[tokio::test]
async fn long_lists_and_tables_read_the_same_when_their_runs_are_left_out_of_the_fetch() {
    // The files were rendered from Chromium's whole tree; long runs of plain items are now left
    // out of the fetch and counted, and the text must not change: the runs split at the links in
    // the middle, the table's rows, the nested region, interactiveOnly and an element's subtree.
    let svc = shared();
    for (name, path, params) in [
        ("catalog", "/catalog/", json!({})),
        ("catalog-interactive", "/catalog/", json!({ "interactiveOnly": true })),
        ("catalog-products", "/catalog/", json!({ "selector": "#products" })),
        ("big", "/big/", json!({})),
    ] {
        let sid = svc.session().await;
        svc.ok("page.goto", json!({ "session_id": sid, "url": page(path), "waitUntil": "settled" })).await;
        let mut params = params;
        params["maxChars"] = json!(200000);
        let snap = snapshot(svc, &sid, params).await;
        assert_eq!(snap["snapshot"].as_str().unwrap(), expected(name), "{name}");
    }
}

#[tokio::test]
async fn a_long_page_can_be_snapshotted_again_and_again_around_a_shadow_root_it_was_clicked_in() {
    // Chromium hangs the helper world (then loses the renderer) on a later snapshot of such a
    // page when a listener query pierced its shadow root, or a shadow root's listener node was
    // resolved into the helper world; it takes a dozen documents in the renderer first. Refs
    // into shadow roots, the listeners and the runs left out of the fetch must all survive.
    let svc = shared();
    let sid = svc.session().await;
    for _ in 0..12 {
        svc.ok("page.goto", json!({ "session_id": sid, "url": page("/team/"), "waitUntil": "load" })).await;
    }
    svc.ok("page.goto", json!({ "session_id": sid, "url": page("/catalog/"), "waitUntil": "load" })).await;
    for round in 0..3 {
        let snap = snapshot(svc, &sid, json!({ "timeout": 10000 })).await;
        let text = snap["snapshot"].as_str().unwrap();
        assert!(text.contains("- … 1194 more listitem"), "round {round}: {text}");
        let help = ref_of(text, "button \"Help\"");
        svc.ok("page.click", json!({ "session_id": sid, "ref": help, "timeout": 10000 })).await;
        snapshot(svc, &sid, json!({ "interactiveOnly": true, "timeout": 10000 })).await;
        snapshot(svc, &sid, json!({ "selector": "#products", "timeout": 10000 })).await;
    }
    let restock = ref_of(snapshot(svc, &sid, json!({})).await["snapshot"].as_str().unwrap(), "Restock all");
    svc.ok("page.click", json!({ "session_id": sid, "ref": restock })).await;
    let text = svc.ok("page.text", json!({ "session_id": sid, "selector": "#restock" })).await;
    assert_eq!(text["text"], "Restocking…", "the pointer-cursor span got a ref that works");
}

#[tokio::test]
async fn a_page_of_two_thousand_items_is_not_fetched_whole() {
    // A service of its own, so its CDP counts are this test's.
    let svc = Instance::start(&[("WARM_SESSIONS", "0")]);
    let sid = svc.session().await;
    svc.ok("page.goto", json!({ "session_id": sid, "url": page("/catalog/"), "waitUntil": "load" })).await;
    let snap = snapshot(&svc, &sid, json!({})).await;
    assert!(snap["snapshot"].as_str().unwrap().contains("- … 1194 more listitem"), "{snap}");
    let metrics = svc.metrics().await;
    let count = |method: &str| -> u64 {
        let line = format!("text_browser_cdp_call_duration_seconds_count{{cdp_method=\"{method}\"}} ");
        metrics.lines().find_map(|l| l.strip_prefix(&line)).map_or(0, |n| n.parse().unwrap())
    };
    assert_eq!(count("Accessibility.getFullAXTree"), 0, "the catalog (one frame) was fetched whole");
    assert_eq!(count("DOMSnapshot.captureSnapshot"), 0, "nor its DOM");
    assert!(count("Accessibility.queryAXTree") > 0, "but around its runs:\n{metrics}");
}
