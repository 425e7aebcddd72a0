//! Rendering accessibility trees as snapshot text: one node per line, `- role "name" [states]
//! [ref=e5]: value`, indented by nesting.
//!
//! Pure: it takes every frame's tree (a [`Forest`], as `fetch` gathered it) and the set of
//! elements that are actionable beyond their role, and builds the text: generic wrappers folded
//! away, long runs of similar siblings collapsed with a count, cut at `maxChars`. Refs are issued
//! through a callback, so the ref table stays with the page. A run the fetch left out is one
//! placeholder node standing for its items ([`Forest::insert_run`]), counted like them.

use std::collections::{HashMap, HashSet};

use crate::browser::chromium::protocol::accessibility::{self as protocol, AxValue};
use crate::browser::page::locate::refs::RefTarget;

/// Roles that are acted on by nature.
const INTERACTIVE: &[&str] = &[
    "link",
    "button",
    "textbox",
    "searchbox",
    "checkbox",
    "radio",
    "combobox",
    "listbox",
    "option",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "tab",
    "switch",
    "slider",
    "spinbutton",
    "treeitem",
    "MenuListOption",
];

/// Roles kept by `interactiveOnly` for context.
const LANDMARKS: &[&str] = &[
    "heading",
    "main",
    "navigation",
    "banner",
    "contentinfo",
    "complementary",
    "region",
    "form",
    "search",
    "dialog",
    "alertdialog",
    "Iframe",
];

/// Roles that only wrap others: folded away unless they carry a ref.
const WRAPPERS: &[&str] =
    &["generic", "none", "presentation", "RootWebArea", "LineBreak", "Section", "sectionheader", "LabelText"];

/// Roles never shown (their text is already in the parent's name or content).
const HIDDEN: &[&str] = &["InlineTextBox", "ListMarker"];

/// Runs of more than this many similar siblings (without refs) are collapsed...
pub const RUN_LIMIT: usize = 10;
/// ...to this many, plus a count.
pub const RUN_KEEP: usize = 5;
const NAME_LIMIT: usize = 120;
const TEXT_LIMIT: usize = 300;

#[derive(Debug, Clone, PartialEq)]
pub struct Snapshot {
    pub snapshot: String,
    pub refs: usize,
    pub truncated: bool,
    /// For a diff against the previous snapshot: how many lines did not change.
    pub diff: Option<usize>,
}

/// One accessibility node, from any frame.
#[derive(Debug, Clone, Default)]
pub struct AxNode {
    pub role: String,
    pub name: String,
    pub value: String,
    pub ignored: bool,
    pub backend: Option<i64>,
    pub frame: String,
    pub props: Vec<(String, String)>,
    pub children: Vec<usize>,
    /// For a placeholder: how many siblings of its role, with nothing to act on, it stands for
    /// (0 for a real node).
    pub stands_for: usize,
}

/// Every frame's tree, with iframe owners linked to their frame's root.
#[derive(Debug, Default)]
pub struct Forest {
    pub nodes: Vec<AxNode>,
    /// Root node of each frame.
    pub roots: HashMap<String, usize>,
    /// Backend node id of an `<iframe>` → the frame it holds.
    pub owners: HashMap<i64, String>,
}

impl Forest {
    /// Adds one frame's tree (`getFullAXTree`'s nodes).
    pub fn add_frame(&mut self, frame: &str, nodes: &[protocol::AxNode]) {
        let base = self.nodes.len();
        let index: HashMap<&str, usize> =
            nodes.iter().enumerate().map(|(i, n)| (n.node_id.as_str(), base + i)).collect();
        for node in nodes {
            let text = |value: &Option<AxValue>| value.as_ref().map(AxValue::text).unwrap_or_default();
            let props = node
                .properties
                .iter()
                .filter(|p| p.value.value.is_some())
                .map(|p| (p.name.clone(), p.value.text()))
                .collect();
            let children = node.child_ids.iter().filter_map(|id| index.get(id.as_str()).copied()).collect();
            self.nodes.push(AxNode {
                role: text(&node.role),
                name: text(&node.name),
                value: text(&node.value),
                ignored: node.ignored,
                backend: node.backend_dom_node_id,
                frame: frame.to_owned(),
                props,
                children,
                stands_for: 0,
            });
        }
        let root = nodes.iter().position(|n| n.parent_id.is_none()).map(|i| base + i);
        if let Some(root) = root {
            self.roots.insert(frame.to_owned(), root);
        }
    }

    pub fn by_backend(&self, backend: i64) -> Option<usize> {
        self.nodes.iter().position(|n| n.backend == Some(backend))
    }

    /// Puts a placeholder for `count` siblings of `role` (left out of the fetch) among the children
    /// of node `parent`, at position `at`.
    pub fn insert_run(&mut self, parent: usize, at: usize, role: &str, count: usize) {
        let frame = self.nodes[parent].frame.clone();
        self.nodes.push(AxNode { role: role.to_owned(), frame, stands_for: count, ..AxNode::default() });
        let id = self.nodes.len() - 1;
        let children = &mut self.nodes[parent].children;
        children.insert(at.min(children.len()), id);
    }
}

/// True for roles that only wrap others (folded away unless they carry a ref).
pub fn is_wrapper(role: &str) -> bool {
    WRAPPERS.contains(&role)
}

/// What one rendered node (or a folded node's children) turned into.
#[derive(Clone)]
struct Item {
    lines: Vec<(usize, String)>,
    role: String,
    has_ref: bool,
    /// Plain text (a StaticText run), which a parent may inline.
    text: Option<String>,
    /// How many siblings it stands for in a run: 1, or a placeholder's count (it has no lines).
    weight: usize,
}

impl Item {
    fn new(lines: Vec<(usize, String)>, role: &str, has_ref: bool, text: Option<String>) -> Self {
        Self { lines, role: role.to_owned(), has_ref, text, weight: 1 }
    }
}

/// Turns a forest into snapshot text. `issue` names an element (frame, backend node id).
pub struct Renderer<'a> {
    forest: &'a Forest,
    actionable: &'a HashSet<i64>,
    interactive_only: bool,
    depth: Option<usize>,
    issue: &'a mut dyn FnMut(RefTarget) -> String,
}

impl<'a> Renderer<'a> {
    pub fn new(
        forest: &'a Forest,
        actionable: &'a HashSet<i64>,
        interactive_only: bool,
        depth: Option<usize>,
        issue: &'a mut dyn FnMut(RefTarget) -> String,
    ) -> Self {
        Self { forest, actionable, interactive_only, depth, issue }
    }

    /// Renders from `root` and cuts the text at `max_chars`.
    #[cfg(test)]
    pub fn render(&mut self, root: usize, max_chars: usize) -> Snapshot {
        fit(&self.lines(root), max_chars)
    }

    /// The snapshot's lines from `root`, indented, before any cut.
    pub fn lines(&mut self, root: usize) -> Vec<String> {
        let items = self.node(root, 0);
        let items = collapse_runs(merge_text(items, 0));
        items.into_iter().flat_map(|i| i.lines).map(|(indent, line)| format!("{}{line}", "  ".repeat(indent))).collect()
    }

    fn wants_ref(&self, node: &AxNode) -> bool {
        let Some(backend) = node.backend else { return false };
        if node.ignored {
            return false;
        }
        INTERACTIVE.contains(&node.role.as_str())
            || (self.actionable.contains(&backend) && node.role != "LabelText")
            || (node.props.iter().any(|(k, v)| k == "focusable" && v == "true")
                && !WRAPPERS.contains(&node.role.as_str())
                && node.role != "Iframe"
                && node.role != "ScrollableArea")
    }

    fn node(&mut self, id: usize, indent: usize) -> Vec<Item> {
        let node = &self.forest.nodes[id];
        if let Some(leaf) = self.leaf(node) {
            return leaf;
        }
        let wants_ref = self.wants_ref(node);
        let keep = !node.ignored
            && (wants_ref
                || if self.interactive_only {
                    LANDMARKS.contains(&node.role.as_str())
                } else {
                    !WRAPPERS.contains(&node.role.as_str())
                });
        let child_indent = if keep { indent + 1 } else { indent };
        let items = self.children(id, child_indent);
        if !keep {
            return items;
        }
        let node = &self.forest.nodes[id];
        let mut line = head(node);
        let mut has_ref = false;
        if wants_ref && let Some(backend) = node.backend {
            let name = (self.issue)(RefTarget { frame_id: node.frame.as_str().into(), backend_node_id: backend });
            line.push_str(&format!(" [ref={name}]"));
            has_ref = true;
        }
        let (lines, children_have_refs) = body(node, line, items, indent);
        vec![Item::new(lines, &node.role, has_ref || children_have_refs, None)]
    }

    /// What a node with no line of its own renders as: nothing (hidden, or text and placeholders
    /// under `interactiveOnly`), a placeholder's weight, or its text; None for any other node.
    fn leaf(&self, node: &AxNode) -> Option<Vec<Item>> {
        if HIDDEN.contains(&node.role.as_str()) {
            return Some(Vec::new());
        }
        if node.stands_for > 0 {
            // Items with nothing to act on: interactiveOnly shows none of them.
            if self.interactive_only {
                return Some(Vec::new());
            }
            return Some(vec![Item { weight: node.stands_for, ..Item::new(Vec::new(), &node.role, false, None) }]);
        }
        if node.role == "StaticText" {
            let text = collapse_ws(&node.name);
            if text.is_empty() || self.interactive_only {
                return Some(Vec::new());
            }
            return Some(vec![Item::new(Vec::new(), "text", false, Some(text))]);
        }
        None
    }

    /// A node's children rendered at `indent` (an iframe's content is its frame's tree), text
    /// merged and long runs collapsed; none past the depth asked for.
    fn children(&mut self, id: usize, indent: usize) -> Vec<Item> {
        let node = &self.forest.nodes[id];
        let children: Vec<usize> = match node.backend.and_then(|b| self.forest.owners.get(&b)) {
            Some(frame) => self.forest.roots.get(frame).map(|r| vec![*r]).unwrap_or_default(),
            None => node.children.clone(),
        };
        let mut items = Vec::new();
        if self.depth.is_none_or(|d| indent <= d) {
            for child in children {
                items.extend(self.node(child, indent));
            }
        }
        collapse_runs(merge_text(items, indent))
    }
}

/// `- role "name" [states]`: the start of a node's line.
fn head(node: &AxNode) -> String {
    let mut line = format!("- {}", display_role(&node.role));
    let name = clip(&collapse_ws(&node.name), NAME_LIMIT);
    if !name.is_empty() {
        line.push(' ');
        line.push_str(&serde_json::to_string(&name).unwrap_or_default());
    }
    for (key, value) in &node.props {
        match (key.as_str(), value.as_str()) {
            ("checked" | "pressed", "true") => line.push_str(&format!(" [{key}]")),
            ("checked" | "pressed", "mixed") => line.push_str(&format!(" [{key}=mixed]")),
            ("disabled" | "selected" | "required", "true") => line.push_str(&format!(" [{key}]")),
            ("expanded", "true") => line.push_str(" [expanded]"),
            ("expanded", "false") => line.push_str(" [expanded=false]"),
            ("level", level) if node.role == "heading" => line.push_str(&format!(" [level={level}]")),
            _ => {}
        }
    }
    line
}

/// A kept node's lines from its `line` and its children's `items`: its value or its children's
/// text inline, or its children below it; and whether a child carries a ref.
fn body(node: &AxNode, mut line: String, items: Vec<Item>, indent: usize) -> (Vec<(usize, String)>, bool) {
    let name = clip(&collapse_ws(&node.name), NAME_LIMIT);
    let value = clip(&collapse_ws(&node.value), TEXT_LIMIT);
    let only_text: Option<String> = if items.iter().all(|i| i.text.is_some()) {
        Some(items.iter().filter_map(|i| i.text.clone()).collect::<Vec<_>>().join(" "))
    } else {
        None
    };
    let mut lines = Vec::new();
    let mut has_ref = false;
    match only_text {
        Some(text) if !value.is_empty() || text.is_empty() || collapse_ws(&node.name) == text => {
            if !value.is_empty() {
                line.push_str(&format!(": {value}"));
            }
            lines.push((indent, line));
        }
        Some(text) => {
            if name.is_empty() {
                line.push_str(&format!(": {}", clip(&text, TEXT_LIMIT)));
                lines.push((indent, line));
            } else {
                lines.push((indent, format!("{line}:")));
                lines.push((indent + 1, format!("- text: {}", clip(&text, TEXT_LIMIT))));
            }
        }
        None => {
            if !value.is_empty() {
                line.push_str(&format!(": {value}"));
            } else {
                line.push(':');
            }
            lines.push((indent, line));
            for item in items.iter() {
                has_ref |= item.has_ref;
            }
            lines.extend(items.into_iter().flat_map(|i| i.lines));
        }
    }
    (lines, has_ref)
}

/// Joins neighbouring text runs into one `- text:` line (kept as text for a parent to inline).
fn merge_text(items: Vec<Item>, indent: usize) -> Vec<Item> {
    let mut out: Vec<Item> = Vec::new();
    for item in items {
        match (&item.text, out.last_mut()) {
            (Some(text), Some(last)) if last.text.is_some() => {
                let joined = format!("{} {text}", last.text.as_deref().unwrap_or_default());
                last.lines = vec![(indent, format!("- text: {}", clip(&joined, TEXT_LIMIT)))];
                last.text = Some(joined);
            }
            (Some(text), _) => {
                let line = (indent, format!("- text: {}", clip(text, TEXT_LIMIT)));
                out.push(Item { lines: vec![line], ..item });
            }
            _ => out.push(item),
        }
    }
    out
}

/// Keeps the first few of a long run of same-role siblings without refs, and counts the rest (a
/// placeholder counts as the items it stands for, and always falls among the rest: the fetch kept
/// the run's first items before it).
fn collapse_runs(items: Vec<Item>) -> Vec<Item> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < items.len() {
        let role = items[i].role.clone();
        let mut end = i;
        while end < items.len() && items[end].role == role && !items[end].has_ref && items[end].text.is_none() {
            end += 1;
        }
        let run: usize = items[i..end.max(i + 1)].iter().map(|item| item.weight).sum();
        if run > RUN_LIMIT {
            let indent = items[i..end].iter().find_map(|item| item.lines.first()).map(|l| l.0).unwrap_or_default();
            out.extend(items[i..end].iter().filter(|item| !item.lines.is_empty()).take(RUN_KEEP).cloned());
            out.push(Item::new(
                vec![(indent, format!("- … {} more {}", run - RUN_KEEP, display_role(&role)))],
                &role,
                false,
                None,
            ));
            i = end;
        } else {
            out.push(items[i].clone());
            i += 1;
        }
    }
    out
}

/// Formats the lines and cuts them so the text fits in `max_chars` (on a line boundary, ending
/// with a note saying how many lines were left out).
pub fn fit(lines: &[String], max_chars: usize) -> Snapshot {
    let total: usize = lines.iter().map(|l| l.len() + 1).sum();
    let budget = if total <= max_chars { max_chars } else { max_chars.saturating_sub(NOTE_LIMIT) };
    let mut out = String::new();
    for (n, line) in lines.iter().enumerate() {
        if out.len() + line.len() + 1 > budget {
            out.push_str(&format!(
                "- … truncated: {} more lines (narrow with selector or interactiveOnly, or raise maxChars)\n",
                lines.len() - n
            ));
            return Snapshot { refs: out.matches("[ref=").count(), snapshot: out, truncated: true, diff: None };
        }
        out.push_str(line);
        out.push('\n');
    }
    Snapshot { refs: out.matches("[ref=").count(), snapshot: out, truncated: false, diff: None }
}

/// Room kept for the truncation note.
const NOTE_LIMIT: usize = 110;

fn display_role(role: &str) -> String {
    match role {
        "Iframe" => "iframe".into(),
        "MenuListOption" => "option".into(),
        "MenuListPopup" => "listbox".into(),
        other => other.to_owned(),
    }
}

fn collapse_ws(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn clip(s: &str, limit: usize) -> String {
    if s.chars().count() <= limit {
        return s.to_owned();
    }
    let mut cut: String = s.chars().take(limit).collect();
    cut.push('…');
    cut
}
#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    /// Adds a frame from its `getFullAXTree` answer, as Chromium sends it.
    fn add_frame(forest: &mut Forest, frame: &str, answer: &Value) {
        let nodes: protocol::AxNodes = serde_json::from_value(answer.clone()).unwrap();
        forest.add_frame(frame, &nodes.nodes);
    }

    fn node(id: &str, role: &str, name: &str, children: &[&str], backend: i64) -> Value {
        json!({"nodeId": id, "role": {"value": role}, "name": {"value": name}, "childIds": children,
               "backendDOMNodeId": backend, "ignored": false})
    }

    fn render(forest: &Forest, interactive_only: bool, max_chars: usize) -> Snapshot {
        let mut n = 0;
        let mut issue = |_t: RefTarget| {
            n += 1;
            format!("e{n}")
        };
        let actionable = HashSet::from([7]);
        let root = forest.roots["F"];
        Renderer::new(forest, &actionable, interactive_only, None, &mut issue).render(root, max_chars)
    }

    fn page() -> Forest {
        let mut items: Vec<Value> =
            (0..30).map(|i| node(&format!("li{i}"), "listitem", "", &[&format!("t{i}")], 100 + i)).collect();
        items.extend((0..30).map(|i| node(&format!("t{i}"), "StaticText", &format!("Item {i}"), &[], 200 + i)));
        let li_ids: Vec<String> = (0..30).map(|i| format!("li{i}")).collect();
        let li_refs: Vec<&str> = li_ids.iter().map(String::as_str).collect();
        let mut nodes = vec![
            json!({"nodeId": "root", "role": {"value": "RootWebArea"}, "name": {"value": "Projects"},
                   "childIds": ["main"], "backendDOMNodeId": 1}),
            node("main", "main", "", &["h1", "div", "list", "cb"], 2),
            json!({"nodeId": "h1", "role": {"value": "heading"}, "name": {"value": "Projects"}, "childIds": ["h1t"],
                   "backendDOMNodeId": 3, "properties": [{"name": "level", "value": {"value": 1}}]}),
            node("h1t", "StaticText", "Projects", &[], 4),
            node("div", "generic", "", &["btn", "clickme"], 5),
            node("btn", "button", "New Project", &[], 6),
            node("clickme", "generic", "", &["ct"], 7),
            node("ct", "StaticText", "Click me", &[], 8),
            node("list", "list", "", &li_refs, 9),
            json!({"nodeId": "cb", "role": {"value": "checkbox"}, "name": {"value": "Remember me"},
                   "backendDOMNodeId": 10, "properties": [{"name": "checked", "value": {"value": "true"}}]}),
        ];
        nodes.extend(items);
        let mut forest = Forest::default();
        add_frame(&mut forest, "F", &json!({ "nodes": nodes }));
        forest
    }

    #[test]
    fn snapshot_shows_roles_names_states_and_refs_and_folds_wrappers() {
        let snap = render(&page(), false, 20_000);
        let text = &snap.snapshot;
        assert!(text.starts_with("- main:\n"), "{text}");
        assert!(text.contains("  - heading \"Projects\" [level=1]\n"), "{text}");
        assert!(text.contains("  - button \"New Project\" [ref=e1]\n"), "{text}");
        assert!(text.contains("  - generic [ref=e2]: Click me\n"), "a clickable div gets a ref: {text}");
        assert!(text.contains("  - checkbox \"Remember me\" [checked] [ref=e3]\n"), "{text}");
        assert!(text.contains("    - listitem: Item 0\n"), "{text}");
        assert!(text.contains("    - … 25 more listitem\n"), "{text}");
        assert!(!text.contains("Item 7"), "{text}");
        assert_eq!((snap.refs, snap.truncated), (3, false));
    }

    #[test]
    fn interactive_only_keeps_refs_and_landmarks() {
        let snap = render(&page(), true, 20_000);
        assert_eq!(
            snap.snapshot,
            "- main:\n  - heading \"Projects\" [level=1]\n  - button \"New Project\" [ref=e1]\n  - generic [ref=e2]\n  - checkbox \"Remember me\" [checked] [ref=e3]\n"
        );
    }

    #[test]
    fn a_placeholder_counts_as_the_items_it_stands_for() {
        // The list keeps its first 5 of 30 items and a placeholder for the other 25.
        let mut forest = page();
        let list = forest.nodes.iter().position(|n| n.role == "list").unwrap();
        let kept: Vec<usize> = forest.nodes[list].children[..5].to_vec();
        forest.nodes[list].children = kept;
        forest.insert_run(list, 5, "listitem", 25);
        assert_eq!(render(&forest, false, 20_000).snapshot, render(&page(), false, 20_000).snapshot);
        assert_eq!(render(&forest, true, 20_000).snapshot, render(&page(), true, 20_000).snapshot);
    }

    #[test]
    fn max_chars_cuts_on_a_line_and_says_so() {
        let snap = render(&page(), false, 150);
        assert!(snap.truncated);
        assert!(snap.snapshot.chars().count() <= 150, "{}", snap.snapshot);
        assert!(snap.snapshot.ends_with("or raise maxChars)\n"), "{}", snap.snapshot);
    }
}
