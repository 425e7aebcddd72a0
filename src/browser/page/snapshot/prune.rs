//! Leaving long runs of look-alike items out of page.snapshot's fetch (see `fetch`), the pure
//! part: given each run's parent and last item, the chain above the parents and, for one
//! element's snapshot, what holds the element, which nodes to fetch whole and where each run's
//! placeholder goes — or None when the tree is not what the scan said (then the whole tree is
//! fetched instead).
//!
//! The tree's node ids are the DOM's backend node ids, which is what lets the chain be walked.

use std::collections::{HashMap, HashSet};

use super::render::{RUN_KEEP, RUN_LIMIT, is_wrapper};
use crate::browser::chromium::protocol::accessibility::AxNode;

/// A run the scan found: its parent and items, by backend node id.
#[derive(Debug, Clone, Copy)]
pub struct Run {
    pub parent: i64,
    pub first: i64,
    /// The first item past the ones the snapshot shows.
    pub skip_from: i64,
    pub last: i64,
    pub count: usize,
}

/// A run with its parent's and last item's records.
pub struct Chain {
    pub run: Run,
    pub parent: AxNode,
    pub last: AxNode,
}

/// The main frame's nodes, and where each run's placeholder goes: (parent's backend node id,
/// position among its children, role, items it stands for).
pub struct Pruned {
    pub nodes: Vec<AxNode>,
    pub runs: Vec<(i64, usize, String, usize)>,
}

/// The records of the chains above the runs' parents, and the parents', by node id.
pub fn records(above: Vec<Vec<AxNode>>, chains: &[Chain]) -> HashMap<String, AxNode> {
    let mut records: HashMap<String, AxNode> = HashMap::new();
    for node in above.into_iter().flatten() {
        records.insert(node.node_id.clone(), node);
    }
    for chain in chains {
        records.insert(chain.parent.node_id.clone(), chain.parent.clone());
    }
    records
}

/// The element `backend` and what holds it, from its record with relatives.
pub fn holders(backend: i64, nodes: &[AxNode]) -> (String, HashSet<String>) {
    let mut holders: HashSet<String> = HashSet::new();
    let mut at = Some(backend.to_string());
    while let Some(id) = at {
        at = nodes.iter().find(|n| n.node_id == id).and_then(|n| n.parent_id.clone());
        holders.insert(id);
    }
    (backend.to_string(), holders)
}

/// The runs that can be left out, and the chain that holds them.
pub struct Placed {
    /// Node ids from each run's parent up to the snapshot's root.
    spine: HashSet<String>,
    /// Per parent, the children left out.
    skipped: HashMap<String, HashSet<String>>,
    placements: Vec<Placement>,
}

/// Where a run's placeholder goes, and the records its role is checked against.
struct Placement {
    /// The parent's backend node id.
    parent: i64,
    /// The positions among the parent's children of the first item left out and the first item.
    from: usize,
    first: usize,
    /// Items left out.
    count: usize,
    /// The parent's record and the last item's.
    record: AxNode,
    last: AxNode,
}

/// Which runs are left out: a run inside the element a snapshot is of, or one holding it, is
/// not; None when a run is not where the scan said.
pub fn place(
    chains: Vec<Chain>,
    records: &HashMap<String, AxNode>,
    top: Option<&(String, HashSet<String>)>,
) -> Option<Placed> {
    let (top_id, holders) = match top {
        Some((id, holders)) => (Some(id.as_str()), Some(holders)),
        None => (None, None),
    };
    let mut placed = Placed { spine: HashSet::new(), skipped: HashMap::new(), placements: Vec::new() };
    for Chain { run, parent, last } in chains {
        let children = &parent.child_ids;
        let at = |id: i64| children.iter().position(|c| *c == id.to_string());
        let (first, from, end) = (at(run.first)?, at(run.skip_from)?, at(run.last)?);
        if from != first + RUN_KEEP || end + 1 - from != run.count - RUN_KEEP {
            return None;
        }
        let left_out: HashSet<String> = children[from..=end].iter().cloned().collect();
        if holders.is_some_and(|holders| left_out.iter().any(|id| holders.contains(id))) {
            continue; // the element is one of the run's items, or inside one
        }
        // The chain from the parent up to the snapshot's root; a run outside the element is
        // of no interest.
        let Some(chain) = chain_up(&parent.node_id, records, top_id) else { continue };
        placed.spine.extend(chain);
        placed.skipped.entry(parent.node_id.clone()).or_default().extend(left_out);
        let count = run.count - RUN_KEEP;
        placed.placements.push(Placement { parent: run.parent, from, first, count, record: parent, last });
    }
    (!placed.placements.is_empty()).then_some(placed)
}

/// The node ids from `from` up to `top` (the root without one); None when `top` is not above.
fn chain_up(from: &str, records: &HashMap<String, AxNode>, top: Option<&str>) -> Option<Vec<String>> {
    let mut chain = Vec::new();
    let mut at = from.to_owned();
    loop {
        chain.push(at.clone());
        if top == Some(at.as_str()) {
            return Some(chain);
        }
        match records.get(&at).and_then(|r| r.parent_id.clone()) {
            Some(up) => at = up,
            None => return top.is_none().then_some(chain),
        }
    }
}

impl Placed {
    /// Every other subtree hanging off the chain, to fetch whole (backend node ids); None when a
    /// chain node's record or a child's id is not what it should be.
    pub fn wanted(&self, records: &HashMap<String, AxNode>) -> Option<Vec<i64>> {
        let mut wanted = Vec::new();
        for id in &self.spine {
            let record = records.get(id)?;
            for child in &record.child_ids {
                if self.spine.contains(child) || self.skipped.get(id).is_some_and(|s| s.contains(child)) {
                    continue;
                }
                wanted.push(child.parse::<i64>().ok()?);
            }
        }
        Some(wanted)
    }

    /// The main frame's nodes: the chain's and the `subtrees` fetched; each run's shown items and
    /// its last one are of one role, and not a wrapper: the placeholder takes that role.
    pub fn finish(self, records: &mut HashMap<String, AxNode>, subtrees: Vec<Option<Vec<AxNode>>>) -> Option<Pruned> {
        let mut nodes: Vec<AxNode> = self.spine.iter().filter_map(|id| records.remove(id)).collect();
        let mut seen: HashSet<String> = self.spine;
        for subtree in subtrees {
            for n in subtree? {
                if seen.insert(n.node_id.clone()) {
                    nodes.push(n);
                }
            }
        }
        let role_of = |node: &AxNode| (!node.ignored).then(|| node.role());
        let mut runs = Vec::new();
        for Placement { parent, from, first, count, record, last } in self.placements {
            let roles: Vec<Option<String>> = record.child_ids[first..from]
                .iter()
                .map(|c| nodes.iter().find(|n| n.node_id == *c).and_then(role_of))
                .collect();
            let Some(Some(role)) = roles.first().cloned() else { return None };
            if roles.iter().any(|r| r.as_deref() != Some(role.as_str())) || role_of(&last).as_deref() != Some(&role) {
                return None;
            }
            if count <= RUN_LIMIT || is_wrapper(&role) {
                return None;
            }
            runs.push((parent, from, role, count));
        }
        Some(Pruned { nodes, runs })
    }
}
