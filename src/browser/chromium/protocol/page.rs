//! The Page domain: the page's frames and worlds, its history, layout, screenshots and PDFs, and
//! the scripts it runs in every new document.

use serde::{Deserialize, Serialize};

use super::network::Content;
use super::{Done, command};
use crate::browser::chromium::ids::FrameId;

/// The page's frames, the main frame at the root.
#[derive(Debug, Clone, Serialize)]
pub struct GetFrameTree {}
command!(GetFrameTree, "Page.getFrameTree", FrameTreeAnswer);

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FrameTreeAnswer {
    #[serde(default)]
    pub frame_tree: FrameTree,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FrameTree {
    #[serde(default)]
    pub frame: Frame,
    #[serde(default)]
    pub child_frames: Vec<FrameTree>,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub struct Frame {
    #[serde(default)]
    pub id: FrameId,
}

impl FrameTree {
    /// Every frame's id, this one first, depth first.
    pub fn ids(&self) -> Vec<FrameId> {
        let mut out = Vec::new();
        self.collect(&mut out);
        out
    }

    fn collect(&self, out: &mut Vec<FrameId>) {
        if !self.frame.id.is_empty() {
            out.push(self.frame.id.clone());
        }
        for child in &self.child_frames {
            child.collect(out);
        }
    }
}

/// A new isolated world in a frame.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateIsolatedWorld<'a> {
    pub frame_id: &'a str,
    pub world_name: &'a str,
    /// Chromium's own spelling.
    pub grant_univeral_access: bool,
}
command!(CreateIsolatedWorld<'a>, "Page.createIsolatedWorld", World);

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct World {
    #[serde(default)]
    pub execution_context_id: Option<i64>,
}

/// The viewports and content size, in CSS pixels.
#[derive(Debug, Clone, Serialize)]
pub struct GetLayoutMetrics {}
command!(GetLayoutMetrics, "Page.getLayoutMetrics", LayoutMetrics);

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LayoutMetrics {
    #[serde(default)]
    pub css_layout_viewport: Viewport,
    #[serde(default)]
    pub css_visual_viewport: Viewport,
    #[serde(default)]
    pub css_content_size: Size,
}

/// A viewport's scroll position and size.
#[derive(Debug, Clone, Copy, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Viewport {
    #[serde(default)]
    pub page_x: f64,
    #[serde(default)]
    pub page_y: f64,
    #[serde(default)]
    pub client_width: f64,
    #[serde(default)]
    pub client_height: f64,
}

#[derive(Debug, Clone, Copy, Default, Deserialize)]
pub struct Size {
    #[serde(default)]
    pub width: f64,
    #[serde(default)]
    pub height: f64,
}

/// A part of the page, in CSS pixels, captured at `scale`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Clip {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
    pub scale: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ImageFormat {
    Png,
    Jpeg,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CaptureScreenshot {
    pub format: ImageFormat,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quality: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clip: Option<Clip>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capture_beyond_viewport: Option<bool>,
    pub optimize_for_speed: bool,
}
command!(CaptureScreenshot, "Page.captureScreenshot", Data);

/// Bytes, base64: an image, a PDF.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Data {
    #[serde(default)]
    pub data: String,
}

/// The page as the print preview shows it (inches).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PrintToPdf {
    pub paper_width: f64,
    pub paper_height: f64,
    pub landscape: bool,
    pub print_background: bool,
}
command!(PrintToPdf, "Page.printToPDF", Data);

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AddScriptToEvaluateOnNewDocument<'a> {
    pub source: &'a str,
    /// The isolated world to run it in (none: the page's own).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub world_name: Option<&'a str>,
    /// In the current document too, not only in the next ones.
    #[serde(skip_serializing_if = "super::is_false")]
    pub run_immediately: bool,
    /// With the DevTools command-line API (`getEventListeners` …).
    #[serde(rename = "includeCommandLineAPI", skip_serializing_if = "super::is_false")]
    pub include_command_line_api: bool,
}
command!(AddScriptToEvaluateOnNewDocument<'a>, "Page.addScriptToEvaluateOnNewDocument", ScriptAdded);

#[derive(Debug, Clone, Default, Deserialize)]
pub struct ScriptAdded {
    #[serde(default)]
    pub identifier: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct RemoveScriptToEvaluateOnNewDocument<'a> {
    pub identifier: &'a str,
}
command!(RemoveScriptToEvaluateOnNewDocument<'a>, "Page.removeScriptToEvaluateOnNewDocument", Done);

#[derive(Debug, Clone, Serialize)]
pub struct Reload {}
command!(Reload, "Page.reload", Done);

/// Cancels the navigation under way.
#[derive(Debug, Clone, Serialize)]
pub struct StopLoading {}
command!(StopLoading, "Page.stopLoading", Done);

#[derive(Debug, Clone, Serialize)]
pub struct GetNavigationHistory {}
command!(GetNavigationHistory, "Page.getNavigationHistory", History);

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct History {
    #[serde(default)]
    pub current_index: i64,
    #[serde(default)]
    pub entries: Vec<HistoryEntry>,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub struct HistoryEntry {
    #[serde(default)]
    pub id: i64,
    #[serde(default)]
    pub url: String,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NavigateToHistoryEntry {
    pub entry_id: i64,
}
command!(NavigateToHistoryEntry, "Page.navigateToHistoryEntry", Done);

/// Hands the page's file choosers to the service (`Page.fileChooserOpened`) instead of opening.
#[derive(Debug, Clone, Serialize)]
pub struct SetInterceptFileChooserDialog {
    pub enabled: bool,
}
command!(SetInterceptFileChooserDialog, "Page.setInterceptFileChooserDialog", Done);

/// Answers the JavaScript dialog that is open.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HandleJavaScriptDialog {
    pub accept: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt_text: Option<String>,
}
command!(HandleJavaScriptDialog, "Page.handleJavaScriptDialog", Done);

/// What a frame loaded from `url` (a script, a stylesheet, its document), as the browser keeps it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GetResourceContent<'a> {
    pub frame_id: &'a FrameId,
    pub url: &'a str,
}
command!(GetResourceContent<'a>, "Page.getResourceContent", Content);

/// Shows the page's tab in front (the visible one).
#[derive(Debug, Clone, Serialize)]
pub struct BringToFront {}
command!(BringToFront, "Page.bringToFront", Done);

/// Loads `url` in the page, with no wait for it.
#[derive(Debug, Clone, Serialize)]
pub struct Navigate<'a> {
    pub url: &'a str,
}
command!(Navigate<'a>, "Page.navigate", Done);

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn frame_ids_come_depth_first_from_the_main_frame() {
        let tree: FrameTreeAnswer = serde_json::from_value(json!({"frameTree": {"frame": {"id": "M"},
            "childFrames": [{"frame": {"id": "A"}, "childFrames": [{"frame": {"id": "A1"}}]}, {"frame": {"id": "B"}}]}}))
        .unwrap();
        assert_eq!(tree.frame_tree.ids(), vec!["M", "A", "A1", "B"]);
    }
}
