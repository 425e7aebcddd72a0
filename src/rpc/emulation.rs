//! `page.setViewport` and `page.emulateMedia`: checking a page at a phone's size, in dark mode,
//! with reduced motion, or as it prints.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::error::ApiError;
use super::registry::{Call, Hints, MethodSpec, Params, page_method};
use crate::browser::{ColorScheme, Media, MediaType, Page, ReducedMotion, Viewport};

const TIMEOUT_MS: u64 = 10_000;

/// Resizes the page's viewport (it is laid out again; `resize` fires). `isMobile` lays it out as a
/// phone does (the meta viewport applies); `deviceScaleFactor` sets device pixels per CSS pixel, so
/// screenshots come out that much larger. The size lasts for the session (or the next call);
/// `session.create` takes the same `viewport` object.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SetViewportParams {
    /// CSS pixels, 1 to 10000.
    pub width: u32,
    /// CSS pixels, 1 to 10000.
    pub height: u32,
    /// 0.5 to 4 (default 1).
    pub device_scale_factor: Option<f64>,
    /// Lay the page out as a phone does (default false).
    pub is_mobile: Option<bool>,
}

impl Params for SetViewportParams {}

#[derive(Debug, Serialize, JsonSchema)]
pub struct SetViewportResult {
    pub viewport: Viewport,
}

/// Makes the page's CSS media queries and `matchMedia` see a color scheme (`dark` for dark-mode
/// checks), a reduced-motion preference and a media type (`print`). Each call replaces the
/// previous one: what it leaves out goes back to the browser's default.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EmulateMediaParams {
    /// light, dark or no-preference.
    pub color_scheme: Option<ColorScheme>,
    /// reduce or no-preference.
    pub reduced_motion: Option<ReducedMotion>,
    /// screen or print.
    pub media: Option<MediaType>,
}

impl Params for EmulateMediaParams {}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EmulateMediaResult {
    /// What `matchMedia('(prefers-color-scheme: dark)')` now answers.
    pub prefers_dark: bool,
    /// What `matchMedia('(prefers-reduced-motion: reduce)')` now answers.
    pub prefers_reduced_motion: bool,
    /// What `matchMedia('print')` now answers.
    pub print: bool,
}

pub fn methods() -> Vec<MethodSpec> {
    vec![
        page_method("page.setViewport", "Resize the viewport; optionally emulate a phone.", TIMEOUT_MS, set_viewport)
            .example(r#"{"width":390,"height":844,"deviceScaleFactor":3,"isMobile":true}"#)
            .tool("viewport", Hints::SET),
        page_method(
            "page.emulateMedia",
            "Emulate dark mode, reduced motion or print media.",
            TIMEOUT_MS,
            emulate_media,
        )
        .example(r#"{"colorScheme":"dark"}"#)
        .tool("emulate", Hints::SET),
    ]
}

async fn set_viewport(call: Call, page: Page, p: SetViewportParams) -> Result<SetViewportResult, ApiError> {
    let viewport = Viewport {
        width: p.width,
        height: p.height,
        device_scale_factor: p.device_scale_factor,
        is_mobile: p.is_mobile,
    };
    // The param to change: the scale when it is out of range or what makes the area too large.
    let param = if p.device_scale_factor.is_some_and(|f| f != 1.0) { "deviceScaleFactor" } else { "width" };
    viewport.validate().map_err(|message| ApiError::invalid(param, message))?;
    page.set_viewport(viewport, call.deadline).await?;
    Ok(SetViewportResult { viewport })
}

async fn emulate_media(call: Call, page: Page, p: EmulateMediaParams) -> Result<EmulateMediaResult, ApiError> {
    let media = Media { color_scheme: p.color_scheme, reduced_motion: p.reduced_motion, media: p.media };
    page.emulate_media(media, call.deadline).await?;
    let expression = "[matchMedia('(prefers-color-scheme: dark)').matches, \
                      matchMedia('(prefers-reduced-motion: reduce)').matches, matchMedia('print').matches]";
    let seen = page.evaluate(expression, None, call.deadline).await?;
    let at = |i: usize| seen.get(i).and_then(serde_json::Value::as_bool).unwrap_or(false);
    Ok(EmulateMediaResult { prefers_dark: at(0), prefers_reduced_motion: at(1), print: at(2) })
}
