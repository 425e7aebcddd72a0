//! The document as a whole: scripts that run before the page's own in every new document
//! (`page.addInitScript`), printing it to PDF (`page.pdf`) and its runtime counters
//! (`page.metrics`).

use base64::Engine;
use serde_json::json;
use tokio::time::Instant;

use super::handle::Page;
use crate::browser::error::BrowserError;

/// Init scripts a session may hold.
pub const MAX_INIT_SCRIPTS: usize = 32;

/// Paper and options for `page.pdf`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PdfOptions {
    /// Inches.
    pub paper: (f64, f64),
    pub landscape: bool,
    pub print_background: bool,
}

impl Page {
    /// Adds a script every new document of the page runs before its own scripts; returns its id.
    pub async fn add_init_script(&self, source: &str, deadline: Instant) -> Result<String, BrowserError> {
        if self.init_scripts().len() >= MAX_INIT_SCRIPTS {
            return Err(BrowserError::InvalidParam {
                param: "script".into(),
                message: format!("a session holds at most {MAX_INIT_SCRIPTS} init scripts; remove one first"),
            });
        }
        let answer = self.cdp("Page.addScriptToEvaluateOnNewDocument", json!({ "source": source }), deadline).await?;
        let id = answer["identifier"].as_str().unwrap_or_default().to_owned();
        self.init_scripts().push((id.clone(), source.to_owned()));
        Ok(id)
    }

    /// Removes an init script; false when there is none with that id.
    pub async fn remove_init_script(&self, id: &str, deadline: Instant) -> Result<bool, BrowserError> {
        if !self.init_scripts().iter().any(|(i, _)| i == id) {
            return Ok(false);
        }
        self.cdp("Page.removeScriptToEvaluateOnNewDocument", json!({ "identifier": id }), deadline).await?;
        self.init_scripts().retain(|(i, _)| i != id);
        Ok(true)
    }

    /// The init scripts, in the order they run: (id, script).
    pub fn init_script_list(&self) -> Vec<(String, String)> {
        self.init_scripts().clone()
    }

    /// Prints the page as the browser's print preview would; returns the PDF's bytes, base64.
    pub async fn pdf(&self, options: PdfOptions, deadline: Instant) -> Result<String, BrowserError> {
        let params = json!({
            "paperWidth": options.paper.0, "paperHeight": options.paper.1,
            "landscape": options.landscape, "printBackground": options.print_background,
        });
        let answer = self.cdp("Page.printToPDF", params, deadline).await?;
        let data = answer["data"].as_str().unwrap_or_default();
        let bytes = base64::engine::general_purpose::STANDARD.decode(data).unwrap_or_default();
        if !bytes.starts_with(b"%PDF") {
            return Err(BrowserError::Protocol {
                method: "Page.printToPDF".into(),
                message: "the browser returned no PDF".into(),
            });
        }
        Ok(data.to_owned())
    }

    /// Chromium's runtime counters for the page (`Performance.getMetrics`): name → value.
    pub async fn metrics(&self, deadline: Instant) -> Result<Vec<(String, f64)>, BrowserError> {
        self.cdp("Performance.enable", json!({}), deadline).await?;
        let answer = self.cdp("Performance.getMetrics", json!({}), deadline).await?;
        Ok(answer["metrics"]
            .as_array()
            .map(|m| m.iter().filter_map(|e| Some((e["name"].as_str()?.to_owned(), e["value"].as_f64()?))).collect())
            .unwrap_or_default())
    }
}
