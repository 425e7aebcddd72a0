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
use serde_json::Value;
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
use crate::browser::chromium::protocol::browser::CancelDownload;
use crate::browser::chromium::protocol::debugger::GetStackTrace;
use crate::browser::chromium::protocol::dom::SetFileInputFiles;
use crate::browser::chromium::protocol::network;
use crate::browser::chromium::protocol::page::HandleJavaScriptDialog;

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
                    cdp::send(&self.page, network::GetResponseBody { request_id: &request_id }, deadline).await;
                let body = answer.ok().and_then(network::Content::text);
                let _ = self.findings.send(Finding::Body { request_id, body });
            }
            Command::FetchPostData { request_id } => {
                let asked = network::GetRequestPostData { request_id: &request_id };
                if let Ok(network::PostData { post_data: Some(text) }) = cdp::send(&self.page, asked, deadline).await {
                    let _ = self.findings.send(Finding::PostData { request_id, text });
                }
            }
            Command::FetchSource { seq, at } => {
                let text = self.source_text(&at.url, deadline).await;
                let _ = self.findings.send(Finding::Source { seq, at, text });
            }
            Command::FetchCause { document, id, stack_id } => {
                let answer = cdp::send(&self.page, GetStackTrace { stack_trace_id: &stack_id }, deadline).await;
                let stack = answer.ok().and_then(|a| a.stack_trace.as_ref().map(Stack::parse));
                let _ = self.findings.send(Finding::Cause { document, id, stack });
            }
            Command::AnswerPaused(answer) => self.answer_paused(answer, deadline).await,
            Command::AnswerDialog { accept, prompt_text } => {
                self.fire(HandleJavaScriptDialog { accept, prompt_text }, deadline).await
            }
            Command::ChooseFiles { paths, backend_node_id } => {
                self.fire(SetFileInputFiles { files: paths, backend_node_id }, deadline).await
            }
            Command::CancelDownload { guid, context_id } => {
                self.fire(CancelDownload { guid: &guid, browser_context_id: &context_id }, deadline).await
            }
            Command::Send { method, params } => {
                if let Err(err) = cdp::call(&self.page, method, params, deadline).await {
                    tracing::warn!(%err, method, "a page command failed");
                }
            }
        }
    }

    /// Answers a request held for `network.route`.
    async fn answer_paused(&self, answer: PausedAnswer, deadline: Instant) {
        match answer {
            PausedAnswer::Continue { request_id } => {
                self.fire(network::ContinueRequest { request_id: &request_id }, deadline).await
            }
            PausedAnswer::Abort { request_id } => {
                let error_reason = network::ErrorReason::BlockedByClient;
                self.fire(network::FailRequest { request_id: &request_id, error_reason }, deadline).await
            }
            PausedAnswer::Fulfill { request_id, status, headers, body } => {
                let response_headers =
                    headers.iter().map(|(name, value)| network::HeaderEntry { name, value }).collect();
                let body = base64::engine::general_purpose::STANDARD.encode(body);
                let fulfil =
                    network::FulfillRequest { request_id: &request_id, response_code: status, response_headers, body };
                self.fire(fulfil, deadline).await
            }
        }
    }

    /// Sends a command whose answer nobody waits for; a failure is logged.
    async fn fire<C: cdp::Command>(&self, command: C, deadline: Instant) {
        if let Err(err) = cdp::send(&self.page, command, deadline).await {
            tracing::warn!(%err, method = C::METHOD, "a page command failed");
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
