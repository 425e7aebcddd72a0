//! The CDP events the service depends on, parsed leniently from CDP JSON into [`PageEvent`]s.
//!
//! Events arrive by two paths: chromiumoxide's typed listeners (re-read here as JSON), and the raw
//! text of messages chromiumoxide failed to parse (protocol drift; see `chromium::routes`).
//! Both go through [`PageEvent::parse`], which reads only the fields we use and tolerates anything
//! else, so a renamed field in Chromium never silently loses an event we rely on. Chromium's words
//! are read here, once: why a load failed becomes a [`LoadError`], vocabularies become the enums
//! of `chromium::kinds`.
//!
//! - this file: the events, and which parser reads each CDP method
//! - `fields`: each event's parser, field by field
//! - `exchange`: what a page exchanges besides requests (sockets, streams)
//! - `wire`: a request's headers and cookies (the ExtraInfo events)

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use super::dom::WatchReport;
use super::stacks::Stack;
use crate::browser::chromium::ids::{FetchRequestId, FrameId, LoaderId, RequestId, ScriptId, TargetId};
use crate::browser::chromium::kinds::{ConsoleMethod, DialogKind, Disposition, DownloadState, Milestone, ResourceType};

mod exchange;
mod fields;
mod wire;

pub use exchange::{SocketEvent, StorageEvent, storage as exchange_storage};
pub use wire::{CookieConsidered, HeaderList, RefusedLine, WireEvent};

pub use super::stacks::CodeLocation;

/// How an uncaught page error came about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ErrorOrigin {
    /// An exception nothing caught.
    Exception,
    /// A promise rejected with no handler.
    #[serde(rename = "unhandledrejection")]
    UnhandledRejection,
}

/// Why a request failed, as Chromium (or the blocking it names) said, and whether that was an
/// abort: the one place the words are read.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadError {
    /// `net::ERR_CONNECTION_REFUSED`, `blocked: mixed-content`, `aborted` (cancelled by the page
    /// or the browser) …
    pub text: String,
    /// The load was aborted (`net::ERR_ABORTED`): by the page, or because the browser gave it up
    /// (a navigation, a download taking over).
    pub aborted: bool,
}

impl From<String> for LoadError {
    fn from(text: String) -> Self {
        let aborted = text == fields::ABORTED || text.contains("ERR_ABORTED");
        Self { text, aborted }
    }
}

impl From<&str> for LoadError {
    fn from(text: &str) -> Self {
        Self::from(text.to_owned())
    }
}

/// `Network.requestWillBeSent`: what the reducer keeps of a request's start.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestStart {
    pub request_id: RequestId,
    /// The document the request belongs to.
    pub loader_id: LoaderId,
    pub frame_id: Option<FrameId>,
    pub resource_type: ResourceType,
    pub url: String,
    pub method: String,
    /// The posted data, when Chromium included it in the event.
    pub post_data: Option<String>,
    /// There is posted data, included or not.
    pub has_post_data: bool,
    /// The script (or parser) that started it.
    pub initiator: Option<CodeLocation>,
    /// The initiator's whole stack, async parents included (empty for the parser's requests).
    pub callers: Stack,
    /// CDP monotonic time, seconds.
    pub timestamp: f64,
    /// The same moment by the browser's wall clock (seconds since the Unix epoch).
    pub wall_time: Option<f64>,
    /// The headers the page's request carries (Chromium leaves `Cookie` to the ExtraInfo event).
    pub headers: HeaderList,
    /// This start is a redirect hop: the answer of the hop before it.
    pub redirect: Option<Redirect>,
}

/// The answer that redirected a request (`requestWillBeSent`'s `redirectResponse`).
#[derive(Debug, Clone, PartialEq)]
pub struct Redirect {
    pub status: u16,
    pub mime: String,
    /// Without `Set-Cookie` (the hop's ExtraInfo has it).
    pub headers: HeaderList,
}

impl Default for RequestStart {
    fn default() -> Self {
        Self {
            request_id: RequestId::default(),
            loader_id: LoaderId::default(),
            frame_id: None,
            resource_type: ResourceType::Unclassified,
            url: String::new(),
            method: "GET".into(),
            post_data: None,
            has_post_data: false,
            initiator: None,
            callers: Stack::default(),
            timestamp: 0.0,
            wall_time: None,
            headers: Vec::new(),
            redirect: None,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum PageEvent {
    Lifecycle {
        frame_id: FrameId,
        loader_id: LoaderId,
        milestone: Milestone,
        /// CDP monotonic time, seconds.
        timestamp: f64,
    },
    FrameNavigated {
        frame_id: FrameId,
        parent_id: Option<FrameId>,
        loader_id: LoaderId,
        url: String,
    },
    RequestStarted(RequestStart),
    ResponseReceived {
        request_id: RequestId,
        frame_id: Option<FrameId>,
        resource_type: ResourceType,
        status: u16,
        mime_type: String,
        /// The egress proxy did not deliver it: its own answer names the failure.
        failure: Option<String>,
        /// Its `Refresh` header sends the page on within a second: a redirect, to Chromium.
        refreshes: bool,
        /// When the answer came, by the browser's wall clock (ms since the Unix epoch).
        at: Option<u64>,
        /// When its headers arrived, CDP monotonic seconds.
        timestamp: f64,
        /// Its headers (without `Set-Cookie`: the ExtraInfo event has them).
        headers: HeaderList,
    },
    RequestFinished {
        request_id: RequestId,
        /// CDP monotonic time, seconds.
        timestamp: f64,
    },
    RequestFailed {
        request_id: RequestId,
        error_text: LoadError,
        timestamp: f64,
    },
    Console {
        method: ConsoleMethod,
        text: String,
        location: Option<CodeLocation>,
        /// The call's stack, async parents included.
        trace: Stack,
        /// When the page logged it, by its own clock (ms since the Unix epoch).
        at: Option<u64>,
    },
    Exception {
        origin: ErrorOrigin,
        message: String,
        stack: Option<String>,
        location: Option<CodeLocation>,
        /// Where it was thrown from, async parents included.
        trace: Stack,
        /// When it was thrown, by the page's clock (ms since the Unix epoch).
        at: Option<u64>,
    },
    /// The page asked to navigate a frame (a link, a form, `location = …`).
    NavigationRequested {
        frame_id: FrameId,
        disposition: Disposition,
        url: String,
    },
    Crashed,
    /// A held request met an HTTP authentication challenge (`Fetch.authRequired`).
    AuthRequired {
        request_id: FetchRequestId,
        url: String,
        /// The challenger's origin.
        origin: String,
        scheme: String,
        realm: String,
    },
    /// A request held by `Fetch.enable` interception, waiting for our decision.
    RequestPaused {
        request_id: FetchRequestId,
        url: String,
    },
    /// A script the page runs (the Debugger domain is on from the page's start, see `pauses`).
    ScriptParsed {
        script_id: ScriptId,
        url: String,
    },
    /// The page began a download (`Browser.downloadWillBegin`, forwarded to its page).
    DownloadBegun {
        guid: String,
        url: String,
        name: String,
    },
    /// A download progressed, finished (`completed`) or was `canceled`.
    DownloadProgress {
        guid: String,
        received: u64,
        state: DownloadState,
    },
    /// A file chooser opened (only while `Page.setInterceptFileChooserDialog` is on).
    FileChooserOpened {
        /// The `<input type=file>` it is for, when it is for one.
        backend_node_id: Option<i64>,
    },
    /// The page is opening a window (`window.open`, a `target=_blank` link): its URL, which the
    /// popup's target does not carry yet when it is announced.
    WindowOpened {
        url: String,
    },
    /// The page opened a popup (`Target.targetCreated` with this page as opener, forwarded to it).
    PopupOpened {
        target_id: TargetId,
        url: String,
    },
    /// `alert`, `confirm`, `prompt` or `beforeunload` opened a dialog: the page waits for an answer.
    DialogOpening {
        kind: DialogKind,
        message: String,
        /// The default text of a prompt.
        default_prompt: String,
    },
    /// What our DOM watcher saw change on the page, and how the browser treated the user's input
    /// (`Runtime.bindingCalled` on [`DOM_BINDING`]).
    DomChanged(WatchReport),
    /// Our DOM watcher's cause `id`: the stack of the changes it names is behind `stack_id` (a
    /// `Runtime.StackTraceId`, read with `Debugger.getStackTrace`).
    DomCause {
        id: u32,
        stack_id: Value,
    },
    /// The service's world (`dom::WORLD`) was made in a frame's new document: the DOM watcher's
    /// script, with the helper library, runs there from the document's first moment.
    WorldCreated {
        frame_id: FrameId,
        /// Its execution context, where the service's helper scripts are called.
        context_id: i64,
    },
    /// A WebSocket's life and frames, an EventSource stream's messages.
    Socket(SocketEvent),
    /// A Web Storage write or read.
    Storage(StorageEvent),
    /// A hop's headers and cookies as sent and answered (the ExtraInfo events).
    Wire(WireEvent),
}

impl PageEvent {
    /// The event's kind, for logs (never its data).
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Lifecycle { .. } => "lifecycle",
            Self::FrameNavigated { .. } => "frame_navigated",
            Self::RequestStarted(_) => "request_started",
            Self::ResponseReceived { .. } => "response_received",
            Self::RequestFinished { .. } => "request_finished",
            Self::RequestFailed { .. } => "request_failed",
            Self::Console { .. } => "console",
            Self::Exception { .. } => "exception",
            Self::NavigationRequested { .. } => "navigation_requested",
            Self::Crashed => "crashed",
            Self::RequestPaused { .. } => "request_paused",
            Self::ScriptParsed { .. } => "script_parsed",
            Self::DialogOpening { .. } => "dialog_opening",
            Self::FileChooserOpened { .. } => "file_chooser_opened",
            Self::DownloadBegun { .. } => "download_begun",
            Self::DownloadProgress { .. } => "download_progress",
            Self::PopupOpened { .. } => "popup_opened",
            Self::WindowOpened { .. } => "window_opened",
            Self::AuthRequired { .. } => "auth_required",
            Self::DomChanged(_) => "dom_changed",
            Self::DomCause { .. } => "dom_cause",
            Self::WorldCreated { .. } => "world_created",
            Self::Socket(_) => "socket",
            Self::Storage(_) => "storage",
            Self::Wire(_) => "wire",
        }
    }

    /// Parses one event's params; `None` for events we do not watch or payloads missing what we need.
    pub fn parse(method: &str, params: Value) -> Option<Self> {
        match method {
            "Page.lifecycleEvent" => fields::lifecycle(params),
            "Page.frameNavigated" => fields::frame_navigated(params),
            "Page.frameRequestedNavigation" => fields::navigation_requested(&params),
            "Page.windowOpen" => Some(Self::WindowOpened { url: fields::text(&params, "url") }),
            "Page.fileChooserOpened" => fields::file_chooser_opened(&params),
            "Page.javascriptDialogOpening" => fields::dialog_opening(&params),
            "Network.requestWillBeSent" => fields::request_started(&params),
            "Network.responseReceived" => fields::response_received(params),
            "Network.loadingFinished" => fields::loading_finished(&params),
            "Network.loadingFailed" => fields::loading_failed(&params),
            "Fetch.authRequired" => fields::auth_required(&params),
            "Fetch.requestPaused" => fields::request_paused(&params),
            "Runtime.consoleAPICalled" => fields::console(&params),
            "Runtime.exceptionThrown" => fields::exception_thrown(&params),
            "Runtime.bindingCalled" => fields::binding_called(&params),
            "Runtime.executionContextCreated" => fields::context_created(&params),
            "Inspector.targetCrashed" => Some(Self::Crashed),
            "Debugger.scriptParsed" => fields::script_parsed(&params),
            "Browser.downloadWillBegin" => fields::download_begun(&params),
            "Browser.downloadProgress" => fields::download_progress(&params),
            "Target.targetCreated" => fields::target_created(&params),
            "Network.requestWillBeSentExtraInfo" | "Network.responseReceivedExtraInfo" => wire::parse(method, &params),
            _ => exchange::parse(method, &params),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::browser::page::watch::dom::{CAUSE_MARK, WORLD};
    use serde_json::json;

    #[test]
    fn only_the_services_own_world_is_announced_with_its_frame_and_context() {
        let created = |name: &str| {
            json!({"context": {"id": 7, "origin": "http://a", "name": name, "uniqueId": "u",
                "auxData": {"isDefault": false, "type": "isolated", "frameId": "F"}}})
        };
        assert_eq!(
            PageEvent::parse("Runtime.executionContextCreated", created(WORLD)),
            Some(PageEvent::WorldCreated { frame_id: "F".into(), context_id: 7 })
        );
        assert_eq!(PageEvent::parse("Runtime.executionContextCreated", created("")), None, "the page's own world");
        assert_eq!(PageEvent::parse("Runtime.executionContextCreated", created("an extension")), None);
    }

    #[test]
    fn lifecycle_event_is_parsed() {
        let e = PageEvent::parse(
            "Page.lifecycleEvent",
            json!({"frameId":"F","loaderId":"L","name":"load","timestamp":1.5}),
        );
        assert_eq!(
            e,
            Some(PageEvent::Lifecycle {
                frame_id: "F".into(),
                loader_id: "L".into(),
                milestone: Milestone::Load,
                timestamp: 1.5
            })
        );
    }

    #[test]
    fn response_with_unknown_fields_and_new_enum_values_is_still_parsed() {
        let e = PageEvent::parse(
            "Network.responseReceived",
            json!({"requestId":"R","frameId":"F","type":"SomeNewType","brandNewField":{"x":1},
                   "response":{"url":"http://x/","status":404,"securityState":"never-seen-before"}}),
        );
        assert_eq!(
            e,
            Some(PageEvent::ResponseReceived {
                request_id: "R".into(),
                frame_id: Some("F".into()),
                resource_type: ResourceType::Other("SomeNewType".into()),
                status: 404,
                mime_type: String::new(),
                failure: None,
                refreshes: false,
                at: None,
                timestamp: 0.0,
                headers: Vec::new(),
            })
        );
    }

    #[test]
    fn a_refresh_header_of_a_second_or_less_sends_the_page_on_and_a_later_one_does_not() {
        let refreshes = |value: &str| {
            let e = PageEvent::parse(
                "Network.responseReceived",
                json!({"requestId":"R","type":"Document","response":{"status":200,"headers":{"Refresh":value}}}),
            );
            matches!(e, Some(PageEvent::ResponseReceived { refreshes, .. }) if refreshes)
        };
        assert!(refreshes("0; url=http://x/next") && refreshes("0") && refreshes(" 1,url=/n"));
        assert!(!refreshes("1.5; url=/later") && !refreshes("soon") && !refreshes("-1"));
    }

    #[test]
    fn the_egress_proxys_own_answer_carries_its_failure() {
        let e = PageEvent::parse(
            "Network.responseReceived",
            json!({"requestId":"R","type":"Image",
                   "response":{"status":403,"headers":{"X-Text-Browser-Failure":"blocked_by_policy"}}}),
        );
        assert!(matches!(e, Some(PageEvent::ResponseReceived { failure: Some(f), .. }) if f == "blocked_by_policy"));
    }

    #[test]
    fn unwatched_or_broken_events_are_ignored() {
        assert_eq!(PageEvent::parse("Page.somethingElse", json!({})), None);
        assert_eq!(PageEvent::parse("Network.loadingFinished", json!({"noRequestId": true})), None);
    }

    #[test]
    fn console_calls_join_their_arguments_and_keep_the_location() {
        let e = PageEvent::parse(
            "Runtime.consoleAPICalled",
            json!({"type":"error","args":[{"type":"string","value":"failed:"},{"type":"number","value":500},
                   {"type":"object","description":"Error: x"}],
                   "stackTrace":{"callFrames":[{"url":"http://app/main.js","lineNumber":9,"columnNumber":4,
                                                 "functionName":"load"}]}}),
        );
        assert_eq!(
            e,
            Some(PageEvent::Console {
                method: ConsoleMethod::Error,
                text: "failed: 500 Error: x".into(),
                location: Some(CodeLocation {
                    url: "http://app/main.js".into(),
                    line: 10,
                    column: 5,
                    function: "load".into()
                }),
                trace: Stack::parse(&json!({"callFrames":[{"url":"http://app/main.js","lineNumber":9,"columnNumber":4,
                                                           "functionName":"load"}]})),
                at: None,
            })
        );
    }

    #[test]
    fn the_dom_watchers_cause_marker_is_a_cause_not_a_log_entry() {
        let e = PageEvent::parse(
            "Runtime.consoleAPICalled",
            json!({"type":"debug","args":[{"type":"string","value":CAUSE_MARK},{"type":"number","value":7}],
                   "stackTrace":{"callFrames":[],"parentId":{"id":"12"}}}),
        );
        assert_eq!(e, Some(PageEvent::DomCause { id: 7, stack_id: json!({"id":"12"}) }));
        let no_parent = PageEvent::parse(
            "Runtime.consoleAPICalled",
            json!({"type":"debug","args":[{"type":"string","value":CAUSE_MARK},{"type":"number","value":7}]}),
        );
        assert_eq!(no_parent, None, "without a stack there is nothing to learn, and nothing to log");
    }

    #[test]
    fn exceptions_split_message_and_stack() {
        let e = PageEvent::parse(
            "Runtime.exceptionThrown",
            json!({"exceptionDetails":{"text":"Uncaught","url":"http://a/","lineNumber":3,"columnNumber":0,
                   "stackTrace":{"callFrames":[{"functionName":"f","url":"http://a/a.js","lineNumber":0,"columnNumber":1}]},
                   "exception":{"description":"TypeError: x is undefined\n    at f (a.js:1:2)"}}}),
        );
        assert_eq!(
            e,
            Some(PageEvent::Exception {
                origin: ErrorOrigin::Exception,
                message: "TypeError: x is undefined".into(),
                stack: Some("TypeError: x is undefined\n    at f (a.js:1:2)".into()),
                location: Some(CodeLocation { url: "http://a/a.js".into(), line: 1, column: 2, function: "f".into() }),
                trace: Stack::parse(
                    &json!({"callFrames":[{"functionName":"f","url":"http://a/a.js","lineNumber":0,"columnNumber":1}]})
                ),
                at: None,
            })
        );
        let e = PageEvent::parse(
            "Runtime.exceptionThrown",
            json!({"exceptionDetails":{"text":"Uncaught (in promise)","url":"http://a/","lineNumber":6,"columnNumber":2,
                   "exception":{"type":"string","value":"thrown string"}}}),
        );
        assert_eq!(
            e,
            Some(PageEvent::Exception {
                origin: ErrorOrigin::UnhandledRejection,
                message: "thrown string".into(),
                stack: None,
                location: Some(CodeLocation { url: "http://a/".into(), line: 7, column: 3, function: String::new() }),
                trace: Stack::default(),
                at: None,
            })
        );
    }

    #[test]
    fn request_events_keep_what_navigation_needs() {
        let started = PageEvent::parse(
            "Network.requestWillBeSent",
            json!({"requestId":"L1","loaderId":"L1","frameId":"F","type":"Document","request":{"url":"http://x/"},
                   "timestamp":12.5}),
        );
        assert_eq!(
            started,
            Some(PageEvent::RequestStarted(RequestStart {
                request_id: "L1".into(),
                loader_id: "L1".into(),
                frame_id: Some("F".into()),
                resource_type: ResourceType::Document,
                url: "http://x/".into(),
                method: "GET".into(),
                timestamp: 12.5,
                ..Default::default()
            }))
        );
        let failed = PageEvent::parse(
            "Network.loadingFailed",
            json!({"requestId":"L1","type":"Document","errorText":"net::ERR_CONNECTION_REFUSED","canceled":false}),
        );
        assert_eq!(
            failed,
            Some(PageEvent::RequestFailed {
                request_id: "L1".into(),
                error_text: "net::ERR_CONNECTION_REFUSED".into(),
                timestamp: 0.0,
            })
        );
    }

    #[test]
    fn a_posted_request_keeps_its_body_and_the_script_that_sent_it() {
        let started = PageEvent::parse(
            "Network.requestWillBeSent",
            json!({"requestId":"R","type":"Fetch","request":{"url":"http://x/api","method":"POST",
                   "hasPostData":true,"postDataEntries":[{"bytes":"eyJxIjoxfQ=="}]},
                   "initiator":{"type":"script","stack":{"callFrames":[],"parent":{"description":"await",
                     "callFrames":[{"functionName":"submitOrder","url":"http://x/app.js","lineNumber":11,"columnNumber":4}]}}}}),
        );
        let Some(PageEvent::RequestStarted(start)) = started else { panic!("{started:?}") };
        assert_eq!(start.post_data.as_deref(), Some("{\"q\":1}"));
        assert!(start.has_post_data);
        assert_eq!(
            start.initiator,
            Some(CodeLocation { url: "http://x/app.js".into(), line: 12, column: 5, function: "submitOrder".into() })
        );
    }
}
