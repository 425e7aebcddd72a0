//! The page events the service depends on, parsed leniently from CDP JSON.
//!
//! Events arrive by two paths: chromiumoxide's typed listeners (re-read here as JSON), and the raw
//! text of messages chromiumoxide failed to parse (protocol drift; see `launch::pump_handler`).
//! Both go through [`PageEvent::parse`], which reads only the fields we use and tolerates anything
//! else, so a renamed field in Chromium never silently loses an event we rely on.

use serde::Deserialize;
use serde_json::Value;

/// The CDP event names [`PageEvent::parse`] understands.
pub const WATCHED: &[&str] = &[
    "Page.lifecycleEvent",
    "Page.frameNavigated",
    "Network.requestWillBeSent",
    "Network.responseReceived",
    "Network.loadingFinished",
    "Network.loadingFailed",
    "Inspector.targetCrashed",
    "Fetch.requestPaused",
];

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
        frame_id: Option<String>,
        resource_type: String,
    },
    ResponseReceived {
        request_id: String,
        frame_id: Option<String>,
        resource_type: String,
        status: u16,
    },
    RequestFinished {
        request_id: String,
    },
    RequestFailed {
        request_id: String,
        error_text: String,
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
                frame_id: str_field(&params, "frameId"),
                resource_type: str_field(&params, "type").unwrap_or_default(),
            },
            "Network.responseReceived" => {
                let p: ResponseReceived = serde_json::from_value(params).ok()?;
                Self::ResponseReceived {
                    request_id: p.request_id,
                    frame_id: p.frame_id,
                    resource_type: p.resource_type,
                    status: p.response.status.clamp(0.0, u16::MAX as f64) as u16,
                }
            }
            "Network.loadingFinished" => Self::RequestFinished { request_id: request_id(&params)? },
            "Network.loadingFailed" => Self::RequestFailed {
                request_id: request_id(&params)?,
                error_text: str_field(&params, "errorText").unwrap_or_default(),
            },
            "Inspector.targetCrashed" => Self::Crashed,
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
struct Response {
    #[serde(default)]
    status: f64,
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
                status: 404
            })
        );
    }

    #[test]
    fn unwatched_or_broken_events_are_ignored() {
        assert_eq!(PageEvent::parse("Page.somethingElse", json!({})), None);
        assert_eq!(PageEvent::parse("Network.loadingFinished", json!({"noRequestId": true})), None);
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
                frame_id: Some("F".into()),
                resource_type: "Document".into()
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
