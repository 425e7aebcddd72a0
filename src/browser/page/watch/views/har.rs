//! `network.har`: the page's requests as a HAR 1.2 log, for tools that read HAR (DevTools,
//! Charles, har-validator, a test report).
//!
//! Built from the timeline — every request the page made within its bound, whatever any pull
//! returned — in the order they started, with absolute start times, each redirect hop its own entry
//! (`redirectURL`). Headers are the hop's as kept (credential values masked: `browser::redact`),
//! cookies their names and attributes with an empty `value` (never kept); `headersSize` is -1.
//! Timings: `wait` is the time to the answer's headers, `receive` the rest.
//! Bodies, when asked for, are the captured excerpts (2 KB each, secrets masked). Who sent a
//! request is `_initiator` (as Chromium's own HAR export calls it): `{text}`, as network.pull
//! gives it, read through the session's source maps (`request (src/api/http.ts:14) ← submitClaim
//! (src/api/claims.ts:25) ← …`).

use std::time::{Duration, UNIX_EPOCH};

use serde_json::{Value, json};

use super::super::records::{Record, RequestRecord};
use super::super::store::Store;
use super::super::wire::SetOutcome;
use super::network::{NetworkEntry, PULL_EXCERPT, shown};
use super::places::Places;
use super::wire::{HeaderPairs, header_lists};
use crate::browser::redact::Redactor;

/// The HAR 1.2 log of the page's requests; with `bodies`, their captured body excerpts; their
/// initiators read through `places`.
pub fn log(store: &Store, bodies: bool, places: &Places) -> Value {
    let entries: Vec<Value> = store
        .timeline
        .iter()
        .filter_map(|entry| match &entry.record {
            Record::Request(r) if !r.browser_own => {
                let with_body = bodies && (r.is_error() || r.is_data());
                let mut shown = shown(store, entry, r, (with_body, PULL_EXCERPT), places);
                (shown.request_headers, shown.response_headers) = header_lists(store, r);
                let mut har = har_entry(
                    &shown,
                    entry.at,
                    &r.response.as_ref().map(|a| a.mime.clone()).unwrap_or_default(),
                    bodies,
                );
                cookies(&mut har, r, &store.redactor);
                Some(har)
            }
            _ => None,
        })
        .collect();
    json!({ "log": {
        "version": "1.2",
        "creator": { "name": "text-browser", "version": env!("CARGO_PKG_VERSION") },
        "entries": entries,
    }})
}

fn har_entry(e: &NetworkEntry, started_ms: f64, mime: &str, bodies: bool) -> Value {
    let ms = e.ms.unwrap_or(0);
    let wait = e.ttfb_ms.unwrap_or(ms).min(ms);
    let started = UNIX_EPOCH + Duration::from_micros((started_ms.max(0.0) * 1000.0) as u64);
    let (query, _) = split_query(&e.url);
    let mut request = json!({
        "method": e.method, "url": e.url, "httpVersion": "HTTP/1.1", "cookies": [],
        "headers": har_headers(&e.request_headers),
        "queryString": query, "headersSize": -1,
        "bodySize": e.request_body.as_ref().map_or(0, |b| b.len() as i64),
    });
    if let (true, Some(body)) = (bodies, &e.request_body) {
        request["postData"] = json!({ "mimeType": "", "text": body });
    }
    let size = e.response_body_bytes.or(e.response_body.as_ref().map(String::len)).unwrap_or(0);
    let mut content = json!({ "size": size, "mimeType": mime });
    if let (true, Some(body)) = (bodies, &e.response_body) {
        content["text"] = json!(body);
    }
    let mut entry = json!({
        "startedDateTime": humantime::format_rfc3339_millis(started).to_string(),
        "time": ms,
        "request": request,
        "response": {
            "status": e.status.unwrap_or(0), "statusText": "", "httpVersion": "HTTP/1.1", "cookies": [],
            "headers": har_headers(&e.response_headers), "content": content,
            "redirectURL": e.redirected_to.as_deref().unwrap_or_default(), "headersSize": -1,
            "bodySize": if e.status.is_some() { size as i64 } else { -1 },
        },
        "cache": {},
        "timings": { "blocked": -1, "dns": -1, "connect": -1, "ssl": -1, "send": 0, "wait": wait, "receive": ms - wait },
        "_resourceType": e.resource_type,
    });
    if let Some(failure) = &e.failure {
        entry["_failure"] = json!(failure);
    }
    if let Some(initiator) = &e.initiator {
        entry["_initiator"] = json!({ "text": initiator });
    }
    if e.end_ms.is_none() {
        entry["_pending"] = json!(true);
    }
    entry
}

fn har_headers(headers: &Option<HeaderPairs>) -> Vec<Value> {
    headers.iter().flatten().map(|(name, value)| json!({ "name": name, "value": value })).collect()
}

/// The cookies the hop sent (names) and those its answer set (name and attributes), each with an
/// empty `value`: the service never keeps one.
fn cookies(har: &mut Value, r: &RequestRecord, redactor: &Redactor) {
    let Some(wire) = r.wire.as_deref() else { return };
    let named = |name: &str| json!({ "name": redactor.text(name), "value": "" });
    har["request"]["cookies"] = wire.cookies_sent.iter().map(|name| named(name)).collect();
    har["response"]["cookies"] = wire
        .set
        .iter()
        .filter(|set| !matches!(set.outcome, SetOutcome::Refused(_)))
        .map(|set| {
            let mut cookie = named(&set.name);
            cookie["path"] = json!(redactor.text(&set.path));
            cookie["httpOnly"] = json!(set.http_only);
            cookie["secure"] = json!(set.secure);
            if let Some(domain) = &set.domain {
                cookie["domain"] = json!(domain);
            }
            if let Some(same_site) = &set.same_site {
                cookie["sameSite"] = json!(same_site);
            }
            cookie
        })
        .collect();
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
