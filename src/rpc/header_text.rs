//! What an HTTP header may hold, checked where a caller gives one (`userAgent`,
//! `extraHTTPHeaders`, a mocked response's `headers`): a name is a token, a value one line of
//! visible text. Chromium refuses anything else with its own terse error, which would read as the
//! browser failing ("retry") instead of the caller's input (`invalid_params` naming it).

/// Why `value` cannot be a header value, if it cannot: a control character (a tab is fine).
pub fn value_problem(value: &str) -> Option<String> {
    value
        .chars()
        .find(|c| (c.is_control() && *c != '\t') || *c == '\u{7f}')
        .map(|c| format!("it holds the control character {:?}; a header value is one line of visible text", c))
}

/// Why `name` cannot be a header name, if it cannot: empty, or not an HTTP token.
pub fn name_problem(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("a header name must not be empty".into());
    }
    name.chars()
        .find(|c| !(c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(*c)))
        .map(|c| format!("a header name is a token (letters, digits, !#$%&'*+-.^_`|~), not {c:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_refused_with_the_one_found() {
        assert!(value_problem("Mozilla/5.0 (X11; Linux)\tok").is_none());
        assert!(value_problem("abc\r\ndef").unwrap().contains("'\\r'"));
        assert!(value_problem("nul\0").is_some());
        assert!(value_problem("del\u{7f}").is_some());
        assert!(name_problem("X-Trace-Id").is_none());
        assert!(name_problem("").is_some());
        assert!(name_problem("X Trace").is_some());
        assert!(name_problem("a:b").is_some());
    }
}
