//! Events chromiumoxide could not parse (protocol drift), routed raw to their page.
//!
//! With `surface_invalid_messages`, a message chromiumoxide fails to parse reaches our handler
//! pump as text instead of being dropped. If it is an event of a CDP session a page registered,
//! it is forwarded as method + params; the page's own parser decides whether it matters. This
//! module knows nothing of page event types, so it never depends on the page layer.

use std::borrow::Borrow;
use std::collections::HashMap;
use std::hash::Hash;
use std::sync::Mutex;

use serde_json::Value;
use tokio::sync::mpsc;

use super::ids::{FrameId, SessionId};

/// One CDP event as JSON: its method name and params.
#[derive(Debug, Clone, PartialEq)]
pub struct RawEvent {
    pub method: String,
    pub params: Value,
}

/// Where raw events for each page go, keyed by CDP session id; and download events, keyed by the
/// frame that began the download (then by the download's guid).
#[derive(Default)]
pub struct EventRoutes {
    sessions: Mutex<HashMap<SessionId, mpsc::UnboundedSender<RawEvent>>>,
    frames: Mutex<HashMap<FrameId, mpsc::UnboundedSender<RawEvent>>>,
    /// Download guid → the frame that began it.
    downloads: Mutex<HashMap<String, FrameId>>,
}

impl EventRoutes {
    pub fn add(&self, cdp_session: SessionId, tx: mpsc::UnboundedSender<RawEvent>) {
        self.map().insert(cdp_session, tx);
    }

    pub fn remove<Id: Hash + Eq + ?Sized>(&self, cdp_session: &Id)
    where
        SessionId: Borrow<Id>,
    {
        self.map().remove(cdp_session);
    }

    /// Download events of `frame` (a page's main frame id) go to `tx`.
    pub fn add_frame(&self, frame: FrameId, tx: mpsc::UnboundedSender<RawEvent>) {
        lock(&self.frames).insert(frame, tx);
    }

    pub fn remove_frame(&self, frame: &FrameId) {
        lock(&self.frames).remove(frame);
        lock(&self.downloads).retain(|_, f| f != frame);
    }

    /// Forwards a browser-level download event to the page whose frame began the download.
    pub fn dispatch_download(&self, method: &str, params: Value) {
        let guid = params.get("guid").and_then(Value::as_str).unwrap_or_default().to_owned();
        let frame = match params.get("frameId").and_then(Value::as_str) {
            Some(frame) => {
                lock(&self.downloads).insert(guid.clone(), frame.into());
                Some(frame.into())
            }
            None => lock(&self.downloads).get(&guid).cloned(),
        };
        let state = params.get("state").and_then(Value::as_str).map(super::kinds::DownloadState::parse);
        if state.is_some_and(|s| s != super::kinds::DownloadState::InProgress) {
            lock(&self.downloads).remove(&guid);
        }
        let tx = frame.and_then(|f| lock(&self.frames).get(&f).cloned());
        if let Some(tx) = tx {
            let _ = tx.send(RawEvent { method: method.to_owned(), params });
        }
    }

    /// Forwards a browser-level event to the page whose main frame is `frame`, if it is ours.
    pub fn dispatch_to_frame(&self, frame: &FrameId, method: &str, params: Value) {
        let tx = lock(&self.frames).get(frame).cloned();
        if let Some(tx) = tx {
            let _ = tx.send(RawEvent { method: method.to_owned(), params });
        }
    }

    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<SessionId, mpsc::UnboundedSender<RawEvent>>> {
        lock(&self.sessions)
    }

    /// Routes the raw text of a message chromiumoxide could not parse, if it is an event of a
    /// registered CDP session. Anything else (responses, unknown sessions, garbage) is ignored.
    pub fn dispatch_raw(&self, text: &str) {
        let Some((session, event)) = parse_event(text) else { return };
        if let Some(tx) = self.map().get(&session) {
            tracing::debug!(method = %event.method, "rescued an event chromiumoxide could not parse");
            let _ = tx.send(event);
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// `{"method", "params", "sessionId"}` → (session id, event).
fn parse_event(text: &str) -> Option<(SessionId, RawEvent)> {
    let mut msg: Value = serde_json::from_str(text).ok()?;
    let method = msg.get("method")?.as_str()?.to_owned();
    let session = msg.get("sessionId")?.as_str()?.into();
    let params = msg.get_mut("params").map(Value::take).unwrap_or(Value::Null);
    Some((session, RawEvent { method, params }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_event_of_a_registered_session_is_forwarded_and_others_are_not() {
        let routes = EventRoutes::default();
        let (tx, mut rx) = mpsc::unbounded_channel();
        routes.add("S1".into(), tx);
        routes.dispatch_raw(r#"{"method":"Network.loadingFinished","params":{"requestId":"R"},"sessionId":"S1"}"#);
        routes.dispatch_raw(r#"{"method":"Network.loadingFinished","params":{},"sessionId":"S2"}"#);
        routes.dispatch_raw(r#"{"id":4,"result":{},"sessionId":"S1"}"#);
        routes.dispatch_raw("not json");
        let got = rx.try_recv().expect("the S1 event");
        assert_eq!(got, RawEvent { method: "Network.loadingFinished".into(), params: json!({"requestId":"R"}) });
        assert!(rx.try_recv().is_err(), "nothing else was forwarded");
        routes.remove("S1");
        routes.dispatch_raw(r#"{"method":"X.y","params":{},"sessionId":"S1"}"#);
        assert!(rx.try_recv().is_err(), "a removed route gets nothing");
    }
}
