//! Finding the elements a [`Target`] names and handing them to helper scripts.
//!
//! CSS, text and XPath targets are resolved by the page script itself (`lib.js` `query`). Role
//! targets are resolved here through Chromium's accessibility tree (the screen reader's truth),
//! and ref targets through the ref table; their elements are passed to the script as object
//! handles. A ref resolves to exactly the node it was issued for or fails with `stale_ref`.

use serde_json::{Value, json};
use tokio::time::Instant;

use super::handle::Page;
use super::refs::RefTarget;
use super::selector::{RoleSelector, Selector};
use super::target::Target;
use crate::browser::error::BrowserError;

/// The first element a target spec matches, as an object (or null).
const FIRST_MATCH_JS: &str = include_str!("../../js/first_match.js");
/// Whether a resolved element is still attached to a live document.
const IS_ALIVE_JS: &str = include_str!("../../js/is_alive.js");

/// Role-selector matches handed to a script, at most this many.
const MAX_HANDLES: usize = 20;
/// The object group element handles live in, released after each call.
const HANDLE_GROUP: &str = "text-browser-handles";

impl Page {
    /// Like [`Page::call_helper`], for a script that works on `target`: the target's spec is the
    /// first argument, then `args`, then the elements a role or ref target resolves to (as
    /// handles). A ref's script runs in its element's frame.
    pub(in crate::browser) async fn call_helper_on(
        &self,
        function: &'static str,
        target: &Target,
        args: &[Value],
        deadline: Instant,
    ) -> Result<Value, BrowserError> {
        let mut all_args = vec![target.spec()];
        all_args.extend_from_slice(args);
        let mut retried = false;
        loop {
            let (context, handles) = match target.selector() {
                Selector::Role(role) => {
                    let context = self.helper_context(deadline).await?;
                    (context, self.role_handles(role, context, deadline).await?)
                }
                Selector::Ref(name) => {
                    let (context, handle) = self.ref_handle(name, deadline).await?;
                    (context, vec![handle])
                }
                _ => (self.helper_context(deadline).await?, Vec::new()),
            };
            let answer = self.call_in(context, function, &all_args, &handles, deadline).await;
            if !handles.is_empty() {
                self.release_handles(deadline).await;
            }
            match answer {
                // The document changed between making the world and using it: make a new one.
                Err(BrowserError::Protocol { message, .. }) if !retried && message.contains("context") => {
                    self.forget_helper_context(context);
                    retried = true;
                }
                other => return other,
            }
        }
    }

    /// The backend node id of the first element `target` matches (refs resolve without the page).
    pub(super) async fn element_backend_id(&self, target: &Target, deadline: Instant) -> Result<i64, BrowserError> {
        if let Some(name) = target.ref_name() {
            return self.ref_target(name).map(|t| t.backend_node_id);
        }
        let context = self.helper_context(deadline).await?;
        let mut arguments = vec![json!({ "value": target.spec() })];
        if let Selector::Role(role) = target.selector() {
            for handle in self.role_handles(role, context, deadline).await? {
                arguments.push(json!({ "objectId": handle }));
            }
        }
        let params = json!({
            "functionDeclaration": FIRST_MATCH_JS,
            "executionContextId": context,
            "arguments": arguments,
            "objectGroup": HANDLE_GROUP,
        });
        let found = async {
            let answer = self.cdp("Runtime.callFunctionOn", params, deadline).await?;
            if let Some(details) = answer.get("exceptionDetails") {
                return Err(BrowserError::InvalidSelector {
                    selector: target.to_string(),
                    reason: super::script::exception_message(details),
                });
            }
            let Some(object) = answer.pointer("/result/objectId").and_then(Value::as_str) else {
                return Err(BrowserError::ElementNotFound(target.to_string()));
            };
            let node = self.cdp("DOM.describeNode", json!({ "objectId": object }), deadline).await?;
            node.pointer("/node/backendNodeId")
                .and_then(Value::as_i64)
                .ok_or_else(|| BrowserError::ElementNotFound(target.to_string()))
        }
        .await;
        self.release_handles(deadline).await;
        found
    }

    /// Like `element_backend_id`, but waits (until `deadline`) for an element that is not there
    /// yet — one a page renders after a fetch. Attached is enough: it need not be visible.
    pub(super) async fn wait_attached(&self, target: &Target, deadline: Instant) -> Result<i64, BrowserError> {
        /// How long to wait between looks for an element that is not there.
        const LOOK_AGAIN: std::time::Duration = std::time::Duration::from_millis(100);
        let started = Instant::now();
        loop {
            match self.element_backend_id(target, deadline).await {
                Err(BrowserError::ElementNotFound(_)) if Instant::now() + LOOK_AGAIN < deadline => {
                    tokio::time::sleep(LOOK_AGAIN).await;
                }
                Err(BrowserError::ElementNotFound(what)) => {
                    let waited = started.elapsed().as_millis();
                    return Err(BrowserError::ElementNotFound(format!("{what} (waited {waited} ms)")));
                }
                // The deadline passed during a look (a busy page answers late): still, what the
                // call waited for never came.
                Err(BrowserError::NoAnswer(_)) => {
                    let waited = started.elapsed().as_millis();
                    return Err(BrowserError::ElementNotFound(format!(
                        "{target} (waited {waited} ms; the page did not answer the last look before the deadline: \
                         a script is keeping it busy)"
                    )));
                }
                other => return other,
            }
        }
    }

    async fn release_handles(&self, deadline: Instant) {
        let _ = self.cdp("Runtime.releaseObjectGroup", json!({ "objectGroup": HANDLE_GROUP }), deadline).await;
    }

    /// The elements matching a role selector, as object ids in the helper world.
    async fn role_handles(
        &self,
        role: &RoleSelector,
        context: i64,
        deadline: Instant,
    ) -> Result<Vec<String>, BrowserError> {
        let document = self.cdp("DOM.getDocument", json!({ "depth": 0 }), deadline).await?;
        let root = document.pointer("/root/backendNodeId").cloned().unwrap_or(Value::Null);
        let answer = self
            .cdp("Accessibility.queryAXTree", json!({ "backendNodeId": root, "role": role.role }), deadline)
            .await?;
        let nodes = answer.get("nodes").and_then(Value::as_array).cloned().unwrap_or_default();
        let mut handles = Vec::new();
        for node in nodes.iter().filter(|n| role.matches(n)).take(MAX_HANDLES) {
            let Some(backend) = node.get("backendDOMNodeId").and_then(Value::as_i64) else { continue };
            let params =
                json!({ "backendNodeId": backend, "executionContextId": context, "objectGroup": HANDLE_GROUP });
            if let Ok(resolved) = self.cdp("DOM.resolveNode", params, deadline).await
                && let Some(id) = resolved.pointer("/object/objectId").and_then(Value::as_str)
            {
                handles.push(id.to_owned());
            }
        }
        Ok(handles)
    }

    /// Where a ref issued for the current document points.
    fn ref_target(&self, name: &str) -> Result<RefTarget, BrowserError> {
        let loader = self.loader_id();
        self.refs().resolve(&loader, name).map_err(BrowserError::StaleRef)
    }

    /// Resolves a ref to its frame's helper-world context and an object id for its element.
    async fn ref_handle(&self, name: &str, deadline: Instant) -> Result<(i64, String), BrowserError> {
        let stale = |why: String| BrowserError::StaleRef(why);
        let target = self.ref_target(name)?;
        let context = self
            .frame_context(&target.frame_id, deadline)
            .await
            .map_err(|_| stale(format!("ref {name} is in a frame that is gone")))?;
        let params = json!({
            "backendNodeId": target.backend_node_id, "executionContextId": context, "objectGroup": HANDLE_GROUP,
        });
        let resolved = self
            .cdp("DOM.resolveNode", params, deadline)
            .await
            .map_err(|_| stale(format!("the element of ref {name} no longer exists")))?;
        let object = resolved.pointer("/object/objectId").and_then(Value::as_str).unwrap_or_default().to_owned();
        let alive = self
            .cdp(
                "Runtime.callFunctionOn",
                json!({ "functionDeclaration": IS_ALIVE_JS, "objectId": object, "returnByValue": true }),
                deadline,
            )
            .await?;
        if alive.pointer("/result/value") != Some(&json!(true)) {
            return Err(stale(format!("the element of ref {name} was removed from the page (it re-rendered)")));
        }
        Ok((context, object))
    }

    /// The frame a ref's element is in, when it is not the main frame.
    pub(super) fn ref_child_frame(&self, target: &Target) -> Option<RefTarget> {
        let found = self.ref_target(target.ref_name()?).ok()?;
        (found.frame_id != self.target_id()).then_some(found)
    }
}
