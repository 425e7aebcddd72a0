//! page.snapshot: the page as a compact accessibility tree, with refs on what an agent can act on.
//!
//! Roles, names and states come from Chromium's own accessibility tree (`Accessibility.getFullAXTree`,
//! once per frame, iframes placed under their `iframe` node via `DOM.getFrameOwner`). Which elements
//! are actionable beyond their role (click handlers, `cursor: pointer`) comes from one
//! `DOMSnapshot.captureSnapshot`. `ax_render` turns both into the text.

use std::collections::HashSet;

use serde_json::{Value, json};
use tokio::time::Instant;

use super::ax_render::{Forest, Renderer, Snapshot, fit};
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
        let main = self.target_id().to_owned();
        let tree = self.cdp("Page.getFrameTree", json!({}), deadline).await?;
        let mut frames = Vec::new();
        collect_frames(tree.get("frameTree").unwrap_or(&Value::Null), &mut frames);
        self.cdp("DOM.getDocument", json!({ "depth": 0 }), deadline).await?;
        let mut forest = Forest::default();
        for frame in &frames {
            let answer = self.cdp("Accessibility.getFullAXTree", json!({ "frameId": frame }), deadline).await;
            match answer {
                Ok(answer) => forest.add_frame(frame, &answer),
                // A frame that went away between listing and reading is simply not shown.
                Err(err) if *frame == main => return Err(err),
                Err(_) => continue,
            }
            if *frame != main
                && let Ok(owner) = self.cdp("DOM.getFrameOwner", json!({ "frameId": frame }), deadline).await
                && let Some(backend) = owner.get("backendNodeId").and_then(Value::as_i64)
            {
                forest.owners.insert(backend, frame.clone());
            }
        }
        let actionable = self.actionable_nodes(deadline).await?;
        let root = match &options.element {
            Some(target) => {
                let backend = self.element_backend_id(target, deadline).await?;
                forest.by_backend(backend).ok_or_else(|| BrowserError::ElementNotFound(target.to_string()))?
            }
            None => *forest.roots.get(&main).ok_or_else(|| BrowserError::Protocol {
                method: "Accessibility.getFullAXTree".into(),
                message: "no root node for the page".into(),
            })?,
        };
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

    /// Elements that respond to clicks (listeners, links) or show a pointer cursor where their
    /// parent does not, in every frame.
    async fn actionable_nodes(&self, deadline: Instant) -> Result<HashSet<i64>, BrowserError> {
        let snap = self
            .cdp(
                "DOMSnapshot.captureSnapshot",
                json!({ "computedStyles": ["cursor"], "includeDOMRects": false }),
                deadline,
            )
            .await?;
        let strings: Vec<&str> = snap
            .get("strings")
            .and_then(Value::as_array)
            .map(|s| s.iter().map(|v| v.as_str().unwrap_or_default()).collect())
            .unwrap_or_default();
        let mut out = HashSet::new();
        for doc in snap.get("documents").and_then(Value::as_array).into_iter().flatten() {
            let ints = |path: &str| -> Vec<i64> {
                doc.pointer(path)
                    .and_then(Value::as_array)
                    .map(|a| a.iter().filter_map(Value::as_i64).collect())
                    .unwrap_or_default()
            };
            let backend = ints("/nodes/backendNodeId");
            let parent = ints("/nodes/parentIndex");
            for i in ints("/nodes/isClickable/index") {
                if let Some(b) = backend.get(i as usize) {
                    out.insert(*b);
                }
            }
            let node_index = ints("/layout/nodeIndex");
            let styles = doc.pointer("/layout/styles").and_then(Value::as_array).cloned().unwrap_or_default();
            let pointer: HashSet<i64> = node_index
                .iter()
                .zip(styles.iter())
                .filter(|(_, style)| {
                    style.get(0).and_then(Value::as_i64).and_then(|s| strings.get(s as usize)) == Some(&"pointer")
                })
                .map(|(node, _)| *node)
                .collect();
            for node in &pointer {
                let parent_points = parent.get(*node as usize).is_some_and(|p| pointer.contains(p));
                if !parent_points && let Some(b) = backend.get(*node as usize) {
                    out.insert(*b);
                }
            }
        }
        Ok(out)
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

fn collect_frames(tree: &Value, out: &mut Vec<String>) {
    if let Some(id) = tree.pointer("/frame/id").and_then(Value::as_str) {
        out.push(id.to_owned());
    }
    for child in tree.get("childFrames").and_then(Value::as_array).into_iter().flatten() {
        collect_frames(child, out);
    }
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
