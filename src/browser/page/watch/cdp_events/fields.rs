//! Each watched CDP event's parser: the fields the service uses, read leniently (a missing
//! optional field takes its default; a missing required one drops the event), and Chromium's
//! words turned into types where they enter.

use base64::Engine;
use serde::Deserialize;
use serde_json::Value;

use super::super::dom::{self, CAUSE_MARK, DOM_BINDING, WORLD};
use super::super::stacks::Stack;
use super::{CodeLocation, ErrorOrigin, PageEvent, RequestStart};
use crate::browser::chromium::ids::{FrameId, LoaderId, RequestId};
use crate::browser::chromium::kinds::{ConsoleMethod, DialogKind, Disposition, DownloadState, Milestone, ResourceType};
use crate::egress::failures::FAILURE_HEADER;

/// What a load the page or the browser cancelled is called (Chromium says `net::ERR_ABORTED`
/// with `canceled`).
pub const ABORTED: &str = "aborted";

pub fn lifecycle(params: Value) -> Option<PageEvent> {
    let p: Lifecycle = serde_json::from_value(params).ok()?;
    Some(PageEvent::Lifecycle {
        frame_id: p.frame_id,
        loader_id: p.loader_id,
        milestone: Milestone::parse(&p.name),
        timestamp: p.timestamp,
    })
}

pub fn frame_navigated(params: Value) -> Option<PageEvent> {
    let p: FrameNavigated = serde_json::from_value(params).ok()?;
    Some(PageEvent::FrameNavigated {
        frame_id: p.frame.id,
        parent_id: p.frame.parent_id,
        loader_id: p.frame.loader_id,
        url: p.frame.url,
    })
}

pub fn navigation_requested(params: &Value) -> Option<PageEvent> {
    Some(PageEvent::NavigationRequested {
        frame_id: id_field(params, "frameId")?,
        disposition: str_field(params, "disposition").map_or(Disposition::CurrentTab, |d| Disposition::parse(&d)),
        url: text(params, "url"),
    })
}

pub fn file_chooser_opened(params: &Value) -> Option<PageEvent> {
    Some(PageEvent::FileChooserOpened { backend_node_id: params.get("backendNodeId").and_then(Value::as_i64) })
}

pub fn dialog_opening(params: &Value) -> Option<PageEvent> {
    Some(PageEvent::DialogOpening {
        kind: DialogKind::parse(&str_field(params, "type")?),
        message: text(params, "message"),
        default_prompt: text(params, "defaultPrompt"),
    })
}

pub fn request_started(params: &Value) -> Option<PageEvent> {
    Some(PageEvent::RequestStarted(RequestStart {
        request_id: request_id(params)?,
        loader_id: id_field(params, "loaderId").unwrap_or_default(),
        frame_id: id_field(params, "frameId"),
        resource_type: str_field(params, "type").map_or(ResourceType::Unclassified, |t| ResourceType::parse(&t)),
        url: params.pointer("/request/url").and_then(Value::as_str).unwrap_or_default().to_owned(),
        method: params.pointer("/request/method").and_then(Value::as_str).unwrap_or("GET").to_owned(),
        post_data: post_data(params),
        has_post_data: params.pointer("/request/hasPostData").and_then(Value::as_bool).unwrap_or(false),
        initiator: initiator(params.get("initiator")),
        callers: params.pointer("/initiator/stack").map(Stack::parse).unwrap_or_default(),
        timestamp: timestamp(params),
        wall_time: params.get("wallTime").and_then(Value::as_f64),
        headers: headers(params.pointer("/request/headers")),
        redirect: params.get("redirectResponse").map(|r| super::Redirect {
            status: r.get("status").and_then(Value::as_f64).map_or(0, |s| s.clamp(0.0, u16::MAX as f64) as u16),
            mime: r.get("mimeType").and_then(Value::as_str).unwrap_or_default().to_owned(),
            headers: headers(r.get("headers")),
        }),
    }))
}

pub fn response_received(params: Value) -> Option<PageEvent> {
    let p: ResponseReceived = serde_json::from_value(params).ok()?;
    let header = |name: &str| {
        p.response.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).and_then(|(_, v)| v.as_str())
    };
    Some(PageEvent::ResponseReceived {
        failure: header(FAILURE_HEADER).map(str::to_owned),
        refreshes: header("refresh").is_some_and(refreshes_at_once),
        request_id: p.request_id,
        frame_id: p.frame_id,
        resource_type: ResourceType::parse(&p.resource_type),
        status: p.response.status.clamp(0.0, u16::MAX as f64) as u16,
        mime_type: p.response.mime_type,
        at: p.response.response_time.map(|ms| ms as u64),
        timestamp: p.timestamp,
        headers: p
            .response
            .headers
            .iter()
            .flat_map(|(name, value)| {
                let value = value.as_str().map_or_else(|| value.to_string(), str::to_owned);
                value.split('\n').map(|line| (name.clone(), line.to_owned())).collect::<Vec<_>>()
            })
            .collect(),
    })
}

pub fn loading_finished(params: &Value) -> Option<PageEvent> {
    Some(PageEvent::RequestFinished { request_id: request_id(params)?, timestamp: timestamp(params) })
}

pub fn loading_failed(params: &Value) -> Option<PageEvent> {
    Some(PageEvent::RequestFailed {
        request_id: request_id(params)?,
        error_text: failure_text(params).into(),
        timestamp: timestamp(params),
    })
}

pub fn auth_required(params: &Value) -> Option<PageEvent> {
    let challenge = params.get("authChallenge")?;
    let field = |name: &str| challenge.get(name).and_then(Value::as_str).unwrap_or_default().to_owned();
    Some(PageEvent::AuthRequired {
        request_id: request_id(params)?,
        url: params.pointer("/request/url").and_then(Value::as_str).unwrap_or_default().to_owned(),
        origin: field("origin"),
        scheme: field("scheme"),
        realm: field("realm"),
    })
}

pub fn request_paused(params: &Value) -> Option<PageEvent> {
    Some(PageEvent::RequestPaused {
        request_id: request_id(params)?,
        url: params.get("request")?.get("url")?.as_str()?.to_owned(),
    })
}

pub fn exception_thrown(params: &Value) -> Option<PageEvent> {
    let at = params.get("timestamp").and_then(Value::as_f64).map(|ms| ms as u64);
    Some(exception(params.get("exceptionDetails")?, at))
}

/// Our DOM watcher's report (`Runtime.bindingCalled` on [`DOM_BINDING`]); other bindings are not ours.
pub fn binding_called(params: &Value) -> Option<PageEvent> {
    if str_field(params, "name").as_deref() != Some(DOM_BINDING) {
        return None;
    }
    Some(PageEvent::DomChanged(dom::parse_payload(params.get("payload")?.as_str()?)?))
}

/// The service's own world made in a frame's new document; other contexts are not ours.
pub fn context_created(params: &Value) -> Option<PageEvent> {
    if params.pointer("/context/name")?.as_str()? != WORLD {
        return None;
    }
    Some(PageEvent::WorldCreated {
        frame_id: params.pointer("/context/auxData/frameId")?.as_str()?.into(),
        context_id: params.pointer("/context/id")?.as_i64()?,
    })
}

pub fn script_parsed(params: &Value) -> Option<PageEvent> {
    Some(PageEvent::ScriptParsed { script_id: id_field(params, "scriptId")?, url: text(params, "url") })
}

pub fn download_begun(params: &Value) -> Option<PageEvent> {
    Some(PageEvent::DownloadBegun {
        guid: str_field(params, "guid")?,
        url: text(params, "url"),
        name: text(params, "suggestedFilename"),
    })
}

pub fn download_progress(params: &Value) -> Option<PageEvent> {
    Some(PageEvent::DownloadProgress {
        guid: str_field(params, "guid")?,
        received: params.get("receivedBytes").and_then(Value::as_f64).unwrap_or(0.0) as u64,
        state: DownloadState::parse(&text(params, "state")),
    })
}

pub fn target_created(params: &Value) -> Option<PageEvent> {
    Some(PageEvent::PopupOpened {
        target_id: params.pointer("/targetInfo/targetId")?.as_str()?.into(),
        url: params.pointer("/targetInfo/url").and_then(Value::as_str).unwrap_or_default().to_owned(),
    })
}

/// A string field, "" when absent.
pub fn text(params: &Value, name: &str) -> String {
    str_field(params, name).unwrap_or_default()
}

pub(super) fn timestamp(params: &Value) -> f64 {
    params.get("timestamp").and_then(Value::as_f64).unwrap_or_default()
}

pub(super) fn request_id<Id: From<String>>(params: &Value) -> Option<Id> {
    id_field(params, "requestId")
}

/// The request's posted data as text: `postData`, or its `postDataEntries` decoded.
fn post_data(params: &Value) -> Option<String> {
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
pub(super) fn initiator(initiator: Option<&Value>) -> Option<CodeLocation> {
    let initiator = initiator?;
    if let Some(found) = initiator.get("stack").and_then(CodeLocation::of_stack) {
        return Some(found);
    }
    let url = initiator.get("url")?.as_str().filter(|u| !u.is_empty())?.to_owned();
    let line = initiator.get("lineNumber").and_then(Value::as_u64).map(|l| l as u32 + 1).unwrap_or(0);
    let column = initiator.get("columnNumber").and_then(Value::as_u64).map(|c| c as u32 + 1).unwrap_or(0);
    Some(CodeLocation { url, line, column, function: String::new() })
}

/// Whether a `Refresh` header's value (`0; url=/next`) sends the page on within a second, which
/// Chromium treats as a redirect (it replaces the history entry).
fn refreshes_at_once(value: &str) -> bool {
    let delay = value.split([';', ',']).next().unwrap_or_default().trim();
    delay.parse::<f64>().is_ok_and(|s| (0.0..=1.0).contains(&s))
}

/// Why a request failed: Chromium's error text, or the blocking reason when it names one.
fn failure_text(params: &Value) -> String {
    if let Some(reason) = params.get("blockedReason").and_then(Value::as_str) {
        return format!("blocked: {reason}");
    }
    let text = str_field(params, "errorText").unwrap_or_default();
    if params.get("canceled").and_then(Value::as_bool) == Some(true) && text == "net::ERR_ABORTED" {
        return ABORTED.into();
    }
    text
}

pub fn console(params: &Value) -> Option<PageEvent> {
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

/// Headers as `(name, value)`, in the order Chromium lists them; a header sent several times
/// (`Set-Cookie`) is one entry per line.
pub type HeaderList = Vec<(String, String)>;

/// The headers of a CDP `Headers` object, a value holding several lines split into one each.
pub fn headers(value: Option<&Value>) -> HeaderList {
    let Some(Value::Object(map)) = value else { return Vec::new() };
    let mut list = Vec::new();
    for (name, value) in map {
        let value = match value {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        list.extend(value.split('\n').map(|line| (name.clone(), line.to_owned())));
    }
    list
}
