//! `screenshot`: the viewport, the whole page, or one element, as PNG or JPEG.
//!
//! Raw `Page.captureScreenshot` with a clip: a full page or an element is captured beyond the
//! viewport without touching the session's viewport (chromiumoxide's helper would clear it).

use base64::Engine;
use serde_json::{Value, json};
use tokio::time::Instant;

use super::action::Action;
use super::handle::Page;
use super::target::Target;
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

impl Page {
    /// Returns the image, base64-encoded.
    pub async fn screenshot(&self, options: &ShotOptions, deadline: Instant) -> Result<String, BrowserError> {
        let mut params = json!({ "format": match options.mime { ImageType::Png => "png", ImageType::Jpeg => "jpeg" }, "optimizeForSpeed": true });
        if let (ImageType::Jpeg, Some(quality)) = (options.mime, options.quality) {
            params["quality"] = json!(quality);
        }
        if let Some(target) = &options.element {
            let el = self.wait_ready(target, Action::Read, "screenshot", deadline).await?;
            params["clip"] = clip(el.page_x, el.page_y, el.width, el.height);
            params["captureBeyondViewport"] = json!(true);
        } else if options.full_page {
            let metrics = self.cdp("Page.getLayoutMetrics", json!({}), deadline).await?;
            let size = metrics.get("cssContentSize").unwrap_or(&Value::Null);
            let width = size["width"].as_f64().unwrap_or(0.0).ceil();
            let height = size["height"].as_f64().unwrap_or(0.0).ceil();
            params["clip"] = clip(0.0, 0.0, width.max(1.0), height.max(1.0));
            params["captureBeyondViewport"] = json!(true);
        }
        let shot = self.cdp("Page.captureScreenshot", params, deadline).await?;
        let data = shot.get("data").and_then(Value::as_str).unwrap_or_default();
        if base64::engine::general_purpose::STANDARD.decode(data).map(|b| b.is_empty()).unwrap_or(true) {
            return Err(BrowserError::Protocol {
                method: "Page.captureScreenshot".into(),
                message: "the browser returned no image".into(),
            });
        }
        Ok(data.to_owned())
    }
}

fn clip(x: f64, y: f64, width: f64, height: f64) -> Value {
    json!({ "x": x, "y": y, "width": width, "height": height, "scale": 1 })
}
