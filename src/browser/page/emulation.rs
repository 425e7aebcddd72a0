//! Emulation: the viewport a page is laid out and captured at.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;
use tokio::time::Instant;

use super::handle::Page;
use crate::browser::error::BrowserError;

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Viewport {
    /// CSS pixels, 1 to 10000.
    pub width: u32,
    /// CSS pixels, 1 to 10000.
    pub height: u32,
}

impl Default for Viewport {
    fn default() -> Self {
        Self { width: 1280, height: 800 }
    }
}

impl Viewport {
    pub fn validate(&self) -> Result<(), String> {
        if (1..=10_000).contains(&self.width) && (1..=10_000).contains(&self.height) {
            Ok(())
        } else {
            Err(format!("viewport {}x{} is out of range: width and height must be 1 to 10000", self.width, self.height))
        }
    }
}

impl Page {
    /// Lays the page out at `viewport` (CSS pixels, scale 1, desktop).
    pub(in crate::browser) async fn set_viewport(
        &self,
        viewport: Viewport,
        deadline: Instant,
    ) -> Result<(), BrowserError> {
        let metrics =
            json!({ "width": viewport.width, "height": viewport.height, "deviceScaleFactor": 1, "mobile": false });
        self.cdp("Emulation.setDeviceMetricsOverride", metrics, deadline).await.map(|_| ())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn viewport_out_of_range_is_refused() {
        assert!(Viewport { width: 0, height: 10 }.validate().is_err());
        assert!(Viewport { width: 20_000, height: 10 }.validate().is_err());
        assert!(Viewport::default().validate().is_ok());
    }
}
