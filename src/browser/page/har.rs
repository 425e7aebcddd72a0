//! `network.har`: the session's requests as a HAR 1.2 log, for tools that read HAR (DevTools,
//! Charles, har-validator, a test report).
//!
//! Built from the same entries `network.pull` returns — the requests since the session began or
//! since the last `network.pull` — without draining them. Headers are left out on purpose (they
//! carry cookies and tokens; the service never captures them), so `headers` lists are empty and
//! `headersSize` is -1. Timings give the whole time as `wait` (the service measures start to
//! end). Bodies, when asked for, are the captured excerpts (2 KB each, secrets masked).

use std::time::{Duration, SystemTime};

use serde_json::{Value, json};
use tokio::time::Instant;

use super::handle::Page;
use super::pulls::PULL_EXCERPT;
use super::signals::NetworkEntry;

impl Page {
    /// The HAR 1.2 log of the session's requests; with `bodies`, their captured body excerpts.
    pub async fn har(&self, bodies: bool, deadline: Instant) -> Value {
        self.settle_events(deadline).await;
        if bodies {
            self.wait_for_fetches(deadline, |s| !s.bodies_pending(0)).await;
        }
        let (now_wall, now) = (SystemTime::now(), Instant::now());
        let signals = self.watch().signals();
        let entries: Vec<Value> = signals
            .network
            .iter()
            .filter(|e| !e.browser_own)
            .map(|e| signals.shown(e, bodies && (e.is_error() || e.is_data()), PULL_EXCERPT))
            .map(|e| entry(&e, bodies, now_wall, now))
            .collect();
        json!({ "log": {
            "version": "1.2",
            "creator": { "name": "text-browser", "version": env!("CARGO_PKG_VERSION") },
            "entries": entries,
        }})
    }
}

fn entry(e: &NetworkEntry, bodies: bool, now_wall: SystemTime, now: Instant) -> Value {
    let ms = e.ms.unwrap_or(0);
    let ended_ago = e.ended.map(|t| now.saturating_duration_since(t)).unwrap_or_default();
    let started = now_wall.checked_sub(ended_ago + Duration::from_millis(ms)).unwrap_or(now_wall);
    let (query, _) = split_query(&e.url);
    let mut request = json!({
        "method": e.method, "url": e.url, "httpVersion": "HTTP/1.1", "cookies": [], "headers": [],
        "queryString": query, "headersSize": -1,
        "bodySize": e.request_body.as_ref().map_or(0, |b| b.len() as i64),
    });
    if let (true, Some(body)) = (bodies, &e.request_body) {
        request["postData"] = json!({ "mimeType": "", "text": body });
    }
    let size = e.response_body_bytes.or(e.response_body.as_ref().map(String::len)).unwrap_or(0);
    let mut content = json!({ "size": size, "mimeType": e.mime_type });
    if let (true, Some(body)) = (bodies, &e.response_body) {
        content["text"] = json!(body);
    }
    let mut entry = json!({
        "startedDateTime": humantime::format_rfc3339_millis(started).to_string(),
        "time": ms,
        "request": request,
        "response": {
            "status": e.status.unwrap_or(0), "statusText": "", "httpVersion": "HTTP/1.1", "cookies": [],
            "headers": [], "content": content, "redirectURL": "", "headersSize": -1,
            "bodySize": if e.status.is_some() { size as i64 } else { -1 },
        },
        "cache": {},
        "timings": { "blocked": -1, "dns": -1, "connect": -1, "ssl": -1, "send": 0, "wait": ms, "receive": 0 },
        "_resourceType": e.resource_type,
    });
    if let Some(failure) = &e.failure {
        entry["_failure"] = json!(failure);
    }
    entry
}

/// The query string of a URL as HAR lists it: `[{name, value}]` (left encoded).
fn split_query(url: &str) -> (Vec<Value>, &str) {
    let without_fragment = url.split('#').next().unwrap_or(url);
    let Some((base, query)) = without_fragment.split_once('?') else { return (Vec::new(), without_fragment) };
    let pairs = query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (name, value) = p.split_once('=').unwrap_or((p, ""));
            json!({ "name": name, "value": value })
        })
        .collect();
    (pairs, base)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_query_string_is_listed_by_name() {
        let (pairs, base) = split_query("http://h/a?x=1&y=&z#frag");
        assert_eq!(base, "http://h/a");
        assert_eq!(
            pairs,
            vec![json!({"name":"x","value":"1"}), json!({"name":"y","value":""}), json!({"name":"z","value":""})]
        );
    }
}
