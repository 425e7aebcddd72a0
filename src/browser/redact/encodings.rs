//! The forms a secret takes on its way through a page, as one regular expression each: a page
//! rarely sends a password as typed. Each character may be written as itself or percent-encoded
//! (UTF-8 or, under 256, the page's Latin-1 charset; hex digits in either case; encoded twice as
//! `%25XX`), a space as form encoding's `+`, escaped as JSON or JavaScript writes it (`\"`, `\\`,
//! `\/`, `\u00e9`, `\xe9`, escaped again inside another string), or as an HTML entity (`&amp;`,
//! `&quot;`, `&#233;`, `&#xE9;`) — mixed freely, as `encodeURI`, `URLSearchParams` and an
//! attribute's serialisation each escape their own set. Base64 (standard or URL-safe, its `+` and
//! `/` possibly percent-encoded) is matched at each of the three byte offsets the secret can start
//! at inside a longer encoded text (`Basic base64(user:secret)`): the characters that only the
//! secret's bytes decide.

use std::fmt::Write;

use base64::Engine;

/// Secrets longer than this are matched as written, in base64, and percent-encoded as a whole
/// only (a pattern per character would grow past what is worth compiling).
const MAX_CHARWISE: usize = 256;
/// A base64 run shorter than this is not matched (it would mask ordinary words).
const MIN_BASE64: usize = 4;
/// A prefix of a secret this long (and at least half of it) is masked too: a page that echoes a
/// field on every keystroke shows each prefix of what was typed.
const MIN_PREFIX: usize = 4;

/// The pattern (regex syntax) matching `secret` in any of the forms above, as one alternation.
pub fn pattern(secret: &str) -> String {
    let mut forms = vec![written(secret)];
    forms.extend(base64_runs(secret.as_bytes()));
    forms.join("|")
}

/// `secret`, or a prefix of at least half of it, written character by character in any of the
/// text encodings (the longest prefix there is: the groups after the first half are optional,
/// nested).
fn written(secret: &str) -> String {
    let chars: Vec<String> = secret.chars().map(one_char).collect();
    if chars.len() > MAX_CHARWISE {
        let percent: String = url::form_urlencoded::byte_serialize(secret.as_bytes()).collect();
        return format!("{}|{}", regex::escape(secret), regex::escape(&percent));
    }
    let required = MIN_PREFIX.max(chars.len().div_ceil(2)).min(chars.len());
    let rest = chars[required..].iter().rev().fold(String::new(), |inner, c| format!("(?:{c}{inner})?"));
    chars[..required].concat() + &rest
}

/// Every way one character may be written, as a non-capturing group.
fn one_char(c: char) -> String {
    let mut ways = vec![match c {
        // Escaped by JSON or JavaScript, perhaps more than once (a JSON text inside a string).
        '"' | '\'' | '/' => format!(r"\\*{}", regex::escape(&c.to_string())),
        '\\' => r"\\+".to_owned(),
        _ => regex::escape(&c.to_string()),
    }];
    if c == ' ' {
        ways.push(r"\+".to_owned());
    }
    let mut utf8 = [0u8; 4];
    let bytes = c.encode_utf8(&mut utf8).as_bytes();
    ways.push(bytes.iter().map(|b| format!("%(?:25)?{}", hex_either_case(*b))).collect());
    let code = u32::from(c);
    if (0x80..0x100).contains(&code) {
        ways.push(format!("%(?:25)?{}", hex_either_case(code as u8)));
    }
    if code < 0x100 {
        ways.push(format!(r"\\+x{}", hex_either_case(code as u8)));
    }
    let mut units = [0u16; 2];
    let json: String = c
        .encode_utf16(&mut units)
        .iter()
        .map(|unit| format!(r"\\+u{}{}", hex_either_case((unit >> 8) as u8), hex_either_case(*unit as u8)))
        .collect();
    ways.push(json);
    ways.push(format!("&#0*{code};"));
    ways.push(format!("&#[xX]0*(?i:{code:x});"));
    if let Some(name) = entity(c) {
        ways.push(format!("&{name};"));
    }
    format!("(?:{})", ways.join("|"))
}

/// The named HTML entity an attribute or text serialisation writes `c` as.
fn entity(c: char) -> Option<&'static str> {
    Some(match c {
        '&' => "amp",
        '<' => "lt",
        '>' => "gt",
        '"' => "quot",
        '\'' => "apos",
        '\u{a0}' => "nbsp",
        _ => return None,
    })
}

/// `b` as two hex digits, each letter in either case (`[Cc]3`).
fn hex_either_case(b: u8) -> String {
    let mut out = String::new();
    for digit in format!("{b:02x}").chars() {
        if digit.is_ascii_alphabetic() {
            let _ = write!(out, "[{}{}]", digit, digit.to_ascii_uppercase());
        } else {
            out.push(digit);
        }
    }
    out
}

/// The base64 characters only `secret`'s bytes decide, for each byte offset (0, 1, 2) it may
/// start at, as patterns accepting the standard and URL-safe alphabets.
fn base64_runs(secret: &[u8]) -> Vec<String> {
    let mut runs = Vec::new();
    for offset in 0..3usize {
        let mut bytes = vec![0u8; offset];
        bytes.extend_from_slice(secret);
        let encoded = base64::engine::general_purpose::STANDARD_NO_PAD.encode(&bytes);
        // Character j holds bits 6j..6j+6; the secret's bits are 8·offset..8·(offset+len).
        let first = (8 * offset).div_ceil(6);
        let end = (8 * (offset + secret.len())) / 6;
        let Some(run) = encoded.get(first..end.min(encoded.len())) else { continue };
        if run.len() < MIN_BASE64 {
            continue;
        }
        runs.push(
            run.chars()
                .map(|c| match c {
                    '+' => r"(?:\+|-|%2[Bb])".to_owned(),
                    '/' => "(?:/|_|%2[Ff])".to_owned(),
                    c => c.to_string(),
                })
                .collect(),
        );
    }
    runs
}

#[cfg(test)]
mod tests {
    use base64::Engine;
    use regex::Regex;

    use super::pattern;

    const SECRET: &str = "Hunt3r 2@!é\"x\\y<&'";

    fn found(text: &str) -> bool {
        Regex::new(&pattern(SECRET)).expect("a valid pattern").is_match(text)
    }

    #[test]
    fn every_text_encoding_of_a_secret_is_found() {
        let form: String = url::form_urlencoded::byte_serialize(SECRET.as_bytes()).collect();
        let percent = percent_encoding::utf8_percent_encode(SECRET, percent_encoding::NON_ALPHANUMERIC).to_string();
        let json = serde_json::to_string(SECRET).expect("a string");
        let twice = serde_json::to_string(&json).expect("a string");
        let html = SECRET.replace('&', "&amp;").replace('"', "&quot;").replace('<', "&lt;").replace('\'', "&#39;");
        let latin1 = form.replace("%C3%A9", "%E9");
        let ascii_json = json.replace('é', "\\u00E9");
        for (what, text) in [
            ("plain", SECRET.to_owned()),
            ("form", format!("user%5Bpassword%5D={form}&remember=1")),
            ("percent, lower case", format!("/login?pw={}", percent.replace("%C3%A9", "%c3%a9").replace("%5C", "%5c"))),
            ("percent twice", format!("next={}", percent.replace('%', "%25"))),
            ("charset", latin1),
            ("json", format!(r#"{{"pw":{json}}}"#)),
            ("json in json", twice),
            ("json ascii", ascii_json),
            ("html", format!(r#"<input value="{html}">"#)),
            ("numeric entities", SECRET.replace('@', "&#64;").replace('é', "&#xE9;")),
        ] {
            assert!(found(&text), "{what}: {text}");
        }
        assert!(!found("Hunt3r_2@!é\"x\\y<&'"), "another password is not this one");
        assert!(!found("Hunt3r 2"), "less than half of it is not masked");
    }

    #[test]
    fn a_prefix_of_at_least_half_a_secret_is_masked_with_all_it_holds() {
        let pattern = Regex::new(&pattern(SECRET)).expect("a valid pattern");
        assert_eq!(pattern.replace_all("value Hunt3r 2@!é\\\"x!", "#"), "value #!");
        assert_eq!(pattern.replace_all("value Hunt3r 2@!é\"x\\y<&'.", "#"), "value #.");
    }

    #[test]
    fn a_secret_inside_base64_is_found_at_every_offset() {
        let b64 = |s: &str| base64::engine::general_purpose::STANDARD.encode(s);
        let url_safe = |s: &str| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(s);
        for prefix in ["", "o", "ow", "owner:"] {
            let text = format!("Basic {}", b64(&format!("{prefix}{SECRET}")));
            assert!(found(&text), "{prefix:?}: {text}");
            let text = url_safe(&format!("{prefix}{SECRET}?"));
            assert!(found(&text), "URL-safe {prefix:?}: {text}");
            let text = b64(&format!("{prefix}{SECRET}")).replace('+', "%2B").replace('/', "%2F");
            assert!(found(&text), "percent-encoded {prefix:?}: {text}");
        }
        assert!(!found(&b64("owner:Hunt3r 2@!e")), "another password's base64");
    }
}
