//! Reading the page: visible text (`page.text`, plain or as Markdown) and post-JavaScript HTML
//! (`page.content`).
//!
//! The browser extracts; normalization and clamping happen here in Rust, where they are unit-tested.

use serde_json::json;
use tokio::time::Instant;

use super::handle::Page;
use super::locate::scripts::{ContentOf, Markdown, Text};
use super::locate::target::Target;
use crate::browser::error::BrowserError;

/// How `page.text` renders what is visible.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum TextFormat {
    /// What innerText shows.
    #[default]
    Text,
    /// The same text with headings, lists, links, tables and code blocks marked up.
    Markdown,
}

/// Visible text, possibly clamped.
#[derive(Debug, Clone, PartialEq)]
pub struct PageText {
    pub text: String,
    pub truncated: bool,
}

impl Page {
    pub async fn text(
        &self,
        target: &Target,
        format: TextFormat,
        max_chars: usize,
        normalize: bool,
        deadline: Instant,
    ) -> Result<PageText, BrowserError> {
        let raw = match format {
            TextFormat::Text => self.locate().call_on(Text, target, &[], deadline).await?,
            TextFormat::Markdown => self.locate().call_on(Markdown, target, &[], deadline).await?,
        };
        let raw = self.redact(&raw);
        let text = if normalize { normalize_text(&raw) } else { raw };
        Ok(clamp_chars(text, max_chars))
    }

    /// The document's HTML, cut to `max_chars` characters (then `truncated`). A document longer
    /// than `limit` characters (one answer's bytes) is not sent from the page unless `max_chars`
    /// cuts it: its length is (`result_too_large`).
    pub async fn content(
        &self,
        max_chars: Option<usize>,
        limit: usize,
        deadline: Instant,
    ) -> Result<PageText, BrowserError> {
        let read = max_chars.unwrap_or(limit).min(limit);
        // JavaScript counts UTF-16 units: one more than the characters wanted says "there is more".
        let answer = self.locate().call(ContentOf, &[json!(read.saturating_add(1))], deadline).await?;
        let length = answer.length as usize;
        let html = clamp_chars(answer.html, read);
        if html.truncated && max_chars.is_none_or(|max| max > limit) {
            return Err(BrowserError::TooLarge(format!(
                "the document's HTML is {length} characters, more than one answer may hold ({} MiB of JSON); \
                 pass maxChars to read its start, or read one part (page.text or page.snapshot with a selector)",
                limit / (1024 * 1024)
            )));
        }
        Ok(PageText { text: self.redact(&html.text), truncated: html.truncated })
    }
}

/// Removes `\r`, drops spaces and tabs before line ends, collapses 3+ newlines to 2, and trims.
pub fn normalize_text(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut newlines = 0usize;
    for (i, line) in raw.replace('\r', "").split('\n').enumerate() {
        if i > 0 {
            newlines += 1;
        }
        let line = line.trim_end_matches([' ', '\t']);
        if line.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push_str(if newlines >= 2 { "\n\n" } else { "\n" });
        }
        newlines = 0;
        out.push_str(line);
    }
    out.trim().to_owned()
}

/// Cuts `text` to at most `max` characters (not bytes).
pub fn clamp_chars(text: String, max: usize) -> PageText {
    match text.char_indices().nth(max) {
        Some((cut, _)) => PageText { text: text[..cut].to_owned(), truncated: true },
        None => PageText { text, truncated: false },
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalization_removes_cr_and_trailing_spaces() {
        assert_eq!(normalize_text("a  \r\nb\t\n"), "a\nb");
    }

    #[test]
    fn normalization_collapses_three_or_more_newlines_to_two() {
        assert_eq!(normalize_text("a\n\n\n\n\nb"), "a\n\nb");
        assert_eq!(normalize_text("a\n\nb"), "a\n\nb");
        assert_eq!(normalize_text("a\nb"), "a\nb");
        assert_eq!(normalize_text("a\n  \n \nb"), "a\n\nb");
    }

    #[test]
    fn normalization_trims_both_ends_but_keeps_leading_indentation_inside() {
        assert_eq!(normalize_text("\n\n  x\n    y  \n\n"), "x\n    y");
    }

    #[test]
    fn clamp_counts_characters_not_bytes() {
        let t = clamp_chars("héllo wörld".into(), 5);
        assert_eq!(t, PageText { text: "héllo".into(), truncated: true });
        let t = clamp_chars("short".into(), 5);
        assert_eq!(t, PageText { text: "short".into(), truncated: false });
    }
}
