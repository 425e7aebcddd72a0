//! The page events the service depends on, parsed leniently from CDP JSON.
//!
//! Events arrive by two paths: chromiumoxide's typed listeners (re-read here as JSON), and the raw
//! text of messages chromiumoxide failed to parse (protocol drift; see `chromium::routes`).
//! Both go through [`PageEvent::parse`], which reads only the fields we use and tolerates anything
//! else, so a renamed field in Chromium never silently loses an event we rely on.

use serde::Deserialize;
use serde_json::Value;

use crate::egress::failures::FAILURE_HEADER;

#[derive(Debug, Clone, PartialEq)]
pub enum PageEvent {
    Lifecycle {
        frame_id: String,
        loader_id: String,
        name: String,
    },
    FrameNavigated {
        frame_id: String,
        parent_id: Option<String>,
        loader_id: String,
        url: String,
    },
    RequestStarted {
        request_id: String,
        /// The document the request belongs to.
        loader_id: String,
        frame_id: Option<String>,
        resource_type: String,
        url: String,
        method: String,
    },
    ResponseReceived {
        request_id: String,
        frame_id: Option<String>,
        resource_type: String,
        status: u16,
        mime_type: String,
        /// The egress proxy did not deliver it: its own answer names the failure.
        failure: Option<String>,
    },
    RequestFinished {
        request_id: String,
    },
    RequestFailed {
        request_id: String,
        error_text: String,
    },
    Console {
        kind: String,
        text: String,
        url: Option<String>,
        line: Option<u32>,
    },
    Exception {
        message: String,
        stack: Option<String>,
    },
    /// The page asked to navigate a frame (a link, a form, `location = …`).
    NavigationRequested {
        frame_id: String,
        disposition: String,
        url: String,
    },
    Crashed,
    /// A request held by `Fetch.enable` interception, waiting for our decision.
    RequestPaused {
        request_id: String,
        url: String,
    },
}

impl PageEvent {
    /// Parses one event's params; `None` for events we do not watch or payloads missing what we need.
    pub fn parse(method: &str, params: Value) -> Option<Self> {
        Some(match method {
            "Page.lifecycleEvent" => {
                let p: Lifecycle = serde_json::from_value(params).ok()?;
                Self::Lifecycle { frame_id: p.frame_id, loader_id: p.loader_id, name: p.name }
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
            "Network.requestWillBeSent" => Self::RequestStarted {
                request_id: request_id(&params)?,
                loader_id: str_field(&params, "loaderId").unwrap_or_default(),
                frame_id: str_field(&params, "frameId"),
                resource_type: str_field(&params, "type").unwrap_or_else(|| "Other".into()),
                url: params.pointer("/request/url").and_then(Value::as_str).unwrap_or_default().to_owned(),
                method: params.pointer("/request/method").and_then(Value::as_str).unwrap_or("GET").to_owned(),
            },
            "Network.responseReceived" => {
                let p: ResponseReceived = serde_json::from_value(params).ok()?;
                Self::ResponseReceived {
                    request_id: p.request_id,
                    frame_id: p.frame_id,
                    resource_type: p.resource_type,
                    status: p.response.status.clamp(0.0, u16::MAX as f64) as u16,
                    mime_type: p.response.mime_type,
                    failure: p
                        .response
                        .headers
                        .iter()
                        .find(|(k, _)| k.eq_ignore_ascii_case(FAILURE_HEADER))
                        .and_then(|(_, v)| v.as_str())
                        .map(str::to_owned),
                }
            }
            "Network.loadingFinished" => Self::RequestFinished { request_id: request_id(&params)? },
            "Network.loadingFailed" => {
                Self::RequestFailed { request_id: request_id(&params)?, error_text: failure_text(&params) }
            }
            "Runtime.consoleAPICalled" => console(&params)?,
            "Runtime.exceptionThrown" => exception(params.get("exceptionDetails")?),
            "Inspector.targetCrashed" => Self::Crashed,
            "Page.frameRequestedNavigation" => Self::NavigationRequested {
                frame_id: str_field(&params, "frameId")?,
                disposition: str_field(&params, "disposition").unwrap_or_else(|| "currentTab".into()),
                url: str_field(&params, "url").unwrap_or_default(),
            },
            "Fetch.requestPaused" => Self::RequestPaused {
                request_id: request_id(&params)?,
                url: params.get("request")?.get("url")?.as_str()?.to_owned(),
            },
            _ => return None,
        })
    }
}

fn request_id(params: &Value) -> Option<String> {
    str_field(params, "requestId")
}

/// Why a request failed: Chromium's error text, or the blocking reason when it names one.
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
    let kind = str_field(params, "type")?;
    let text = params
        .get("args")
        .and_then(Value::as_array)
        .map(|args| args.iter().map(remote_object_text).collect::<Vec<_>>().join(" "))
        .unwrap_or_default();
    let frame = params.pointer("/stackTrace/callFrames/0");
    let url = frame.and_then(|f| f.get("url")).and_then(Value::as_str).filter(|u| !u.is_empty()).map(str::to_owned);
    let line = frame.and_then(|f| f.get("lineNumber")).and_then(Value::as_u64).map(|l| l as u32 + 1);
    Some(PageEvent::Console { kind, text, url, line })
}

fn exception(details: &Value) -> PageEvent {
    let description = details.pointer("/exception/description").and_then(Value::as_str);
    let value = details.pointer("/exception/value").map(remote_value_text);
    let text = details.get("text").and_then(Value::as_str).unwrap_or("Uncaught exception");
    match description {
        Some(d) => PageEvent::Exception {
            message: d.lines().next().unwrap_or(d).to_owned(),
            stack: d.contains('\n').then(|| d.to_owned()),
        },
        None => PageEvent::Exception { message: value.unwrap_or_else(|| text.to_owned()), stack: None },
    }
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

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Lifecycle {
    frame_id: String,
    #[serde(default)]
    loader_id: String,
    name: String,
}

#[derive(Deserialize)]
struct FrameNavigated {
    frame: Frame,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Frame {
    id: String,
    #[serde(default)]
    parent_id: Option<String>,
    #[serde(default)]
    loader_id: String,
    #[serde(default)]
    url: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ResponseReceived {
    request_id: String,
    #[serde(default)]
    frame_id: Option<String>,
    #[serde(default, rename = "type")]
    resource_type: String,
    response: Response,
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn lifecycle_event_is_parsed() {
        let e = PageEvent::parse(
            "Page.lifecycleEvent",
            json!({"frameId":"F","loaderId":"L","name":"load","timestamp":1.5}),
        );
        assert_eq!(e, Some(PageEvent::Lifecycle { frame_id: "F".into(), loader_id: "L".into(), name: "load".into() }));
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
                resource_type: "SomeNewType".into(),
                status: 404,
                mime_type: String::new(),
                failure: None,
            })
        );
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
                   "stackTrace":{"callFrames":[{"url":"http://app/main.js","lineNumber":9}]}}),
        );
        assert_eq!(
            e,
            Some(PageEvent::Console {
                kind: "error".into(),
                text: "failed: 500 Error: x".into(),
                url: Some("http://app/main.js".into()),
                line: Some(10),
            })
        );
    }

    #[test]
    fn exceptions_split_message_and_stack() {
        let e = PageEvent::parse(
            "Runtime.exceptionThrown",
            json!({"exceptionDetails":{"text":"Uncaught","exception":{"description":"TypeError: x is undefined\n    at f (a.js:1:2)"}}}),
        );
        assert_eq!(
            e,
            Some(PageEvent::Exception {
                message: "TypeError: x is undefined".into(),
                stack: Some("TypeError: x is undefined\n    at f (a.js:1:2)".into()),
            })
        );
        let e = PageEvent::parse(
            "Runtime.exceptionThrown",
            json!({"exceptionDetails":{"text":"Uncaught","exception":{"type":"string","value":"thrown string"}}}),
        );
        assert_eq!(e, Some(PageEvent::Exception { message: "thrown string".into(), stack: None }));
    }

    #[test]
    fn request_events_keep_what_navigation_needs() {
        let started = PageEvent::parse(
            "Network.requestWillBeSent",
            json!({"requestId":"L1","loaderId":"L1","frameId":"F","type":"Document","request":{"url":"http://x/"}}),
        );
        assert_eq!(
            started,
            Some(PageEvent::RequestStarted {
                request_id: "L1".into(),
                loader_id: "L1".into(),
                frame_id: Some("F".into()),
                resource_type: "Document".into(),
                url: "http://x/".into(),
                method: "GET".into(),
            })
        );
        let failed = PageEvent::parse(
            "Network.loadingFailed",
            json!({"requestId":"L1","type":"Document","errorText":"net::ERR_CONNECTION_REFUSED","canceled":false}),
        );
        assert_eq!(
            failed,
            Some(PageEvent::RequestFailed {
                request_id: "L1".into(),
                error_text: "net::ERR_CONNECTION_REFUSED".into()
            })
        );
    }
}
