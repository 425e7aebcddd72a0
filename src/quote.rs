//! How an error quotes what a client sent: at most [`MAX_CHARS`] characters of it.
//!
//! Errors name the input they refuse (a URL, a selector, a method name, a param) so the caller sees
//! what was wrong. Quoting it whole would echo a 400 KB input straight back (and cost as much to
//! build): every error that quotes input goes through [`quote`] (in quotes, escaped like `{:?}`)
//! or [`clip`] (as it is), which keep the start and say how long the whole was.

use std::borrow::Cow;

/// Characters of an input an error quotes, at most.
pub const MAX_CHARS: usize = 200;

/// `input` in double quotes with escapes (as `{:?}` writes it), cut after [`MAX_CHARS`]
/// characters: `"http://aaaa…"… (400012 characters)`.
pub fn quote(input: &str) -> String {
    match input.char_indices().nth(MAX_CHARS) {
        None => format!("{input:?}"),
        Some((at, _)) => format!("{:?}… ({} characters)", &input[..at], input.chars().count()),
    }
}

/// `input` as it is, cut after [`MAX_CHARS`] characters: `http://aaaa…… (400012 characters)`.
pub fn clip(input: &str) -> Cow<'_, str> {
    match input.char_indices().nth(MAX_CHARS) {
        None => Cow::Borrowed(input),
        Some((at, _)) => Cow::Owned(format!("{}… ({} characters)", &input[..at], input.chars().count())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_input_is_quoted_whole_and_long_input_is_cut_with_its_length() {
        assert_eq!(quote("page.txt"), "\"page.txt\"");
        assert_eq!(clip("page.txt"), "page.txt");
        let long = "é".repeat(400_000);
        let quoted = quote(&long);
        assert!(quoted.starts_with("\"éé") && quoted.ends_with("\"… (400000 characters)"), "{quoted}");
        assert_eq!(quoted.chars().filter(|c| *c == 'é').count(), MAX_CHARS);
        assert_eq!(clip(&long).chars().filter(|c| *c == 'é').count(), MAX_CHARS);
        assert_eq!(quote(&"a".repeat(MAX_CHARS)).len(), MAX_CHARS + 2, "exactly the limit is not cut");
    }
}
