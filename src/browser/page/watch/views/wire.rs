//! A request hop's headers and cookies as answers show them: the cookie lines of a network entry
//! (`sent: portal_lang`, `not sent: portal_sid — its Path …`, `cookie portal_sid set (…)`), its
//! header lists (opt-in in `network.pull`; `network.body` and the HAR), an action's cookie lines
//! and the fact that ties a cookie an action's answer set to the request it was then withheld
//! from, the timeline's short form, the redirect chain `navigated` shows, and a script's
//! `SourceMap` header (for its source map). Masked twice: when
//! stored (`watch::wire`), and here again with the secrets known now.

use super::super::origin::{relative, relative_in};
use super::super::records::{Entry, Record, RequestRecord};
use super::super::store::Store;
use super::super::wire::{Headers, SetOutcome, Wire};
use super::wording;
use crate::browser::chromium::ids::RequestId;

/// Cookie lines an action's effects list before "N more".
pub const MAX_EFFECT_COOKIES: usize = 8;
/// Cookie names the timeline's short form names per list before `…`.
const SHORT_NAMES: usize = 3;

/// Header lists as shown: `[name, value]`, masked with the secrets known now.
pub type HeaderPairs = Vec<(String, String)>;

/// A network entry's cookie lines: what it carried, what was withheld and why, what its answer set.
pub fn entry_lines(store: &Store, r: &RequestRecord) -> Vec<String> {
    let Some(wire) = r.wire.as_deref().filter(|w| w.has_cookies()) else { return Vec::new() };
    let mut lines = Vec::new();
    if !wire.cookies_sent.is_empty() {
        lines.push(format!("sent: {}", wire.cookies_sent.join(", ")));
    }
    lines.extend(wire.withheld.iter().map(|w| wording::withheld(w, &r.url)));
    lines.extend(wire.set.iter().map(wording::set_cookie));
    if wire.more_cookies > 0 {
        lines.push(format!("{} more cookies not listed", wire.more_cookies));
    }
    lines.into_iter().map(|line| store.redactor.text(&line)).collect()
}

/// The hop's request and response headers, when it has any.
pub fn header_lists(store: &Store, r: &RequestRecord) -> (Option<HeaderPairs>, Option<HeaderPairs>) {
    let shown = |h: &Headers| {
        let mut list: HeaderPairs = h.list.iter().map(|(n, v)| (n.clone(), store.redactor.text(v))).collect();
        if h.more > 0 {
            list.push(("…".into(), format!("{} more headers not kept", h.more)));
        }
        (!list.is_empty()).then_some(list)
    };
    match r.wire.as_deref() {
        Some(wire) => (shown(&wire.sent_headers), shown(&wire.answer_headers)),
        None => (None, None),
    }
}

/// An action's cookie lines (every answer's `Set-Cookie` outcomes, and the cookies withheld from
/// its fetch/XHR/document requests, each once) and the facts tying a cookie set by one of its
/// answers to a later request it was withheld from. `entries`: the timeline since the action.
pub fn effect_lines<'a>(
    store: &Store,
    entries: impl Iterator<Item = &'a Entry>,
    origin: &str,
) -> (Vec<String>, u64, Vec<String>) {
    let (mut lines, mut facts): (Vec<String>, Vec<String>) = (Vec::new(), Vec::new());
    let mut set_by: Vec<(&str, &RequestRecord)> = Vec::new();
    for entry in entries {
        let Record::Request(r) = &entry.record else { continue };
        let Some(wire) = r.wire.as_deref().filter(|w| !r.is_noise() && w.has_cookies()) else { continue };
        for set in &wire.set {
            lines.push(wording::set_cookie(set));
            if set.outcome == SetOutcome::Stored {
                set_by.push((set.name.as_str(), &**r));
            }
        }
        if !(r.is_data() || r.is_error()) {
            continue;
        }
        for withheld in &wire.withheld {
            let line = wording::withheld(withheld, &r.url);
            // Told once per cookie: the first request it was kept from is where the trouble began.
            if let Some(at) = set_by.iter().position(|(name, _)| *name == withheld.name) {
                facts.push(withheld_fact(set_by.remove(at).1, r, &line, origin));
            }
            lines.push(format!("{line} ({} {})", r.method, relative(&r.url, origin)));
        }
    }
    let mut seen = std::collections::HashSet::new();
    lines.retain(|line| seen.insert(line.clone()));
    let more = lines.len().saturating_sub(MAX_EFFECT_COOKIES) as u64;
    lines.truncate(MAX_EFFECT_COOKIES);
    let mask = |l: &String| store.redactor.text(&relative_in(l, origin));
    (lines.iter().map(mask).collect(), more, facts.iter().map(mask).collect())
}

/// `portal_sid, set by POST /portal/api/session (303), was not sent to GET /portal/home: its Path
/// /portal/api does not cover /portal/home; that answered 302 → /portal/signin/?next=…`.
fn withheld_fact(setter: &RequestRecord, r: &RequestRecord, line: &str, origin: &str) -> String {
    let (name, why) = line.trim_start_matches("not sent: ").split_once(" — ").unwrap_or((line, ""));
    let status = |r: &RequestRecord| r.status().map(|s| format!(" ({s})")).unwrap_or_default();
    let mut fact = format!(
        "{name}, set by {} {}{}, was not sent to {} {}: {why}",
        setter.method,
        relative(&setter.url, origin),
        status(setter),
        r.method,
        relative(&r.url, origin),
    );
    match (r.status(), &r.redirected_to) {
        (Some(s), Some(to)) => fact.push_str(&format!("; that answered {s} → {}", relative(to, origin))),
        (Some(s), None) => fact.push_str(&format!("; that answered {s}")),
        _ => {}
    }
    fact
}

/// The timeline's short form of a hop's cookies: `; set portal_sid, portal_lang; not sent:
/// portal_sid (NotOnPath)` (empty without any to tell).
pub fn short(wire: &Wire) -> String {
    let names = |names: Vec<String>| {
        let more = if names.len() > SHORT_NAMES { ", …" } else { "" };
        format!("{}{more}", names.into_iter().take(SHORT_NAMES).collect::<Vec<_>>().join(", "))
    };
    let mut text = String::new();
    let (stored, other): (Vec<_>, Vec<_>) = wire.set.iter().partition(|s| s.outcome == SetOutcome::Stored);
    if !stored.is_empty() {
        text.push_str(&format!("; set {}", names(stored.iter().map(|s| s.name.clone()).collect())));
    }
    for set in other {
        let how = match &set.outcome {
            SetOutcome::Refused(reasons) => format!("refused {} ({})", set.name, reasons.join(", ")),
            _ => format!("deleted {}", set.name),
        };
        text.push_str(&format!("; {how}"));
    }
    if !wire.withheld.is_empty() {
        let withheld = wire.withheld.iter().map(|w| format!("{} ({})", w.name, w.reasons.join(", "))).collect();
        text.push_str(&format!("; not sent: {}", names(withheld)));
    }
    text
}

/// The hops of request `id` since entry `since` when there was more than one: `POST
/// /portal/api/session 303`, `GET /portal/home 302`, `GET /portal/signin/?next=… 200`.
pub fn chain(store: &Store, since: u64, id: &RequestId, origin: &str) -> Vec<String> {
    let hops: Vec<String> = store
        .timeline
        .since(since)
        .filter_map(|e| match &e.record {
            Record::Request(r) if r.id == *id => {
                let status = r.status().map(|s| format!(" {s}")).unwrap_or_default();
                Some(store.redactor.text(&format!("{} {}{status}", r.method, relative(&r.url, origin))))
            }
            _ => None,
        })
        .collect();
    if hops.len() > 1 { hops } else { Vec::new() }
}

/// The `SourceMap` (or older `X-SourceMap`) header the newest answer for script `url` carried.
pub fn source_map_header(store: &Store, url: &str) -> Option<String> {
    store.timeline.iter().rev().find_map(|e| match &e.record {
        Record::Request(r) if r.url == url => {
            let headers = &r.wire.as_deref()?.answer_headers.list;
            let named = |name: &str| headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name));
            named("sourcemap").or_else(|| named("x-sourcemap")).map(|(_, v)| v.clone())
        }
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::browser::page::watch::wire::{Withheld, set_cookie};

    #[test]
    fn a_defaulted_path_and_a_withheld_cookie_read_as_an_agent_needs_them() {
        let set = set_cookie("portal_sid=x; HttpOnly; SameSite=Lax", "http://h/portal/api/session", None);
        assert_eq!(
            wording::set_cookie(&set),
            "cookie portal_sid set (HttpOnly, SameSite=Lax, session cookie, Path=/portal/api, defaulted from \
             /portal/api/session)"
        );
        let refused = set_cookie("c=3; SameSite=None", "http://h/", Some(vec!["SameSiteNoneInsecure".into()]));
        assert_eq!(
            wording::set_cookie(&refused),
            "cookie c refused: SameSite=None without Secure (SameSiteNoneInsecure)"
        );
        let withheld = Withheld {
            name: "portal_sid".into(),
            path: "/portal/api".into(),
            domain: "h".into(),
            reasons: vec!["NotOnPath".into()],
        };
        assert_eq!(
            wording::withheld(&withheld, "http://h/portal/home"),
            "not sent: portal_sid — its Path /portal/api does not cover /portal/home"
        );
        let wire = Wire { set: vec![set, refused], withheld: vec![withheld], ..Wire::default() };
        assert_eq!(
            short(&wire),
            "; set portal_sid; refused c (SameSiteNoneInsecure); not sent: portal_sid (NotOnPath)"
        );
    }
}
