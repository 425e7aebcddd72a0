//! The Accessibility domain: the tree a screen reader reads, whole (per frame), around one node,
//! or the nodes of a role.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::command;

/// One accessibility node. Its id is the DOM node's backend id where it is one.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AxNode {
    #[serde(default)]
    pub node_id: String,
    #[serde(default)]
    pub ignored: bool,
    #[serde(default)]
    pub role: Option<AxValue>,
    #[serde(default)]
    pub name: Option<AxValue>,
    #[serde(default)]
    pub value: Option<AxValue>,
    #[serde(default)]
    pub properties: Vec<AxProperty>,
    #[serde(default)]
    pub child_ids: Vec<String>,
    #[serde(default)]
    pub parent_id: Option<String>,
    #[serde(default, rename = "backendDOMNodeId")]
    pub backend_dom_node_id: Option<i64>,
}

impl AxNode {
    /// The role's name ("" without one).
    pub fn role(&self) -> String {
        self.role.as_ref().map(AxValue::text).unwrap_or_default()
    }

    /// The accessible name ("" without one).
    pub fn name(&self) -> String {
        self.name.as_ref().map(AxValue::text).unwrap_or_default()
    }

    /// The value of property `name` as text, when the node has it.
    pub fn property(&self, name: &str) -> Option<String> {
        self.properties.iter().find(|p| p.name == name).map(|p| p.value.text())
    }
}

/// A value as the tree gives it: any JSON, read as text.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct AxValue {
    #[serde(default)]
    pub value: Option<Value>,
}

impl AxValue {
    /// A string as it is, nothing as "", anything else as its JSON.
    pub fn text(&self) -> String {
        match &self.value {
            Some(Value::String(s)) => s.clone(),
            None | Some(Value::Null) => String::new(),
            Some(other) => other.to_string(),
        }
    }
}

#[derive(Debug, Clone, Default, Deserialize)]
pub struct AxProperty {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub value: AxValue,
}

/// The answer of every tree command here.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct AxNodes {
    #[serde(default)]
    pub nodes: Vec<AxNode>,
}

/// A frame's whole tree.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GetFullAxTree<'a> {
    pub frame_id: &'a str,
}
command!(GetFullAxTree<'a>, "Accessibility.getFullAXTree", AxNodes);

/// One node (with `fetch_relatives`, its ancestors and their children too).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GetPartialAxTree {
    pub backend_node_id: i64,
    pub fetch_relatives: bool,
}
command!(GetPartialAxTree, "Accessibility.getPartialAXTree", AxNodes);

/// The nodes under `backend_node_id` (itself included), of `role` when given.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct QueryAxTree<'a> {
    pub backend_node_id: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub role: Option<&'a str>,
}
command!(QueryAxTree<'a>, "Accessibility.queryAXTree", AxNodes);

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_read_as_text_whatever_their_json() {
        let node: AxNode = serde_json::from_value(json!({
            "nodeId": "5", "role": {"type": "role", "value": "heading"}, "backendDOMNodeId": 5,
            "properties": [{"name": "level", "value": {"type": "integer", "value": 2}},
                           {"name": "checked", "value": {"type": "tristate", "value": "true"}}]
        }))
        .unwrap();
        assert_eq!((node.role(), node.name()), ("heading".to_owned(), String::new()));
        assert_eq!(node.property("level").as_deref(), Some("2"));
        assert_eq!(node.property("checked").as_deref(), Some("true"));
        assert_eq!(node.property("disabled"), None);
        assert_eq!(node.backend_dom_node_id, Some(5));
    }
}
