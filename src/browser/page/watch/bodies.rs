//! Response bodies captured before Chromium evicts them, per session, within a memory cap.
//!
//! Chromium keeps a response body only for a while (and drops it with the document), so the
//! watch captures the bodies worth keeping when their response finishes: every fetch/XHR and
//! document response with a text body, and any error response with a text body. They are kept
//! whole up to [`BODY_LIMIT`] each and [`SESSION_CAP`] in all; the oldest go first. `network.pull`
//! shows an excerpt, `network.body` the whole body. The process-wide total is the
//! `text_browser_captured_body_bytes` gauge.

use std::borrow::Borrow;
use std::collections::{HashMap, VecDeque};
use std::hash::Hash;
use std::sync::Arc;

use crate::browser::chromium::ids::RequestId;

/// The most of one body that is kept (`network.body` returns at most this).
pub const BODY_LIMIT: usize = 1024 * 1024;
/// The most body bytes one session keeps; older bodies are evicted first.
pub const SESSION_CAP: usize = 4 * 1024 * 1024;

/// Whether a response's body is text worth keeping (JSON, HTML, text, XML, JavaScript).
pub fn is_text(mime: &str) -> bool {
    let mime = mime.to_ascii_lowercase();
    mime.starts_with("text/")
        || mime.contains("json")
        || mime.contains("xml")
        || mime.contains("javascript")
        || mime.contains("x-www-form-urlencoded")
}

/// Cuts `text` to at most `max` bytes on a char boundary; says whether it cut.
pub fn cut(text: &str, max: usize) -> (&str, bool) {
    if text.len() <= max {
        return (text, false);
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    (&text[..end], true)
}

/// One captured body.
#[derive(Debug, Clone)]
pub struct Body {
    pub text: Arc<str>,
    /// The response was longer than [`BODY_LIMIT`]: `text` is its start.
    pub truncated: bool,
}

#[derive(Debug, Default)]
pub struct BodyStore {
    bodies: HashMap<RequestId, Body>,
    /// Request ids, oldest first.
    order: VecDeque<RequestId>,
    bytes: usize,
    /// Request ids whose body was evicted (bounded), so a caller is told why it is gone.
    evicted: VecDeque<RequestId>,
    /// The latest request id with a kept body, per URL (without fragment).
    by_url: HashMap<String, RequestId>,
}

impl BodyStore {
    /// Keeps `text` as `request_id`'s body (cut to [`BODY_LIMIT`]), evicting the oldest bodies
    /// beyond [`SESSION_CAP`].
    pub fn insert(&mut self, request_id: &RequestId, url: &str, text: &str) {
        let (kept, truncated) = cut(text, BODY_LIMIT);
        self.remove(request_id);
        while self.bytes + kept.len() > SESSION_CAP {
            let Some(oldest) = self.order.pop_front() else { break };
            if let Some(body) = self.bodies.remove(&oldest) {
                self.account(-(body.text.len() as i64));
                if self.evicted.len() == 1000 {
                    self.evicted.pop_front();
                }
                self.evicted.push_back(oldest);
            }
        }
        self.account(kept.len() as i64);
        self.by_url.retain(|_, id| self.bodies.contains_key(id));
        self.by_url.insert(without_fragment(url).to_owned(), request_id.clone());
        self.order.push_back(request_id.clone());
        self.bodies.insert(request_id.clone(), Body { text: Arc::from(kept), truncated });
    }

    fn remove(&mut self, request_id: &RequestId) {
        if let Some(old) = self.bodies.remove(request_id) {
            self.account(-(old.text.len() as i64));
            self.order.retain(|id| id != request_id);
        }
    }

    fn account(&mut self, delta: i64) {
        self.bytes = (self.bytes as i64 + delta).max(0) as usize;
        crate::metrics::CAPTURED_BODY_BYTES.add(delta);
    }

    pub fn get<Id: Hash + Eq + ?Sized>(&self, request_id: &Id) -> Option<&Body>
    where
        RequestId: Borrow<Id>,
    {
        self.bodies.get(request_id)
    }

    /// The latest kept body of a request for `url`.
    pub fn text_for_url(&self, url: &str) -> Option<Arc<str>> {
        let id = self.by_url.get(without_fragment(url))?;
        self.bodies.get(id).map(|b| b.text.clone())
    }

    /// True when `request_id`'s body was kept once and evicted to stay within the cap.
    pub fn was_evicted(&self, request_id: &str) -> bool {
        self.evicted.iter().any(|id| id == request_id)
    }

    /// Bytes held now.
    #[cfg(test)]
    pub fn bytes(&self) -> usize {
        self.bytes
    }
}

fn without_fragment(url: &str) -> &str {
    url.split('#').next().unwrap_or(url)
}

impl Drop for BodyStore {
    fn drop(&mut self) {
        crate::metrics::CAPTURED_BODY_BYTES.sub(self.bytes as i64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_store_keeps_within_its_cap_and_evicts_the_oldest_first() {
        let mut store = BodyStore::default();
        let big = "x".repeat(BODY_LIMIT + 10);
        for i in 0..10 {
            store.insert(&RequestId::from(format!("r{i}")), &format!("http://x/{i}"), &big);
        }
        assert!(store.bytes() <= SESSION_CAP, "{} bytes", store.bytes());
        assert!(store.get("r9").is_some_and(|b| b.truncated && b.text.len() == BODY_LIMIT));
        assert!(store.get("r0").is_none() && store.was_evicted("r0"));
        assert!(!store.was_evicted("never"));
        assert!(store.text_for_url("http://x/9#top").is_some() && store.text_for_url("http://x/0").is_none());
    }

    #[test]
    fn cut_respects_char_boundaries() {
        assert_eq!(cut("héllo", 2), ("h", true));
        assert_eq!(cut("hi", 5), ("hi", false));
    }

    #[test]
    fn text_mimes_are_recognised() {
        for mime in ["application/json", "text/html; charset=utf-8", "application/problem+json", "text/plain"] {
            assert!(is_text(mime), "{mime}");
        }
        assert!(!is_text("image/png"));
    }
}
