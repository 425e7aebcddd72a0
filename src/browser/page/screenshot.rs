//! `screenshot`: the viewport, the whole page, or one element, as PNG or JPEG.
//!
//! Raw `Page.captureScreenshot` with a clip: a full page or an element is captured beyond the
//! viewport without touching the session's viewport (chromiumoxide's helper would clear it).

use base64::Engine;
use tokio::time::Instant;

use super::handle::Page;
use super::locate::action::Action;
use super::locate::target::Target;
use super::viewport::MAX_DEVICE_PIXELS;
use crate::browser::chromium::protocol::page::{CaptureScreenshot, Clip, GetLayoutMetrics, ImageFormat};
use crate::browser::error::BrowserError;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub enum ImageType {
    #[default]
    #[serde(rename = "image/png")]
    Png,
    #[serde(rename = "image/jpeg")]
    Jpeg,
}

#[derive(Debug, Clone, Default)]
pub struct ShotOptions {
    pub full_page: bool,
    pub mime: ImageType,
    pub quality: Option<u8>,
    pub element: Option<Target>,
}

/// The largest side a JPEG can have (the format's own limit).
const MAX_JPEG_SIDE: f64 = 65_535.0;

impl Page {
    /// Returns the image, base64-encoded. A capture larger than [`MAX_DEVICE_PIXELS`] (or than a
    /// JPEG can hold) is refused naming the param to change, before Chromium is asked.
    pub async fn screenshot(&self, options: &ShotOptions, deadline: Instant) -> Result<String, BrowserError> {
        capture(self, options, deadline).await
    }
}

/// Refuses a capture of `width` × `height` CSS pixels at `scale` that is too large, as a caller
/// error on `param` (the viewport's own size was checked when it was set).
fn check_size(width: f64, height: f64, scale: f64, mime: ImageType, param: &str) -> Result<(), BrowserError> {
    let (w, h) = (width * scale, height * scale);
    let what = match param {
        "fullPage" => "the whole page",
        "session_id" => "the viewport",
        _ => "the element",
    };
    let problem = if w * h > MAX_DEVICE_PIXELS {
        format!(
            "{what} is {width:.0}x{height:.0} CSS px ({:.0} megapixels at scale {scale}); a screenshot holds at most \
             {:.0} megapixels: take",
            w * h / 1e6,
            MAX_DEVICE_PIXELS / 1e6
        )
    } else if mime == ImageType::Jpeg && w.max(h) > MAX_JPEG_SIDE {
        format!(
            "{what} is {width:.0}x{height:.0} CSS px; a JPEG holds at most {MAX_JPEG_SIDE} px on a side: take image/png,"
        )
    } else {
        return Ok(());
    };
    Err(BrowserError::InvalidParam {
        param: param.to_owned(),
        message: format!("{problem} a part of the page (a selector), or the viewport after page.scroll"),
    })
}

fn clip(x: f64, y: f64, width: f64, height: f64) -> Clip {
    Clip { x, y, width, height, scale: 1.0 }
}

/// [`Page::screenshot`].
async fn capture(page: &Page, options: &ShotOptions, deadline: Instant) -> Result<String, BrowserError> {
    let format = match options.mime {
        ImageType::Png => ImageFormat::Png,
        ImageType::Jpeg => ImageFormat::Jpeg,
    };
    let quality = options.quality.filter(|_| options.mime == ImageType::Jpeg);
    let mut shot =
        CaptureScreenshot { format, quality, clip: None, capture_beyond_viewport: None, optimize_for_speed: true };
    let viewport = page.viewport();
    let (width, height, param) = if let Some(target) = &options.element {
        let el = page.locate().ready(target, Action::Read, "screenshot", true, deadline).await?;
        shot.clip = Some(clip(el.page_x, el.page_y, el.width, el.height));
        shot.capture_beyond_viewport = Some(true);
        (el.width, el.height, if target.ref_name().is_some() { "ref" } else { "selector" })
    } else if options.full_page {
        let size = page.send(GetLayoutMetrics {}, deadline).await?.css_content_size;
        let width = size.width.ceil().max(1.0);
        let height = size.height.ceil().max(1.0);
        shot.clip = Some(clip(0.0, 0.0, width, height));
        shot.capture_beyond_viewport = Some(true);
        (width, height, "fullPage")
    } else {
        (f64::from(viewport.width), f64::from(viewport.height), "session_id")
    };
    check_size(width, height, viewport.scale(), options.mime, param)?;
    let data = page.send(shot, deadline).await?.data;
    if base64::engine::general_purpose::STANDARD.decode(&data).map(|b| b.is_empty()).unwrap_or(true) {
        return Err(BrowserError::protocol("Page.captureScreenshot", "the browser returned no image"));
    }
    Ok(data)
}
