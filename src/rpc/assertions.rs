//! `assert.*`: checks that retry until they pass or time out, the way a test runner's `expect`
//! does. One passing call answers `{ok: true, actual}`; a check still failing at `timeout`
//! (default 5000 ms) is `assertion_failed` with `data.expected` and `data.actual` — what the page
//! showed instead — so no second call is needed to see why.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::error::ApiError;
use super::registry::{Call, Hints, MethodSpec, Params, page_method};
use crate::browser::{BrowserError, Expect, Page, Target, UrlPattern};

const TIMEOUT_MS: u64 = 5_000;

#[derive(Debug, Serialize, JsonSchema)]
pub struct AssertResult {
    pub ok: bool,
    /// What the page showed when the check passed.
    pub actual: Value,
}

/// Passes once the page's visible text — or, with `selector` / `ref`, one matching element's —
/// contains `text` (whitespace runs count as one space), or with `exact` equals it. On failure
/// `data.actual` holds up to 300 characters of the text around where `text` was expected.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct AssertTextParams {
    /// The text to find.
    pub text: String,
    /// The whole text must equal it (default false: contains).
    pub exact: Option<bool>,
}

impl Params for AssertTextParams {}

/// Passes once an element matching `selector` (or `ref`) is visible.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct AssertVisibleParams {}

impl Params for AssertVisibleParams {}

/// Passes once no element matching `selector` (or `ref`) is visible (none matching passes).
#[derive(Debug, Deserialize, JsonSchema)]
pub struct AssertHiddenParams {}

impl Params for AssertHiddenParams {}

/// Passes once the field's value equals `value`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct AssertValueParams {
    /// The value the field must have.
    pub value: String,
}

impl Params for AssertValueParams {}

/// Passes once the checkbox or radio is checked (or, with `checked: false`, unchecked).
#[derive(Debug, Deserialize, JsonSchema)]
pub struct AssertCheckedParams {
    /// Default true.
    pub checked: Option<bool>,
}

impl Params for AssertCheckedParams {}

/// Passes once the page's URL matches `pattern`: a glob over the whole URL (`*` is any
/// characters: `**/projects/*`), or else a URL or a path (`/projects`, query ignored) it equals.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct AssertUrlParams {
    /// A glob (`**/projects/*`), a URL, or a path (`/projects`).
    pub pattern: String,
}

impl Params for AssertUrlParams {}

/// Passes once the document's title contains `title` (or with `exact` equals it).
#[derive(Debug, Deserialize, JsonSchema)]
pub struct AssertTitleParams {
    /// The text the title must contain.
    pub title: String,
    /// Default false: contains.
    pub exact: Option<bool>,
}

impl Params for AssertTitleParams {}

/// Passes once exactly `count` elements match `selector`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct AssertCountParams {
    /// How many elements must match.
    pub count: u64,
}

impl Params for AssertCountParams {}

pub fn methods() -> Vec<MethodSpec> {
    vec![
        page_method("assert.text", "Wait until the page or an element shows a text.", TIMEOUT_MS, text)
            .example(r##"{"selector":"#members","text":"Grace Hopper"}"##)
            .tool("assert_text", Hints::READ),
        page_method("assert.visible", "Wait until an element is visible.", TIMEOUT_MS, visible)
            .example(r#"{"selector":"role=menu"}"#),
        page_method("assert.hidden", "Wait until no matching element is visible.", TIMEOUT_MS, hidden)
            .example(r##"{"selector":"#spinner"}"##),
        page_method("assert.value", "Wait until a field has a value.", TIMEOUT_MS, value)
            .example(r##"{"selector":"#role","value":"editor"}"##),
        page_method("assert.checked", "Wait until a checkbox is checked (or unchecked).", TIMEOUT_MS, checked)
            .example(r##"{"selector":"#notify","checked":true}"##),
        page_method("assert.url", "Wait until the URL matches a glob, URL or path.", TIMEOUT_MS, url)
            .example(r#"{"pattern":"**/team*"}"#),
        page_method("assert.title", "Wait until the title contains a text.", TIMEOUT_MS, title)
            .example(r#"{"title":"Team"}"#),
        page_method("assert.count", "Wait until exactly N elements match.", TIMEOUT_MS, count)
            .example(r##"{"selector":"#members tr","count":3}"##),
    ]
}

async fn check(
    call: &Call,
    page: &Page,
    name: &str,
    target: Option<&Target>,
    expect: Expect,
) -> Result<AssertResult, ApiError> {
    let actual = page.assert(name, target, &expect, call.deadline).await?;
    Ok(AssertResult { ok: true, actual })
}

async fn text(
    call: Call,
    page: Page,
    (target, p): (Option<Target>, AssertTextParams),
) -> Result<AssertResult, ApiError> {
    if p.text.trim().is_empty() {
        return Err(ApiError::invalid("text", "text must not be empty"));
    }
    let expect = Expect::Text { text: p.text, exact: p.exact.unwrap_or(false) };
    check(&call, &page, "assert.text", target.as_ref(), expect).await
}

async fn visible(call: Call, page: Page, (target, _): (Target, AssertVisibleParams)) -> Result<AssertResult, ApiError> {
    check(&call, &page, "assert.visible", Some(&target), Expect::Visible).await
}

async fn hidden(call: Call, page: Page, (target, _): (Target, AssertHiddenParams)) -> Result<AssertResult, ApiError> {
    check(&call, &page, "assert.hidden", Some(&target), Expect::Hidden).await
}

async fn value(call: Call, page: Page, (target, p): (Target, AssertValueParams)) -> Result<AssertResult, ApiError> {
    check(&call, &page, "assert.value", Some(&target), Expect::Value(p.value)).await
}

async fn checked(call: Call, page: Page, (target, p): (Target, AssertCheckedParams)) -> Result<AssertResult, ApiError> {
    check(&call, &page, "assert.checked", Some(&target), Expect::Checked(p.checked.unwrap_or(true))).await
}

async fn url(call: Call, page: Page, p: AssertUrlParams) -> Result<AssertResult, ApiError> {
    let pattern =
        UrlPattern::parse(&p.pattern).map_err(|e: BrowserError| ApiError::invalid("pattern", e.to_string()))?;
    check(&call, &page, "assert.url", None, Expect::Url(pattern)).await
}

async fn title(call: Call, page: Page, p: AssertTitleParams) -> Result<AssertResult, ApiError> {
    let expect = Expect::Title { text: p.title, exact: p.exact.unwrap_or(false) };
    check(&call, &page, "assert.title", None, expect).await
}

async fn count(call: Call, page: Page, (target, p): (Target, AssertCountParams)) -> Result<AssertResult, ApiError> {
    check(&call, &page, "assert.count", Some(&target), Expect::Count(p.count)).await
}
