//! The Emulation and Performance domains: the screen and media the page believes it is shown on,
//! and its runtime counters.

use serde::{Deserialize, Serialize};

use super::{Done, command};

/// Lays the page out at this size and scale.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SetDeviceMetricsOverride {
    pub width: u32,
    pub height: u32,
    pub device_scale_factor: f64,
    pub mobile: bool,
}
command!(SetDeviceMetricsOverride, "Emulation.setDeviceMetricsOverride", Done);

/// What the page's media queries see (`media` "" and no features: the browser's own).
#[derive(Debug, Clone, Serialize)]
pub struct SetEmulatedMedia<'a> {
    pub media: &'a str,
    pub features: Vec<MediaFeature<'a>>,
}
command!(SetEmulatedMedia<'a>, "Emulation.setEmulatedMedia", Done);

#[derive(Debug, Clone, Serialize)]
pub struct MediaFeature<'a> {
    pub name: &'a str,
    pub value: &'a str,
}

#[derive(Debug, Clone, Serialize)]
pub struct PerformanceEnable {}
command!(PerformanceEnable, "Performance.enable", Done);

#[derive(Debug, Clone, Serialize)]
pub struct GetMetrics {}
command!(GetMetrics, "Performance.getMetrics", Metrics);

#[derive(Debug, Clone, Default, Deserialize)]
pub struct Metrics {
    #[serde(default)]
    pub metrics: Vec<Metric>,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub struct Metric {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub value: f64,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SetUserAgentOverride<'a> {
    pub user_agent: &'a str,
}
command!(SetUserAgentOverride<'a>, "Emulation.setUserAgentOverride", Done);

#[derive(Debug, Clone, Serialize)]
pub struct SetLocaleOverride<'a> {
    pub locale: &'a str,
}
command!(SetLocaleOverride<'a>, "Emulation.setLocaleOverride", Done);

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SetTimezoneOverride<'a> {
    pub timezone_id: &'a str,
}
command!(SetTimezoneOverride<'a>, "Emulation.setTimezoneOverride", Done);

#[derive(Debug, Clone, Serialize)]
pub struct SetGeolocationOverride {
    pub latitude: f64,
    pub longitude: f64,
    pub accuracy: f64,
}
command!(SetGeolocationOverride, "Emulation.setGeolocationOverride", Done);

/// Turns the page's scripts off (`javaScriptEnabled: false`).
#[derive(Debug, Clone, Serialize)]
pub struct SetScriptExecutionDisabled {
    pub value: bool,
}
command!(SetScriptExecutionDisabled, "Emulation.setScriptExecutionDisabled", Done);
