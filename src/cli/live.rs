//! Live errors: a session's console errors, page errors, failed requests and crashes, printed one
//! line each as they happen (from `events.subscribe` with `onlyErrors`), while a script runs or the
//! REPL waits for input.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use std::time::Duration;

use jsonrpsee_core::client::Subscription;
use serde_json::{Map, Value};
use tokio::task::JoinHandle;

use crate::connection::{Connection, for_session};

use crate::paint::Paint;

/// One event as one line: `✖ console  declined 422  (/invoices/view.js:16:19)`.
pub fn line(event: &Value, paint: Paint) -> String {
    let kind = event["kind"].as_str().unwrap_or("event");
    if kind == "end" {
        let reason = event["reason"].as_str().unwrap_or("closed");
        return paint.dim(&format!("· live events ended: the session is {reason}"));
    }
    let mut text = format!(
        "{} {kind:<9} {}",
        if event["error"] == true { "✖" } else { "·" },
        event["text"].as_str().unwrap_or("")
    );
    text.push_str(&crate::show::place(&event["location"]));
    if let Some(dropped) = event["dropped"].as_u64() {
        text.push_str(&format!("  [{dropped} events lost while the terminal was busy]"));
    }
    if event["error"] == true { paint.red(&text) } else { paint.yellow(&text) }
}

/// Prints each event with `print` until the subscription ends, counting the errors in `errors`.
pub async fn follow(
    mut events: Subscription<Value>,
    paint: Paint,
    errors: Arc<AtomicUsize>,
    mut print: impl FnMut(String) + Send + 'static,
) {
    while let Some(Ok(event)) = events.next().await {
        if event["error"] == true {
            errors.fetch_add(1, Ordering::Relaxed);
        }
        print(line(&event, paint));
        if event["kind"] == "end" {
            break;
        }
    }
}

/// The end of a run: closes the session when it is the CLI's own (`ours`) — which ends the live
/// feed after its last event, so nothing is cut off — and lets `follower` print what is left.
pub async fn finish(connection: &Connection, session: &str, ours: bool, follower: Option<JoinHandle<()>>) {
    if ours {
        let _ = connection.call("session.close", for_session(session, Map::new())).await;
    }
    if let Some(follower) = follower {
        let patience = if ours { Duration::from_secs(5) } else { Duration::from_millis(300) };
        let _ = tokio::time::timeout(patience, follower).await;
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn an_event_is_one_line_with_its_file_and_line() {
        let paint = Paint::plain();
        let event = json!({ "kind": "console", "error": true, "text": "declined 422",
                            "location": { "url": "http://h/invoices/view.js", "line": 16, "column": 19 } });
        assert_eq!(line(&event, paint), "✖ console   declined 422  (/invoices/view.js:16:19)");
        let end = json!({ "kind": "end", "reason": "expired" });
        assert_eq!(line(&end, paint), "· live events ended: the session is expired");
    }
}
