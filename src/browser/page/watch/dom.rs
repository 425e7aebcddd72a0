//! DOM changes, as the watcher script (`js/dom_watch.js`) reports them, and how one reads in a
//! line (`#results: 10 children replaced`, `button#save: disabled set`).
//!
//! The script runs in an isolated world of every document from its first moment (installed once
//! per page with [`install`]); it coalesces changes per element over ~50 ms and calls a binding
//! only that world can see. Payloads are parsed leniently and bounded: a change is a short
//! description, never page content beyond a 60-character text excerpt.

use serde::Deserialize;
use serde_json::json;
use tokio::time::Instant;

use crate::browser::chromium::cdp;
use crate::browser::error::BrowserError;

const DOM_WATCH_JS: &str = include_str!("../../../js/dom_watch.js");
/// The binding the watcher reports through (its name is fixed in the script too).
pub const DOM_BINDING: &str = "__textBrowserDom";
/// The isolated world the watcher runs in, the helpers' world too (`page::script`): Chromium keeps
/// one world per name and frame, so a document pays for one isolated world, not two.
pub const WORLD: &str = "text-browser";
/// A payload larger than this is not ours (the script sends at most a dozen short changes).
const MAX_PAYLOAD: usize = 64 * 1024;

/// One element's change within one coalescing window.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct DomChange {
    /// When it happened: ms since the Unix epoch, by the page's clock.
    #[serde(rename = "t")]
    pub at: f64,
    /// The element, described briefly (`#results`, `button.primary`, `#app ul`).
    #[serde(rename = "el")]
    pub element: String,
    #[serde(default)]
    pub added: u32,
    #[serde(default)]
    pub removed: u32,
    /// The tag of every added element, when they share one.
    #[serde(default)]
    pub tag: Option<String>,
    /// Its text before and after, when that changed (60 characters each at most).
    #[serde(default)]
    pub text: Option<(String, String)>,
    /// State attributes that changed: (name, before, after); `None` = absent.
    #[serde(default)]
    pub attrs: Vec<(String, Option<String>, Option<String>)>,
    /// The user input this change followed in the same task (`keydown on #q`).
    #[serde(default)]
    pub input: Option<String>,
    /// Past the script's per-window limit: how many more elements under this one changed.
    #[serde(default)]
    pub others: u32,
}

impl DomChange {
    /// What changed, without the element: `10 children replaced; text "a" → "b"`.
    pub fn what(&self) -> String {
        let mut parts = Vec::new();
        if self.others > 0 {
            parts.push(format!("{} elements inside changed", self.others));
        }
        let noun = |n: u32| match (self.tag.as_deref(), n) {
            (Some("tr"), 1) => "row",
            (Some("tr"), _) => "rows",
            (Some("li"), 1) => "item",
            (Some("li"), _) => "items",
            (Some("option"), 1) => "option",
            (Some("option"), _) => "options",
            (_, 1) => "child",
            _ => "children",
        };
        match (self.added, self.removed) {
            (0, 0) => {}
            (a, 0) => parts.push(format!("{a} {} added", noun(a))),
            (0, r) => parts.push(format!("{r} {} removed", if r == 1 { "child" } else { "children" })),
            (a, r) if a == r => parts.push(format!("{a} {} replaced", noun(a))),
            (a, r) => parts.push(format!("{r} children replaced by {a} {}", noun(a))),
        }
        if let Some((before, after)) = &self.text {
            parts.push(format!("text {} → {}", quoted(before), quoted(after)));
        }
        for (name, before, after) in &self.attrs {
            parts.push(match (name.as_str(), before, after) {
                (_, None, Some(v)) if v.is_empty() || v == name => format!("{name} set"),
                (_, Some(_), None) => format!("{name} removed"),
                (_, None, Some(v)) => format!("{name}={}", quoted(v)),
                (_, Some(b), Some(a)) => format!("{name} {} → {}", quoted(b), quoted(a)),
                (_, None, None) => continue,
            });
        }
        parts.join("; ")
    }

    /// `#results: 10 children replaced`.
    pub fn line(&self) -> String {
        format!("{}: {}", self.element, self.what())
    }

    /// A rough size in bytes, for the timeline's byte cap.
    pub fn bytes(&self) -> usize {
        let attrs: usize = self
            .attrs
            .iter()
            .map(|(n, b, a)| n.len() + b.as_ref().map_or(0, String::len) + a.as_ref().map_or(0, String::len))
            .sum();
        64 + self.element.len()
            + self.text.as_ref().map_or(0, |(b, a)| b.len() + a.len())
            + attrs
            + self.input.as_ref().map_or(0, String::len)
    }
}

fn quoted(text: &str) -> String {
    serde_json::Value::from(text).to_string()
}

/// Parses the watcher's payload (a JSON array of changes); `None` when it is not one.
pub fn parse_payload(payload: &str) -> Option<Vec<DomChange>> {
    if payload.len() > MAX_PAYLOAD {
        return None;
    }
    let mut changes: Vec<DomChange> = serde_json::from_str(payload).ok()?;
    changes.truncate(32);
    for change in &mut changes {
        change.element = change.element.chars().take(120).collect();
    }
    Some(changes)
}

/// Which documents the watcher starts in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Watcher {
    /// The page's current document too: a popup taken on may have loaded its document already.
    FromThisDocument,
    /// Only documents loaded from now on: a page just opened on about:blank has nothing to
    /// watch, and making the watcher's world there costs every warm session's open.
    FromNextDocument,
}

/// Installs the watcher on `page`: the binding it reports through, and the script itself in every
/// document from now on (and the current one when `watcher` says so).
pub async fn install(page: &chromiumoxide::Page, watcher: Watcher, deadline: Instant) -> Result<(), BrowserError> {
    cdp::call(page, "Runtime.addBinding", json!({ "name": DOM_BINDING, "executionContextName": WORLD }), deadline)
        .await?;
    cdp::call(
        page,
        "Page.addScriptToEvaluateOnNewDocument",
        json!({
            "source": DOM_WATCH_JS,
            "worldName": WORLD,
            "runImmediately": watcher == Watcher::FromThisDocument,
        }),
        deadline,
    )
    .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_script_reports_through_the_binding_the_service_listens_to() {
        assert!(DOM_WATCH_JS.contains(DOM_BINDING));
    }

    #[test]
    fn a_change_reads_as_one_line() {
        let changes = parse_payload(
            r##"[{"t":1.5,"el":"#table","added":24,"removed":0,"tag":"tr","text":null,"attrs":[],"input":null},
                 {"t":1.5,"el":"#loading","added":0,"removed":0,"attrs":[["hidden",null,""]]},
                 {"t":2,"el":"#results","added":3,"removed":3,"tag":"li","text":["old","new"],"attrs":[["class","a","a busy"]]},
                 {"t":3,"el":"#grid","others":1990}]"##,
        )
        .unwrap();
        assert_eq!(changes[0].line(), "#table: 24 rows added");
        assert_eq!(changes[1].line(), "#loading: hidden set");
        assert_eq!(changes[2].line(), r#"#results: 3 items replaced; text "old" → "new"; class "a" → "a busy""#);
        assert_eq!(changes[3].line(), "#grid: 1990 elements inside changed");
    }

    #[test]
    fn a_payload_that_is_not_ours_is_ignored() {
        assert!(parse_payload("not json").is_none());
        assert!(parse_payload(&"x".repeat(MAX_PAYLOAD + 1)).is_none());
        assert_eq!(parse_payload("[]"), Some(vec![]));
    }
}
