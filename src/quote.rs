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

/// `text` with every double-quoted run longer than [`MAX_CHARS`] cut, as [`quote`] cuts: for
/// messages that quote a value whole (serde's `invalid type: string "…", expected u64`).
pub fn shorten_quoted(text: &str) -> Cow<'_, str> {
    if text.len() <= MAX_CHARS {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(MAX_CHARS * 2);
    let mut rest = text;
    while let Some(open) = rest.find('"') {
        out.push_str(&rest[..=open]);
        let after = &rest[open + 1..];
        // The closing quote: the first one no backslash escapes.
        let mut escaped = false;
        let close = after.char_indices().find_map(|(i, c)| match c {
            '\\' => {
                escaped = !escaped;
                None
            }
            '"' if !escaped => Some(i),
            _ => {
                escaped = false;
                None
            }
        });
        let inner = &after[..close.unwrap_or(after.len())];
        match inner.char_indices().nth(MAX_CHARS) {
            Some((at, _)) => out.push_str(&format!("{}…\" ({} characters)", &inner[..at], inner.chars().count())),
            None => {
                out.push_str(inner);
                if close.is_some() {
                    out.push('"');
                }
            }
        }
        rest = close.map_or("", |i| &after[i + 1..]);
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// Characters of an error message, at most: past them (input quoted whole where no site cut
/// it), the middle goes.
pub const MAX_MESSAGE_CHARS: usize = 1000;

/// `message` at most [`MAX_MESSAGE_CHARS`] characters: its start and end, the middle cut.
pub fn bounded_message(message: &str) -> Cow<'_, str> {
    let total = message.chars().count();
    if total <= MAX_MESSAGE_CHARS {
        return Cow::Borrowed(message);
    }
    let head: String = message.chars().take(MAX_MESSAGE_CHARS * 3 / 5).collect();
    let tail: String = message.chars().skip(total - MAX_MESSAGE_CHARS / 4).collect();
    Cow::Owned(format!("{head}… ({} characters cut) …{tail}", total - head.chars().count() - tail.chars().count()))
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

    #[test]
    fn long_quoted_runs_are_cut_and_the_rest_kept() {
        let serde = format!("invalid type: string \"{}\", expected u64", "9".repeat(5000));
        let short = shorten_quoted(&serde);
        assert!(short.starts_with("invalid type: string \"999"), "{short}");
        assert!(short.ends_with("…\" (5000 characters), expected u64"), "{short}");
        let mixed = format!(r#"a "b\"c" and "{}" end"#, "x".repeat(300));
        let short = shorten_quoted(&mixed);
        assert!(short.starts_with(r#"a "b\"c" and "xxx"#) && short.ends_with("(300 characters) end"), "{short}");
        assert_eq!(shorten_quoted("no quotes at all"), "no quotes at all");
    }

    #[test]
    fn a_long_message_keeps_its_start_and_end() {
        let message = format!("start {} end", "m".repeat(10_000));
        let bounded = bounded_message(&message);
        assert!(bounded.starts_with("start ") && bounded.ends_with(" end") && bounded.contains("characters cut"));
        assert!(bounded.chars().count() < MAX_MESSAGE_CHARS + 50);
    }
}
