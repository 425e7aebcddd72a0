//! The typed notes of what went over the wire with one request hop besides its body, as its record
//! keeps them: its headers as sent and answered (masked when stored: `browser::redact`'s header
//! rule), the cookies the browser sent (names) and withheld (with Chromium's reasons), and each
//! `Set-Cookie` line of its answer with its outcome — stored (domain, path and whether either was
//! defaulted, expiry, HttpOnly, Secure, SameSite), deleted or refused. A cookie's value is never
//! kept. `views::wording` puts them into words.
//!
//! Bounded per hop: [`MAX_HEADERS`] headers a side, each value [`HEADER_VALUE_CHARS`] characters,
//! [`MAX_COOKIES`] cookies a list; the rest counted.

use std::time::SystemTime;

use crate::browser::redact::Redactor;

/// Headers kept per side of a hop (the rest counted).
pub const MAX_HEADERS: usize = 64;
/// Characters of a header value kept.
pub const HEADER_VALUE_CHARS: usize = 256;
/// Cookies kept per list (sent, withheld, set) of a hop (the rest counted).
pub const MAX_COOKIES: usize = 32;
/// Characters of a cookie's name (or an attribute value) kept.
const NAME_CHARS: usize = 64;

/// What one hop exchanged besides its body.
#[derive(Debug, Clone, Default)]
pub struct Wire {
    pub sent_headers: Headers,
    pub answer_headers: Headers,
    /// The names of the cookies the browser sent.
    pub cookies_sent: Vec<String>,
    /// Those of the host it withheld, and why.
    pub withheld: Vec<Withheld>,
    /// The answer's `Set-Cookie` lines, each with its outcome.
    pub set: Vec<SetCookie>,
    /// Cookies past [`MAX_COOKIES`] in any of the three lists, counted.
    pub more_cookies: usize,
}

/// One side's headers, masked.
#[derive(Debug, Clone, Default)]
pub struct Headers {
    pub list: Vec<(String, String)>,
    /// Headers past [`MAX_HEADERS`].
    pub more: usize,
    /// From the ExtraInfo event: every header on the wire (otherwise the page-visible ones only).
    pub complete: bool,
}

/// A cookie the browser did not send.
#[derive(Debug, Clone)]
pub struct Withheld {
    pub name: String,
    pub path: String,
    pub domain: String,
    /// Chromium's reasons (`NotOnPath` …).
    pub reasons: Vec<String>,
}

/// One `Set-Cookie` line of an answer, without its value.
#[derive(Debug, Clone, PartialEq)]
pub struct SetCookie {
    pub name: String,
    pub outcome: SetOutcome,
    /// Its `Domain` attribute; none: host-only.
    pub domain: Option<String>,
    /// The path it applies to.
    pub path: String,
    /// The request path its path was defaulted from (no `Path` attribute, or one not starting
    /// with `/`: RFC 6265 §5.2.4).
    pub path_defaulted_from: Option<String>,
    /// `Max-Age=…` or `Expires=…` as the line said; none: a session cookie.
    pub expiry: Option<String>,
    pub http_only: bool,
    pub secure: bool,
    pub same_site: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum SetOutcome {
    /// Accepted (the browser may still evict it later without saying so).
    Stored,
    /// An expiry in the past (`Max-Age=0`): the cookie is removed.
    Deleted,
    /// Refused, with Chromium's reasons.
    Refused(Vec<String>),
}

impl Wire {
    /// A rough size in bytes, for the timeline's byte cap.
    pub fn bytes(&self) -> usize {
        let headers = |h: &Headers| h.list.iter().map(|(n, v)| n.len() + v.len() + 8).sum::<usize>();
        headers(&self.sent_headers)
            + headers(&self.answer_headers)
            + self.cookies_sent.iter().map(|n| n.len() + 8).sum::<usize>()
            + self.withheld.iter().map(|w| w.name.len() + w.path.len() + w.domain.len() + 32).sum::<usize>()
            + self.set.iter().map(|s| s.name.len() + s.path.len() + 64).sum::<usize>()
    }

    /// Whether it holds any cookie to tell.
    pub fn has_cookies(&self) -> bool {
        !self.cookies_sent.is_empty() || !self.withheld.is_empty() || !self.set.is_empty()
    }
}

/// A side's headers as kept: masked (`Redactor::header`), bounded.
pub fn headers(list: &[(String, String)], redactor: &Redactor, complete: bool) -> Headers {
    let mut kept = Headers { complete, ..Headers::default() };
    for (header, value) in list {
        let value: String = redactor.header(header, value).chars().take(HEADER_VALUE_CHARS).collect();
        push_bounded(&mut kept.list, (name(header), value), MAX_HEADERS, &mut kept.more);
    }
    kept
}

/// `list` kept up to `max`, the rest counted in `more`.
pub fn push_bounded<T>(list: &mut Vec<T>, item: T, max: usize, more: &mut usize) {
    if list.len() < max {
        list.push(item);
    } else {
        *more += 1;
    }
}

/// `text` cut to [`NAME_CHARS`] characters.
pub fn name(text: &str) -> String {
    text.trim().chars().take(NAME_CHARS).collect()
}

/// What a `Set-Cookie` line sent with the answer to `url` does (RFC 6265 §5.2), its value left
/// out; `refused`: Chromium's reasons when it refused the line.
pub fn set_cookie(line: &str, url: &str, refused: Option<Vec<String>>) -> SetCookie {
    let mut parts = line.split(';');
    let pair = parts.next().unwrap_or_default();
    let mut set = SetCookie {
        name: name(pair.split_once('=').map_or("", |(n, _)| n)),
        outcome: SetOutcome::Stored,
        domain: None,
        path: String::new(),
        path_defaulted_from: None,
        expiry: None,
        http_only: false,
        secure: false,
        same_site: None,
    };
    let (mut path, mut max_age, mut expires) = (None, None, None);
    for part in parts {
        let (key, value) = part.split_once('=').map_or((part.trim(), ""), |(k, v)| (k.trim(), v.trim()));
        match key.to_ascii_lowercase().as_str() {
            "path" => path = Some(value.to_owned()),
            "domain" if !value.is_empty() => set.domain = Some(name(value.trim_start_matches('.'))),
            "max-age" => max_age = Some(value.to_owned()),
            "expires" => expires = Some(value.to_owned()),
            "httponly" => set.http_only = true,
            "secure" => set.secure = true,
            "samesite" => set.same_site = Some(name(value)),
            _ => {}
        }
    }
    let request_path = url::Url::parse(url).map(|u| u.path().to_owned()).unwrap_or_else(|_| "/".into());
    match path.filter(|p| p.starts_with('/')) {
        Some(p) => set.path = name(&p),
        None => {
            set.path = default_path(&request_path);
            set.path_defaulted_from = Some(name(&request_path));
        }
    }
    let gone = match (&max_age, &expires) {
        (Some(age), _) => {
            set.expiry = Some(format!("Max-Age={}", name(age)));
            age.parse::<i64>().is_ok_and(|a| a <= 0)
        }
        (None, Some(date)) => {
            set.expiry = Some(format!("Expires={}", name(date)));
            httpdate::parse_http_date(date).is_ok_and(|at| at <= SystemTime::now())
        }
        (None, None) => false,
    };
    set.outcome = match refused {
        Some(reasons) => SetOutcome::Refused(reasons),
        None if gone => SetOutcome::Deleted,
        None => SetOutcome::Stored,
    };
    set
}

/// The default path of a cookie set in answer to `path` (RFC 6265 §5.1.4): up to, not including,
/// its last `/`; `/` for a path with one `/` or none.
pub fn default_path(path: &str) -> String {
    match path.rfind('/') {
        Some(0) | None => "/".into(),
        Some(last) => name(&path[..last]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cookie_without_a_path_is_scoped_to_the_folder_of_the_request_that_set_it() {
        let set = set_cookie("portal_sid=9f2c; HttpOnly; SameSite=Lax", "http://h/portal/api/session", None);
        assert_eq!(set.path, "/portal/api");
        assert_eq!(set.path_defaulted_from.as_deref(), Some("/portal/api/session"));
        assert!(set.http_only && !set.secure && set.domain.is_none());
        assert_eq!(set.same_site.as_deref(), Some("Lax"));
        assert!(!format!("{set:?}").contains("9f2c"), "the value is never kept");
        let explicit = set_cookie("lang=en; Path=/; Max-Age=31536000", "http://h/portal/api/session", None);
        assert_eq!((explicit.path.as_str(), explicit.path_defaulted_from), ("/", None));
        assert_eq!(explicit.expiry.as_deref(), Some("Max-Age=31536000"));
        assert_eq!(default_path("/login"), "/");
        assert_eq!(default_path(""), "/");
        assert_eq!(
            set_cookie("x=1; Path=api", "http://h/a/b", None).path,
            "/a",
            "a path not starting with / is defaulted"
        );
    }

    #[test]
    fn an_expired_line_deletes_and_a_refused_one_keeps_chromiums_reasons() {
        let gone = set_cookie("sid=; Max-Age=0", "http://h/", None);
        assert_eq!(gone.outcome, SetOutcome::Deleted);
        let past = set_cookie("sid=x; Expires=Thu, 01 Jan 1970 00:00:00 GMT", "http://h/", None);
        assert_eq!(past.outcome, SetOutcome::Deleted);
        let refused = set_cookie("c=3; SameSite=None", "http://h/", Some(vec!["SameSiteNoneInsecure".into()]));
        assert_eq!(refused.outcome, SetOutcome::Refused(vec!["SameSiteNoneInsecure".into()]));
        assert_eq!(set_cookie("d=1; Domain=.example.com", "http://h/", None).domain.as_deref(), Some("example.com"));
    }
}
