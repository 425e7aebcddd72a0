//! page.snapshot: the page as a compact accessibility tree, with refs on what an agent can act on.
//!
//! Roles, names and states come from Chromium's own accessibility tree, every frame's, iframes
//! placed under their `iframe` node; which elements are actionable beyond their role (click
//! listeners, `cursor: pointer`) from the DOM. `ax_fetch` gathers both (leaving long runs of
//! look-alike items out of the fetch), `ax_render` turns them into the text; here the text is
//! kept for the next diff.

use tokio::time::Instant;

use super::ax_fetch::Gathered;
use super::ax_render::{Renderer, Snapshot, fit};
use super::handle::Page;
use super::refs::RefTarget;
use super::target::Target;
use crate::browser::error::BrowserError;

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
        let Gathered { forest, actionable, root } = self.gather(options.element.as_ref(), deadline).await?;
        let lines = {
            let mut refs = self.refs();
            let mut issue = |target: RefTarget| refs.issue(&loader, target);
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
