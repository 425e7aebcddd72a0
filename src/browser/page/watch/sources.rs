//! The source lines of scripts the page runs, from the browser's own copy.
//!
//! A page error at `app.js:76:31` is only useful with line 76 beside it. The browser still holds
//! the scripts a page loaded; `Page.getResourceContent` returns that copy — never fetched again
//! over the network. A document's own HTML (where inline scripts' lines are counted) is not kept
//! by Chromium; the body the session captured when it loaded serves instead. Files are cached per
//! page, within a byte cap.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use tokio::time::Instant;

use crate::browser::chromium::cdp;
use crate::browser::chromium::ids::FrameId;
use crate::browser::chromium::protocol::page::{GetFrameTree, GetResourceContent};

/// Bytes of script sources one page keeps cached.
const CACHE_CAP: usize = 4 * 1024 * 1024;
/// Characters of a long (minified) line shown around the column.
const WINDOW: usize = 120;

#[derive(Debug, Default)]
pub struct SourceCache {
    files: HashMap<String, Arc<Vec<String>>>,
    order: VecDeque<String>,
    bytes: usize,
}

impl SourceCache {
    pub fn get(&self, url: &str) -> Option<Arc<Vec<String>>> {
        self.files.get(url).cloned()
    }

    pub fn insert(&mut self, url: &str, text: &str) -> Arc<Vec<String>> {
        let lines: Arc<Vec<String>> = Arc::new(text.lines().map(str::to_owned).collect());
        let size = text.len();
        while self.bytes + size > CACHE_CAP {
            let Some(oldest) = self.order.pop_front() else { break };
            if let Some(old) = self.files.remove(&oldest) {
                self.bytes -= old.iter().map(|l| l.len() + 1).sum::<usize>().min(self.bytes);
            }
        }
        self.bytes += size;
        self.order.push_back(url.to_owned());
        self.files.insert(url.to_owned(), lines.clone());
        lines
    }
}

/// The text of `url` as the page loaded it: the browser's copy of a script, or, for a document
/// (whose HTML Chromium does not keep), `captured`: the body the session captured when it loaded.
pub async fn text_of(
    page: &chromiumoxide::Page,
    main_frame: &FrameId,
    url: &str,
    captured: impl Fn() -> Option<Arc<str>>,
    deadline: Instant,
) -> Option<String> {
    if let Some(text) = fetch(page, main_frame, url, deadline).await {
        return Some(text);
    }
    captured().map(|text| text.to_string())
}

/// The text of `url` as the page loaded it, from the frame that has it (the main frame first).
pub async fn fetch(page: &chromiumoxide::Page, main_frame: &FrameId, url: &str, deadline: Instant) -> Option<String> {
    let url = url.split('#').next().unwrap_or(url);
    let mut frames = vec![main_frame.clone()];
    let mut tried_tree = false;
    let mut i = 0;
    loop {
        if let Some(frame) = frames.get(i) {
            let asked = GetResourceContent { frame_id: frame, url };
            if let Ok(answer) = cdp::send(page, asked, deadline).await {
                return answer.text();
            }
            i += 1;
            continue;
        }
        if tried_tree {
            return None;
        }
        tried_tree = true;
        let tree = cdp::send(page, GetFrameTree {}, deadline).await.ok()?;
        frames.extend(tree.frame_tree.ids().into_iter().filter(|f| f != main_frame));
    }
}

/// Lines `line - context ..= line + context` of a file (1-based), numbered, the line itself
/// marked with `>` and, when `column` is known, a caret under it. Long lines are cut to a window
/// around the column.
pub fn excerpt(lines: &[String], line: u32, column: Option<u32>, context: u32) -> Option<String> {
    let line = line as usize;
    if line == 0 || line > lines.len() {
        return None;
    }
    let first = line.saturating_sub(context as usize).max(1);
    let last = (line + context as usize).min(lines.len());
    let width = last.to_string().len();
    // The window is chosen on the marked line and applied to its neighbours alike.
    let col = column.map(|c| c.saturating_sub(1) as usize);
    let marked: Vec<char> = lines[line - 1].chars().collect();
    let start = match col {
        Some(c) if marked.len() > WINDOW => c.saturating_sub(WINDOW / 2).min(marked.len().saturating_sub(WINDOW)),
        _ => 0,
    };
    let mut out = String::new();
    for n in first..=last {
        let chars: Vec<char> = lines[n - 1].chars().collect();
        let shown: String = chars.iter().skip(start).take(WINDOW).collect();
        let prefix = if start > 0 && !shown.is_empty() { "…" } else { "" };
        let suffix = if chars.len() > start + WINDOW { "…" } else { "" };
        let mark = if n == line { '>' } else { ' ' };
        out.push_str(&format!("{mark} {n:>width$} | {prefix}{}{suffix}\n", shown.trim_end()));
        if n == line
            && let Some(c) = col
        {
            let pad = c.saturating_sub(start) + prefix.chars().count();
            out.push_str(&format!("  {:>width$} | {}^\n", "", " ".repeat(pad)));
        }
    }
    Some(out.trim_end().to_owned())
}

/// `count` lines from `first` (1-based), numbered, long lines cut to the window.
pub fn numbered(lines: &[String], first: u32, count: u32) -> Option<String> {
    let first = first as usize;
    if first == 0 || first > lines.len() {
        return None;
    }
    let last = (first + count as usize - 1).min(lines.len());
    let width = last.to_string().len();
    let shown: Vec<String> = (first..=last)
        .map(|n| {
            let line = &lines[n - 1];
            let cut: String = line.chars().take(WINDOW).collect();
            let more = if line.chars().count() > WINDOW { "…" } else { "" };
            format!("{n:>width$} | {}{more}", cut.trim_end())
        })
        .collect();
    Some(shown.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(text: &str) -> Vec<String> {
        text.lines().map(str::to_owned).collect()
    }

    #[test]
    fn an_excerpt_marks_the_line_and_the_column() {
        let lines = file("a();\nconst total = data.order.id;\nb();\nc();");
        assert_eq!(
            excerpt(&lines, 2, Some(20), 1).unwrap(),
            "  1 | a();\n> 2 | const total = data.order.id;\n    |                    ^\n  3 | b();"
        );
        assert_eq!(excerpt(&lines, 1, None, 1).unwrap(), "> 1 | a();\n  2 | const total = data.order.id;");
        assert!(excerpt(&lines, 9, None, 1).is_none());
    }

    #[test]
    fn a_minified_line_is_cut_to_a_window_around_the_column() {
        let long = format!("{}boom(){}", "x".repeat(500), "y".repeat(500));
        let shown = excerpt(&[long], 1, Some(501), 0).unwrap();
        let first = shown.lines().next().unwrap();
        assert!(first.contains("boom()") && first.contains('…'), "{shown}");
        assert!(first.chars().count() < WINDOW + 20, "{shown}");
        let caret = shown.lines().nth(1).unwrap();
        let at = first.chars().position(|c| c == 'b').unwrap();
        assert_eq!(caret.chars().position(|c| c == '^'), Some(at), "{shown}");
    }

    #[test]
    fn numbered_lines_start_where_asked() {
        let lines = file("a\nb\nc\nd");
        assert_eq!(numbered(&lines, 2, 2).unwrap(), "2 | b\n3 | c");
        assert_eq!(numbered(&lines, 4, 3).unwrap(), "4 | d");
        assert!(numbered(&lines, 5, 1).is_none());
    }

    #[test]
    fn the_cache_stays_within_its_cap() {
        let mut cache = SourceCache::default();
        let big = "x\n".repeat(CACHE_CAP / 4);
        for i in 0..10 {
            cache.insert(&format!("http://a/{i}.js"), &big);
        }
        assert!(cache.bytes <= CACHE_CAP);
        assert!(cache.get("http://a/9.js").is_some() && cache.get("http://a/0.js").is_none());
    }
}
