//! Emulation: the viewport a page is laid out and captured at, and the media it believes it is
//! shown on (dark mode, reduced motion, print).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio::time::Instant;

use super::core::lock;
use super::handle::Page;
pub use super::viewport::Viewport;
use crate::browser::chromium::protocol::emulation::{MediaFeature, SetDeviceMetricsOverride, SetEmulatedMedia};
use crate::browser::error::BrowserError;

/// `prefers-color-scheme`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ColorScheme {
    Light,
    Dark,
    /// No preference.
    #[serde(rename = "no-preference")]
    NoPreference,
}

/// `prefers-reduced-motion`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ReducedMotion {
    Reduce,
    NoPreference,
}

/// The CSS media type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum MediaType {
    Screen,
    Print,
}

/// What the page's media queries see; `None` leaves the browser's own value.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Media {
    pub color_scheme: Option<ColorScheme>,
    pub reduced_motion: Option<ReducedMotion>,
    pub media: Option<MediaType>,
}

impl Page {
    /// Lays the page out at `viewport` (CSS pixels, scale 1, desktop).
    pub async fn set_viewport(&self, viewport: Viewport, deadline: Instant) -> Result<(), BrowserError> {
        let metrics = SetDeviceMetricsOverride {
            width: viewport.width,
            height: viewport.height,
            device_scale_factor: viewport.device_scale_factor.unwrap_or(1.0),
            mobile: viewport.is_mobile.unwrap_or(false),
        };
        self.send(metrics, deadline).await?;
        *lock(&self.viewport) = viewport;
        Ok(())
    }

    /// Makes the page's media queries see `media` (replacing what an earlier call set).
    pub async fn emulate_media(&self, media: Media, deadline: Instant) -> Result<(), BrowserError> {
        let scheme = media.color_scheme.map(css);
        let motion = media.reduced_motion.map(css);
        let mut features = Vec::new();
        if let Some(scheme) = &scheme {
            features.push(MediaFeature { name: "prefers-color-scheme", value: scheme });
        }
        if let Some(motion) = &motion {
            features.push(MediaFeature { name: "prefers-reduced-motion", value: motion });
        }
        let media_type = media.media.map(css).unwrap_or_default();
        self.send(SetEmulatedMedia { media: &media_type, features }, deadline).await.map(|_| ())
    }
}

/// The CSS keyword of a media value (its wire name).
fn css<T: Serialize>(value: T) -> String {
    serde_json::to_value(value).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default()
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn viewport_out_of_range_is_refused() {
        assert!(Viewport { width: 0, height: 10, ..Viewport::default() }.validate().is_err());
        assert!(Viewport { width: 20_000, height: 10, ..Viewport::default() }.validate().is_err());
        assert!(Viewport::default().validate().is_ok());
        assert!(Viewport { device_scale_factor: Some(9.0), ..Viewport::default() }.validate().is_err());
        let huge = Viewport { width: 10_000, height: 10_000, device_scale_factor: Some(4.0), is_mobile: None };
        assert!(huge.validate().unwrap_err().contains("1600 megapixels"), "{:?}", huge.validate());
        assert!(Viewport { device_scale_factor: Some(1.0), ..huge }.validate().is_ok(), "100 megapixels is the limit");
    }
}
