//! Parsing a method's named params into its Rust types, with errors that name the bad param.
//!
//! Unknown keys are refused (agents make typos: `selecter`) with the param that was probably
//! meant; a mistyped value names its param (`timeout: invalid type: string "5s", expected u64`).
//! A method's params are parsed block by block (see `registry`) from the one params object.

use schemars::{JsonSchema, SchemaGenerator};
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::error::ApiError;

/// Reads `raw` (the request's `params`, absent = `{}`) as an object of named params, refusing
/// keys that are not among `known` (with the param that was probably meant).
pub fn object(raw: Option<&str>, known: &[String]) -> Result<Value, ApiError> {
    let value: Value = match raw {
        None => Value::Object(Default::default()),
        Some(text) => serde_json::from_str(text)
            .map_err(|e| ApiError::InvalidParams { message: format!("params are not valid JSON: {e}"), param: None })?,
    };
    let Value::Object(map) = &value else {
        return Err(ApiError::InvalidParams {
            message: "params must be an object of named params, e.g. {\"session_id\": \"…\"}".into(),
            param: None,
        });
    };
    for key in map.keys() {
        if !known.iter().any(|k| k == key) {
            let hint = match suggest(key, known) {
                Some(meant) => format!(" (did you mean `{meant}`?)"),
                None if known.is_empty() => " (this method takes no params)".into(),
                None => format!(" (known params: {})", known.join(", ")),
            };
            let key = crate::quote::clip(key);
            return Err(ApiError::invalid(key.clone(), format!("unknown param `{key}`{hint}")));
        }
    }
    Ok(value)
}

/// Parses one block of params (`B`'s fields) out of the params object; other keys are ignored
/// (they belong to other blocks). A bad value names its param.
pub fn block<B: DeserializeOwned>(params: &Value) -> Result<B, ApiError> {
    serde_path_to_error::deserialize::<_, B>(params).map_err(|err| {
        let path = err.path().to_string();
        let inner = err.into_inner().to_string();
        if path == "." {
            // A struct-level error: serde names the field itself ("missing field `session_id`").
            let param = inner.split('`').nth(1).map(str::to_owned);
            let message = inner.replace("missing field", "missing required param");
            ApiError::InvalidParams { message, param }
        } else {
            let param = path.split(['.', '[']).next().unwrap_or(&path).to_owned();
            // serde quotes a mistyped value whole (`invalid type: string "…"`): at most 200 characters.
            let inner = crate::quote::shorten_quoted(&inner);
            ApiError::InvalidParams { message: format!("`{path}`: {inner}"), param: Some(param) }
        }
    })
}

/// The names of the params `P` accepts (its schema's properties), for unknown-param checks.
pub fn names<P: JsonSchema>() -> Vec<String> {
    let schema = SchemaGenerator::default().root_schema_for::<P>();
    schema.get("properties").and_then(Value::as_object).map(|props| props.keys().cloned().collect()).unwrap_or_default()
}

/// Names longer than this get no "did you mean": no method or param is nearly that long, and the
/// edit distance costs time in proportion to the length.
pub const MAX_SUGGESTED_LEN: usize = 64;

/// The known param closest to `typo`: same letters ignoring case and `_`, or a small edit away.
pub fn suggest<'a>(typo: &str, known: &'a [String]) -> Option<&'a str> {
    if typo.len() > MAX_SUGGESTED_LEN {
        return None;
    }
    let squash = |s: &str| s.to_ascii_lowercase().replace(['_', '-'], "");
    if let Some(k) = known.iter().find(|k| squash(k) == squash(typo)) {
        return Some(k);
    }
    known
        .iter()
        .map(|k| (edit_distance(&squash(typo), &squash(k)), k))
        .filter(|(d, k)| *d <= 2.max(k.len() / 4))
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k.as_str())
}

/// Levenshtein distance over chars.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != *cb)).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    #[serde(rename_all = "camelCase")]
    #[allow(dead_code)]
    struct TextParams {
        #[serde(rename = "session_id")]
        session_id: String,
        selector: Option<String>,
        max_chars: Option<u64>,
    }

    fn known() -> Vec<String> {
        vec!["session_id".into(), "selector".into(), "maxChars".into()]
    }

    fn err(raw: &str) -> (String, Option<String>) {
        let parsed = object(Some(raw), &known()).and_then(|value| block::<TextParams>(&value));
        match parsed.unwrap_err() {
            ApiError::InvalidParams { message, param } => (message, param),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_typo_names_the_param_that_was_meant() {
        let (message, param) = err(r#"{"session_id":"s","selecter":"body"}"#);
        assert_eq!(param.as_deref(), Some("selecter"));
        assert!(message.contains("did you mean `selector`"), "{message}");
    }

    #[test]
    fn case_and_underscore_variants_are_recognised() {
        let (message, _) = err(r#"{"sessionId":"s"}"#);
        assert!(message.contains("did you mean `session_id`"), "{message}");
        let (message, _) = err(r#"{"session_id":"s","max_chars":5}"#);
        assert!(message.contains("did you mean `maxChars`"), "{message}");
    }

    #[test]
    fn a_huge_key_or_value_is_quoted_short() {
        let (message, param) = err(&format!(r#"{{"session_id":"s","{}":1}}"#, "k".repeat(100_000)));
        assert!(message.len() < 600 && param.unwrap().len() < 300, "{message}");
        let (message, _) = err(&format!(r#"{{"session_id":"s","maxChars":"{}"}}"#, "9".repeat(100_000)));
        assert!(message.len() < 400 && message.ends_with("expected u64"), "{message}");
    }

    #[test]
    fn an_unrelated_key_lists_the_known_params() {
        let (message, _) = err(r#"{"session_id":"s","banana":1}"#);
        assert!(message.contains("known params: session_id, selector, maxChars"), "{message}");
    }

    #[test]
    fn a_missing_param_is_named() {
        let (message, param) = err(r#"{"selector":"body"}"#);
        assert_eq!(param.as_deref(), Some("session_id"));
        assert!(message.contains("missing required param `session_id`"), "{message}");
    }

    #[test]
    fn a_mistyped_param_is_named() {
        let (message, param) = err(r#"{"session_id":"s","maxChars":"lots"}"#);
        assert_eq!(param.as_deref(), Some("maxChars"));
        assert!(message.starts_with("`maxChars`: invalid type"), "{message}");
    }

    #[test]
    fn positional_params_are_refused() {
        let (message, _) = err(r#"["s"]"#);
        assert!(message.contains("object of named params"), "{message}");
    }

    #[test]
    fn absent_params_mean_an_empty_object() {
        #[derive(Deserialize)]
        struct NoParams {}
        let value = object(None, &[]).unwrap();
        assert!(block::<NoParams>(&value).is_ok());
    }

    #[test]
    fn each_block_takes_its_own_params_from_the_same_object() {
        #[derive(Debug, Deserialize, PartialEq)]
        struct Scope {
            session_id: String,
        }
        let value = object(Some(r#"{"session_id":"s","selector":"h1","maxChars":3}"#), &known()).unwrap();
        assert_eq!(block::<Scope>(&value).unwrap(), Scope { session_id: "s".into() });
        let text = block::<TextParams>(&value).unwrap();
        assert_eq!(text.max_chars, Some(3));
    }
}
