//! page.text, page.content and page.evaluate.

use serde_json::json;

use crate::helpers::{SessionGuard, page, shared};

async fn on_home() -> SessionGuard {
    let svc = shared();
    let sid = svc.session().await;
    svc.ok("page.goto", json!({ "session_id": sid, "url": page("/"), "waitUntil": "load" })).await;
    sid
}

#[tokio::test]
async fn text_excludes_hidden_content() {
    let svc = shared();
    let sid = on_home().await;
    let text = svc.ok("page.text", json!({ "session_id": sid })).await["text"].as_str().unwrap().to_owned();
    assert!(text.contains("A small app for testing text-browser."), "{text}");
    assert!(!text.contains("display:none"), "{text}");
    assert!(!text.contains("visibility:hidden"), "{text}");
}

#[tokio::test]
async fn text_is_clamped_to_max_chars_and_says_so() {
    let svc = shared();
    let sid = on_home().await;
    let text = svc.ok("page.text", json!({ "session_id": sid, "maxChars": 7 })).await;
    assert_eq!(text["text"], "Fixture");
    assert_eq!(text["truncated"], true);
    let text = svc.ok("page.text", json!({ "session_id": sid, "selector": "h1" })).await;
    assert_eq!(text["text"], "Fixtures Home");
    assert!(text.get("truncated").is_none());
}

#[tokio::test]
async fn text_of_a_missing_element_is_element_not_found() {
    let svc = shared();
    let sid = on_home().await;
    let err = svc.err("page.text", json!({ "session_id": sid, "selector": "#does-not-exist" })).await;
    assert_eq!(err.kind(), "element_not_found");
    assert!(err.message.contains("#does-not-exist"));
}

#[tokio::test]
async fn text_with_a_broken_selector_is_invalid_selector() {
    let svc = shared();
    let sid = on_home().await;
    let err = svc.err("page.text", json!({ "session_id": sid, "selector": "h1[" })).await;
    assert_eq!(err.kind(), "invalid_selector", "{err:?}");
}

#[tokio::test]
async fn text_works_even_when_the_page_breaks_builtins() {
    let svc = shared();
    let sid = on_home().await;
    svc.ok(
        "page.evaluate",
        json!({ "session_id": sid, "expression": "Document.prototype.querySelector = () => null; String.prototype.trim = null; 1" }),
    )
    .await;
    let text = svc.ok("page.text", json!({ "session_id": sid, "selector": "h1" })).await;
    assert_eq!(text["text"], "Fixtures Home");
}

#[tokio::test]
async fn content_is_the_html_after_javascript() {
    let svc = shared();
    let sid = svc.session().await;
    svc.ok("page.goto", json!({ "session_id": sid, "url": page("/projects") })).await;
    let html = svc.ok("page.content", json!({ "session_id": sid })).await["html"].as_str().unwrap().to_owned();
    assert!(html.starts_with("<!DOCTYPE html>"), "{}", &html[..40]);
    assert!(html.contains("<li>Apollo Dashboard</li>"), "the list built by JS is in the HTML");
}

#[tokio::test]
async fn evaluate_returns_values_calls_functions_and_awaits_promises() {
    let svc = shared();
    let sid = on_home().await;
    let eval = |expression: &str, arg: serde_json::Value| {
        let mut params = json!({ "session_id": sid, "expression": expression });
        if !arg.is_null() {
            params["arg"] = arg;
        }
        svc.call("page.evaluate", params)
    };
    assert_eq!(eval("document.title", json!(null)).await.unwrap()["result"], "Fixtures Home");
    assert_eq!(eval("(x) => x.a + x.b", json!({"a": 2, "b": 3})).await.unwrap()["result"], 5);
    assert_eq!(
        eval("new Promise(r => setTimeout(() => r({done: true}), 50))", json!(null)).await.unwrap()["result"],
        json!({"done": true})
    );
    assert_eq!(
        eval("await fetch('/api/projects').then(r => r.json()).then(p => p.length)", json!(null)).await.unwrap()["result"],
        3
    );
    assert_eq!(eval("undefined", json!(null)).await.unwrap()["result"], json!(null));
    assert_eq!(eval("new Date(0)", json!(null)).await.unwrap()["result"], "1970-01-01T00:00:00.000Z");
}

#[tokio::test]
async fn evaluate_exception_carries_its_message() {
    let svc = shared();
    let sid = on_home().await;
    let err =
        svc.err("page.evaluate", json!({ "session_id": sid, "expression": "throw new TypeError('bad thing')" })).await;
    assert_eq!(err.kind(), "evaluation_failed");
    assert!(err.message.contains("TypeError: bad thing"), "{}", err.message);
    let err = svc
        .err("page.evaluate", json!({ "session_id": sid, "expression": "Promise.reject(new Error('async bad'))" }))
        .await;
    assert_eq!(err.kind(), "evaluation_failed");
    assert!(err.message.contains("async bad"), "{}", err.message);
    let err = svc.err("page.evaluate", json!({ "session_id": sid, "expression": "this is not javascript" })).await;
    assert_eq!(err.kind(), "evaluation_failed");
    assert!(err.message.contains("SyntaxError"), "{}", err.message);
}

#[tokio::test]
async fn evaluate_non_json_results_are_clear_errors() {
    let svc = shared();
    let sid = on_home().await;
    for (expression, says) in [
        ("document.body", "DOM node"),
        ("({ el: document.querySelector('h1') })", "DOM node"),
        ("const o = {}; o.self = o; o", "cycle"),
        ("window", "Window"),
        ("NaN", "NaN"),
        ("10n", "10n"),
    ] {
        let err = svc.err("page.evaluate", json!({ "session_id": sid, "expression": expression })).await;
        assert_eq!(err.kind(), "result_not_serializable", "{expression}: {err:?}");
        assert!(err.message.contains(says), "{expression}: {}", err.message);
    }
}

#[tokio::test]
async fn evaluate_stuck_script_times_out_and_the_page_recovers() {
    let svc = shared();
    let sid = on_home().await;
    let err =
        svc.err("page.evaluate", json!({ "session_id": sid, "expression": "while (true) {}", "timeout": 500 })).await;
    assert_eq!(err.kind(), "timeout", "{err:?}");
    // The stuck script is terminated, so the session answers again.
    let title =
        svc.ok("page.evaluate", json!({ "session_id": sid, "expression": "document.title", "timeout": 10000 })).await;
    assert_eq!(title["result"], "Fixtures Home");
}

/// The markdown the fixtures' release notes page should read as.
const RELEASE_NOTES_MARKDOWN: &str = r#"# Release notes

Version **2.4** adds *faster* exports. See the [project list](APP/projects/) or [the docs](https://example.test/docs?a=1&b=2).

Hidden word and LOUD text.

## Changes

- Export to CSV
  - with headers
  - without `NULL` values
- New [details page](APP/markdown/details.html)

3. Third step
4. Fourth step

### Numbers

| Name | Count |
| --- | --- |
| Alpha | 12 |
| Be\|ta | 7 |

```rust
fn main() {
    println!("hi");
}
```

> Quoted line

Card one
Card two
Name Ada [x] Remember me
More

Line one
Line two

Hello, **World**!"#;

#[tokio::test]
async fn markdown_keeps_headings_lists_links_tables_and_code() {
    let svc = shared();
    let sid = svc.session().await;
    svc.ok("page.goto", json!({ "session_id": sid, "url": page("/markdown/") })).await;
    let md = svc.ok("page.text", json!({ "session_id": sid, "format": "markdown" })).await;
    let app = page("").trim_end_matches('/').to_owned();
    assert_eq!(md["text"].as_str().unwrap(), RELEASE_NOTES_MARKDOWN.replace("APP", &app));
    let list = svc.ok("page.text", json!({ "session_id": sid, "format": "markdown", "selector": "ol" })).await;
    assert_eq!(list["text"], "3. Third step\n4. Fourth step");
}

/// Every word page.text shows, in order of first appearance, is in the markdown too.
#[tokio::test]
async fn markdown_drops_nothing_that_text_shows() {
    let svc = shared();
    let sid = svc.session().await;
    for path in ["/", "/markdown/", "/snapshot/", "/big/", "/form/", "/projects/"] {
        svc.ok("page.goto", json!({ "session_id": sid, "url": page(path) })).await;
        let text = svc.ok("page.text", json!({ "session_id": sid })).await;
        let md = svc.ok("page.text", json!({ "session_id": sid, "format": "markdown" })).await;
        let md = md["text"].as_str().unwrap();
        let words = |s: &str| -> Vec<String> {
            s.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase).collect()
        };
        let have: std::collections::HashSet<String> = words(md).into_iter().collect();
        let missing: Vec<String> =
            words(text["text"].as_str().unwrap()).into_iter().filter(|w| !have.contains(w)).collect();
        assert!(missing.is_empty(), "{path}: markdown lacks {missing:?}\n{md}");
    }
}

#[tokio::test]
async fn text_reads_an_element_by_ref() {
    let svc = shared();
    let sid = svc.session().await;
    svc.ok("page.goto", json!({ "session_id": sid, "url": page("/markdown/") })).await;
    let snap = svc.ok("page.snapshot", json!({ "session_id": sid })).await;
    let snap = snap["snapshot"].as_str().unwrap();
    let line = snap.lines().find(|l| l.contains("link \"details page\"")).unwrap_or_else(|| panic!("{snap}"));
    let r = line.split("[ref=").nth(1).unwrap().split(']').next().unwrap();
    let text = svc.ok("page.text", json!({ "session_id": sid, "ref": r })).await;
    assert_eq!(text["text"], "details page");
    let md = svc.ok("page.text", json!({ "session_id": sid, "ref": r, "format": "markdown" })).await;
    assert_eq!(md["text"], format!("[details page]({})", page("/markdown/details.html")));
    let shot = svc.ok("screenshot", json!({ "session_id": sid, "ref": r })).await;
    assert!(shot["base64"].as_str().unwrap().len() > 100);
}

#[tokio::test]
async fn text_params_out_of_range_or_in_conflict_are_invalid_params() {
    let svc = shared();
    let sid = on_home().await;
    for (params, needle) in [
        (json!({ "session_id": sid, "maxChars": 0 }), "maxChars"),
        (json!({ "session_id": sid, "maxChars": 10_000_001u64 }), "maxChars"),
        (json!({ "session_id": sid, "selector": "h1", "ref": "e1" }), "not both"),
        (json!({ "session_id": sid, "ref": "h1" }), "not a ref"),
        (json!({ "session_id": sid, "selector": " " }), "must not be empty"),
        (json!({ "session_id": sid, "format": "html" }), "format"),
    ] {
        let err = svc.err("page.text", params.clone()).await;
        assert_eq!(err.code, -32602, "{params}: {err:?}");
        assert!(err.message.contains(needle), "{params}: {err:?}");
    }
    for (method, params) in [
        ("page.snapshot", json!({ "session_id": sid, "selector": "h1", "ref": "e1" })),
        ("screenshot", json!({ "session_id": sid, "selector": "h1", "ref": "e1" })),
        ("page.click", json!({ "session_id": sid, "selector": "h1", "ref": "e1" })),
    ] {
        let err = svc.err(method, params).await;
        assert_eq!(err.code, -32602, "{method}: {err:?}");
        assert!(err.message.contains("not both"), "{method}: {err:?}");
    }
}
