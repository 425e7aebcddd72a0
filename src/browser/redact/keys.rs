//! Values whose key names a secret, whatever they hold: in JSON bodies, form bodies and query
//! strings (`?pw=…`, `user[password]=…`, `j_password=…`, `{"userPassword": …}`). A key is split
//! into words (at anything not a letter or digit and where a lower-case letter meets an upper-case
//! one); it names a secret when a word, two adjacent words joined, or the end of a word is one of
//! the names below (`user[password]`, `j_password`, `userPassword`, `x-api-key`, `csrfToken` do;
//! `passenger`, `max_tokens`, `bypass` do not).

use std::sync::LazyLock;

use regex::{Captures, Regex};
use serde_json::Value;

use super::MASK;

/// Words that name a secret on their own (or, with two words, joined: `api key`).
const NAMES: &[&str] = &[
    "password",
    "passwd",
    "passphrase",
    "pwd",
    "pass",
    "pw",
    "pin",
    "otp",
    "secret",
    "token",
    "apikey",
    "authorization",
    "auth",
    "cookie",
    "credential",
    "credentials",
    "sessionid",
    "sid",
    "creditcard",
    "cardnumber",
    "cvv",
    "cvc",
    "privatekey",
];
/// Endings that make any word name a secret (`userpassword`, `clientsecret`, `idtoken`).
const ENDINGS: &[&str] = &["password", "passwd", "secret", "token"];

/// `name=value` in a query string, a form body or a cookie list: the name and the value.
static PAIR: LazyLock<Regex> = LazyLock::new(|| {
    // Infallible: a constant pattern (the unit tests compile it).
    Regex::new(r#"(^|[?&;#]\s*)([^=&;?#\s"'<>]+)=([^&;#\s"'<>]*)"#).expect("a valid regex")
});

/// Whether `key` (decoded) names a secret.
pub fn is_secret(key: &str) -> bool {
    let words = words(key);
    let named = |w: &str| NAMES.contains(&w) || ENDINGS.iter().any(|e| w.len() > e.len() && w.ends_with(e));
    words.iter().any(|w| named(w)) || words.windows(2).any(|pair| NAMES.contains(&pair.concat().as_str()))
}

/// `key` in lower-case words.
fn words(key: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut lower_before = false;
    for c in key.chars() {
        if !c.is_alphanumeric() {
            words.extend((!word.is_empty()).then(|| std::mem::take(&mut word)));
            lower_before = false;
            continue;
        }
        if c.is_uppercase() && lower_before {
            words.push(std::mem::take(&mut word));
        }
        lower_before = c.is_lowercase() || c.is_ascii_digit();
        word.extend(c.to_lowercase());
    }
    words.extend((!word.is_empty()).then_some(word));
    words
}

/// `text` with the value of every secret-named `name=value` pair masked (query strings, form
/// bodies, cookie lists).
pub fn mask_pairs(text: &str) -> String {
    if !text.contains('=') {
        return text.to_owned();
    }
    PAIR.replace_all(text, |c: &Captures| {
        let (lead, key, value) = (&c[1], &c[2], &c[3]);
        if value.is_empty() || value == MASK || !is_secret(&form_decode(key)) {
            return c[0].to_owned();
        }
        format!("{lead}{key}={MASK}")
    })
    .into_owned()
}

/// A JSON body with the value of every secret-named key masked (strings and numbers; `null`,
/// booleans, objects and arrays are looked into or kept); `None` when it is not JSON or nothing
/// was masked.
pub fn mask_json_body(body: &str) -> Option<String> {
    let trimmed = body.trim_start();
    if !(trimmed.starts_with('{') || trimmed.starts_with('[')) {
        return None;
    }
    let mut value = serde_json::from_str::<Value>(body).ok()?;
    mask_json(&mut value).then(|| value.to_string())
}

/// Masks the values of secret-named keys in `value`; whether any was.
pub fn mask_json(value: &mut Value) -> bool {
    match value {
        Value::Object(map) => {
            let mut masked = false;
            for (key, v) in map.iter_mut() {
                if matches!(v, Value::String(_) | Value::Number(_)) && is_secret(key) {
                    if v.as_str() != Some(MASK) {
                        *v = Value::String(MASK.into());
                        masked = true;
                    }
                } else {
                    masked |= mask_json(v);
                }
            }
            masked
        }
        // Every item is looked into: no short cut after the first.
        Value::Array(items) => items.iter_mut().fold(false, |masked, item| mask_json(item) | masked),
        _ => false,
    }
}

/// A form field name as the server reads it: `+` is a space, %XX escapes decoded.
fn form_decode(s: &str) -> String {
    percent_encoding::percent_decode_str(&s.replace('+', " ")).decode_utf8_lossy().into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_that_name_a_secret_are_told_by_their_words() {
        for key in [
            "password",
            "PASSWORD",
            "j_password",
            "user[password]",
            "userPassword",
            "pw",
            "pwd",
            "pass",
            "passwd",
            "secret",
            "client_secret",
            "clientSecret",
            "token",
            "csrfToken",
            "access_token",
            "x-api-key",
            "apiKey",
            "session_id",
            "Authorization",
            "card-number",
            "newpassword",
        ] {
            assert!(is_secret(key), "{key}");
        }
        for key in ["passenger", "bypass", "max_tokens", "tokens_used", "email", "user", "compass", "author", "q"] {
            assert!(!is_secret(key), "{key}");
        }
    }

    #[test]
    fn secret_pairs_are_masked_in_queries_forms_and_cookie_lists() {
        assert_eq!(
            mask_pairs("user%5Bpassword%5D=Hunt3r+2%40&user%5Bname%5D=ada&j_password=x&pw=y"),
            "user%5Bpassword%5D=[redacted]&user%5Bname%5D=ada&j_password=[redacted]&pw=[redacted]"
        );
        assert_eq!(mask_pairs("GET /login?pw=Hunt3r%202 200"), "GET /login?pw=[redacted] 200");
        assert_eq!(mask_pairs("theme=dark; sid=abc; lang=en"), "theme=dark; sid=[redacted]; lang=en");
        assert_eq!(mask_pairs("a plain text, x = 1"), "a plain text, x = 1");
    }

    #[test]
    fn secret_keys_are_masked_in_json_bodies_at_any_depth() {
        let body =
            r#"{"email":"a@b.c","user":{"userPassword":"p1","pin":1234},"tokens":[{"idToken":"t"}],"max_tokens":9}"#;
        assert_eq!(
            mask_json_body(body).as_deref(),
            Some(
                r#"{"email":"a@b.c","user":{"userPassword":"[redacted]","pin":"[redacted]"},"tokens":[{"idToken":"[redacted]"}],"max_tokens":9}"#
            )
        );
        assert_eq!(mask_json_body(r#"{"quantity":0}"#), None, "untouched bodies keep their formatting");
        assert_eq!(mask_json_body("user=ada"), None);
    }
}
