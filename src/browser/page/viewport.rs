//! The viewport a page is laid out and captured at: its type and bounds. Kept apart from
//! `emulation` (which applies it) so the page handle can remember the last one set.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Viewport {
    /// CSS pixels, 1 to 10000.
    pub width: u32,
    /// CSS pixels, 1 to 10000.
    pub height: u32,
    /// Device pixels per CSS pixel, 0.5 to 4 (default 1): 2 or 3 for phone screens.
    #[serde(default, rename = "deviceScaleFactor", skip_serializing_if = "Option::is_none")]
    pub device_scale_factor: Option<f64>,
    /// Lay the page out as a phone does: the meta viewport applies, overlay scrollbars (default false).
    #[serde(default, rename = "isMobile", skip_serializing_if = "Option::is_none")]
    pub is_mobile: Option<bool>,
}

impl Default for Viewport {
    fn default() -> Self {
        Self { width: 1280, height: 800, device_scale_factor: None, is_mobile: None }
    }
}

/// The most device pixels (CSS pixels × deviceScaleFactor², width × height) a viewport or a
/// screenshot may have: 100 megapixels, a 400 MB bitmap in Chromium. Past it Chromium cannot
/// capture (or only by taking gigabytes from every other session), so it is the caller's limit.
pub const MAX_DEVICE_PIXELS: f64 = 100_000_000.0;

impl Viewport {
    pub fn validate(&self) -> Result<(), String> {
        if !(1..=10_000).contains(&self.width) || !(1..=10_000).contains(&self.height) {
            return Err(format!(
                "viewport {}x{} is out of range: width and height must be 1 to 10000",
                self.width, self.height
            ));
        }
        let scale = self.scale();
        if !(0.5..=4.0).contains(&scale) {
            return Err(format!("deviceScaleFactor {scale} must be 0.5 to 4"));
        }
        let pixels = f64::from(self.width) * f64::from(self.height) * scale * scale;
        if pixels > MAX_DEVICE_PIXELS {
            return Err(format!(
                "viewport {}x{} at deviceScaleFactor {scale} is {:.0} megapixels; at most {:.0} are allowed \
                 (width × height × deviceScaleFactor²): use a smaller size or scale",
                self.width,
                self.height,
                pixels / 1e6,
                MAX_DEVICE_PIXELS / 1e6
            ));
        }
        Ok(())
    }

    /// Device pixels per CSS pixel.
    pub fn scale(&self) -> f64 {
        self.device_scale_factor.unwrap_or(1.0)
    }
}
