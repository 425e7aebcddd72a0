//! Assertions that retry (`assert.*`): what a test runner's `expect` does, against the live page.
//!
//! A check reads what the page shows now (`js/observe.js` for elements, the URL and title from the
//! navigation state) and compares it in Rust; until it passes it is read again every
//! [`POLL`], up to the call's deadline. A check still failing then is
//! [`BrowserError::AssertionFailed`] carrying the expected and the actual value, so the agent sees
//! at once what the page showed instead.

use std::time::Duration;

use serde::Deserialize;
use serde_json::{Value, json};
use tokio::time::Instant;

use super::handle::Page;
use super::locate::answers::Observed;
use super::locate::scripts::Observe;
use super::locate::target::Target;
use super::url_glob::{UrlGlob, Wildcards};
use crate::browser::error::{BrowserError, Failed};
use crate::quote::clip;

/// How often a failing check is read again.
const POLL: Duration = Duration::from_millis(100);
/// Characters of an element's (or the page's) text shown as the actual value.
const ACTUAL_TEXT: usize = 300;
/// What a password field's value is shown as, expected or actual (its length is not told either).
pub const PASSWORD_MASK: &str = "••••";

/// What an assertion expects.
#[derive(Debug, Clone, PartialEq)]
pub enum Expect {
    /// An element's visible text (or the page's) contains `text`, or equals it with `exact`;
    /// whitespace runs count as one space.
    Text { text: String, exact: bool },
    /// At least one matching element is visible.
    Visible,
    /// No matching element is visible (none matching counts).
    Hidden,
    /// The first matching field's value.
    Value(String),
    /// The first match is checked (true) or not (false).
    Checked(bool),
    /// Exactly this many elements match.
    Count(u64),
    /// The page's URL matches.
    Url(UrlPattern),
    /// The page's title contains `text` (or equals it with `exact`).
    Title { text: String, exact: bool },
}

/// What the page shows for a check: what `js/observe.js` answered of the target, and the page's
/// URL and title.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
struct Seen {
    #[serde(flatten)]
    observed: Observed,
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    title: Option<String>,
}

/// A URL as `assert.url` takes it: a glob (`*` any characters), or a URL or path to equal.
#[derive(Debug, Clone)]
pub struct UrlPattern {
    source: String,
    glob: Option<UrlGlob>,
}

impl PartialEq for UrlPattern {
    fn eq(&self, other: &Self) -> bool {
        self.source == other.source
    }
}

impl UrlPattern {
    pub fn parse(source: &str) -> Result<Self, BrowserError> {
        if source.is_empty() {
            return Err(BrowserError::InvalidOption("pattern must not be empty".into()));
        }
        let glob = match source.contains('*') {
            true => Some(UrlGlob::parse(source, Wildcards::Star).map_err(BrowserError::InvalidOption)?),
            false => None,
        };
        Ok(Self { source: source.to_owned(), glob })
    }

    /// A glob matches the whole URL; otherwise the URL equals the pattern, or its path does
    /// (query, fragment and a trailing slash aside).
    pub fn matches(&self, url: &str) -> bool {
        if let Some(glob) = &self.glob {
            return glob.matches(url);
        }
        if url == self.source {
            return true;
        }
        let path = url.split_once("://").and_then(|(_, rest)| rest.find('/').map(|i| &rest[i..])).unwrap_or("/");
        let bare = |p: &str| p.split(['?', '#']).next().unwrap_or_default().trim_end_matches('/').to_owned();
        path == self.source || (self.source.starts_with('/') && bare(path) == bare(&self.source))
    }
}

impl Expect {
    /// What was expected, as the error's `expected`: a password field's expected value is masked
    /// like its actual one.
    fn shown_expected(&self, seen: &Seen) -> Value {
        match self {
            Self::Value(_) if is_password(seen) => json!({ "value": PASSWORD_MASK }),
            _ => self.expected(),
        }
    }

    /// What was expected (input: long strings quoted by at most 200 characters).
    fn expected(&self) -> Value {
        match self {
            Self::Text { text, exact } => json!({ "text": clip(text), "exact": exact }),
            Self::Visible => json!({ "visible": true }),
            Self::Hidden => json!({ "visible": false }),
            Self::Value(v) => json!({ "value": clip(v) }),
            Self::Checked(c) => json!({ "checked": c }),
            Self::Count(n) => json!({ "count": n }),
            Self::Url(p) => json!({ "url": clip(&p.source) }),
            Self::Title { text, exact } => json!({ "title": clip(text), "exact": exact }),
        }
    }

    /// Compares what the page shows (`seen`: observe.js's answer plus `url` and `title`) and
    /// says whether it passes and what the actual value is.
    fn judge(&self, seen: &Seen) -> (bool, Value) {
        let observed = &seen.observed;
        let count = observed.count;
        match self {
            Self::Text { text, exact } => {
                let want = collapse(text);
                let texts: Vec<String> = observed.texts.iter().map(|t| collapse(t)).collect();
                let pass = texts.iter().any(|t| if *exact { *t == want } else { t.contains(&want) });
                let shown: Vec<Value> = texts.iter().take(3).map(|t| json!(excerpt(t, &want))).collect();
                let actual = if count == 0 {
                    json!({ "count": 0 })
                } else if shown.len() == 1 {
                    json!({ "text": shown[0] })
                } else {
                    json!({ "texts": shown, "count": count })
                };
                (pass, actual)
            }
            Self::Visible | Self::Hidden => {
                let visible = observed.visible;
                let pass = if *self == Self::Visible { visible > 0 } else { visible == 0 };
                (pass, json!({ "count": count, "visible": visible }))
            }
            Self::Value(want) => {
                let value = observed.values.first().and_then(|v| v.as_deref());
                let pass = count > 0 && value == Some(want.as_str());
                // A password field is compared, never shown.
                let shown = match value {
                    Some(v) if is_password(seen) && !v.is_empty() => json!(PASSWORD_MASK),
                    other => json!(other),
                };
                (pass, json!({ "count": count, "value": shown }))
            }
            Self::Checked(want) => {
                let checked = observed.checked.first().copied();
                (count > 0 && checked == Some(*want), json!({ "count": count, "checked": checked }))
            }
            Self::Count(want) => (count == *want, json!({ "count": count })),
            Self::Url(pattern) => {
                let url = seen.url.as_deref().unwrap_or_default();
                (pattern.matches(url), json!({ "url": url }))
            }
            Self::Title { text, exact } => {
                let title = seen.title.as_deref().unwrap_or_default();
                let pass = if *exact { collapse(title) == collapse(text) } else { title.contains(text.as_str()) };
                (pass, json!({ "title": title }))
            }
        }
    }
}

impl Page {
    /// Checks `expect` against the page until it passes or `deadline`; returns the actual value.
    pub async fn assert(
        &self,
        name: &str,
        target: Option<&Target>,
        expect: &Expect,
        deadline: Instant,
    ) -> Result<Value, BrowserError> {
        check_until(self, name, target, expect, deadline).await
    }
}

/// What the page shows for `expect`, on `target` (or the body).
async fn observe(
    page: &Page,
    target: Option<&Target>,
    expect: &Expect,
    deadline: Instant,
) -> Result<Seen, BrowserError> {
    if matches!(expect, Expect::Url(_) | Expect::Title { .. }) {
        let landed = page.nav().landed(deadline).await?;
        return Ok(Seen { url: Some(landed.url), title: Some(landed.title), ..Seen::default() });
    }
    let observed = match target {
        Some(target) => page.locate().call_on(Observe, target, &[], deadline).await?,
        None => page.locate().call_on(Observe, &Target::body(), &[], deadline).await?,
    };
    Ok(Seen { observed, ..Seen::default() })
}

/// Whether the first element seen is a password field.
fn is_password(seen: &Seen) -> bool {
    seen.observed.passwords.first().copied().unwrap_or(false)
}

fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Up to [`ACTUAL_TEXT`] characters of `text`: around `want`'s first word when it shows, else the start.
fn excerpt(text: &str, want: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    if chars.len() <= ACTUAL_TEXT {
        return text.to_owned();
    }
    let first_word = want.split_whitespace().next().unwrap_or_default();
    let at = if first_word.is_empty() { None } else { text.find(first_word) };
    let start_char = at.map(|byte| text[..byte].chars().count().saturating_sub(ACTUAL_TEXT / 3)).unwrap_or(0);
    let end = (start_char + ACTUAL_TEXT).min(chars.len());
    let body: String = chars[start_char..end].iter().collect();
    format!("{}{body}{}", if start_char > 0 { "…" } else { "" }, if end < chars.len() { "…" } else { "" })
}

/// [`Page::assert`].
async fn check_until(
    page: &Page,
    name: &str,
    target: Option<&Target>,
    expect: &Expect,
    deadline: Instant,
) -> Result<Value, BrowserError> {
    let started = Instant::now();
    let mut last = None;
    loop {
        let on = target.map(|t| format!(" on {t}")).unwrap_or_default();
        let seen = match observe(page, target, expect, deadline).await {
            Ok(seen) => seen,
            // The deadline ran out during a look: what the page showed the time before is the
            // answer (a busy browser must not turn a failed assertion into a timeout).
            Err(BrowserError::Timeout(_) | BrowserError::NoAnswer(_)) if last.is_some() => {
                last.take().unwrap_or_default()
            }
            Err(BrowserError::Timeout(_) | BrowserError::NoAnswer(_)) => {
                return Err(BrowserError::AssertionFailed(Box::new(Failed {
                    message: format!(
                        "{name}{on} failed after {} ms: expected {}, and the page answered no look before the \
                         deadline (a script is keeping it busy)",
                        started.elapsed().as_millis(),
                        expect.expected()
                    ),
                    expected: expect.expected(),
                    actual: Value::Null,
                })));
            }
            Err(err) => return Err(err),
        };
        let (pass, actual) = expect.judge(&seen);
        if pass {
            return Ok(actual);
        }
        let expected = expect.shown_expected(&seen);
        last = Some(seen);
        if Instant::now() + POLL >= deadline {
            return Err(BrowserError::AssertionFailed(Box::new(Failed {
                message: format!(
                    "{name}{on} failed after {} ms: expected {expected}, the page shows {actual}",
                    started.elapsed().as_millis(),
                ),
                expected,
                actual,
            })));
        }
        tokio::time::sleep(POLL).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the page shows, as observe.js (with the URL and title) answers it.
    fn observed(seen: Value) -> Seen {
        serde_json::from_value(seen).unwrap()
    }

    #[test]
    fn a_url_pattern_is_a_glob_a_url_or_a_path() {
        let glob = UrlPattern::parse("**/projects/*").unwrap();
        assert!(glob.matches("http://127.0.0.1:3338/projects/7"));
        assert!(!glob.matches("http://127.0.0.1:3338/teams/7"));
        let path = UrlPattern::parse("/projects").unwrap();
        assert!(path.matches("http://h/projects?tab=1"));
        assert!(!path.matches("http://h/projects/7"));
        assert!(path.matches("http://h/projects/"), "a trailing slash is the same path");
        assert!(UrlPattern::parse("http://h/a").unwrap().matches("http://h/a"));
        assert!(UrlPattern::parse("").is_err());
    }

    #[test]
    fn text_passes_on_a_substring_and_exact_needs_the_whole_text() {
        let seen = observed(json!({ "count": 1, "texts": ["Saved  3 projects"] }));
        assert!(Expect::Text { text: "3 projects".into(), exact: false }.judge(&seen).0);
        assert!(!Expect::Text { text: "3 projects".into(), exact: true }.judge(&seen).0);
        let (pass, actual) = Expect::Text { text: "Saved 4".into(), exact: false }.judge(&seen);
        assert!(!pass);
        assert_eq!(actual, json!({ "text": "Saved 3 projects" }));
    }

    #[test]
    fn a_password_field_is_compared_but_never_shown() {
        let seen = observed(json!({ "count": 1, "values": ["hunter2-horse"], "passwords": [true] }));
        let (pass, actual) = Expect::Value("hunter2-horse".into()).judge(&seen);
        assert!(pass);
        assert_eq!(actual, json!({ "count": 1, "value": PASSWORD_MASK }));
        let wrong = Expect::Value("hunter3".into());
        assert_eq!(wrong.judge(&seen), (false, json!({ "count": 1, "value": PASSWORD_MASK })));
        assert_eq!(wrong.shown_expected(&seen), json!({ "value": PASSWORD_MASK }));
        let plain = observed(json!({ "count": 1, "values": ["ada"], "passwords": [false] }));
        assert_eq!(Expect::Value("bob".into()).judge(&plain).1, json!({ "count": 1, "value": "ada" }));
    }

    #[test]
    fn hidden_passes_when_nothing_matches() {
        let (pass, actual) = Expect::Hidden.judge(&observed(json!({ "count": 0, "visible": 0 })));
        assert!(pass, "{actual}");
        assert!(!Expect::Visible.judge(&observed(json!({ "count": 2, "visible": 0 }))).0);
    }

    #[test]
    fn a_long_text_is_shown_around_what_was_expected() {
        let text = format!("{} Total: 41 {}", "a ".repeat(400), "b ".repeat(400));
        let shown = excerpt(&text, "Total: 42");
        assert!(shown.contains("Total: 41") && shown.starts_with('…') && shown.ends_with('…'), "{shown}");
    }
}
