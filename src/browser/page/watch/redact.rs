//! Keeping secrets out of everything the service returns about a page.
//!
//! Two rules: values typed into password fields by this session (`page.fill`) are remembered and
//! replaced wherever page data is shown (request and response bodies, console text, errors); and
//! in JSON and form bodies, the values of keys that name a secret (`password`, `token`,
//! `api_key` …) are replaced whatever they hold. Request headers (`Authorization`, `Cookie`) are
//! never captured at all.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

/// What replaces a secret.
pub const MASK: &str = "[redacted]";
/// Remembered password values, at most.
const MAX_SECRETS: usize = 32;
/// Shorter values are not remembered (they would mask ordinary text).
const MIN_SECRET_LEN: usize = 4;

static SECRET_KEY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^(password|passwd|pwd|pass|passphrase|new_?password|old_?password|current_?password|secret|client_?secret|api_?key|access_?token|refresh_?token|id_?token|token|authorization|cookie|session_?id|credit_?card|card_?number|cvv|cvc)$",
    )
    // Infallible: a constant pattern (the unit tests compile it).
    .expect("a valid regex")
});

#[derive(Debug, Clone, Default)]
pub struct Redactor {
    secrets: Vec<String>,
}

impl Redactor {
    /// Remembers a value typed into a password field.
    pub fn remember(&mut self, secret: &str) {
        if secret.len() < MIN_SECRET_LEN || self.secrets.iter().any(|s| s == secret) {
            return;
        }
        if self.secrets.len() == MAX_SECRETS {
            self.secrets.remove(0);
        }
        self.secrets.push(secret.to_owned());
    }

    /// Whether no secret is remembered (then nothing needs masking).
    pub fn is_empty(&self) -> bool {
        self.secrets.is_empty()
    }

    /// `value` with every remembered secret masked in every string it holds (keys aside).
    pub fn json(&self, value: Value) -> Value {
        match value {
            Value::String(s) => Value::String(self.text(&s)),
            Value::Array(items) => Value::Array(items.into_iter().map(|v| self.json(v)).collect()),
            Value::Object(map) => Value::Object(map.into_iter().map(|(k, v)| (k, self.json(v))).collect()),
            other => other,
        }
    }

    /// `text` with every remembered secret masked.
    pub fn text(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for secret in &self.secrets {
            if out.contains(secret.as_str()) {
                out = out.replace(secret.as_str(), MASK);
            }
        }
        out
    }

    /// A body as shown: secret-named keys masked in JSON and form bodies, then remembered
    /// secrets masked anywhere.
    pub fn body(&self, body: &str) -> String {
        self.text(&mask_keys(body))
    }
}

/// Masks the values of secret-named keys in a JSON or `application/x-www-form-urlencoded` body;
/// anything else is returned as it is.
fn mask_keys(body: &str) -> String {
    let trimmed = body.trim_start();
    if (trimmed.starts_with('{') || trimmed.starts_with('['))
        && let Ok(mut value) = serde_json::from_str::<Value>(body)
    {
        return if mask_json(&mut value) { value.to_string() } else { body.to_owned() };
    }
    if !body.contains('=') || body.contains(char::is_whitespace) {
        return body.to_owned();
    }
    let mut masked = false;
    let pairs: Vec<String> = body
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some((key, _)) if SECRET_KEY.is_match(&percent_decode(key)) => {
                masked = true;
                format!("{key}={MASK}")
            }
            _ => pair.to_owned(),
        })
        .collect();
    if masked { pairs.join("&") } else { body.to_owned() }
}

fn mask_json(value: &mut Value) -> bool {
    match value {
        Value::Object(map) => {
            let mut masked = false;
            for (key, v) in map.iter_mut() {
                if SECRET_KEY.is_match(key) && !v.is_null() {
                    *v = Value::String(MASK.into());
                    masked = true;
                } else {
                    masked |= mask_json(v);
                }
            }
            masked
        }
        Value::Array(items) => {
            // Every item is masked: no short cut after the first.
            let mut masked = false;
            for item in items {
                masked |= mask_json(item);
            }
            masked
        }
        _ => false,
    }
}

/// A form field name as the server reads it: `+` is a space, %XX escapes decoded.
fn percent_decode(s: &str) -> String {
    percent_encoding::percent_decode_str(&s.replace('+', " ")).decode_utf8_lossy().into_owned()
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
        assert_eq!(r.body("plain text with password=x in it"), "plain text with password=x in it");
        assert_eq!(r.body(r#"{"quantity":0}"#), r#"{"quantity":0}"#, "untouched bodies keep their formatting");
    }

    #[test]
    fn remembered_secrets_are_masked_anywhere() {
        let mut r = Redactor::default();
        r.remember("s3cr3t-Pa55");
        r.remember("ab");
        assert_eq!(r.text("echo: s3cr3t-Pa55!"), "echo: [redacted]!");
        assert_eq!(r.text("ab stays"), "ab stays", "too short to be remembered");
        assert_eq!(r.body(r#"{"note":"s3cr3t-Pa55"}"#), r#"{"note":"[redacted]"}"#);
        let shown = r.json(serde_json::json!({ "a": ["x s3cr3t-Pa55"], "s3cr3t-Pa55": 1 }));
        assert_eq!(shown, serde_json::json!({ "a": ["x [redacted]"], "s3cr3t-Pa55": 1 }));
    }
}
