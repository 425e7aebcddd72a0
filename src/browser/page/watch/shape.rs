//! A JSON body's (or a socket message's) outline in one short line — `{page: number, items: [3 × {tag, notes}]}` — for
//! an error that happened while the page handled that response: code that reads `page.releases`
//! from a body whose keys are `page` and `items` shows its bug in the answer itself.
//!
//! Keys and types only, never values (a body may carry tokens or personal data), and bounded:
//! the top object's fields with their types, deeper objects by their keys, lists by their length
//! and first item, [`KEYS`] keys per object, [`CHARS`] characters in all. Keys can be data too
//! (tokens, user names, ids used as keys): an object with one key that does not read as a field
//! name ([`is_name`]) is counted, `{3 keys}`, not listed.

use serde_json::Value;

/// Bodies larger than this are not parsed for an outline.
const MAX_BODY: usize = 256 * 1024;
/// Keys shown per object; more are counted (`…+4`).
const KEYS: usize = 8;
/// The outline's length at most, in characters.
const CHARS: usize = 160;

/// The outline of `body` when it is a JSON object or array (None for anything else).
pub fn outline(body: &str) -> Option<String> {
    let trimmed = body.trim_start();
    if body.len() > MAX_BODY || !(trimmed.starts_with('{') || trimmed.starts_with('[')) {
        return None;
    }
    let value: Value = serde_json::from_str(body).ok()?;
    let line = of(&value, 0);
    Some(if line.chars().count() > CHARS {
        format!("{}…", line.chars().take(CHARS - 1).collect::<String>())
    } else {
        line
    })
}

/// Keys whose short value names what a message is: `{op: "error", code: "unknown_topic"}`.
const TAG_KEYS: [&str; 10] = ["type", "op", "event", "action", "kind", "code", "error", "status", "topic", "channel"];
/// Tag values shown per message.
const TAGS: usize = 3;
/// A tag value's length at most.
const TAG_CHARS: usize = 48;

/// A socket or stream message's outline and its tags (the values of [`TAG_KEYS`] that read as
/// names, not data), parsed once; `None` when it is not a JSON object or array.
pub fn message(text: &str) -> Option<(String, Vec<(String, String)>)> {
    let trimmed = text.trim_start();
    if text.len() > MAX_BODY || !(trimmed.starts_with('{') || trimmed.starts_with('[')) {
        return None;
    }
    let value: Value = serde_json::from_str(text).ok()?;
    let line = of(&value, 0);
    let line = if line.chars().count() > CHARS {
        format!("{}…", line.chars().take(CHARS - 1).collect::<String>())
    } else {
        line
    };
    let tags = match &value {
        Value::Object(fields) => TAG_KEYS
            .iter()
            .filter_map(|key| Some((key.to_string(), tag_value(fields.get(*key)?)?)))
            .take(TAGS)
            .collect(),
        _ => Vec::new(),
    };
    Some((line, tags))
}

/// The tags of a message outlined elsewhere (the page's own world outlines a window's messages):
/// the pairs of [`TAG_KEYS`] whose value reads as a name, at most [`TAGS`].
pub fn tags_of(pairs: &[(String, Value)]) -> Vec<(String, String)> {
    let tag = |(key, value): &(String, Value)| Some((key.clone(), tag_value(value)?));
    pairs.iter().filter(|(key, _)| TAG_KEYS.contains(&key.as_str())).filter_map(tag).take(TAGS).collect()
}

/// A tag's value as shown (`"error"`, `4001`), when it reads as a name or a number; never a
/// token, an id or free text.
fn tag_value(value: &Value) -> Option<String> {
    match value {
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        Value::String(s) => {
            let plain = s.len() <= TAG_CHARS
                && !s.is_empty()
                && s.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | ':' | '/'))
                && !SECRET_PREFIXES.iter().any(|prefix| s.starts_with(prefix))
                && s.split(['_', '-', '.', ':', '/'])
                    .all(|part| reads_as_words(part.trim_end_matches(|c: char| c.is_ascii_digit())));
            plain.then(|| Value::from(s.as_str()).to_string())
        }
        _ => None,
    }
}

/// The top object with its fields' types; deeper objects by their keys; lists by their length and
/// first item.
fn of(value: &Value, depth: usize) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(_) => "boolean".into(),
        Value::Number(_) => "number".into(),
        Value::String(_) => "string".into(),
        Value::Array(items) => match items.first() {
            None => "[]".into(),
            Some(first) if depth < 3 => format!("[{} × {}]", items.len(), of(first, depth + 1)),
            Some(_) => format!("[{}]", items.len()),
        },
        // A map keyed by data (emails, ids) is counted, not listed: keys show only when they read
        // as names.
        Value::Object(fields) if depth < 3 && fields.keys().all(|key| is_name(key)) => {
            let mut parts: Vec<String> = fields
                .iter()
                .take(KEYS)
                .map(|(key, field)| if depth == 0 { format!("{key}: {}", of(field, 1)) } else { key.clone() })
                .collect();
            if fields.len() > KEYS {
                parts.push(format!("…+{}", fields.len() - KEYS));
            }
            format!("{{{}}}", parts.join(", "))
        }
        Value::Object(fields) => format!("{{{} keys}}", fields.len()),
    }
}

/// Key prefixes of credentials and tokens (Stripe, GitHub, Slack, AWS, Google, GitLab, npm,
/// Shopify, OpenAI, webhooks) and of a JWT (`eyJ`, base64 of `{"`).
const SECRET_PREFIXES: &[&str] = &[
    "sk_",
    "pk_",
    "rk_",
    "sk-",
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "ghr_",
    "github_pat_",
    "xoxa-",
    "xoxb-",
    "xoxp-",
    "xoxr-",
    "xoxs-",
    "AKIA",
    "ASIA",
    "AIza",
    "ya29.",
    "glpat-",
    "npm_",
    "shpat_",
    "shpss_",
    "whsec_",
    "eyJ",
];

/// A key that names a field (`items`, `next_page`, `userId`, `HTTPStatus`, `address2`), not data
/// used as a key (`AKIAIOSFODNN7EXAMPLE`, `sk_live_…`, `ghp_16C7…`, a JWT, a UUID, a hash, an
/// e-mail, `ada.lovelace`): at most 32 characters of letters, `_`, `$` and `-`, digits only as the
/// last one or two, no known token prefix, and words as names have them — lower-case or
/// capitalized, acronyms of at most 4 capitals (an all-capitals word of at most 12), few humps,
/// vowels in long words, no long run of hex letters.
fn is_name(key: &str) -> bool {
    let body = key.trim_end_matches(|c: char| c.is_ascii_digit());
    key.len() <= 32
        && key.len() - body.len() <= 2
        && body.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && body.chars().all(|c| c.is_ascii_alphabetic() || matches!(c, '_' | '$' | '-'))
        && !SECRET_PREFIXES.iter().any(|prefix| key.starts_with(prefix))
        && body.split(['_', '$', '-']).all(reads_as_words)
}

/// One part of a key between separators: `userName`, `User`, `HTTPStatus`, `ERROR`, `id`.
fn reads_as_words(part: &str) -> bool {
    let letters = part.len();
    if letters == 0 {
        return true;
    }
    if part.chars().all(|c| c.is_ascii_uppercase()) {
        return letters <= 12;
    }
    let hex_like = letters >= 8 && part.chars().all(|c| c.is_ascii_hexdigit());
    let voweless = letters >= 6 && !part.chars().any(|c| "aeiouyAEIOUY".contains(c));
    // Capitals that start a word (`userName`: one) and the longest run of capitals.
    let chars: Vec<char> = part.chars().collect();
    let humps = chars.windows(2).filter(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase()).count();
    let run = part.split(|c: char| !c.is_ascii_uppercase()).map(str::len).max().unwrap_or(0);
    !hex_like && !voweless && humps * 3 <= letters && run <= 5
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_object_shows_its_keys_with_types_and_its_lists_with_their_items_keys() {
        let body = r#"{"page":2,"items":[{"tag":"v3.1.3","notes":"Sync"},{"tag":"v3.1.2","notes":"x"}],"next":null}"#;
        assert_eq!(outline(body).as_deref(), Some("{page: number, items: [2 × {tag, notes}], next: null}"));
    }

    #[test]
    fn a_top_level_list_and_nesting_past_two_levels_are_summed_up() {
        assert_eq!(outline(r#"[{"id":1,"owner":{"name":"a"}}]"#).as_deref(), Some("[1 × {id, owner}]"));
        assert_eq!(outline(r#"{"a":{"b":{"c":1}},"l":[]}"#).as_deref(), Some("{a: {b}, l: []}"));
        assert_eq!(outline(r#"{"rows":[[[1,2]],[3]]}"#).as_deref(), Some("{rows: [2 × [1 × [2]]]}"));
    }

    #[test]
    fn values_never_show_and_the_line_is_bounded() {
        let secret = r#"{"token":"s3cr3t-value","user":{"email":"ada@example.com"}}"#;
        let line = outline(secret).unwrap();
        assert!(!line.contains("s3cr3t") && !line.contains("ada@"), "{line}");
        let keyed_by_data = r#"{"users":{"ada@example.com":{"id":1},"bob@example.com":{"id":2}},"42":true}"#;
        assert_eq!(outline(keyed_by_data).as_deref(), Some("{2 keys}"));
        assert_eq!(outline(r#"{"users":{"ada@example.com":1}}"#).as_deref(), Some("{users: {1 keys}}"));
        let wide: String = format!("{{{}}}", (0..40).map(|i| format!("\"k{i}\":{i}")).collect::<Vec<_>>().join(","));
        let line = outline(&wide).unwrap();
        assert!(line.ends_with("…+32}"), "{line}");
        let long_keys: String =
            format!("{{{}}}", (0..8).map(|i| format!("\"{}{i}\":1", "items".repeat(6))).collect::<Vec<_>>().join(","));
        assert_eq!(outline(&long_keys).unwrap().chars().count(), CHARS);
    }

    #[test]
    fn keys_that_are_data_are_counted_never_shown() {
        for (body, outline_is) in [
            (r#"{"AKIAIOSFODNN7EXAMPLE":{"secret":"x"},"sk_live_51HqLyjWDarjtT1zdp7dc":3}"#, "{2 keys}"),
            (
                r#"{"users":{"alice":1,"bob_smith":2,"ghp_16C7e42F292c6912E7710c838347Ae178B4a":3}}"#,
                "{users: {3 keys}}",
            ),
            (r#"{"eyJhbGciOiJIUzI1NiJ9":{"a":1},"a3f1c2e4-5b6d-4e7f-8a9b-0c1d2e3f4a5b":2}"#, "{2 keys}"),
            (r#"{"data":{"deadbeefcafebabe":1}}"#, "{data: {1 keys}}"),
            (r#"{"data":{"QwErTyUiOpAsDf":1}}"#, "{data: {1 keys}}"),
            (r#"{"data":{"XKCDQWRTPLMNBVCZ":1}}"#, "{data: {1 keys}}"),
            (r#"{"data":{"ada.lovelace":1,"ada@example.com":2}}"#, "{data: {2 keys}}"),
            (r#"{"data":{"pqxzrtw":1}}"#, "{data: {1 keys}}"),
        ] {
            let line = outline(body).unwrap();
            assert_eq!(line, outline_is, "{body}");
        }
    }

    #[test]
    fn field_names_of_every_common_shape_are_shown() {
        let names = [
            "items",
            "next_page",
            "userId",
            "createdAt",
            "HTTPStatus",
            "userID",
            "ERROR_CODE",
            "address2",
            "h1",
            "v2",
            "$ref",
            "_links",
            "data-id",
            "isOk",
            "utf8",
            "base64",
            "type",
            "URL",
            "xmlHttpRequest",
            "rhythm",
        ];
        for name in names {
            assert!(is_name(name), "{name} is a field name");
        }
    }

    #[test]
    fn a_message_shows_the_values_that_name_it_and_never_data() {
        let (line, tags) =
            message(r#"{"op":"error","code":"unknown_topic","message":"no such topic","topics":["a","b"]}"#).unwrap();
        assert_eq!(line, "{op: string, code: string, message: string, topics: [2 × string]}");
        assert_eq!(tags, vec![("op".into(), "\"error\"".into()), ("code".into(), "\"unknown_topic\"".into())]);
        let (_, tags) = message(r#"{"op":"subscribe","topic":"incidents:eu-west-1"}"#).unwrap();
        assert_eq!(tags[1], ("topic".into(), "\"incidents:eu-west-1\"".into()));
        for data in
            ["eyJhbGciOiJIUzI1NiJ9", "s3cr3t pass", "deadbeefcafebabe1234", "sk_live_51HqLyjWD", "ada@example.com"]
        {
            let (_, tags) = message(&serde_json::json!({ "type": data }).to_string()).unwrap();
            assert!(tags.is_empty(), "{data}: {tags:?}");
        }
        assert_eq!(message(r#"{"code":4001}"#).unwrap().1, vec![("code".into(), "4001".into())]);
        assert_eq!(message("hello"), None);
    }

    #[test]
    fn what_is_not_a_json_object_or_list_has_no_outline() {
        assert_eq!(outline("<html>"), None);
        assert_eq!(outline("42"), None);
        assert_eq!(outline("{not json"), None);
        assert_eq!(outline(&format!("[{}]", "1,".repeat(MAX_BODY))), None);
    }
}
