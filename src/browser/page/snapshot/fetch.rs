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

use std::collections::HashSet;

use futures_util::future::{join, join_all, join3};
use serde_json::json;
use tokio::time::Instant;

use super::prune::{self, Chain, Pruned, Run};
use super::render::{Forest, RUN_KEEP};
use crate::browser::chromium::protocol::accessibility::{AxNode, GetFullAxTree, GetPartialAxTree, QueryAxTree};
use crate::browser::chromium::protocol::dom::{
    CaptureSnapshot, DescribeNode, DomSnapshot, GetEventListeners, GetFrameOwner, ResolveNode,
};
use crate::browser::chromium::protocol::page::GetFrameTree;
use crate::browser::chromium::protocol::runtime::{
    CallArgument, CallFunctionOn, Evaluate, GetProperties, ReleaseObjectGroup,
};
use crate::browser::error::BrowserError;
use crate::browser::page::handle::Page;
use crate::browser::page::locate::answers::ScanSummary;
use crate::browser::page::locate::scripts::{Script, SnapshotScan};
use crate::browser::page::locate::target::Target;

/// Runs shorter than this are fetched whole: leaving them out would cost more calls than it saves.
const MIN_RUN: usize = 50;
/// Pointer-cursor elements resolved one by one, at most; past it the whole-DOM snapshot says which.
const MAX_POINTERS: usize = 200;
/// Event types that make an element respond to clicks (Chromium's own `isClickable` counts click,
/// mousedown and mouseup listeners; pointer events and double clicks say the same).
const CLICK_EVENTS: &[&str] = &["click", "mousedown", "mouseup", "pointerdown", "pointerup", "dblclick"];
/// Snapshots so far, which names each one's object group (see [`Gathering::group`]).
static SNAPSHOTS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// What a snapshot is rendered from.
pub struct Gathered {
    pub forest: Forest,
    pub actionable: HashSet<i64>,
    /// The node the snapshot starts at.
    pub root: usize,
}

/// The scan's answer, before its elements are looked up.
struct Scanned {
    summary: ScanSummary,
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

/// A child frame's tree and the `<iframe>` that holds it.
type ChildFrame = (String, Vec<AxNode>, Option<i64>);

/// One snapshot's gathering: the page, the object group its handles live in (its own, so
/// releasing it in the background when the snapshot is done never touches another's) and its
/// deadline.
struct Gathering<'a> {
    page: &'a Page,
    group: String,
    deadline: Instant,
}

/// Every frame's tree and the actionable elements; the root is `element`'s node, or the main
/// frame's. What does not depend on each other is asked for at once: the frames, the element and
/// the scan; then the listeners, the child frames' trees and (with no run to leave out) the main
/// frame's tree.
pub async fn gather(page: &Page, element: Option<&Target>, deadline: Instant) -> Result<Gathered, BrowserError> {
    let gathering = Gathering { page, group: Gathering::group(), deadline };
    let gathered = gathering.gather(element).await;
    page.send_detached(ReleaseObjectGroup { object_group: &gathering.group });
    gathered
}

impl Gathering<'_> {
    fn group() -> String {
        format!("text-browser-snapshot-{}", SNAPSHOTS.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
    }

    async fn gather(&self, element: Option<&Target>) -> Result<Gathered, BrowserError> {
        let (page, deadline) = (self.page, self.deadline);
        let main = page.target_id.main_frame().to_string();
        let top = async {
            match element {
                Some(target) => page.locate().backend_id(target, deadline).await.map(Some),
                None => Ok(None),
            }
        };
        let (tree, scanned, top) = join3(page.send(GetFrameTree {}, deadline), self.scan(), top).await;
        let frames: Vec<String> = tree?.frame_tree.ids().into_iter().map(String::from).collect();
        let (scanned, top) = (scanned?, top?);
        let children: Vec<&String> = frames.iter().filter(|f| **f != main).collect();
        let no_runs = scanned.summary.runs.is_empty();
        let whole = async {
            match no_runs {
                true => Some(self.whole_tree(&main).await),
                false => None,
            }
        };
        let (scan, child_trees, whole) = join3(
            self.read_scan(scanned, &children),
            join_all(children.iter().map(|frame| self.child_frame(frame))),
            whole,
        )
        .await;
        let scan = scan?;
        let main_tree = match whole {
            Some(nodes) => Pruned { nodes: nodes?, runs: Vec::new() },
            None => match self.pruned(&scan.runs, top).await {
                Some(pruned) => pruned,
                None => Pruned { nodes: self.whole_tree(&main).await?, runs: Vec::new() },
            },
        };
        let forest = assemble(&main, main_tree, child_trees.into_iter().flatten());
        let actionable = match scan.actionable {
            Some(actionable) => actionable,
            None => self.actionable_from_dom_snapshot().await?,
        };
        let root = match (element, top) {
            (Some(target), Some(backend)) => {
                forest.by_backend(backend).ok_or_else(|| BrowserError::ElementNotFound(target.to_string()))?
            }
            _ => *forest
                .roots
                .get(&main)
                .ok_or_else(|| BrowserError::protocol("Accessibility.getFullAXTree", "no root node for the page"))?,
        };
        Ok(Gathered { forest, actionable, root })
    }

    /// The main frame's whole tree.
    async fn whole_tree(&self, frame: &str) -> Result<Vec<AxNode>, BrowserError> {
        Ok(self.page.send(GetFullAxTree { frame_id: frame }, self.deadline).await?.nodes)
    }

    /// A child frame's tree and the `<iframe>` that holds it; None if the frame went away
    /// between listing and reading (it is simply not shown).
    async fn child_frame(&self, frame: &str) -> Option<ChildFrame> {
        let (tree, owner) = join(
            self.page.send(GetFullAxTree { frame_id: frame }, self.deadline),
            self.page.send(GetFrameOwner { frame_id: frame }, self.deadline),
        )
        .await;
        let owner = owner.ok().and_then(|o| o.backend_node_id);
        Some((frame.to_owned(), tree.ok()?.nodes, owner))
    }

    /// Runs the scan (`snapshot_scan.js`) in the helper world, and takes a handle on the
    /// document (in the group) at the same time: its summary, and the document.
    async fn scan(&self) -> Result<Scanned, BrowserError> {
        let (page, deadline) = (self.page, self.deadline);
        let context = page.locate().context(deadline).await?;
        let arguments = [RUN_KEEP, MIN_RUN, MAX_POINTERS].map(|n| CallArgument::Value { value: json!(n) }).to_vec();
        let scan = CallFunctionOn {
            function_declaration: SnapshotScan::SOURCE,
            execution_context_id: Some(context),
            arguments,
            return_by_value: true,
            ..CallFunctionOn::default()
        };
        let document = Evaluate {
            expression: "document",
            context_id: Some(context),
            object_group: Some(&self.group),
            ..Evaluate::default()
        };
        let (answer, document) = join(page.send(scan, deadline), page.send(document, deadline)).await;
        let answer = answer?;
        if let Some(details) = answer.exception_details {
            return Err(BrowserError::HelperScript(format!("the snapshot's scan failed: {}", details.message())));
        }
        let summary: ScanSummary = serde_json::from_value(answer.result.value.unwrap_or_default())
            .map_err(|e| BrowserError::HelperScript(format!("the snapshot's scan answered {e}")))?;
        let document = document?.result.object_id.unwrap_or_default();
        Ok(Scanned { summary, document, context })
    }

    /// The elements the scan kept (see `snapshot_scan.js`), as object ids in the group, in order.
    async fn scanned_elements(&self, context: i64) -> Result<Vec<String>, BrowserError> {
        let kept = Evaluate {
            expression: "globalThis.__textBrowserSnapshot",
            context_id: Some(context),
            object_group: Some(&self.group),
            ..Evaluate::default()
        };
        let array = self.page.send(kept, self.deadline).await?.result.object_id.unwrap_or_default();
        let properties = self.page.send(GetProperties { object_id: &array, own_properties: true }, self.deadline);
        Ok(properties.await?.objects().into_iter().map(|(_, object)| object).collect())
    }

    /// What the scan's elements are (backend node ids) and who listens for clicks: the main
    /// document, each child frame's (through its `<iframe>`, so cross-origin ones too) and each
    /// open shadow root the scan went through (see `listening`). A run stays out of the fetch only
    /// if nothing in it listens: its parent may (a delegated handler), its items and what they
    /// hold may not.
    async fn read_scan(&self, scanned: Scanned, frames: &[&String]) -> Result<Scan, BrowserError> {
        let Scanned { summary, document, context } = scanned;
        let elements = async {
            if summary.pointers + summary.runs.len() + summary.roots == 0 {
                return Ok(Vec::new());
            }
            self.scanned_elements(context).await
        };
        let (objects, (document_listening, in_frames)) =
            join(elements, join(self.listening(&document), join_all(frames.iter().map(|f| self.frame_listening(f)))))
                .await;
        let objects = objects?;
        // [...pointers, ...runs (4 each), ...shadow roots]
        let pointers_end = summary.pointers.min(objects.len());
        let runs_end = (pointers_end + 4 * summary.runs.len()).min(objects.len());
        let run_parents: Vec<&String> = objects[pointers_end..runs_end].iter().step_by(4).collect();
        let (ids, in_roots, in_runs) = join3(
            join_all(objects[..runs_end].iter().map(|o| self.backend_id(o))),
            join_all(objects[runs_end..].iter().map(|root| self.listening(root))),
            join_all(run_parents.iter().map(|parent| self.listening(parent))),
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

    /// The backend node id of an element the page holds by `object`.
    async fn backend_id(&self, object: &str) -> Option<i64> {
        let described = DescribeNode { object_id: Some(object), ..DescribeNode::default() };
        self.page.send(described, self.deadline).await.ok()?.node.backend_node_id
    }

    /// The nodes under `object` (a node, itself included) with click-ish listeners, not going
    /// into shadow roots or frames.
    ///
    /// Never with `pierce`: on Chromium 156 a piercing listener query of a document with a
    /// listener in a shadow root makes the helper world's next scripts hang after a while (a
    /// dozen documents in the same renderer), until the renderer runs out of memory. Nodes are
    /// named by backend id only, never resolved into the helper world.
    async fn listening(&self, object: &str) -> Result<HashSet<i64>, BrowserError> {
        let asked = GetEventListeners { object_id: object, depth: Some(-1), pierce: Some(false) };
        let listeners = self.page.send(asked, self.deadline).await?.listeners;
        Ok(listeners
            .into_iter()
            .filter(|l| CLICK_EVENTS.contains(&l.event.as_str()))
            .filter_map(|l| l.backend_node_id)
            .collect())
    }

    /// The listening nodes of a child frame's document (reached through its `<iframe>`, so
    /// cross-origin frames count too); none if the frame went away.
    async fn frame_listening(&self, frame: &str) -> HashSet<i64> {
        let (page, deadline) = (self.page, self.deadline);
        let found = async {
            let owner = page.send(GetFrameOwner { frame_id: frame }, deadline).await.ok()?.backend_node_id?;
            let describe =
                DescribeNode { backend_node_id: Some(owner), depth: Some(0), pierce: true, ..Default::default() };
            let described = page.send(describe, deadline).await.ok()?;
            let document = described.node.content_document?.backend_node_id?;
            let resolve =
                ResolveNode { backend_node_id: document, object_group: Some(&self.group), ..ResolveNode::default() };
            let object = page.send(resolve, deadline).await.ok()?.object.object_id?;
            self.listening(&object).await.ok()
        };
        found.await.unwrap_or_default()
    }

    /// One node's record (with `relatives`, its ancestors and their children too); None when the
    /// tree could not be read.
    async fn partial(&self, backend: i64, relatives: bool) -> Option<Vec<AxNode>> {
        let asked = GetPartialAxTree { backend_node_id: backend, fetch_relatives: relatives };
        self.page.send(asked, self.deadline).await.ok().map(|answer| answer.nodes)
    }

    /// The main frame's tree without the runs' items past the first few: None when the tree is
    /// not what the scan said (then the whole tree is fetched). See `prune` for how.
    async fn pruned(&self, runs: &[Run], top: Option<i64>) -> Option<Pruned> {
        // Each run's parent and last item, then the chain above each parent.
        let own =
            join_all(runs.iter().map(|run| join(self.partial(run.parent, false), self.partial(run.last, false)))).await;
        let mut chains = Vec::new();
        for (run, (parent, last)) in runs.iter().zip(own) {
            let (parent, last) = (parent?.into_iter().next()?, last?.into_iter().next()?);
            let above = parent.parent_id.as_deref()?.parse::<i64>().ok()?;
            chains.push((Chain { run: *run, parent, last }, above));
        }
        let above = join_all(chains.iter().map(|(_, above)| self.partial(*above, true))).await;
        let chains: Vec<Chain> = chains.into_iter().map(|(chain, _)| chain).collect();
        let mut records = prune::records(above.into_iter().collect::<Option<Vec<_>>>()?, &chains);
        // One element's snapshot: the element and what holds it, none of which may be left out.
        let holders = match top {
            Some(backend) => Some(prune::holders(backend, &self.partial(backend, true).await?)),
            None => None,
        };
        let placed = prune::place(chains, &records, holders.as_ref())?;
        let wanted = placed.wanted(&records)?;
        let subtrees = join_all(wanted.iter().map(|backend| async move {
            let asked = QueryAxTree { backend_node_id: *backend, role: None };
            self.page.send(asked, self.deadline).await.ok().map(|answer| answer.nodes)
        }))
        .await;
        placed.finish(&mut records, subtrees)
    }

    /// Elements that respond to clicks (listeners, links) or show a pointer cursor where their
    /// parent does not, in every frame, from one whole-DOM snapshot.
    async fn actionable_from_dom_snapshot(&self) -> Result<HashSet<i64>, BrowserError> {
        let capture = CaptureSnapshot { computed_styles: &["cursor"], include_dom_rects: false };
        Ok(actionable_in(&self.page.send(capture, self.deadline).await?))
    }
}

/// The forest of the main frame's tree (with its runs' placeholders) and the child frames'.
fn assemble(main: &str, main_tree: Pruned, child_trees: impl Iterator<Item = ChildFrame>) -> Forest {
    let mut forest = Forest::default();
    forest.add_frame(main, &main_tree.nodes);
    for (parent, at, role, count) in main_tree.runs {
        if let Some(parent) = forest.by_backend(parent) {
            forest.insert_run(parent, at, &role, count);
        }
    }
    for (frame, tree, owner) in child_trees {
        forest.add_frame(&frame, &tree);
        if let Some(owner) = owner {
            forest.owners.insert(owner, frame);
        }
    }
    forest
}

/// What a whole-DOM snapshot says responds to clicks: Chromium's `isClickable` nodes, and those
/// showing a pointer cursor where their parent does not.
fn actionable_in(snap: &DomSnapshot) -> HashSet<i64> {
    let mut out = HashSet::new();
    for doc in &snap.documents {
        let backend = &doc.nodes.backend_node_id;
        let parent = &doc.nodes.parent_index;
        for i in &doc.nodes.is_clickable.index {
            if let Some(b) = backend.get(*i as usize) {
                out.insert(*b);
            }
        }
        let pointer: HashSet<i64> = doc
            .layout
            .node_index
            .iter()
            .zip(doc.layout.styles.iter())
            .filter(|(_, style)| {
                style.first().and_then(|s| snap.strings.get(*s as usize)).is_some_and(|s| s == "pointer")
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
    out
}
