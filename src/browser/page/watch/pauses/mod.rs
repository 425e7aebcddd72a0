//! The Debugger's pauses, answered by one task per page. `debug()` armed on the Web Storage
//! methods (`js/storage_arm.js`) makes each `getItem`/`setItem`/`removeItem`/`clear` call pause the
//! page with its caller's frame on top: in the current document before an action runs in it
//! ([`arm_document`]), and in every document from its start once the page has used storage
//! ([`arm`]; `Core::follow_storage` decides). The task reads the caller's line (script id → URL
//! through `scriptParsed`), the call from its text (`call`), the key evaluated side-effect-free on
//! the frame; found or `null` comes from the service's own mirror of the storage (`mirror`), never
//! from the page's storage. What it read goes to the pump *before* the page resumes, so it is in
//! the pump's channel before anything the page does next (a load, the write the call makes): the
//! settle barrier that covers those covers it too. A write's line is sent as a
//! [`StorageEvent::Calling`] that the reducer pairs with the write's own `DOMStorage` event.
//! Every other pause (a page's `debugger;`) is resumed at once.
//!
//! Why not every document from its start: the Debugger domain on during a load, and `debug()` on
//! built-in functions at a document's start, cost each load ≈ +30 ms on a small page (V8 compiles
//! the document's scripts anew and walks its heap per armed function). Arming a loaded document
//! costs ≈4 ms once. So a page that never used storage loads as fast as without this (the Debugger
//! is turned off again before the service navigates it), and only its actions' calls are followed.
//!
//! A pause costs the page ≈3 ms: a document is followed for [`BUDGET`] calls, then the breakpoints
//! its calls hit are removed and the answer says the rest were not followed.

mod call;
mod mirror;

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use futures_util::stream::{self, BoxStream, SelectAll};
use futures_util::{FutureExt, StreamExt};
use serde_json::Value;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio::time::Instant;

use self::call::{Call, Method};
use self::mirror::{AreaId, Mirror, Write};
use super::cdp_events::{PageEvent, StorageEvent, exchange_storage};
use super::clock::now_ms;
use super::dom::ASYNC_DEPTH;
use super::exchanged::Found;
use super::stacks::CodeLocation;
use crate::browser::chromium::protocol::debugger::{
    self, EvaluateOnCallFrame, GetScriptSource, RemoveBreakpoint, Resume,
};
use crate::browser::chromium::protocol::page::AddScriptToEvaluateOnNewDocument;
use crate::browser::chromium::protocol::runtime::{Evaluate, GetIsolateId, SetAsyncCallStackDepth};
use crate::browser::chromium::protocol::storage::{GetDomStorageItems, StorageId};
use crate::browser::chromium::{RawEvent, cdp, listen};
use crate::browser::error::BrowserError;

/// Storage calls followed per document; past it its breakpoints are removed.
pub const BUDGET: u32 = 32;
/// How long one step of reading a pause may take (the page waits meanwhile).
const STEP: Duration = Duration::from_secs(2);
/// Script sources kept for reading calls (the scripts that call storage are few).
const SOURCES: usize = 8;
/// Scripts and documents remembered; beyond this the maps start over.
const MAX_SCRIPTS: usize = 20_000;
const ARM: &str = include_str!("../../../../js/storage_arm.js");

/// Whether a raw (rescued) event is this task's: a pause (the pump's alone), or a storage write
/// (the pump's too: the task keeps its mirror with it).
pub fn wants(method: &str) -> bool {
    method == "Debugger.paused" || method.starts_with("DOMStorage.")
}

/// Subscribes to what the task reads (before the Debugger can be on: no pause goes unanswered) and
/// starts it. `rescued`: the raw events of the page this task [`wants`]; `out`: to the pump.
pub async fn start(
    page: &chromiumoxide::Page,
    rescued: mpsc::UnboundedReceiver<RawEvent>,
    out: mpsc::UnboundedSender<PageEvent>,
) -> Result<JoinHandle<()>, BrowserError> {
    use chromiumoxide::cdp::browser_protocol::dom_storage::{
        EventDomStorageItemAdded, EventDomStorageItemRemoved, EventDomStorageItemUpdated, EventDomStorageItemsCleared,
    };
    use chromiumoxide::cdp::js_protocol::debugger::EventPaused;
    use chromiumoxide::cdp::js_protocol::runtime::EventExecutionContextCreated;
    let mut events = SelectAll::new();
    events.push(listen::<EventPaused>(page).await?);
    events.push(page_scripts(page).await?);
    events.push(listen::<EventExecutionContextCreated>(page).await?);
    events.push(listen::<EventDomStorageItemAdded>(page).await?);
    events.push(listen::<EventDomStorageItemUpdated>(page).await?);
    events.push(listen::<EventDomStorageItemRemoved>(page).await?);
    events.push(listen::<EventDomStorageItemsCleared>(page).await?);
    let mut rescued = rescued;
    events.push(stream::poll_fn(move |cx| rescued.poll_recv(cx)).boxed());
    let reader = Reader { page: Some(page.clone()), out: Some(out), ..Reader::default() };
    Ok(tokio::spawn(reader.run(events)))
}

/// Turns the Debugger on and arms the storage breakpoints in every new document (the page used
/// storage: its calls are followed from each document's start), and in the current ones when
/// `current` (not yet armed by [`arm_document`]).
pub async fn arm(page: &chromiumoxide::Page, current: bool, deadline: Instant) -> Result<(), BrowserError> {
    cdp::send(page, debugger::Enable {}, deadline).await?;
    let arm = AddScriptToEvaluateOnNewDocument {
        source: ARM,
        world_name: None,
        run_immediately: current,
        include_command_line_api: true,
    };
    cdp::send(page, arm, deadline).await.map(drop)
}

/// Turns the Debugger on and arms the storage breakpoints in the current top document only (an
/// action is about to run in it): ≈4 ms once per document, where arming from a document's start
/// costs every load.
pub async fn arm_document(page: &chromiumoxide::Page, deadline: Instant) -> Result<(), BrowserError> {
    cdp::send(page, debugger::Enable {}, deadline).await?;
    let arm = Evaluate { expression: ARM, include_command_line_api: true, silent: true, ..Evaluate::default() };
    cdp::send(page, arm, deadline).await.map(drop)
}

/// Turns the Debugger off (its breakpoints go with it) before a load that need not pay for it, and
/// the async stack traces, which go with it, back on.
pub async fn disarm(page: &chromiumoxide::Page, deadline: Instant) {
    let _ = cdp::send(page, debugger::Disable {}, deadline).await;
    let _ = cdp::send(page, SetAsyncCallStackDepth { max_depth: ASYNC_DEPTH }, deadline).await;
}

/// The `scriptParsed` of the page's own scripts, as raw JSON of the three fields read here: the
/// service's evaluations (no URL; one each while the Debugger is on) are dropped before anything
/// is copied.
async fn page_scripts(page: &chromiumoxide::Page) -> Result<BoxStream<'static, RawEvent>, BrowserError> {
    use chromiumoxide::cdp::js_protocol::debugger::EventScriptParsed;
    let method = "Debugger.scriptParsed";
    let listener = page.event_listener::<EventScriptParsed>().await.map_err(|e| cdp::map_cdp_error(method, e))?;
    Ok(listener
        .filter_map(move |event| {
            let params = (!event.url.is_empty()).then(|| {
                serde_json::json!({
                    "scriptId": event.script_id.inner(),
                    "url": event.url,
                    "executionContextId": event.execution_context_id.inner(),
                })
            });
            std::future::ready(params.map(|params| RawEvent { method: method.to_owned(), params }))
        })
        .boxed())
}

/// The task's state.
#[derive(Default)]
struct Reader {
    page: Option<chromiumoxide::Page>,
    out: Option<mpsc::UnboundedSender<PageEvent>>,
    /// Script id → (URL, its execution context).
    scripts: HashMap<String, (String, i64)>,
    /// Execution context → its origin.
    origins: HashMap<i64, String>,
    budget: Budget,
    /// Recent script sources by id.
    sources: Vec<(String, Arc<str>)>,
    mirror: Mirror,
}

/// Storage calls paused on per execution context (a document), against [`BUDGET`].
#[derive(Debug, Default)]
struct Budget(HashMap<i64, u32>);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Follow {
    Yes,
    /// The first call past the budget: the answer says the rest are not followed.
    FirstPast,
    Past,
}

impl Budget {
    /// One more call in the document of `context`: whether it is followed.
    fn call(&mut self, context: i64) -> Follow {
        let count = self.0.entry(context).or_default();
        *count = count.saturating_add(1);
        match *count {
            n if n <= BUDGET => Follow::Yes,
            n if n == BUDGET + 1 => Follow::FirstPast,
            _ => Follow::Past,
        }
    }
}

/// The frame on top of a pause, as read.
struct Top {
    frame_id: String,
    script_id: String,
    line: u32,
    column: u32,
    function: String,
}

impl Reader {
    async fn run(mut self, mut events: SelectAll<BoxStream<'static, RawEvent>>) {
        while let Some(event) = events.next().await {
            if event.method != "Debugger.paused" {
                self.note(event);
                continue;
            }
            let mut pauses = VecDeque::from([(event.params, now_ms())]);
            while let Some((pause, at)) = pauses.pop_front() {
                self.catch_up(&mut events, &pause, &mut pauses).await;
                self.paused(&pause, at).await;
            }
        }
    }

    /// Applies the events the renderer sent before `pause` (its script's `scriptParsed`, its
    /// document's context, a write's event before a read that follows it): chromiumoxide hands
    /// over a pause (which it cannot parse) at once but the events before it only at its next
    /// turn, so they may still be on their way. Once a round trip to the renderer is answered,
    /// they are in their channels. The round trip is the fetch of the paused script's source
    /// when it is not kept (needed anyway), else a bare one; none when all the pause needs is
    /// known. Another pause met meanwhile is queued.
    async fn catch_up(
        &mut self,
        events: &mut SelectAll<BoxStream<'static, RawEvent>>,
        pause: &Value,
        pauses: &mut VecDeque<(Value, f64)>,
    ) {
        let script = str_of(pause, "/callFrames/0/location/scriptId");
        let context = script.and_then(|id| self.scripts.get(id)).map(|(_, context)| *context);
        if context.is_some_and(|context| self.origins.contains_key(&context)) && !self.mirror.waiting() {
            return;
        }
        match script {
            Some(id) if !self.sources.iter().any(|(kept, _)| kept == id) => drop(self.source(id).await),
            _ => self.barrier().await,
        }
        while let Some(Some(event)) = events.next().now_or_never() {
            if event.method == "Debugger.paused" {
                pauses.push_back((event.params, now_ms()));
            } else {
                self.note(event);
            }
        }
    }

    fn send(&self, event: PageEvent) {
        if let Some(out) = &self.out {
            let _ = out.send(event);
        }
    }

    /// A script, a context or a storage write.
    fn note(&mut self, event: RawEvent) {
        let params = &event.params;
        match event.method.as_str() {
            "Debugger.scriptParsed" => {
                let (Some(id), Some(context)) = (str_of(params, "/scriptId"), int_of(params, "/executionContextId"))
                else {
                    return;
                };
                if self.scripts.len() >= MAX_SCRIPTS {
                    self.scripts.clear();
                }
                self.scripts.insert(id.to_owned(), (str_of(params, "/url").unwrap_or_default().to_owned(), context));
            }
            "Runtime.executionContextCreated" => {
                let (Some(id), Some(origin)) = (int_of(params, "/context/id"), str_of(params, "/context/origin"))
                else {
                    return;
                };
                if self.origins.len() >= MAX_SCRIPTS {
                    self.origins.clear();
                    self.budget = Budget::default();
                }
                self.origins.insert(id, origin.trim_end_matches('/').to_owned());
            }
            method => {
                // The pump files the write from its own listener; the mirror keeps it here.
                let Some(PageEvent::Storage(storage)) = exchange_storage(method, params) else { return };
                let origin = str_of(params, "/storageId/securityOrigin")
                    .filter(|o| !o.is_empty())
                    .or_else(|| str_of(params, "/storageId/storageKey"))
                    .unwrap_or_default()
                    .trim_end_matches('/')
                    .to_owned();
                let (local, write) = match &storage {
                    StorageEvent::Set { local, key, .. } => (*local, Write::Set(key)),
                    StorageEvent::Removed { local, key, .. } => (*local, Write::Removed(key)),
                    StorageEvent::Cleared { local, .. } => (*local, Write::Cleared),
                    StorageEvent::Read { .. } | StorageEvent::Unfollowed { .. } | StorageEvent::Calling { .. } => {
                        return;
                    }
                };
                let _ = self.mirror.wrote((origin, local), write);
            }
        }
    }

    /// Reads a pause when it is a storage call the document's budget still follows, and resumes.
    /// `at`: when the pause reached the service, which times the call (the page waits meanwhile).
    async fn paused(&mut self, pause: &Value, at: f64) {
        let ours = str_of(pause, "/reason") == Some("debugCommand");
        let top = pause.pointer("/callFrames/0").and_then(|frame| {
            Some(Top {
                frame_id: str_of(frame, "/callFrameId")?.to_owned(),
                script_id: str_of(frame, "/location/scriptId")?.to_owned(),
                line: int_of(frame, "/location/lineNumber")? as u32,
                column: int_of(frame, "/location/columnNumber").unwrap_or(0) as u32,
                function: str_of(frame, "/functionName").unwrap_or_default().to_owned(),
            })
        });
        let script = top.as_ref().and_then(|top| self.scripts.get(&top.script_id).cloned());
        let (Some(top), Some((url, context)), true) = (top, script, ours) else {
            tracing::debug!(
                ours,
                known = self.scripts.len(),
                "a pause not read: not a storage call, or its script unknown"
            );
            return self.resume().await;
        };
        // The service's own evaluations (no URL) are not the page's calls.
        if url.is_empty() {
            return self.resume().await;
        }
        match self.budget.call(context) {
            Follow::Yes => {}
            past => {
                self.unarm(pause).await;
                self.resume().await;
                if past == Follow::FirstPast {
                    self.send(PageEvent::Storage(StorageEvent::Unfollowed { budget: BUDGET }));
                }
                return;
            }
        }
        let origin = self.origins.get(&context).cloned().unwrap_or_default();
        // Sent before the page resumes: in the pump's channel before anything the page does next.
        let read = self.read(&top, &origin).await;
        tracing::debug!(url = %url, line = top.line, read = read.is_some(), "a storage call paused on");
        if let Some((call, local, key)) = read {
            let by = CodeLocation { url, line: top.line + 1, column: top.column + 1, function: top.function };
            match call.method {
                Method::GetItem => {
                    let (found, similar) = match &key {
                        Some(key) => self.mirror.read(&(origin, local), key),
                        None => (Found::Unknown, None),
                    };
                    self.send(PageEvent::Storage(StorageEvent::Read { local, key, found, by, similar, at }));
                }
                Method::SetItem | Method::RemoveItem if key.is_some() => {
                    self.mirror.calling(local, key.clone(), by.clone());
                    self.send(PageEvent::Storage(StorageEvent::Calling { local, key, by, at }));
                }
                Method::Clear => {
                    self.mirror.calling(local, None, by.clone());
                    self.send(PageEvent::Storage(StorageEvent::Calling { local, key: None, by, at }));
                }
                Method::SetItem | Method::RemoveItem => {}
            }
        }
        self.resume().await;
    }

    /// While paused: the call, its area (`true`: localStorage) and key; the area read from the
    /// browser first when a read needs it.
    async fn read(&mut self, top: &Top, origin: &str) -> Option<(Call, bool, Option<String>)> {
        let source = self.source(&top.script_id).await?;
        let call = call::read(&source, top.line, top.column)?;
        let local = match call.receiver.as_deref() {
            Some(r) if r.ends_with("sessionStorage") => false,
            Some(r) if r.ends_with("localStorage") => true,
            Some(r) => {
                let expression = format!("({r}) === sessionStorage");
                self.evaluate(&top.frame_id, &expression).await.and_then(|v| v.as_bool()).is_none_or(|s| !s)
            }
            None => true,
        };
        let key = match &call.key {
            Some(text) => self.evaluate(&top.frame_id, text).await.and_then(|value| match value {
                Value::String(s) => Some(s),
                Value::Number(n) => Some(n.to_string()),
                _ => None,
            }),
            None => None,
        };
        let area: AreaId = (origin.to_owned(), local);
        if call.method == Method::GetItem && !origin.is_empty() && self.mirror.needs_seed(&area) {
            let keys = self.seed(&area).await;
            self.mirror.seed(area, keys);
        }
        Some((call, local, key))
    }

    /// The keys the browser holds for `area` (read without the page), `None` if it could not say.
    async fn seed(&self, (origin, local): &AreaId) -> Option<Vec<String>> {
        let page = self.page.as_ref()?;
        let id = StorageId { security_origin: origin, is_local_storage: *local };
        let items = cdp::send(page, GetDomStorageItems { storage_id: id }, Instant::now() + STEP).await.ok()?;
        Some(items.entries.into_iter().filter_map(|pair| pair.into_iter().next()).collect())
    }

    /// A script's source, kept for the next calls.
    async fn source(&mut self, script_id: &str) -> Option<Arc<str>> {
        if let Some((_, source)) = self.sources.iter().find(|(id, _)| id == script_id) {
            return Some(source.clone());
        }
        let page = self.page.as_ref()?;
        let got = cdp::send(page, GetScriptSource { script_id }, Instant::now() + STEP).await.ok()?;
        let source: Arc<str> = got.script_source.into();
        if self.sources.len() == SOURCES {
            self.sources.remove(0);
        }
        self.sources.push((script_id.to_owned(), source.clone()));
        Some(source)
    }

    /// `expression` evaluated on the paused frame, refused if it could have a side effect.
    async fn evaluate(&self, frame_id: &str, expression: &str) -> Option<Value> {
        let page = self.page.as_ref()?;
        let evaluate = EvaluateOnCallFrame {
            call_frame_id: frame_id,
            expression,
            throw_on_side_effect: true,
            return_by_value: true,
            silent: true,
            timeout: 100,
        };
        let done = cdp::send(page, evaluate, Instant::now() + STEP).await.ok()?;
        if done.exception_details.is_some() {
            return None;
        }
        done.result.get("value").cloned()
    }

    /// Removes the breakpoints a pause hit (a document past its budget).
    async fn unarm(&self, pause: &Value) {
        let Some(page) = &self.page else { return };
        let hit = pause.get("hitBreakpoints").and_then(Value::as_array).into_iter().flatten();
        for id in hit.filter_map(Value::as_str) {
            let _ = cdp::send(page, RemoveBreakpoint { breakpoint_id: id }, Instant::now() + STEP).await;
        }
    }

    /// A round trip to the renderer (see `run`).
    async fn barrier(&self) {
        if let Some(page) = &self.page {
            let _ = cdp::send(page, GetIsolateId {}, Instant::now() + STEP).await;
        }
    }

    async fn resume(&self) {
        if let Some(page) = &self.page {
            let _ = cdp::send(page, Resume {}, Instant::now() + STEP).await;
        }
    }
}

fn str_of<'a>(value: &'a Value, pointer: &str) -> Option<&'a str> {
    value.pointer(pointer).and_then(Value::as_str)
}

fn int_of(value: &Value, pointer: &str) -> Option<i64> {
    value.pointer(pointer).and_then(Value::as_i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_document_is_followed_for_its_budget_of_calls_then_said_to_be_past_it_once() {
        let mut budget = Budget::default();
        let followed = (0..BUDGET).filter(|_| budget.call(7) == Follow::Yes).count();
        assert_eq!(followed, BUDGET as usize);
        assert_eq!(budget.call(7), Follow::FirstPast);
        assert_eq!(budget.call(7), Follow::Past);
        assert_eq!(budget.call(8), Follow::Yes, "another document has its own budget");
    }

    #[test]
    fn only_pauses_and_storage_writes_are_the_tasks() {
        assert!(wants("Debugger.paused") && wants("DOMStorage.domStorageItemAdded"));
        assert!(!wants("Debugger.scriptParsed") && !wants("Network.requestWillBeSent"));
    }
}
