//! The side effects of watching a page, as typed commands, and the task set that runs them.
//!
//! The reducer decides (capture this body, answer that dialog, cancel this download); the
//! [`Runner`] does it, each command on a task of the page's own task set, which ends with the page:
//! when the page goes, its token is cancelled and every task still running stops at once (a body
//! fetch in flight, a source fetch waiting for the document to load). What a command learns comes
//! back to the pump as a [`Finding`], which the reducer files like any event. The gauge
//! `text_browser_page_tasks` counts the tasks alive.

use std::future::Future;
use std::time::Duration;

use base64::Engine;
use serde_json::{Value, json};
use tokio::sync::{mpsc, watch};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::cdp_events::CodeLocation;
use super::nav::NavState;
use super::sources;
use super::stacks::Stack;
use super::store::SharedStore;
use crate::browser::chromium::cdp;
use crate::browser::chromium::ids::{BrowserContextId, FetchRequestId, FrameId, RequestId};

/// How long one command may take.
const COMMAND_TIME: Duration = Duration::from_secs(5);

/// Something to do for the page, decided by the reducer.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// Keep the response body of a finished request before Chromium evicts it.
    CaptureBody { request_id: RequestId },
    /// Posted data Chromium left out of the request event (large bodies).
    FetchPostData { request_id: RequestId },
    /// The source lines around `at`, for the console entry or page error `seq`.
    FetchSource { seq: u64, at: CodeLocation },
    /// The stack behind the DOM watcher's cause `id` of `document` (a `Runtime.StackTraceId`).
    FetchCause { document: u64, id: u32, stack_id: Value },
    /// Answer a request held for `network.route`.
    AnswerPaused(PausedAnswer),
    /// Answer the dialog that just opened.
    AnswerDialog { accept: bool, prompt_text: Option<String> },
    /// Give a file chooser's input the armed files.
    ChooseFiles { paths: Vec<String>, backend_node_id: i64 },
    /// Stop a download that grew past the cap.
    CancelDownload { guid: String, context_id: BrowserContextId },
    /// Any other CDP command whose answer nobody waits for (clean-up after a call).
    Send { method: &'static str, params: Value },
}

/// How a held request is answered.
#[derive(Debug, Clone, PartialEq)]
pub enum PausedAnswer {
    Continue { request_id: FetchRequestId },
    Abort { request_id: FetchRequestId },
    Fulfill { request_id: FetchRequestId, status: u16, headers: Vec<(String, String)>, body: Vec<u8> },
}

/// What a command learned, for the reducer to file.
#[derive(Debug, Clone, PartialEq)]
pub enum Finding {
    Body {
        request_id: RequestId,
        body: Option<String>,
    },
    PostData {
        request_id: RequestId,
        text: String,
    },
    /// The text of the script (or document) at `at.url`, when it could be had.
    Source {
        seq: u64,
        at: CodeLocation,
        text: Option<String>,
    },
    /// The stack behind a cause, when it could be had.
    Cause {
        document: u64,
        id: u32,
        stack: Option<Stack>,
    },
}

/// Runs commands on the page's task set.
#[derive(Clone)]
pub struct Runner {
    page: chromiumoxide::Page,
    main_frame: FrameId,
    store: SharedStore,
    nav: watch::Receiver<NavState>,
    findings: mpsc::UnboundedSender<Finding>,
    tasks: TaskTracker,
    stop: CancellationToken,
}

impl Runner {
    pub fn new(
        page: chromiumoxide::Page,
        main_frame: FrameId,
        store: SharedStore,
        nav: watch::Receiver<NavState>,
        findings: mpsc::UnboundedSender<Finding>,
        stop: CancellationToken,
    ) -> Self {
        Self { page, main_frame, store, nav, findings, tasks: TaskTracker::new(), stop }
    }

    /// Runs `command` on a task of the page's set.
    pub fn run(&self, command: Command) {
        let this = self.clone();
        self.spawn(async move { this.execute(command).await });
    }

    /// Runs `work` on a task of the page's set: stopped when the page goes, counted while alive.
    pub fn spawn(&self, work: impl Future<Output = ()> + Send + 'static) {
        let stop = self.stop.clone();
        crate::metrics::PAGE_TASKS.inc();
        self.tasks.spawn(async move {
            let _alive = Alive;
            stop.run_until_cancelled(work).await;
        });
    }

    /// Stops every task and waits (briefly) for them to end.
    pub async fn shut_down(&self) {
        self.stop.cancel();
        self.tasks.close();
        let _ = tokio::time::timeout(Duration::from_secs(1), self.tasks.wait()).await;
    }

    async fn execute(self, command: Command) {
        let deadline = Instant::now() + COMMAND_TIME;
        match command {
            Command::CaptureBody { request_id } => {
                let answer =
                    cdp::call(&self.page, "Network.getResponseBody", json!({ "requestId": request_id }), deadline)
                        .await;
                let body = answer.ok().and_then(|a| decode(&a, "body"));
                let _ = self.findings.send(Finding::Body { request_id, body });
            }
            Command::FetchPostData { request_id } => {
                let params = json!({ "requestId": request_id });
                if let Ok(answer) = cdp::call(&self.page, "Network.getRequestPostData", params, deadline).await
                    && let Some(text) = answer.get("postData").and_then(Value::as_str)
                {
                    let _ = self.findings.send(Finding::PostData { request_id, text: text.to_owned() });
                }
            }
            Command::FetchSource { seq, at } => {
                let text = self.source_text(&at.url, deadline).await;
                let _ = self.findings.send(Finding::Source { seq, at, text });
            }
            Command::FetchCause { document, id, stack_id } => {
                let params = json!({ "stackTraceId": stack_id });
                let answer = cdp::call(&self.page, "Debugger.getStackTrace", params, deadline).await;
                let stack = answer.ok().and_then(|a| a.get("stackTrace").map(Stack::parse));
                let _ = self.findings.send(Finding::Cause { document, id, stack });
            }
            Command::AnswerPaused(answer) => {
                let (method, params) = match answer {
                    PausedAnswer::Continue { request_id } => {
                        ("Fetch.continueRequest", json!({ "requestId": request_id }))
                    }
                    PausedAnswer::Abort { request_id } => {
                        ("Fetch.failRequest", json!({ "requestId": request_id, "errorReason": "BlockedByClient" }))
                    }
                    PausedAnswer::Fulfill { request_id, status, headers, body } => {
                        let headers: Vec<Value> =
                            headers.iter().map(|(n, v)| json!({ "name": n, "value": v })).collect();
                        let body = base64::engine::general_purpose::STANDARD.encode(body);
                        let params = json!({ "requestId": request_id, "responseCode": status,
                                             "responseHeaders": headers, "body": body });
                        ("Fetch.fulfillRequest", params)
                    }
                };
                self.send(method, params, deadline).await;
            }
            Command::AnswerDialog { accept, prompt_text } => {
                let mut params = json!({ "accept": accept });
                if let Some(text) = prompt_text {
                    params["promptText"] = json!(text);
                }
                self.send("Page.handleJavaScriptDialog", params, deadline).await;
            }
            Command::ChooseFiles { paths, backend_node_id } => {
                let params = json!({ "files": paths, "backendNodeId": backend_node_id });
                self.send("DOM.setFileInputFiles", params, deadline).await;
            }
            Command::CancelDownload { guid, context_id } => {
                let params = json!({ "guid": guid, "browserContextId": context_id });
                self.send("Browser.cancelDownload", params, deadline).await;
            }
            Command::Send { method, params } => self.send(method, params, deadline).await,
        }
    }

    async fn send(&self, method: &'static str, params: Value, deadline: Instant) {
        if let Err(err) = cdp::call(&self.page, method, params, deadline).await {
            tracing::warn!(%err, method, "a page command failed");
        }
    }

    /// The text of a script the page runs, or of an inline script's document (whose text is the
    /// body captured when it loaded: waited for while the document is still loading).
    async fn source_text(&self, url: &str, deadline: Instant) -> Option<String> {
        let captured = || self.store.lock().bodies.text_for_url(url);
        let mut text = sources::text_of(&self.page, &self.main_frame, url, captured, deadline).await;
        if text.is_none() {
            let mut nav = self.nav.clone();
            let loaded = tokio::time::timeout_at(deadline, nav.wait_for(|n| n.loaded || n.crashed))
                .await
                .is_ok_and(|waited| waited.is_ok());
            let until = (Instant::now() + Duration::from_secs(1)).min(deadline);
            while loaded && text.is_none() && Instant::now() < until {
                tokio::time::sleep(Duration::from_millis(20)).await;
                text = sources::text_of(&self.page, &self.main_frame, url, captured, deadline).await;
            }
        }
        text
    }
}

/// Counts a task alive until it ends (however it ends).
struct Alive;

impl Drop for Alive {
    fn drop(&mut self) {
        crate::metrics::PAGE_TASKS.dec();
    }
}

/// A CDP answer's text field, base64-decoded when it says so.
fn decode(answer: &Value, field: &str) -> Option<String> {
    let text = answer.get(field)?.as_str()?;
    if answer.get("base64Encoded").and_then(Value::as_bool) == Some(true) {
        let bytes = base64::engine::general_purpose::STANDARD.decode(text).ok()?;
        Some(String::from_utf8_lossy(&bytes).into_owned())
    } else {
        Some(text.to_owned())
    }
}
