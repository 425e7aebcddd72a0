//! page.snapshot: the page as a compact accessibility tree, with refs on what an agent can act on.
//!
//! Roles, names and states come from Chromium's own accessibility tree, every frame's, iframes
//! placed under their `iframe` node; which elements are actionable beyond their role (click
//! listeners, `cursor: pointer`) from the DOM.
//!
//! - `fetch`: gathering both, leaving long runs of look-alike items out of the fetch
//! - `prune`: which runs are left out and where their placeholders go (pure)
//! - `render`: the tree as snapshot text, refs issued through the page's ref table
//!
//! Here the text is kept for the next diff (`snapshot: "diff"`).

mod fetch;
mod prune;
mod render;

use tokio::time::Instant;

pub use render::Snapshot;

use super::handle::Page;
use super::locate::refs::RefTarget;
use super::locate::target::Target;
use crate::browser::error::BrowserError;
use fetch::{Gathered, gather};
use render::{Renderer, fit};

#[derive(Debug, Clone)]
pub struct SnapshotOptions {
    /// Only the subtree of this element.
    pub element: Option<Target>,
    pub interactive_only: bool,
    pub max_chars: usize,
    pub depth: Option<usize>,
    /// Only the lines that changed since the previous snapshot of the same scope (`+` / `-`).
    pub since_last: bool,
}

impl SnapshotOptions {
    /// Snapshots are compared with the previous one taken with the same scope and filters.
    fn scope(&self) -> String {
        format!("{:?}|{}|{:?}", self.element.as_ref().map(|t| t.to_string()), self.interactive_only, self.depth)
    }
}

impl Page {
    pub async fn snapshot(&self, options: &SnapshotOptions, deadline: Instant) -> Result<Snapshot, BrowserError> {
        let loader = self.loader_id();
        let Gathered { forest, actionable, root } = gather(self, options.element.as_ref(), deadline).await?;
        let lines = {
            let mut refs = self.locate().refs();
            let mut issue = |target: RefTarget| refs.issue(loader.as_str(), target);
            Renderer::new(&forest, &actionable, options.interactive_only, options.depth, &mut issue).lines(root)
        };
        // The previous snapshot of this scope and document, kept for the next diff.
        let previous = self.remember_snapshot(&format!("{loader}|{}", options.scope()), lines.clone());
        match previous.filter(|_| options.since_last) {
            Some(previous) => Ok(diff(&previous, &lines, options.max_chars)),
            None => Ok(fit(&lines, options.max_chars)),
        }
    }
}

/// A snapshot line without its `- ` bullet (indentation kept), so a diff line reads
/// `+   button "Save" [ref=e4]` rather than `+   - button …`.
fn unbulleted(line: &str) -> String {
    let indent = line.len() - line.trim_start().len();
    match line[indent..].strip_prefix("- ") {
        Some(rest) => format!("{} {rest}", &line[..indent]),
        None => format!(" {}", line),
    }
}

/// The lines that changed from `old` to `new` (`-` removed, `+` added, each line's own bullet
/// left out), cut at `max_chars`.
fn diff(old: &[String], new: &[String], max_chars: usize) -> Snapshot {
    let old: Vec<&str> = old.iter().map(String::as_str).collect();
    let new_lines: Vec<&str> = new.iter().map(String::as_str).collect();
    let changes = similar::TextDiff::from_slices(&old, &new_lines);
    let mut changed = Vec::new();
    let mut unchanged = 0;
    for change in changes.iter_all_changes() {
        match change.tag() {
            similar::ChangeTag::Equal => unchanged += 1,
            similar::ChangeTag::Delete => changed.push(format!("-{}", unbulleted(change.value()))),
            similar::ChangeTag::Insert => changed.push(format!("+{}", unbulleted(change.value()))),
        }
    }
    if changed.is_empty() {
        changed.push("(no change since the previous snapshot)".to_owned());
    }
    let mut snapshot = fit(&changed, max_chars);
    snapshot.refs = new.iter().map(|l| l.matches("[ref=").count()).sum();
    snapshot.diff = Some(unchanged);
    snapshot
}
#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<String> {
        text.lines().map(str::to_owned).collect()
    }

    #[test]
    fn a_diff_shows_only_the_changed_lines() {
        let before =
            lines("- main:\n  - button \"Save\" [ref=e1]\n  - text: Saved 0 times\n  - link \"Home\" [ref=e2]");
        let after = lines("- main:\n  - button \"Save\" [ref=e1]\n  - text: Saved 1 times\n  - link \"Home\" [ref=e2]");
        let d = diff(&before, &after, 10_000);
        assert_eq!(d.snapshot, "-   text: Saved 0 times\n+   text: Saved 1 times\n");
        assert_eq!(d.diff, Some(3));
        assert_eq!(d.refs, 2, "refs count the whole new snapshot");
        assert_eq!(diff(&after, &after, 10_000).snapshot, "(no change since the previous snapshot)\n");
    }
}
