//! The document as a whole: scripts that run before the page's own in every new document
//! (`page.addInitScript`), printing it to PDF (`page.pdf`) and its runtime counters
//! (`page.metrics`).

use base64::Engine;
use tokio::time::Instant;

use super::core::lock;
use super::handle::Page;
use crate::browser::chromium::protocol::emulation::{GetMetrics, PerformanceEnable};
use crate::browser::chromium::protocol::page::{
    AddScriptToEvaluateOnNewDocument, PrintToPdf, RemoveScriptToEvaluateOnNewDocument,
};
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

/// The document as a whole (see the module doc): `page.document()`.
#[derive(Clone, Copy)]
pub struct Document<'a> {
    page: &'a Page,
}

impl Page {
    /// Init scripts, printing and runtime counters of this page's documents.
    pub fn document(&self) -> Document<'_> {
        Document { page: self }
    }
}

impl<'a> Document<'a> {
    /// Adds a script every new document of the page runs before its own scripts; returns its id.
    pub async fn add_init_script(self, source: &str, deadline: Instant) -> Result<String, BrowserError> {
        if lock(&self.page.init_scripts).len() >= MAX_INIT_SCRIPTS {
            return Err(BrowserError::InvalidParam {
                param: "script".into(),
                message: format!("a session holds at most {MAX_INIT_SCRIPTS} init scripts; remove one first"),
            });
        }
        let id = self
            .page
            .send(
                AddScriptToEvaluateOnNewDocument {
                    source,
                    world_name: None,
                    run_immediately: false,
                    include_command_line_api: false,
                },
                deadline,
            )
            .await?
            .identifier;
        lock(&self.page.init_scripts).push((id.clone(), source.to_owned()));
        Ok(id)
    }

    /// Removes an init script; false when there is none with that id.
    pub async fn remove_init_script(self, id: &str, deadline: Instant) -> Result<bool, BrowserError> {
        if !lock(&self.page.init_scripts).iter().any(|(i, _)| i == id) {
            return Ok(false);
        }
        self.page.send(RemoveScriptToEvaluateOnNewDocument { identifier: id }, deadline).await?;
        lock(&self.page.init_scripts).retain(|(i, _)| i != id);
        Ok(true)
    }

    /// The init scripts, in the order they run: (id, script).
    pub fn init_script_list(self) -> Vec<(String, String)> {
        lock(&self.page.init_scripts).clone()
    }

    /// Prints the page as the browser's print preview would; returns the PDF's bytes, base64.
    pub async fn pdf(self, options: PdfOptions, deadline: Instant) -> Result<String, BrowserError> {
        let print = PrintToPdf {
            paper_width: options.paper.0,
            paper_height: options.paper.1,
            landscape: options.landscape,
            print_background: options.print_background,
        };
        let data = self.page.send(print, deadline).await?.data;
        let bytes = base64::engine::general_purpose::STANDARD.decode(&data).unwrap_or_default();
        if !bytes.starts_with(b"%PDF") {
            return Err(BrowserError::protocol("Page.printToPDF", "the browser returned no PDF"));
        }
        Ok(data)
    }

    /// Chromium's runtime counters for the page (`Performance.getMetrics`): name → value.
    pub async fn metrics(self, deadline: Instant) -> Result<Vec<(String, f64)>, BrowserError> {
        self.page.send(PerformanceEnable {}, deadline).await?;
        let metrics = self.page.send(GetMetrics {}, deadline).await?.metrics;
        Ok(metrics.into_iter().map(|metric| (metric.name, metric.value)).collect())
    }
}
