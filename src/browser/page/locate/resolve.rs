//! Finding the elements a [`Target`] names and handing them to helper scripts.
//!
//! CSS, text and XPath targets are resolved by the page script itself (`lib.js` `query`). Role
//! targets are resolved here through Chromium's accessibility tree (the screen reader's truth),
//! and ref targets through the ref table; their elements are passed to the script as object
//! handles. A ref resolves to exactly the node it was issued for or fails with `stale_ref`.

use serde_json::Value;
use tokio::time::Instant;

use super::Locate;
use super::call::read;
use super::refs::RefTarget;
use super::scripts::{FirstMatch, IsAlive, Script};
use super::selector::{RoleSelector, Selector};
use super::target::Target;
use crate::browser::chromium::protocol::accessibility::QueryAxTree;
use crate::browser::chromium::protocol::dom::{DescribeNode, GetDocument, ResolveNode};
use crate::browser::chromium::protocol::runtime::{CallArgument, CallFunctionOn, ReleaseObjectGroup};
use crate::browser::error::{BrowserError, Refusal};

/// Role-selector matches handed to a script, at most this many.
const MAX_HANDLES: usize = 20;
/// The object group element handles live in, released after each call.
const HANDLE_GROUP: &str = "text-browser-handles";

impl Locate<'_> {
    /// Like [`Locate::call`], for a script that works on `target`: the target's spec is the
    /// first argument, then `args`, then the elements a role or ref target resolves to (as
    /// handles). A ref's script runs in its element's frame.
    pub(in crate::browser) async fn call_on<S: Script>(
        &self,
        _script: S,
        target: &Target,
        args: &[Value],
        deadline: Instant,
    ) -> Result<S::Answer, BrowserError> {
        let mut all_args = vec![target.spec()];
        all_args.extend_from_slice(args);
        let mut retried = false;
        loop {
            let (context, handles) = match target.selector() {
                Selector::Role(role) => {
                    let context = self.context(deadline).await?;
                    (context, role_handles(self, role, context, deadline).await?)
                }
                Selector::Ref(name) => {
                    let (context, handle) = ref_handle(self, name, deadline).await?;
                    (context, vec![handle])
                }
                _ => (self.context(deadline).await?, Vec::new()),
            };
            let answer = self.call_in(context, S::SOURCE, &all_args, &handles, deadline).await;
            if !handles.is_empty() {
                release_handles(self, deadline).await;
            }
            match answer {
                // The document changed between making the world and using it: make a new one.
                Err(err) if !retried && err.refusal() == Some(Refusal::ContextGone) => {
                    self.forget(context);
                    retried = true;
                }
                other => return read::<S>(other?),
            }
        }
    }

    /// The backend node id of the first element `target` matches (refs resolve without the page).
    pub(in crate::browser::page) async fn backend_id(
        &self,
        target: &Target,
        deadline: Instant,
    ) -> Result<i64, BrowserError> {
        if let Some(name) = target.ref_name() {
            return self.ref_target(name).map(|t| t.backend_node_id);
        }
        let context = self.context(deadline).await?;
        let mut arguments = vec![CallArgument::Value { value: target.spec() }];
        if let Selector::Role(role) = target.selector() {
            for handle in role_handles(self, role, context, deadline).await? {
                arguments.push(CallArgument::Object { object_id: handle });
            }
        }
        let call = CallFunctionOn {
            function_declaration: FirstMatch::SOURCE,
            execution_context_id: Some(context),
            arguments,
            object_group: Some(HANDLE_GROUP),
            ..CallFunctionOn::default()
        };
        let found = async {
            let answer = self.core.send(call, deadline).await?;
            if let Some(details) = answer.exception_details {
                return Err(BrowserError::InvalidSelector { selector: target.to_string(), reason: details.message() });
            }
            let Some(object) = answer.result.object_id else {
                return Err(BrowserError::ElementNotFound(target.to_string()));
            };
            let node =
                self.core.send(DescribeNode { object_id: Some(&object), ..DescribeNode::default() }, deadline).await?;
            node.node.backend_node_id.ok_or_else(|| BrowserError::ElementNotFound(target.to_string()))
        }
        .await;
        release_handles(self, deadline).await;
        found
    }

    /// Like `backend_id`, but waits (until `deadline`) for an element that is not there
    /// yet — one a page renders after a fetch. Attached is enough: it need not be visible.
    pub(in crate::browser::page) async fn wait_attached(
        &self,
        target: &Target,
        deadline: Instant,
    ) -> Result<i64, BrowserError> {
        /// How long to wait between looks for an element that is not there.
        const LOOK_AGAIN: std::time::Duration = std::time::Duration::from_millis(100);
        let started = Instant::now();
        loop {
            match self.backend_id(target, deadline).await {
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

    /// Where a ref issued for the current document points.
    fn ref_target(&self, name: &str) -> Result<RefTarget, BrowserError> {
        let loader = self.core.loader_id();
        self.refs().resolve(loader.as_str(), name).map_err(BrowserError::StaleRef)
    }

    /// The frame a ref's element is in, when it is not the main frame.
    pub(in crate::browser::page) fn ref_child_frame(&self, target: &Target) -> Option<RefTarget> {
        let found = self.ref_target(target.ref_name()?).ok()?;
        (found.frame_id != self.core.target_id.main_frame()).then_some(found)
    }
}

async fn release_handles(locate: &Locate<'_>, deadline: Instant) {
    let _ = locate.core.send(ReleaseObjectGroup { object_group: HANDLE_GROUP }, deadline).await;
}

/// The elements matching a role selector, as object ids in the helper world.
async fn role_handles(
    locate: &Locate<'_>,
    role: &RoleSelector,
    context: i64,
    deadline: Instant,
) -> Result<Vec<String>, BrowserError> {
    let document = locate.core.send(GetDocument { depth: 0 }, deadline).await?;
    let root = document.root.backend_node_id.unwrap_or_default();
    let query = QueryAxTree { backend_node_id: root, role: Some(&role.role) };
    let nodes = locate.core.send(query, deadline).await?.nodes;
    let mut handles = Vec::new();
    for node in nodes.iter().filter(|n| role.matches(n)).take(MAX_HANDLES) {
        let Some(backend) = node.backend_dom_node_id else { continue };
        let resolve = ResolveNode {
            backend_node_id: backend,
            execution_context_id: Some(context),
            object_group: Some(HANDLE_GROUP),
        };
        if let Ok(resolved) = locate.core.send(resolve, deadline).await
            && let Some(id) = resolved.object.object_id
        {
            handles.push(id);
        }
    }
    Ok(handles)
}

/// Resolves a ref to its frame's helper-world context and an object id for its element.
async fn ref_handle(locate: &Locate<'_>, name: &str, deadline: Instant) -> Result<(i64, String), BrowserError> {
    let stale = |why: String| BrowserError::StaleRef(why);
    let target = locate.ref_target(name)?;
    let context = locate
        .frame_context(&target.frame_id, deadline)
        .await
        .map_err(|_| stale(format!("ref {name} is in a frame that is gone")))?;
    let resolve = ResolveNode {
        backend_node_id: target.backend_node_id,
        execution_context_id: Some(context),
        object_group: Some(HANDLE_GROUP),
    };
    let resolved = locate
        .core
        .send(resolve, deadline)
        .await
        .map_err(|_| stale(format!("the element of ref {name} no longer exists")))?;
    let object = resolved.object.object_id.unwrap_or_default();
    let is_alive = CallFunctionOn {
        function_declaration: IsAlive::SOURCE,
        object_id: Some(&object),
        return_by_value: true,
        ..CallFunctionOn::default()
    };
    let alive = locate.core.send(is_alive, deadline).await?.result.value;
    let alive: Option<<IsAlive as Script>::Answer> = alive.and_then(|alive| serde_json::from_value(alive).ok());
    if alive != Some(true) {
        return Err(stale(format!("the element of ref {name} was removed from the page (it re-rendered)")));
    }
    Ok((context, object))
}
