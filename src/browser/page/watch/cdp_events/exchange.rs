//! What a page exchanges outside request and response: its WebSockets (opening, handshake, every
//! frame, errors, close) and its EventSource streams' messages, read from the Network domain's
//! events (`Network.enable` is all they need).
//!
//! Payloads are kept as CDP gives them (text frames whole, binary base64, an EventSource message's
//! data); the sockets' sub-reducer outlines, masks and bounds them before anything is stored.

use serde_json::Value;

use super::fields::{initiator, request_id, text, timestamp};
use super::{CodeLocation, PageEvent};
use crate::browser::chromium::ids::RequestId;
use crate::browser::page::watch::exchanged::Found;

/// One socket or stream event; `request_id` names the socket (or the stream's request).
#[derive(Debug, Clone, PartialEq)]
pub enum SocketEvent {
    /// `new WebSocket(url)` ran (`Network.webSocketCreated`): where, from which script line.
    Created { request_id: RequestId, url: String, initiator: Option<CodeLocation> },
    /// The server answered the handshake (101 when it accepted).
    Handshake { request_id: RequestId, status: u16, timestamp: f64 },
    /// A data frame sent (`sent`) or received; `binary` payloads are base64.
    Frame { request_id: RequestId, sent: bool, binary: bool, payload: String, timestamp: f64 },
    /// A refused handshake or an invalid frame, in Chromium's words.
    Error { request_id: RequestId, message: String, timestamp: f64 },
    /// The socket closed (CDP carries no close code nor reason).
    Closed { request_id: RequestId, timestamp: f64 },
    /// An EventSource message on the stream requested as `request_id`.
    Message { request_id: RequestId, event: String, data: String, timestamp: f64 },
}

/// A write to the page's Web Storage (`DOMStorage.domStorageItem*`, on with `DOMStorage.enable`): the
/// page's own writes whatever the syntax; the events carry no stack: `by` is the line of the
/// `setItem`/`removeItem`/`clear` call the service paused on just before (see `pauses`), if any.
/// And the `getItem` reads those pauses saw.
#[derive(Debug, Clone, PartialEq)]
pub enum StorageEvent {
    /// `key` set to `value` (added or updated).
    Set {
        local: bool,
        key: String,
        value: String,
        by: Option<CodeLocation>,
    },
    Removed {
        local: bool,
        key: String,
        by: Option<CodeLocation>,
    },
    Cleared {
        local: bool,
        by: Option<CodeLocation>,
    },
    /// `getItem(key)` called at `by` (`key`: `None` when its expression has side effects).
    Read {
        local: bool,
        key: Option<String>,
        found: Found,
        by: CodeLocation,
        /// A similar key this session wrote (and where), when nothing wrote `key`.
        similar: Option<(String, Option<CodeLocation>)>,
        /// When the call was made (its pause reached the service; ms since the Unix epoch), not
        /// when the read was filed after it.
        at: f64,
    },
    /// `setItem`/`removeItem` of `key` (`None`: `clear`) called at `by`, paused on before the
    /// write: the reducer gives its line to the write's own event, whichever comes first.
    Calling {
        local: bool,
        key: Option<String>,
        by: CodeLocation,
        /// When the call was made (as for a read): the write is timed by it.
        at: f64,
    },
    /// The document called storage more often than the service follows.
    Unfollowed {
        budget: u32,
    },
}

/// Parses a storage event; `None` for any other method.
pub fn storage(method: &str, params: &Value) -> Option<PageEvent> {
    let local = params.pointer("/storageId/isLocalStorage").and_then(Value::as_bool).unwrap_or(true);
    let event = match method {
        "DOMStorage.domStorageItemAdded" | "DOMStorage.domStorageItemUpdated" => {
            StorageEvent::Set { local, key: text(params, "key"), value: text(params, "newValue"), by: None }
        }
        "DOMStorage.domStorageItemRemoved" => StorageEvent::Removed { local, key: text(params, "key"), by: None },
        "DOMStorage.domStorageItemsCleared" => StorageEvent::Cleared { local, by: None },
        _ => return None,
    };
    Some(PageEvent::Storage(event))
}

/// Parses a socket, stream or storage event; `None` for any other method or a socket's payload
/// missing its request id.
pub fn parse(method: &str, params: &Value) -> Option<PageEvent> {
    if method.starts_with("DOMStorage.") {
        return storage(method, params);
    }
    let request_id: RequestId = request_id(params)?;
    let at = timestamp(params);
    let event = match method {
        "Network.webSocketCreated" => {
            SocketEvent::Created { request_id, url: text(params, "url"), initiator: initiator(params.get("initiator")) }
        }
        "Network.webSocketHandshakeResponseReceived" => {
            let status = params.pointer("/response/status").and_then(Value::as_u64).unwrap_or_default();
            SocketEvent::Handshake { request_id, status: u16::try_from(status).unwrap_or_default(), timestamp: at }
        }
        "Network.webSocketFrameSent" | "Network.webSocketFrameReceived" => {
            let opcode = params.pointer("/response/opcode").and_then(Value::as_u64).unwrap_or(1);
            let payload = params.pointer("/response/payloadData").and_then(Value::as_str).unwrap_or_default();
            SocketEvent::Frame {
                request_id,
                sent: method.ends_with("Sent"),
                binary: opcode == 2,
                payload: payload.to_owned(),
                timestamp: at,
            }
        }
        "Network.webSocketFrameError" => {
            SocketEvent::Error { request_id, message: text(params, "errorMessage"), timestamp: at }
        }
        "Network.webSocketClosed" => SocketEvent::Closed { request_id, timestamp: at },
        "Network.eventSourceMessageReceived" => SocketEvent::Message {
            request_id,
            event: text(params, "eventName"),
            data: text(params, "data"),
            timestamp: at,
        },
        _ => return None,
    };
    Some(PageEvent::Socket(event))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_socket_is_read_from_its_creation_to_its_close() {
        let created = parse(
            "Network.webSocketCreated",
            &json!({"requestId":"W1","url":"ws://h/ops/socket","initiator":{"type":"script","stack":{"callFrames":[
                {"functionName":"","url":"http://h/ops/board.js","lineNumber":17,"columnNumber":15}]}}}),
        );
        let Some(PageEvent::Socket(SocketEvent::Created { url, initiator, .. })) = created else {
            panic!("{created:?}")
        };
        assert_eq!(url, "ws://h/ops/socket");
        assert_eq!(initiator.map(|i| (i.url, i.line)), Some(("http://h/ops/board.js".into(), 18)));
        let frame = parse(
            "Network.webSocketFrameReceived",
            &json!({"requestId":"W1","timestamp":2.5,"response":{"opcode":1,"mask":false,"payloadData":"{\"op\":\"error\"}"}}),
        );
        assert_eq!(
            frame,
            Some(PageEvent::Socket(SocketEvent::Frame {
                request_id: "W1".into(),
                sent: false,
                binary: false,
                payload: "{\"op\":\"error\"}".into(),
                timestamp: 2.5
            }))
        );
        let binary = parse(
            "Network.webSocketFrameSent",
            &json!({"requestId":"W1","timestamp":3.0,"response":{"opcode":2,"mask":true,"payloadData":"AAE="}}),
        );
        assert!(matches!(binary, Some(PageEvent::Socket(SocketEvent::Frame { sent: true, binary: true, .. }))));
        let refused = parse(
            "Network.webSocketFrameError",
            &json!({"requestId":"W2","timestamp":1.0,"errorMessage":"Error during WebSocket handshake: Unexpected response code: 403"}),
        );
        assert!(
            matches!(refused, Some(PageEvent::Socket(SocketEvent::Error { message, .. })) if message.ends_with("403"))
        );
        assert_eq!(parse("Network.webSocketClosed", &json!({"timestamp":1.0})), None, "no request id");
    }

    #[test]
    fn a_streams_message_keeps_its_event_name_and_data() {
        let message = parse(
            "Network.eventSourceMessageReceived",
            &json!({"requestId":"S1","timestamp":4.0,"eventName":"message","eventId":"","data":"{\"by\":\"ana\"}"}),
        );
        assert_eq!(
            message,
            Some(PageEvent::Socket(SocketEvent::Message {
                request_id: "S1".into(),
                event: "message".into(),
                data: "{\"by\":\"ana\"}".into(),
                timestamp: 4.0
            }))
        );
    }
}
