//! Keeping secrets out of everything the service returns about a session's pages: one
//! [`Redactor`] per session, shared by all its tabs (a page's watch holds a handle to it) and
//! living as long as the session, so a password typed in one tab is masked in every tab's
//! answers and live events, and after its tab closed (`storage.state`, `cookies.get`).
//!
//! Two rules. A value typed or filled into a password field (or marked `secret` by the caller) is
//! remembered and masked wherever page data is shown, in every form a page writes it (`encodings`:
//! percent and form encoding,
//! the page's charset, JSON and JavaScript escapes, HTML entities, base64). And the values of keys
//! that name a secret (`keys`: `password`, `j_password`, `user[password]`, `userPassword`,
//! `token` …) are masked in bodies and query strings whatever they hold. Credential headers
//! (`Authorization`, `Cookie`, `Set-Cookie`, secret-named ones) keep no value (`headers`).
//!
//! - `encodings`: the pattern matching one secret in every form
//! - `keys`: secret-named keys in JSON, form bodies and query strings
//! - `headers`: a header's value as kept

mod encodings;
mod headers;
mod keys;

use std::sync::{Arc, RwLock};

use regex::Regex;
use serde_json::Value;

/// What replaces a secret.
pub const MASK: &str = "[redacted]";
/// Remembered secrets, at most (the oldest goes first).
const MAX_SECRETS: usize = 32;
/// Shorter values are not remembered (they would mask ordinary text).
const MIN_SECRET_LEN: usize = 4;

/// A session's secrets: cheap to clone, every clone the same set.
#[derive(Clone, Default)]
pub struct Redactor {
    known: Arc<RwLock<Arc<Known>>>,
}

/// The remembered secrets and the one pattern matching all of them.
#[derive(Default)]
struct Known {
    secrets: Vec<String>,
    pattern: Option<Regex>,
}

impl std::fmt::Debug for Redactor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Redactor({} secrets)", self.current().secrets.len())
    }
}

impl Redactor {
    /// Remembers a value typed or filled into a password field, or marked `secret` by the caller
    /// (`page.fill`, `page.type`), for the session's life.
    pub fn remember(&self, secret: &str) {
        if secret.chars().count() < MIN_SECRET_LEN {
            return;
        }
        let mut known = self.known.write().unwrap_or_else(|p| p.into_inner());
        if known.secrets.iter().any(|s| s == secret) {
            return;
        }
        let mut secrets = known.secrets.clone();
        if secrets.len() == MAX_SECRETS {
            secrets.remove(0);
        }
        secrets.push(secret.to_owned());
        let pattern = compile(&secrets);
        *known = Arc::new(Known { secrets, pattern });
    }

    /// `value` with secrets masked in every string it holds (keys aside).
    pub fn json(&self, value: Value) -> Value {
        let known = self.current();
        known.json(value)
    }

    /// `text` with every remembered secret and the values of secret-named pairs masked.
    pub fn text(&self, text: &str) -> String {
        self.current().text(text)
    }

    /// A body as shown: secret-named keys masked in JSON and form bodies, then remembered
    /// secrets masked anywhere.
    pub fn body(&self, body: &str) -> String {
        match keys::mask_json_body(body) {
            Some(masked) => self.text(&masked),
            None => self.text(body),
        }
    }

    fn current(&self) -> Arc<Known> {
        self.known.read().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

impl Known {
    fn json(&self, value: Value) -> Value {
        match value {
            Value::String(s) => Value::String(self.text(&s)),
            Value::Array(items) => Value::Array(items.into_iter().map(|v| self.json(v)).collect()),
            Value::Object(map) => Value::Object(map.into_iter().map(|(k, v)| (k, self.json(v))).collect()),
            other => other,
        }
    }

    fn text(&self, text: &str) -> String {
        let text = keys::mask_pairs(text);
        match &self.pattern {
            Some(pattern) => pattern.replace_all(&text, MASK).into_owned(),
            None => text,
        }
    }
}

/// One pattern for all of `secrets`; the longest first, so a secret holding another is masked
/// whole.
fn compile(secrets: &[String]) -> Option<Regex> {
    let mut sorted: Vec<&String> = secrets.iter().collect();
    sorted.sort_by_key(|s| std::cmp::Reverse(s.len()));
    let source = sorted.iter().map(|s| format!("(?:{})", encodings::pattern(s))).collect::<Vec<_>>().join("|");
    match regex::RegexBuilder::new(&source).size_limit(64 << 20).build() {
        Ok(pattern) => Some(pattern),
        Err(error) => {
            // Only as written, then: better than nothing, and said in the log.
            tracing::warn!(%error, "the secrets' pattern did not compile; masking them as written only");
            let literal = sorted.iter().map(|s| regex::escape(s)).collect::<Vec<_>>().join("|");
            Regex::new(&literal).ok()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_keys_are_masked_in_json_and_forms() {
        let r = Redactor::default();
        assert_eq!(
            r.body(r#"{"email":"a@b.c","password":"hunter22","nested":{"api_key":"k1"}}"#),
            r#"{"email":"a@b.c","password":"[redacted]","nested":{"api_key":"[redacted]"}}"#,
            "the body keeps its own key order"
        );
        assert_eq!(r.body("user=ada&password=hunter22&remember=1"), "user=ada&password=[redacted]&remember=1");
        assert_eq!(r.body(r#"{"quantity":0}"#), r#"{"quantity":0}"#, "untouched bodies keep their formatting");
    }

    #[test]
    fn remembered_secrets_are_masked_anywhere_by_every_clone() {
        let r = Redactor::default();
        let other_tab = r.clone();
        other_tab.remember("s3cr3t Pa55");
        r.remember("ab");
        assert_eq!(r.text("echo: s3cr3t Pa55!"), "echo: [redacted]!");
        assert_eq!(r.text("q=s3cr3t+Pa55&x=1"), "q=[redacted]&x=1");
        assert_eq!(r.text("ab stays"), "ab stays", "too short to be remembered");
        assert_eq!(r.body(r#"{"note":"s3cr3t Pa55"}"#), r#"{"note":"[redacted]"}"#);
        let shown = r.json(serde_json::json!({ "a": ["x s3cr3t%20Pa55"], "s3cr3t Pa55": 1 }));
        assert_eq!(shown, serde_json::json!({ "a": ["x [redacted]"], "s3cr3t Pa55": 1 }));
    }

    #[test]
    fn a_secret_holding_another_is_masked_whole() {
        let r = Redactor::default();
        r.remember("hunter");
        r.remember("hunter2024!");
        assert_eq!(r.text("pw hunter2024!"), "pw [redacted]");
    }

    #[test]
    fn a_full_set_of_long_non_ascii_secrets_is_masked_in_every_charset() {
        // The pattern grows with each letter's forms; at the cap it must still compile whole (the
        // fallback masks secrets as written only).
        let r = Redactor::default();
        let secrets: Vec<String> = (0..MAX_SECRETS).map(|i| format!("{i:02}-Пароль日本語ключ€").repeat(4)).collect();
        let started = std::time::Instant::now();
        for secret in &secrets {
            r.remember(secret);
        }
        let (bytes, _, _) = encoding_rs::SHIFT_JIS.encode(&secrets[0]);
        let form: String = url::form_urlencoded::byte_serialize(&bytes).collect();
        assert_eq!(r.text(&format!("parol={form}")), format!("parol={MASK}"), "{:?}", started.elapsed());
    }

    #[test]
    fn the_oldest_secret_goes_past_the_cap() {
        let r = Redactor::default();
        for i in 0..=MAX_SECRETS {
            r.remember(&format!("{i:03}-secret"));
        }
        assert_eq!(r.text("000-secret"), "000-secret");
        assert_eq!(r.text("032-secret"), MASK);
    }
}
