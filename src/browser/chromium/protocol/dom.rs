//! The DOM domain and its neighbours: nodes (resolved to objects, described, their boxes, a file
//! input's files), the listeners on them (`DOMDebugger`) and a whole-document snapshot
//! (`DOMSnapshot`).

use serde::{Deserialize, Serialize};

use super::runtime::RemoteObject;
use super::{Done, command, is_false};
use crate::browser::chromium::ids::ScriptId;

/// A DOM node as Chromium describes it (only what the service reads).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Node {
    #[serde(default)]
    pub backend_node_id: Option<i64>,
    #[serde(default)]
    pub node_name: String,
    #[serde(default)]
    pub local_name: String,
    #[serde(default)]
    pub node_value: Option<String>,
    /// Name, value, name, value …
    #[serde(default)]
    pub attributes: Vec<String>,
    #[serde(default)]
    pub children: Vec<Node>,
    #[serde(default)]
    pub content_document: Option<Box<Node>>,
}

impl Node {
    /// The value of attribute `name`, when the node has it.
    pub fn attribute(&self, name: &str) -> Option<&str> {
        self.attributes.chunks(2).find(|pair| pair[0] == name).and_then(|pair| pair.get(1)).map(String::as_str)
    }
}

/// The object of a node, in a context (`execution_context_id`) or the page's own world.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ResolveNode<'a> {
    pub backend_node_id: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub execution_context_id: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub object_group: Option<&'a str>,
}
command!(ResolveNode<'a>, "DOM.resolveNode", Resolved);

#[derive(Debug, Clone, Default, Deserialize)]
pub struct Resolved {
    #[serde(default)]
    pub object: RemoteObject,
}

/// A node by object or backend id; `depth` and `pierce` reach its children and frames.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DescribeNode<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub object_id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backend_node_id: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub depth: Option<i64>,
    #[serde(skip_serializing_if = "is_false")]
    pub pierce: bool,
}
command!(DescribeNode<'a>, "DOM.describeNode", Described);

#[derive(Debug, Clone, Default, Deserialize)]
pub struct Described {
    #[serde(default)]
    pub node: Node,
}

/// The document's root node (`depth` 0: the root alone).
#[derive(Debug, Clone, Serialize)]
pub struct GetDocument {
    pub depth: i64,
}
command!(GetDocument, "DOM.getDocument", Document);

#[derive(Debug, Clone, Default, Deserialize)]
pub struct Document {
    #[serde(default)]
    pub root: Node,
}

/// The boxes of a node's content, in the page's viewport coordinates.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GetContentQuads {
    pub backend_node_id: i64,
}
command!(GetContentQuads, "DOM.getContentQuads", Quads);

#[derive(Debug, Clone, Default, Deserialize)]
pub struct Quads {
    /// Each quad's four corners: x1, y1 … x4, y4.
    #[serde(default)]
    pub quads: Vec<Vec<f64>>,
}

/// The `<iframe>` that holds a frame.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GetFrameOwner<'a> {
    pub frame_id: &'a str,
}
command!(GetFrameOwner<'a>, "DOM.getFrameOwner", FrameOwner);

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FrameOwner {
    #[serde(default)]
    pub backend_node_id: Option<i64>,
}

/// Sets the files of a file input (as if chosen: `input` and `change` fire).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SetFileInputFiles {
    pub files: Vec<String>,
    pub backend_node_id: i64,
}
command!(SetFileInputFiles, "DOM.setFileInputFiles", Done);

/// The nodes out of the document that something still holds.
#[derive(Debug, Clone, Serialize)]
pub struct GetDetachedDomNodes {}
command!(GetDetachedDomNodes, "DOM.getDetachedDomNodes", DetachedNodes);

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DetachedNodes {
    #[serde(default)]
    pub detached_nodes: Vec<Detached>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Detached {
    #[serde(default)]
    pub tree_node: Option<Node>,
}

/// The listeners on an object (a node, the window), `depth` -1 for its whole subtree too.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GetEventListeners<'a> {
    pub object_id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub depth: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pierce: Option<bool>,
}
command!(GetEventListeners<'a>, "DOMDebugger.getEventListeners", EventListeners);

#[derive(Debug, Clone, Default, Deserialize)]
pub struct EventListeners {
    #[serde(default)]
    pub listeners: Vec<EventListener>,
}

/// One listener: its event type, phase, where its handler is (0-based) and its source.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EventListener {
    #[serde(default, rename = "type")]
    pub event: String,
    #[serde(default)]
    pub use_capture: bool,
    #[serde(default)]
    pub script_id: ScriptId,
    #[serde(default)]
    pub line_number: u32,
    #[serde(default)]
    pub column_number: u32,
    #[serde(default)]
    pub handler: Option<RemoteObject>,
    /// The node it is on (listed with `depth`).
    #[serde(default)]
    pub backend_node_id: Option<i64>,
}

impl EventListener {
    /// The handler's source, as Chromium describes the function.
    pub fn handler_source(&self) -> Option<&str> {
        self.handler.as_ref()?.description.as_deref()
    }
}

/// The whole DOM of every frame with the computed styles asked for.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CaptureSnapshot<'a> {
    pub computed_styles: &'a [&'a str],
    #[serde(rename = "includeDOMRects")]
    pub include_dom_rects: bool,
}
command!(CaptureSnapshot<'a>, "DOMSnapshot.captureSnapshot", DomSnapshot);

#[derive(Debug, Clone, Default, Deserialize)]
pub struct DomSnapshot {
    #[serde(default)]
    pub documents: Vec<DocumentSnapshot>,
    /// The strings the documents' values index into.
    #[serde(default)]
    pub strings: Vec<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub struct DocumentSnapshot {
    #[serde(default)]
    pub nodes: NodeTreeSnapshot,
    #[serde(default)]
    pub layout: LayoutTreeSnapshot,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeTreeSnapshot {
    #[serde(default)]
    pub backend_node_id: Vec<i64>,
    #[serde(default)]
    pub parent_index: Vec<i64>,
    #[serde(default)]
    pub is_clickable: RareBooleanData,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub struct RareBooleanData {
    #[serde(default)]
    pub index: Vec<i64>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LayoutTreeSnapshot {
    #[serde(default)]
    pub node_index: Vec<i64>,
    /// Per laid-out node, its computed styles' values (indexes into the strings).
    #[serde(default)]
    pub styles: Vec<Vec<i64>>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_nodes_attributes_are_read_in_pairs() {
        let node: Node =
            serde_json::from_value(json!({"nodeName": "INPUT", "attributes": ["type", "file", "hidden", ""]})).unwrap();
        assert_eq!(
            (node.attribute("type"), node.attribute("hidden"), node.attribute("id")),
            (Some("file"), Some(""), None)
        );
    }

    #[test]
    fn the_snapshot_flag_keeps_chromiums_spelling() {
        let snapshot = CaptureSnapshot { computed_styles: &["cursor"], include_dom_rects: false };
        assert_eq!(
            serde_json::to_value(snapshot).unwrap(),
            json!({ "computedStyles": ["cursor"], "includeDOMRects": false })
        );
    }
}
