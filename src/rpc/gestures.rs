//! `page.hover`, `page.dblclick`, `page.drag`, `page.focus`, `page.scroll`, `page.type`,
//! `page.select`, `page.check`, `page.uncheck`, `page.upload`: the rest of what a user does with a pointer, a
//! keyboard and form controls. Each is an action (see `actions`): it waits for its element and
//! answers `{ok, signals, effects}` with what it caused.

use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::actions::{ACTION_TIMEOUT_MS, ActionOptions, ActionResult, Aim, OtherElement, act, action, click_aim};
use super::error::ApiError;
use super::registry::{Call, Hints, MethodSpec, Params, page_method};
use crate::browser::{
    Acted, ActionNote, ActionRun, ActionTarget, ClickOptions, MAX_KEY_DELAY, Page, ScrollPosition, Target, UploadFile,
};

/// Moves the pointer over the element once it is visible, stable and not covered: `mouseover`,
/// `mouseenter` and `:hover` apply, so menus and tooltips that open on hover open. Answers like
/// `page.click`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct HoverParams {}

impl Params for HoverParams {}

/// Double-clicks the element (two clicks, then `dblclick`), waiting for it like `page.click`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct DblclickParams {}

impl Params for DblclickParams {}

/// Drags the element (`selector` / `ref`) onto `to` with the mouse: press on it, move in steps to
/// the middle of `to` (measured once the drag has begun, so drop zones that appear then are
/// found), release. Pages that drag with mouse or pointer events see a real drag.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct DragParams {
    /// Where to drop: a selector, or {"selector"|"ref"}.
    pub to: OtherElement,
}

impl Params for DragParams {}

/// Gives the element keyboard focus (`focus`, `focusin`; `:focus` applies), as a click or Tab
/// would, without clicking it.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct FocusParams {}

impl Params for FocusParams {}

/// Scrolls: with only an element, brings it into view; with `deltaX` / `deltaY`, turns the mouse
/// wheel by that many pixels over the element (or the middle of the viewport), so the page's
/// `wheel` and `scroll` listeners run (lazy lists load more). Answers like an action, plus
/// `scroll`: where the page is scrolled to, `{x, y}`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScrollParams {
    /// Pixels to the right (negative: left).
    pub delta_x: Option<f64>,
    /// Pixels down (negative: up).
    pub delta_y: Option<f64>,
}

impl Params for ScrollParams {}

/// page.scroll's answer (its schema is written out below).
#[derive(Debug, Serialize)]
pub struct ScrollResult {
    #[serde(flatten)]
    pub action: ActionResult,
    pub scroll: ScrollPosition,
}

/// `ActionResult` by reference plus `scroll`: a derived schema would repeat every field of
/// `ActionResult` in the contract.
impl JsonSchema for ScrollResult {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ScrollResult".into()
    }
    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let action = generator.subschema_for::<ActionResult>();
        let scroll = generator.subschema_for::<ScrollPosition>();
        schemars::json_schema!({
            "description": "What every action answers, and where the page is scrolled to once it stopped moving.",
            "allOf": [action, { "type": "object", "properties": { "scroll": scroll }, "required": ["scroll"] }],
        })
    }
}

/// Types `text` key by key into the element (focused first) or, without one, into whatever has
/// focus: every character sends `keydown`, `keypress`, `input` and `keyup`, as a keyboard does —
/// for search boxes and editors that listen to keys (`page.fill` replaces the value at once).
/// `\n` presses Enter. Existing text is kept: the keys go where the caret is.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TypeParams {
    /// The characters to type.
    pub text: String,
    /// Milliseconds between keys, 0 to 1000 (default 0).
    pub delay_ms: Option<u64>,
    /// true: the text is a secret though the field is no password field: masked like a password
    /// in every answer and event of the session, in every encoding.
    pub secret: Option<bool>,
}

impl Params for TypeParams {}

/// Chooses options of a `<select>` by value or by visible label (`input` and `change` fire); a
/// multiple select takes several. An option that does not exist fails naming the ones that do.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SelectParams {
    /// The option's value or label, or an array of them for a multiple select.
    pub values: Choices,
}

impl Params for SelectParams {}

/// One option, or several.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Choices {
    One(String),
    Many(Vec<String>),
}

/// Checks a checkbox or radio (or a `role=checkbox` / `switch`) by clicking it if it is not
/// checked yet, then verifies it is: a page that undoes the click fails with `not_actionable`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct CheckParams {}

impl Params for CheckParams {}

/// Unchecks a checkbox by clicking it if it is checked, then verifies it is not.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct UncheckParams {}

impl Params for UncheckParams {}

/// Sets files on an `<input type=file>` (`selector` / `ref`; it may be hidden behind a styled
/// button), as a user choosing them would: `input` and `change` fire and the page can read and
/// send them. Give each file's `name` and its bytes as `base64` (the files are sent, not looked up
/// on the service's disk); an empty `files` clears the input.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct UploadParams {
    /// [{"name": "contacts.csv", "base64": "…"}]
    pub files: Vec<FileParam>,
}

impl Params for UploadParams {}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FileParam {
    /// The file name the page sees (no directories).
    pub name: String,
    /// The file's bytes, base64.
    pub base64: String,
}

pub fn methods() -> Vec<MethodSpec> {
    vec![
        action("page.hover", "Move the pointer over an element (menus and tooltips open).", hover)
            .example(r#"{"selector":"role=button[name=\"Account\"]"}"#)
            .tool("hover", Hints::ACT),
        action("page.dblclick", "Double-click an element.", dblclick)
            .example(r#"{"selector":"text=Ada Lovelace"}"#)
            .tool("dblclick", Hints::ACT),
        action("page.drag", "Drag an element onto another with the mouse.", drag)
            .example(r##"{"selector":"#card-1","to":"#column-done"}"##)
            .tool("drag", Hints::ACT),
        action("page.focus", "Give an element keyboard focus.", focus).example(r##"{"selector":"#email"}"##),
        page_method("page.scroll", "Scroll an element into view, or turn the mouse wheel.", ACTION_TIMEOUT_MS, scroll)
            .example(r#"{"deltaY":800}"#)
            .tool("scroll", Hints::ACT),
        page_method(
            "page.type",
            "Type text key by key into an element or the focused one.",
            ACTION_TIMEOUT_MS,
            type_text,
        )
        .example(r##"{"selector":"#search","text":"ada","delayMs":20}"##)
        .tool("type", Hints::ACT),
        action("page.select", "Choose options of a select by value or label.", select)
            .example(r##"{"selector":"#role","values":"Editor"}"##)
            .tool("select", Hints::ACT),
        action("page.check", "Check a checkbox or radio.", check)
            .example(r##"{"selector":"#notify"}"##)
            .tool("check", Hints::ACT),
        action("page.uncheck", "Uncheck a checkbox.", uncheck)
            .example(r##"{"selector":"#notify"}"##)
            .tool("uncheck", Hints::ACT),
        action("page.upload", "Set files on a file input.", upload)
            .example(r##"{"selector":"#csv","files":[{"name":"contacts.csv","base64":"bmFtZSxlbWFpbAo="}]}"##)
            .tool("upload", Hints::ACT),
    ]
}

async fn hover(_call: Call, run: ActionRun, aim: Aim, _: HoverParams) -> Result<Acted, ApiError> {
    Ok(match aim {
        Aim::Element { target, keep_scroll } => run.hover(&target, keep_scroll).await?,
        Aim::Point { x, y } => run.hover_point(x, y).await?,
    })
}

async fn dblclick(_call: Call, run: ActionRun, aim: Aim, _: DblclickParams) -> Result<Acted, ApiError> {
    click_aim(&run, aim, ClickOptions { click_count: 2, ..Default::default() }).await
}

async fn drag(_call: Call, run: ActionRun, target: Target, p: DragParams) -> Result<Acted, ApiError> {
    let to = p.to.into_target("to")?;
    run.drag(&target, &to).await?;
    Ok(Acted::default())
}

async fn focus(_call: Call, run: ActionRun, target: Target, _: FocusParams) -> Result<Acted, ApiError> {
    run.focus(&target).await?;
    Ok(Acted::default())
}

async fn scroll(
    call: Call,
    page: Page,
    (target, options, p): (Option<Target>, ActionOptions, ScrollParams),
) -> Result<ScrollResult, ApiError> {
    let by = match (p.delta_x, p.delta_y) {
        (None, None) if target.is_none() => {
            return Err(ApiError::invalid("deltaY", "give an element to scroll into view, or deltaX / deltaY"));
        }
        (None, None) => None,
        (x, y) => {
            let (x, y) = (x.unwrap_or(0.0), y.unwrap_or(0.0));
            if !x.is_finite() || !y.is_finite() || x.abs() > 1e6 || y.abs() > 1e6 {
                return Err(ApiError::invalid("deltaY", "deltaX and deltaY must be -1000000 to 1000000"));
            }
            Some((x, y))
        }
    };
    let mut position = None;
    let scrolled = &mut position;
    let what = ActionNote { method: "page.scroll".into(), target: None };
    let action = act(&call, &page, what, options, |run| async move {
        *scrolled = Some(run.scroll(target.as_ref(), by).await?);
        Ok(Acted::default())
    })
    .await?;
    Ok(ScrollResult { action, scroll: position.unwrap_or(ScrollPosition { x: 0.0, y: 0.0 }) })
}

async fn type_text(
    call: Call,
    page: Page,
    (target, options, p): (Option<Target>, ActionOptions, TypeParams),
) -> Result<ActionResult, ApiError> {
    if p.text.is_empty() {
        return Err(ApiError::invalid("text", "text must not be empty"));
    }
    let max = MAX_KEY_DELAY.as_millis() as u64;
    let delay = match p.delay_ms {
        None => Duration::ZERO,
        Some(ms) if ms <= max => Duration::from_millis(ms),
        Some(_) => return Err(ApiError::invalid("delayMs", format!("delayMs must be 0 to {max}"))),
    };
    let what =
        ActionNote { method: "page.type".into(), target: target.as_ref().map(|t| ActionTarget::Into(t.to_string())) };
    let refuse_password = call.ctx.refuse_password_fill;
    act(&call, &page, what, options, |run| async move {
        if p.secret == Some(true) {
            run.keep_secret(&p.text);
        }
        Ok(run.type_text(target.as_ref(), &p.text, delay, refuse_password).await?)
    })
    .await
}

async fn select(_call: Call, run: ActionRun, target: Target, p: SelectParams) -> Result<Acted, ApiError> {
    let wanted = match p.values {
        Choices::One(one) => vec![one],
        Choices::Many(many) => many,
    };
    let (_, acted) = run.select(&target, &wanted).await?;
    Ok(acted)
}

async fn check(_call: Call, run: ActionRun, target: Target, _: CheckParams) -> Result<Acted, ApiError> {
    Ok(run.set_checked(&target, true).await?)
}

async fn uncheck(_call: Call, run: ActionRun, target: Target, _: UncheckParams) -> Result<Acted, ApiError> {
    Ok(run.set_checked(&target, false).await?)
}

async fn upload(call: Call, run: ActionRun, target: Target, p: UploadParams) -> Result<Acted, ApiError> {
    files_shared_with_the_browser(&call, "page.upload")?;
    let files = decode_files(p.files)?;
    run.upload(&target, &files).await?;
    Ok(Acted::default())
}

/// Uploads and downloads pass files to and from the browser by path on this machine: a browser on
/// another host (BROWSER_WS_ENDPOINT) cannot see them, so `method` is refused rather than giving
/// the page an empty file.
pub(super) fn files_shared_with_the_browser(call: &Call, method: &str) -> Result<(), ApiError> {
    if call.ctx.sessions.chromium().shares_files() {
        return Ok(());
    }
    Err(ApiError::Browser(crate::browser::BrowserError::NotAllowed(format!(
        "{method} passes files through this service's file system, and the browser (BROWSER_WS_ENDPOINT) runs on \
         another host that cannot see it; uploads and downloads need a browser on the service's machine"
    ))))
}

/// The files of `page.upload` / `fileChooser.arm`, each name a plain file name and its bytes decoded.
pub(super) fn decode_files(files: Vec<FileParam>) -> Result<Vec<UploadFile>, ApiError> {
    use base64::Engine;
    let mut decoded = Vec::new();
    for (i, file) in files.into_iter().enumerate() {
        let bad_name = file.name.is_empty()
            || file.name.len() > 255
            || file.name == "."
            || file.name == ".."
            || file.name.contains(['/', '\\', '\0']);
        if bad_name {
            return Err(ApiError::invalid(
                format!("files[{i}].name"),
                format!("files[{i}].name {:?} must be a plain file name (no directories)", file.name),
            ));
        }
        let bytes = base64::engine::general_purpose::STANDARD.decode(file.base64.trim()).map_err(|e| {
            ApiError::invalid(format!("files[{i}].base64"), format!("files[{i}].base64 is not base64: {e}"))
        })?;
        decoded.push(UploadFile { name: file.name, bytes });
    }
    Ok(decoded)
}
