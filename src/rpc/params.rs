//! Parsing a method's named params into its Rust type, with errors that name the bad param.
//!
//! Unknown keys are refused (agents make typos: `selecter`) with the param that was probably
//! meant; a mistyped value names its param (`timeout: invalid type: string "5s", expected u64`).

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::error::ApiError;

/// Parses `raw` (the request's `params`, absent = `{}`) into `P`, whose accepted keys are `known`.
pub fn parse<P: DeserializeOwned>(raw: Option<&str>, known: &[String]) -> Result<P, ApiError> {
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
            return Err(ApiError::invalid(key.clone(), format!("unknown param `{key}`{hint}")));
        }
    }
    serde_path_to_error::deserialize::<_, P>(value).map_err(|err| {
        let path = err.path().to_string();
        let inner = err.into_inner().to_string();
        if path == "." {
            // A struct-level error: serde names the field itself ("missing field `session_id`").
            let param = inner.split('`').nth(1).map(str::to_owned);
            let message = inner.replace("missing field", "missing required param");
            ApiError::InvalidParams { message, param }
        } else {
            let param = path.split(['.', '[']).next().unwrap_or(&path).to_owned();
            ApiError::InvalidParams { message: format!("`{path}`: {inner}"), param: Some(param) }
        }
    })
}

/// The known param closest to `typo`: same letters ignoring case and `_`, or a small edit away.
pub fn suggest<'a>(typo: &str, known: &'a [String]) -> Option<&'a str> {
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
    #[serde(deny_unknown_fields, rename_all = "camelCase")]
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
        match parse::<TextParams>(Some(raw), &known()).unwrap_err() {
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
        assert!(parse::<NoParams>(None, &[]).is_ok());
    }
}
