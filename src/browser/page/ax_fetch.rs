//! Gathering what page.snapshot renders: every frame's accessibility tree (Chromium's own) and the
//! elements that are actionable beyond their role.
//!
//! Chromium serializes every node it is asked for, with its name's sources and its states, at
//! about 0.04 ms a node: a page of 2,000 list items is 10,000 nodes and 3 MB, of which the
//! snapshot shows a dozen lines (`… 1995 more listitem`). So the DOM is looked at first
//! (`snapshot_scan.js`, in the helper world, a few ms), and a long run of look-alike siblings with
//! nothing to act on inside is left out of the fetch: the chain from the run's parent up to the
//! snapshot's root comes from `getPartialAXTree`, every other subtree hanging off that chain from
//! `queryAXTree` (all at once), the run's first items among them; the rest of the run becomes one
//! placeholder the renderer counts as the items it stands for. The tree's node ids are the DOM's
//! backend node ids, which is what lets the chain be walked; anything that does not match what the
//! scan said (a child that is not a DOM node, a run whose items are not one role) falls back to
//! the whole tree. A page without such runs is fetched whole (`getFullAXTree` per frame).
//!
//! Actionable: nodes with click-ish listeners (one `DOMDebugger.getEventListeners` of the whole
//! document) and elements showing a pointer cursor where their parent does not (the scan). Both
//! came from one `DOMSnapshot.captureSnapshot` of the whole DOM before, which costs as much as
//! the tree; it is still the answer for a page with more pointer elements than are worth
//! resolving one by one.

use std::collections::{HashMap, HashSet};

use futures_util::future::{join, join_all, join3};
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::time::Instant;

use super::ax_render::{Forest, RUN_KEEP, RUN_LIMIT};
use super::handle::Page;
use super::target::Target;
use crate::browser::error::BrowserError;

const SCAN_JS: &str = include_str!("../../js/snapshot_scan.js");
/// Runs shorter than this are fetched whole: leaving them out would cost more calls than it saves.
const MIN_RUN: usize = 50;
/// Pointer-cursor elements resolved one by one, at most; past it the whole-DOM snapshot says which.
const MAX_POINTERS: usize = 200;
/// Event types that make an element respond to clicks (Chromium's own `isClickable` counts click,
/// mousedown and mouseup listeners; pointer events and double clicks say the same).
const CLICK_EVENTS: &[&str] = &["click", "mousedown", "mouseup", "pointerdown", "pointerup", "dblclick"];
/// Snapshots so far, which names each one's object group (see [`group`]).
static SNAPSHOTS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// What a snapshot is rendered from.
pub(super) struct Gathered {
    pub forest: Forest,
    pub actionable: HashSet<i64>,
    /// The node the snapshot starts at.
    pub root: usize,
}

/// A run the scan found: its parent and items, by backend node id.
#[derive(Debug, Clone, Copy)]
struct Run {
    parent: i64,
    first: i64,
    /// The first item past the ones the snapshot shows.
    skip_from: i64,
    last: i64,
    count: usize,
}

/// The scan's answer, before its elements are looked up.
struct Scanned {
    summary: Summary,
    /// The document, by object id.
    document: String,
    /// The helper world it ran in.
    context: i64,
}

/// What the scan found.
struct Scan {
    /// None when there were too many pointer elements to resolve (see `MAX_POINTERS`).
    actionable: Option<HashSet<i64>>,
    runs: Vec<Run>,
}

#[derive(Deserialize)]
struct Summary {
    pointers: usize,
    runs: Vec<usize>,
    roots: usize,
    overflow: bool,
}

/// The object group of one snapshot's handles: its own, so releasing it (in the background, when
/// the snapshot is done) never touches another's.
fn group() -> String {
    format!("text-browser-snapshot-{}", SNAPSHOTS.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
}

impl Page {
    /// Every frame's tree and the actionable elements; the root is `element`'s node, or the main
    /// frame's. What does not depend on each other is asked for at once: the frames, the element
    /// and the scan; then the listeners, the child frames' trees and (with no run to leave out)
    /// the main frame's tree.
    pub(super) async fn gather(&self, element: Option<&Target>, deadline: Instant) -> Result<Gathered, BrowserError> {
        let main = self.target_id().to_owned();
        let top = async {
            match element {
                Some(target) => self.element_backend_id(target, deadline).await.map(Some),
                None => Ok(None),
            }
        };
        let group = group();
        let (tree, scanned, top) =
            join3(self.cdp("Page.getFrameTree", json!({}), deadline), self.scan(&group, deadline), top).await;
        let mut frames = Vec::new();
        collect_frames(tree?.get("frameTree").unwrap_or(&Value::Null), &mut frames);
        let (scanned, top) = (scanned?, top?);
        let children: Vec<&String> = frames.iter().filter(|f| **f != main).collect();
        let no_runs = scanned.summary.runs.is_empty();
        let whole = async {
            match no_runs {
                true => Some(self.whole_tree(&main, deadline).await),
                false => None,
            }
        };
        let (scan, child_trees, whole) = join3(
            self.read_scan(scanned, &children, &group, deadline),
            join_all(children.iter().map(|frame| self.child_frame(frame, deadline))),
            whole,
        )
        .await;
        self.cdp_detached("Runtime.releaseObjectGroup", json!({ "objectGroup": group }));
        let scan = scan?;
        let main_tree = match whole {
            Some(nodes) => Pruned { nodes: nodes?, runs: Vec::new() },
            None => match self.pruned(&scan.runs, top, deadline).await? {
                Some(pruned) => pruned,
                None => Pruned { nodes: self.whole_tree(&main, deadline).await?, runs: Vec::new() },
            },
        };
        let mut forest = Forest::default();
        forest.add_frame(&main, &json!({ "nodes": main_tree.nodes }));
        for (parent, at, role, count) in main_tree.runs {
            if let Some(parent) = forest.by_backend(parent) {
                forest.insert_run(parent, at, &role, count);
            }
        }
        for (frame, tree, owner) in child_trees.into_iter().flatten() {
            forest.add_frame(&frame, &tree);
            if let Some(owner) = owner {
                forest.owners.insert(owner, frame);
            }
        }
        let actionable = match scan.actionable {
            Some(actionable) => actionable,
            None => self.actionable_from_dom_snapshot(deadline).await?,
        };
        let root = match (element, top) {
            (Some(target), Some(backend)) => {
                forest.by_backend(backend).ok_or_else(|| BrowserError::ElementNotFound(target.to_string()))?
            }
            _ => *forest.roots.get(&main).ok_or_else(|| BrowserError::Protocol {
                method: "Accessibility.getFullAXTree".into(),
                message: "no root node for the page".into(),
            })?,
        };
        Ok(Gathered { forest, actionable, root })
    }

    /// The main frame's whole tree.
    async fn whole_tree(&self, frame: &str, deadline: Instant) -> Result<Vec<Value>, BrowserError> {
        let answer = self.cdp("Accessibility.getFullAXTree", json!({ "frameId": frame }), deadline).await?;
        Ok(nodes_of(answer))
    }

    /// A child frame's tree and the `<iframe>` that holds it; None if the frame went away
    /// between listing and reading (it is simply not shown).
    async fn child_frame(&self, frame: &str, deadline: Instant) -> Option<(String, Value, Option<i64>)> {
        let (tree, owner) = join(
            self.cdp("Accessibility.getFullAXTree", json!({ "frameId": frame }), deadline),
            self.cdp("DOM.getFrameOwner", json!({ "frameId": frame }), deadline),
        )
        .await;
        let owner = owner.ok().and_then(|o| o.get("backendNodeId").and_then(Value::as_i64));
        Some((frame.to_owned(), tree.ok()?, owner))
    }

    /// Runs the scan (`snapshot_scan.js`) in the helper world, and takes a handle on the
    /// document (in `group`) at the same time: its summary, and the document.
    async fn scan(&self, group: &str, deadline: Instant) -> Result<Scanned, BrowserError> {
        let context = self.helper_context(deadline).await?;
        let arguments = [RUN_KEEP, MIN_RUN, MAX_POINTERS].map(|n| json!({ "value": n }));
        let (answer, document) = join(
            self.cdp(
                "Runtime.callFunctionOn",
                json!({ "functionDeclaration": SCAN_JS, "executionContextId": context, "arguments": arguments,
                        "returnByValue": true }),
                deadline,
            ),
            self.cdp(
                "Runtime.evaluate",
                json!({ "expression": "document", "contextId": context, "objectGroup": group }),
                deadline,
            ),
        )
        .await;
        let answer = answer?;
        if let Some(details) = answer.get("exceptionDetails") {
            return Err(BrowserError::HelperScript(format!(
                "the snapshot's scan failed: {}",
                super::script::exception_message(details)
            )));
        }
        let summary: Summary = serde_json::from_value(answer["result"]["value"].clone())
            .map_err(|e| BrowserError::HelperScript(format!("the snapshot's scan answered {e}")))?;
        let document = document?.pointer("/result/objectId").and_then(Value::as_str).unwrap_or_default().to_owned();
        Ok(Scanned { summary, document, context })
    }

    /// The elements the scan kept (see `snapshot_scan.js`), as object ids in `group`, in order.
    async fn scanned_elements(
        &self,
        context: i64,
        group: &str,
        deadline: Instant,
    ) -> Result<Vec<String>, BrowserError> {
        let kept = self
            .cdp(
                "Runtime.evaluate",
                json!({ "expression": "globalThis.__textBrowserSnapshot", "contextId": context, "objectGroup": group }),
                deadline,
            )
            .await?;
        let array = kept.pointer("/result/objectId").and_then(Value::as_str).unwrap_or_default();
        let properties =
            self.cdp("Runtime.getProperties", json!({ "objectId": array, "ownProperties": true }), deadline).await?;
        let mut items: Vec<(usize, String)> = properties["result"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|p| Some((p["name"].as_str()?.parse().ok()?, p["value"]["objectId"].as_str()?.to_owned())))
            .collect();
        items.sort_by_key(|(i, _)| *i);
        Ok(items.into_iter().map(|(_, object)| object).collect())
    }

    /// What the scan's elements are (backend node ids) and who listens for clicks: the main
    /// document, each child frame's (through its `<iframe>`, so cross-origin ones too) and each
    /// open shadow root the scan went through (see `listening`). A run stays out of the fetch only
    /// if nothing in it listens: its parent may (a delegated handler), its items and what they
    /// hold may not.
    async fn read_scan(
        &self,
        scanned: Scanned,
        frames: &[&String],
        group: &str,
        deadline: Instant,
    ) -> Result<Scan, BrowserError> {
        let Scanned { summary, document, context } = scanned;
        let elements = async {
            if summary.pointers + summary.runs.len() + summary.roots == 0 {
                return Ok(Vec::new());
            }
            self.scanned_elements(context, group, deadline).await
        };
        let (objects, (document_listening, in_frames)) = join(
            elements,
            join(
                self.listening(&document, deadline),
                join_all(frames.iter().map(|f| self.frame_listening(f, group, deadline))),
            ),
        )
        .await;
        let objects = objects?;
        // [...pointers, ...runs (4 each), ...shadow roots]
        let pointers_end = summary.pointers.min(objects.len());
        let runs_end = (pointers_end + 4 * summary.runs.len()).min(objects.len());
        let describe = |object: &str| {
            let object = object.to_owned();
            async move {
                let node = self.cdp("DOM.describeNode", json!({ "objectId": object }), deadline).await.ok()?;
                node.pointer("/node/backendNodeId").and_then(Value::as_i64)
            }
        };
        let run_parents: Vec<&String> = objects[pointers_end..runs_end].iter().step_by(4).collect();
        let (ids, in_roots, in_runs) = join3(
            join_all(objects[..runs_end].iter().map(|o| describe(o))),
            join_all(objects[runs_end..].iter().map(|root| self.listening(root, deadline))),
            join_all(run_parents.iter().map(|parent| self.listening(parent, deadline))),
        )
        .await;
        let mut clickable = document_listening?;
        clickable.extend(in_frames.into_iter().flatten());
        clickable.extend(in_roots.into_iter().flatten().flatten());
        let (pointers, runs) = ids.split_at(pointers_end);
        let actionable =
            (!summary.overflow).then(|| clickable.iter().copied().chain(pointers.iter().flatten().copied()).collect());
        let runs = runs
            .chunks(4)
            .zip(summary.runs)
            .zip(in_runs)
            .filter_map(|((ids, count), listening)| match (ids, listening) {
                ([Some(parent), Some(first), Some(skip_from), Some(last)], Ok(listening))
                    if listening.iter().all(|node| node == parent) =>
                {
                    Some(Run { parent: *parent, first: *first, skip_from: *skip_from, last: *last, count })
                }
                _ => None,
            })
            .collect();
        Ok(Scan { actionable, runs })
    }

    /// The nodes under `object` (a node, itself included) with click-ish listeners, not going
    /// into shadow roots or frames.
    ///
    /// Never with `pierce`: on Chromium 156 a piercing listener query of a document with a
    /// listener in a shadow root makes the helper world's next scripts hang after a while (a
    /// dozen documents in the same renderer), until the renderer runs out of memory. Nodes are
    /// named by backend id only, never resolved into the helper world.
    async fn listening(&self, object: &str, deadline: Instant) -> Result<HashSet<i64>, BrowserError> {
        let listeners = self
            .cdp("DOMDebugger.getEventListeners", json!({ "objectId": object, "depth": -1, "pierce": false }), deadline)
            .await?;
        Ok(listeners["listeners"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|l| l["type"].as_str().is_some_and(|t| CLICK_EVENTS.contains(&t)))
            .filter_map(|l| l["backendNodeId"].as_i64())
            .collect())
    }

    /// The listening nodes of a child frame's document (reached through its `<iframe>`, so
    /// cross-origin frames count too); none if the frame went away.
    async fn frame_listening(&self, frame: &str, group: &str, deadline: Instant) -> HashSet<i64> {
        let found = async {
            let owner = self.cdp("DOM.getFrameOwner", json!({ "frameId": frame }), deadline).await.ok()?;
            let owner = owner["backendNodeId"].as_i64()?;
            let described = self
                .cdp("DOM.describeNode", json!({ "backendNodeId": owner, "depth": 0, "pierce": true }), deadline)
                .await
                .ok()?;
            let document = described.pointer("/node/contentDocument/backendNodeId")?.as_i64()?;
            let resolved = self
                .cdp("DOM.resolveNode", json!({ "backendNodeId": document, "objectGroup": group }), deadline)
                .await
                .ok()?;
            let object = resolved.pointer("/object/objectId")?.as_str()?.to_owned();
            self.listening(&object, deadline).await.ok()
        };
        found.await.unwrap_or_default()
    }

    /// The main frame's tree without the runs' items past the first few: None when the tree is
    /// not what the scan said (then the whole tree is fetched).
    async fn pruned(&self, runs: &[Run], top: Option<i64>, deadline: Instant) -> Result<Option<Pruned>, BrowserError> {
        let node = |backend: i64, relatives: bool| async move {
            let answer = self
                .cdp(
                    "Accessibility.getPartialAXTree",
                    json!({ "backendNodeId": backend, "fetchRelatives": relatives }),
                    deadline,
                )
                .await;
            answer.ok().map(nodes_of)
        };
        // Each run's parent and last item, then the chain above the parent.
        let own = join_all(
            runs.iter().map(|run| async move { (node(run.parent, false).await, node(run.last, false).await) }),
        )
        .await;
        let mut records: HashMap<String, Value> = HashMap::new();
        let mut chains = Vec::new();
        for (run, (parent, last)) in runs.iter().zip(own) {
            let (Some(parent), Some(last)) =
                (parent.and_then(|n| n.into_iter().next()), last.and_then(|n| n.into_iter().next()))
            else {
                return Ok(None);
            };
            let Some(above) = parent["parentId"].as_str().and_then(|id| id.parse::<i64>().ok()) else {
                return Ok(None);
            };
            chains.push((*run, parent, last, above));
        }
        let above = join_all(chains.iter().map(|(_, _, _, above)| node(*above, true))).await;
        for nodes in above {
            let Some(nodes) = nodes else { return Ok(None) };
            for n in nodes {
                if let Some(id) = n["nodeId"].as_str() {
                    records.insert(id.to_owned(), n);
                }
            }
        }
        for (_, parent, _, _) in &chains {
            if let Some(id) = parent["nodeId"].as_str() {
                records.insert(id.to_owned(), parent.clone());
            }
        }
        // One element's snapshot: the element and what holds it, none of which may be left out.
        let (top_id, holders) = match top {
            Some(backend) => {
                let Some(nodes) = node(backend, true).await else { return Ok(None) };
                let mut holders: HashSet<String> = HashSet::new();
                let mut at = Some(backend.to_string());
                while let Some(id) = at {
                    at = nodes
                        .iter()
                        .find(|n| n["nodeId"] == id.as_str())
                        .and_then(|n| n["parentId"].as_str())
                        .map(str::to_owned);
                    holders.insert(id);
                }
                (Some(backend.to_string()), holders)
            }
            None => (None, HashSet::new()),
        };
        let mut spine: HashSet<String> = HashSet::new();
        let mut skipped: HashMap<String, HashSet<String>> = HashMap::new();
        let mut placements = Vec::new();
        let mut kept_chains = Vec::new();
        for (run, parent, last, _) in chains {
            let parent_id = parent["nodeId"].as_str().unwrap_or_default().to_owned();
            let children: Vec<&str> =
                parent["childIds"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
            let at = |id: i64| children.iter().position(|c| *c == id.to_string());
            let (Some(first), Some(from), Some(end)) = (at(run.first), at(run.skip_from), at(run.last)) else {
                return Ok(None);
            };
            if from != first + RUN_KEEP || end + 1 - from != run.count - RUN_KEEP {
                return Ok(None);
            }
            let left_out: HashSet<String> = children[from..=end].iter().map(|c| c.to_string()).collect();
            if left_out.iter().any(|id| holders.contains(id)) {
                continue; // the element is one of the run's items, or inside one
            }
            // The chain from the parent up to the snapshot's root; a run outside the element is
            // of no interest.
            let mut chain = Vec::new();
            let mut at = parent_id.clone();
            let reached = loop {
                chain.push(at.clone());
                if top_id.as_deref() == Some(at.as_str()) {
                    break true;
                }
                match records.get(&at).and_then(|r| r["parentId"].as_str()) {
                    Some(up) => at = up.to_owned(),
                    None => break top_id.is_none(),
                }
            };
            if !reached {
                continue;
            }
            spine.extend(chain);
            skipped.entry(parent_id).or_default().extend(left_out);
            placements.push((run.parent, from, first, run.count - RUN_KEEP));
            kept_chains.push((parent, last));
        }
        if placements.is_empty() {
            return Ok(None);
        }
        // Every other subtree hanging off the chain, whole.
        let mut wanted = Vec::new();
        for id in &spine {
            let Some(record) = records.get(id) else { return Ok(None) };
            for child in record["childIds"].as_array().into_iter().flatten().filter_map(Value::as_str) {
                if spine.contains(child) || skipped.get(id).is_some_and(|s| s.contains(child)) {
                    continue;
                }
                let Ok(backend) = child.parse::<i64>() else { return Ok(None) };
                wanted.push(backend);
            }
        }
        let subtrees = join_all(wanted.iter().map(|backend| async move {
            self.cdp("Accessibility.queryAXTree", json!({ "backendNodeId": backend }), deadline)
                .await
                .ok()
                .map(nodes_of)
        }))
        .await;
        let mut nodes: Vec<Value> = spine.iter().filter_map(|id| records.get(id).cloned()).collect();
        let mut seen: HashSet<String> = spine.clone();
        for subtree in subtrees {
            let Some(subtree) = subtree else { return Ok(None) };
            for n in subtree {
                if n["nodeId"].as_str().is_some_and(|id| seen.insert(id.to_owned())) {
                    nodes.push(n);
                }
            }
        }
        // Each run's shown items and its last one are of one role, and not a wrapper: the
        // placeholder takes that role.
        let role_of = |id: &str| {
            nodes.iter().find(|n| n["nodeId"] == id).and_then(|n| {
                (n["ignored"] != true)
                    .then(|| n.pointer("/role/value").and_then(Value::as_str).unwrap_or_default().to_owned())
            })
        };
        let mut runs_out = Vec::new();
        for ((parent, from, first, count), (record, last)) in placements.into_iter().zip(&kept_chains) {
            let children: Vec<&str> =
                record["childIds"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
            let roles: Vec<Option<String>> = children[first..from].iter().map(|c| role_of(c)).collect();
            let last_role = (last["ignored"] != true)
                .then(|| last.pointer("/role/value").and_then(Value::as_str).unwrap_or_default().to_owned());
            let Some(Some(role)) = roles.first().cloned() else { return Ok(None) };
            if roles.iter().any(|r| r.as_deref() != Some(role.as_str())) || last_role.as_deref() != Some(role.as_str())
            {
                return Ok(None);
            }
            if count <= RUN_LIMIT || super::ax_render::is_wrapper(&role) {
                return Ok(None);
            }
            runs_out.push((parent, from, role, count));
        }
        Ok(Some(Pruned { nodes, runs: runs_out }))
    }

    /// Elements that respond to clicks (listeners, links) or show a pointer cursor where their
    /// parent does not, in every frame, from one whole-DOM snapshot.
    async fn actionable_from_dom_snapshot(&self, deadline: Instant) -> Result<HashSet<i64>, BrowserError> {
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

/// The main frame's nodes, and where each run's placeholder goes: (parent's backend node id,
/// position among its children, role, items it stands for).
struct Pruned {
    nodes: Vec<Value>,
    runs: Vec<(i64, usize, String, usize)>,
}

fn nodes_of(mut answer: Value) -> Vec<Value> {
    match answer.get_mut("nodes").map(Value::take) {
        Some(Value::Array(nodes)) => nodes,
        _ => Vec::new(),
    }
}

fn collect_frames(tree: &Value, out: &mut Vec<String>) {
    if let Some(id) = tree.pointer("/frame/id").and_then(Value::as_str) {
        out.push(id.to_owned());
    }
    for child in tree.get("childFrames").and_then(Value::as_array).into_iter().flatten() {
        collect_frames(child, out);
    }
}
