//! The page events the service depends on, parsed leniently from CDP JSON.
//!
//! Events arrive by two paths: chromiumoxide's typed listeners (re-read here as JSON), and the raw
//! text of messages chromiumoxide failed to parse (protocol drift; see `chromium::routes`).
//! Both go through [`PageEvent::parse`], which reads only the fields we use and tolerates anything
//! else, so a renamed field in Chromium never silently loses an event we rely on.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::dom::{CAUSE_MARK, DOM_BINDING, WORLD, WatchReport};
use super::stacks::Stack;
use crate::browser::chromium::ids::{FetchRequestId, FrameId, LoaderId, RequestId, ScriptId, TargetId};
use crate::browser::chromium::kinds::{ConsoleMethod, DialogKind, Disposition, DownloadState, Milestone, ResourceType};
use crate::egress::failures::FAILURE_HEADER;

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
    },
    RequestFinished {
        request_id: RequestId,
        /// CDP monotonic time, seconds.
        timestamp: f64,
    },
    RequestFailed {
        request_id: RequestId,
        error_text: String,
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
    /// A script the page runs (reported only while the Debugger domain is on, see `inspect`).
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
        }
    }

    /// Parses one event's params; `None` for events we do not watch or payloads missing what we need.
    pub fn parse(method: &str, params: Value) -> Option<Self> {
        Some(match method {
            "Page.lifecycleEvent" => {
                let p: Lifecycle = serde_json::from_value(params).ok()?;
                Self::Lifecycle {
                    frame_id: p.frame_id,
                    loader_id: p.loader_id,
                    milestone: Milestone::parse(&p.name),
                    timestamp: p.timestamp,
                }
            }
            "Page.frameNavigated" => {
                let p: FrameNavigated = serde_json::from_value(params).ok()?;
                Self::FrameNavigated {
                    frame_id: p.frame.id,
                    parent_id: p.frame.parent_id,
                    loader_id: p.frame.loader_id,
                    url: p.frame.url,
                }
            }
            "Network.requestWillBeSent" => Self::RequestStarted(RequestStart {
                request_id: request_id(&params)?,
                loader_id: id_field(&params, "loaderId").unwrap_or_default(),
                frame_id: id_field(&params, "frameId"),
                resource_type: str_field(&params, "type")
                    .map_or(ResourceType::Unclassified, |t| ResourceType::parse(&t)),
                url: params.pointer("/request/url").and_then(Value::as_str).unwrap_or_default().to_owned(),
                method: params.pointer("/request/method").and_then(Value::as_str).unwrap_or("GET").to_owned(),
                post_data: post_data(&params),
                has_post_data: params.pointer("/request/hasPostData").and_then(Value::as_bool).unwrap_or(false),
                initiator: initiator(params.get("initiator")),
                callers: params.pointer("/initiator/stack").map(Stack::parse).unwrap_or_default(),
                timestamp: params.get("timestamp").and_then(Value::as_f64).unwrap_or_default(),
                wall_time: params.get("wallTime").and_then(Value::as_f64),
            }),
            "Network.responseReceived" => {
                let p: ResponseReceived = serde_json::from_value(params).ok()?;
                Self::ResponseReceived {
                    request_id: p.request_id,
                    frame_id: p.frame_id,
                    resource_type: ResourceType::parse(&p.resource_type),
                    status: p.response.status.clamp(0.0, u16::MAX as f64) as u16,
                    mime_type: p.response.mime_type,
                    failure: p
                        .response
                        .headers
                        .iter()
                        .find(|(k, _)| k.eq_ignore_ascii_case(FAILURE_HEADER))
                        .and_then(|(_, v)| v.as_str())
                        .map(str::to_owned),
                    refreshes: p
                        .response
                        .headers
                        .iter()
                        .find(|(k, _)| k.eq_ignore_ascii_case("refresh"))
                        .and_then(|(_, v)| v.as_str())
                        .is_some_and(refreshes_at_once),
                    at: p.response.response_time.map(|ms| ms as u64),
                    timestamp: p.timestamp,
                }
            }
            "Network.loadingFinished" => Self::RequestFinished {
                request_id: request_id(&params)?,
                timestamp: params.get("timestamp").and_then(Value::as_f64).unwrap_or_default(),
            },
            "Network.loadingFailed" => Self::RequestFailed {
                request_id: request_id(&params)?,
                error_text: failure_text(&params),
                timestamp: params.get("timestamp").and_then(Value::as_f64).unwrap_or_default(),
            },
            "Runtime.consoleAPICalled" => console(&params)?,
            "Runtime.exceptionThrown" => {
                let at = params.get("timestamp").and_then(Value::as_f64).map(|ms| ms as u64);
                exception(params.get("exceptionDetails")?, at)
            }
            "Inspector.targetCrashed" => Self::Crashed,
            "Page.frameRequestedNavigation" => Self::NavigationRequested {
                frame_id: id_field(&params, "frameId")?,
                disposition: str_field(&params, "disposition")
                    .map_or(Disposition::CurrentTab, |d| Disposition::parse(&d)),
                url: str_field(&params, "url").unwrap_or_default(),
            },
            "Debugger.scriptParsed" => Self::ScriptParsed {
                script_id: id_field(&params, "scriptId")?,
                url: str_field(&params, "url").unwrap_or_default(),
            },
            "Browser.downloadWillBegin" => Self::DownloadBegun {
                guid: str_field(&params, "guid")?,
                url: str_field(&params, "url").unwrap_or_default(),
                name: str_field(&params, "suggestedFilename").unwrap_or_default(),
            },
            "Browser.downloadProgress" => Self::DownloadProgress {
                guid: str_field(&params, "guid")?,
                received: params.get("receivedBytes").and_then(Value::as_f64).unwrap_or(0.0) as u64,
                state: DownloadState::parse(&str_field(&params, "state").unwrap_or_default()),
            },
            "Page.windowOpen" => Self::WindowOpened { url: str_field(&params, "url").unwrap_or_default() },
            "Target.targetCreated" => Self::PopupOpened {
                target_id: params.pointer("/targetInfo/targetId")?.as_str()?.into(),
                url: params.pointer("/targetInfo/url").and_then(Value::as_str).unwrap_or_default().to_owned(),
            },
            "Page.fileChooserOpened" => {
                Self::FileChooserOpened { backend_node_id: params.get("backendNodeId").and_then(Value::as_i64) }
            }
            "Page.javascriptDialogOpening" => Self::DialogOpening {
                kind: DialogKind::parse(&str_field(&params, "type")?),
                message: str_field(&params, "message").unwrap_or_default(),
                default_prompt: str_field(&params, "defaultPrompt").unwrap_or_default(),
            },
            "Fetch.authRequired" => {
                let challenge = params.get("authChallenge")?;
                let field = |name: &str| challenge.get(name).and_then(Value::as_str).unwrap_or_default().to_owned();
                Self::AuthRequired {
                    request_id: request_id(&params)?,
                    url: params.pointer("/request/url").and_then(Value::as_str).unwrap_or_default().to_owned(),
                    origin: field("origin"),
                    scheme: field("scheme"),
                    realm: field("realm"),
                }
            }
            "Fetch.requestPaused" => Self::RequestPaused {
                request_id: request_id(&params)?,
                url: params.get("request")?.get("url")?.as_str()?.to_owned(),
            },
            "Runtime.bindingCalled" if str_field(&params, "name").as_deref() == Some(DOM_BINDING) => {
                Self::DomChanged(super::dom::parse_payload(params.get("payload")?.as_str()?)?)
            }
            "Runtime.executionContextCreated" if params.pointer("/context/name")?.as_str()? == WORLD => {
                Self::WorldCreated {
                    frame_id: params.pointer("/context/auxData/frameId")?.as_str()?.into(),
                    context_id: params.pointer("/context/id")?.as_i64()?,
                }
            }
            _ => return None,
        })
    }
}

fn request_id<Id: From<String>>(params: &Value) -> Option<Id> {
    id_field(params, "requestId")
}

/// The request's posted data as text: `postData`, or its `postDataEntries` decoded.
fn post_data(params: &Value) -> Option<String> {
    use base64::Engine;
    if let Some(text) = params.pointer("/request/postData").and_then(Value::as_str) {
        return Some(text.to_owned());
    }
    let entries = params.pointer("/request/postDataEntries")?.as_array()?;
    let mut bytes = Vec::new();
    for entry in entries {
        let chunk = entry.get("bytes").and_then(Value::as_str).unwrap_or_default();
        bytes.extend(base64::engine::general_purpose::STANDARD.decode(chunk).ok()?);
    }
    (!bytes.is_empty()).then(|| String::from_utf8_lossy(&bytes).into_owned())
}

/// Where a request was started: the first script frame of its initiator's stack, or the
/// document line the parser found it on.
fn initiator(initiator: Option<&Value>) -> Option<CodeLocation> {
    let initiator = initiator?;
    if let Some(found) = initiator.get("stack").and_then(CodeLocation::of_stack) {
        return Some(found);
    }
    let url = initiator.get("url")?.as_str().filter(|u| !u.is_empty())?.to_owned();
    let line = initiator.get("lineNumber").and_then(Value::as_u64).map(|l| l as u32 + 1).unwrap_or(0);
    let column = initiator.get("columnNumber").and_then(Value::as_u64).map(|c| c as u32 + 1).unwrap_or(0);
    Some(CodeLocation { url, line, column, function: String::new() })
}

/// Why a request failed: Chromium's error text, or the blocking reason when it names one.
/// Whether a `Refresh` header's value (`0; url=/next`) sends the page on within a second, which
/// Chromium treats as a redirect (it replaces the history entry).
fn refreshes_at_once(value: &str) -> bool {
    let delay = value.split([';', ',']).next().unwrap_or_default().trim();
    delay.parse::<f64>().is_ok_and(|s| (0.0..=1.0).contains(&s))
}

fn failure_text(params: &Value) -> String {
    if let Some(reason) = params.get("blockedReason").and_then(Value::as_str) {
        return format!("blocked: {reason}");
    }
    let text = str_field(params, "errorText").unwrap_or_default();
    if params.get("canceled").and_then(Value::as_bool) == Some(true) && text == "net::ERR_ABORTED" {
        return "aborted".into();
    }
    text
}

fn console(params: &Value) -> Option<PageEvent> {
    let args = params.get("args").and_then(Value::as_array);
    if let Some([mark, id]) = args.map(Vec::as_slice)
        && mark.get("value").and_then(Value::as_str) == Some(CAUSE_MARK)
    {
        // Our DOM watcher's, never the page's log (a page imitating it only muddles its own causes).
        let id = id.get("value").and_then(Value::as_u64).and_then(|id| u32::try_from(id).ok())?;
        let stack_id = params.pointer("/stackTrace/parentId")?.clone();
        return Some(PageEvent::DomCause { id, stack_id });
    }
    let method = ConsoleMethod::parse(&str_field(params, "type")?);
    let text = params
        .get("args")
        .and_then(Value::as_array)
        .map(|args| args.iter().map(remote_object_text).collect::<Vec<_>>().join(" "))
        .unwrap_or_default();
    let location = params.get("stackTrace").and_then(CodeLocation::of_stack);
    let trace = params.get("stackTrace").map(Stack::parse).unwrap_or_default();
    let at = params.get("timestamp").and_then(Value::as_f64).map(|ms| ms as u64);
    Some(PageEvent::Console { method, text, location, trace, at })
}

fn exception(details: &Value, at: Option<u64>) -> PageEvent {
    let description = details.pointer("/exception/description").and_then(Value::as_str);
    let value = details.pointer("/exception/value").map(remote_value_text);
    let text = details.get("text").and_then(Value::as_str).unwrap_or("Uncaught exception");
    let origin = if text.contains("(in promise)") { ErrorOrigin::UnhandledRejection } else { ErrorOrigin::Exception };
    // Where it was thrown: the top frame of its stack, or the details' own position.
    let location = details.get("stackTrace").and_then(CodeLocation::of_stack).or_else(|| {
        let url = details.get("url")?.as_str().filter(|u| !u.is_empty())?.to_owned();
        Some(CodeLocation {
            url,
            line: details.get("lineNumber").and_then(Value::as_u64).unwrap_or(0) as u32 + 1,
            column: details.get("columnNumber").and_then(Value::as_u64).unwrap_or(0) as u32 + 1,
            function: String::new(),
        })
    });
    let (message, stack) = match description {
        Some(d) => (d.lines().next().unwrap_or(d).to_owned(), d.contains('\n').then(|| d.to_owned())),
        None => (value.unwrap_or_else(|| text.to_owned()), None),
    };
    let trace = details.get("stackTrace").map(Stack::parse).unwrap_or_default();
    PageEvent::Exception { origin, message, stack, location, trace, at }
}

/// How a console argument reads: strings as themselves, objects by their description.
fn remote_object_text(arg: &Value) -> String {
    match (arg.get("value"), arg.get("unserializableValue"), arg.get("description")) {
        (Some(v), _, _) => remote_value_text(v),
        (None, Some(u), _) => u.as_str().unwrap_or_default().to_owned(),
        (None, None, Some(d)) => d.as_str().unwrap_or_default().to_owned(),
        _ => arg.get("type").and_then(Value::as_str).unwrap_or_default().to_owned(),
    }
}

fn remote_value_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn str_field(params: &Value, name: &str) -> Option<String> {
    params.get(name)?.as_str().map(str::to_owned)
}

fn id_field<Id: From<String>>(params: &Value, name: &str) -> Option<Id> {
    str_field(params, name).map(Id::from)
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Lifecycle {
    frame_id: FrameId,
    #[serde(default)]
    loader_id: LoaderId,
    name: String,
    #[serde(default)]
    timestamp: f64,
}

#[derive(Deserialize)]
struct FrameNavigated {
    frame: Frame,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Frame {
    id: FrameId,
    #[serde(default)]
    parent_id: Option<FrameId>,
    #[serde(default)]
    loader_id: LoaderId,
    #[serde(default)]
    url: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ResponseReceived {
    request_id: RequestId,
    #[serde(default)]
    frame_id: Option<FrameId>,
    #[serde(default, rename = "type")]
    resource_type: String,
    response: Response,
    #[serde(default)]
    timestamp: f64,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Response {
    #[serde(default)]
    status: f64,
    #[serde(default)]
    mime_type: String,
    #[serde(default)]
    headers: serde_json::Map<String, Value>,
    /// Milliseconds since the Unix epoch.
    #[serde(default)]
    response_time: Option<f64>,
}

#[cfg(test)]
mod tests {
    use super::*;
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
