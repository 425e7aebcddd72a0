//! The forms a secret takes on its way through a page, as one regular expression each: a page
//! rarely sends a password as typed. Each character may be written as itself or percent-encoded
//! (in UTF-8 or in any legacy charset a page may declare — Latin-1, windows-125x, KOI8, Shift_JIS,
//! GBK, Big5, EUC-KR … (`legacy`); as a numeric reference `%26%23233%3B` where the page's charset
//! has no such letter; as `escape()`'s `%u041F`; hex digits in either case; encoded twice as
//! `%25XX`), a space as form encoding's `+`, escaped as JSON or JavaScript writes it (`\"`, `\\`,
//! `\/`, `\u00e9`, `\xe9`, escaped again inside another string), or as an HTML entity (`&amp;`,
//! `&quot;`, `&#233;`, `&#xE9;`) — mixed freely, as `encodeURI`, `URLSearchParams` and an
//! attribute's serialisation each escape their own set. Base64 (standard or URL-safe, its `+` and
//! `/` possibly percent-encoded) is matched at each of the three byte offsets the secret can start
//! at inside a longer encoded text (`Basic base64(user:secret)`): the characters that only the
//! secret's bytes decide.

use std::fmt::Write;

use base64::Engine;
use encoding_rs::Encoding;

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
    let code = u32::from(c);
    ways.extend(percent_forms(c));
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

/// `c` percent-encoded as a page in any charset writes it into a form body or a query: its bytes
/// in UTF-8, in each legacy charset that has it (and, under 256, as Latin-1's one byte), its
/// numeric reference where a charset lacks it, and `escape()`'s `%uXXXX`.
fn percent_forms(c: char) -> Vec<String> {
    let percent = |bytes: &[u8]| -> String { bytes.iter().map(|b| percent_byte(*b)).collect() };
    let mut utf8 = [0u8; 4];
    let mut byte_forms: Vec<Vec<u8>> = vec![c.encode_utf8(&mut utf8).as_bytes().to_vec()];
    let code = u32::from(c);
    if !c.is_ascii() {
        if code < 0x100 {
            byte_forms.push(vec![code as u8]);
        }
        byte_forms.extend(legacy_bytes(c));
    }
    byte_forms.sort();
    byte_forms.dedup();
    let mut forms: Vec<String> = byte_forms.iter().map(|bytes| percent(bytes)).collect();
    if !c.is_ascii() {
        forms.push(format!("{}{code}{}", percent(b"&#"), percent(b";")));
        let mut units = [0u16; 2];
        let escaped: String = c
            .encode_utf16(&mut units)
            .iter()
            .map(|unit| format!("%(?:25)?[uU]{}{}", hex_either_case((unit >> 8) as u8), hex_either_case(*unit as u8)))
            .collect();
        forms.push(escaped);
    }
    forms
}

/// One byte of a multi-byte character as percent-encoding writes it: `%XX`, or the ASCII character
/// itself (a Shift_JIS or GBK letter's second byte may be `P` or `|`: an encoder leaves it as is,
/// or not), a space also as `+`.
fn percent_byte(b: u8) -> String {
    let hex = format!("%(?:25)?{}", hex_either_case(b));
    match b {
        b' ' => format!(r"(?:{hex}|\+)"),
        b'%' => hex,
        0x21..=0x7e => format!("(?:{hex}|{})", regex::escape(&char::from(b).to_string())),
        _ => hex,
    }
}

/// The charsets a browser may percent-encode a form or a query in besides UTF-8: every legacy
/// encoding of the WHATWG Encoding Standard but ISO-2022-JP, whose escape sequences span
/// characters (a secret in it is masked as typed only when a page decodes it back).
const LEGACY: &[&Encoding] = &[
    encoding_rs::IBM866,
    encoding_rs::ISO_8859_2,
    encoding_rs::ISO_8859_3,
    encoding_rs::ISO_8859_4,
    encoding_rs::ISO_8859_5,
    encoding_rs::ISO_8859_6,
    encoding_rs::ISO_8859_7,
    encoding_rs::ISO_8859_8,
    encoding_rs::ISO_8859_10,
    encoding_rs::ISO_8859_13,
    encoding_rs::ISO_8859_14,
    encoding_rs::ISO_8859_15,
    encoding_rs::ISO_8859_16,
    encoding_rs::KOI8_R,
    encoding_rs::KOI8_U,
    encoding_rs::MACINTOSH,
    encoding_rs::WINDOWS_874,
    encoding_rs::WINDOWS_1250,
    encoding_rs::WINDOWS_1251,
    encoding_rs::WINDOWS_1252,
    encoding_rs::WINDOWS_1253,
    encoding_rs::WINDOWS_1254,
    encoding_rs::WINDOWS_1255,
    encoding_rs::WINDOWS_1256,
    encoding_rs::WINDOWS_1257,
    encoding_rs::WINDOWS_1258,
    encoding_rs::X_MAC_CYRILLIC,
    encoding_rs::GBK,
    encoding_rs::GB18030,
    encoding_rs::BIG5,
    encoding_rs::EUC_JP,
    encoding_rs::SHIFT_JIS,
    encoding_rs::EUC_KR,
];

/// `c`'s bytes in each legacy charset that has it.
fn legacy_bytes(c: char) -> Vec<Vec<u8>> {
    let mut one = [0u8; 4];
    let text: &str = c.encode_utf8(&mut one);
    LEGACY
        .iter()
        .filter_map(|encoding| {
            let (bytes, _, unmappable) = encoding.encode(text);
            (!unmappable).then(|| bytes.into_owned())
        })
        .collect()
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
    fn a_secret_form_encoded_in_a_legacy_charset_is_found() {
        // As a page declaring that charset submits a form: the charset's bytes, a letter it lacks
        // as a numeric reference (encoding_rs writes `&#233;` as browsers do), then %XX.
        let secret = "Пароль-é 7ъ€ 日本";
        let pattern = Regex::new(&pattern(secret)).expect("a valid pattern");
        let hex = Regex::new("%[0-9A-F]{2}").expect("a valid regex");
        for encoding in [
            encoding_rs::WINDOWS_1251,
            encoding_rs::KOI8_R,
            encoding_rs::SHIFT_JIS,
            encoding_rs::GBK,
            encoding_rs::EUC_KR,
            encoding_rs::WINDOWS_1252,
        ] {
            let (bytes, _, _) = encoding.encode(secret);
            let form: String = url::form_urlencoded::byte_serialize(&bytes).collect();
            assert!(pattern.is_match(&format!("login=ada&parol={form}")), "{}: {form}", encoding.name());
            let lower = hex.replace_all(&form, |digits: &regex::Captures| digits[0].to_lowercase());
            assert!(pattern.is_match(&lower), "{} in lower case: {lower}", encoding.name());
        }
        let escaped = "%u041F%u0430%u0440%u043E%u043B%u044C-%E9%207%u044A%u20AC%20%u65E5%u672C";
        assert!(pattern.is_match(escaped), "escape()'s form: {escaped}");
        let (other, _, _) = encoding_rs::WINDOWS_1251.encode("Пароль-ё 7ъ€ 日本");
        let other: String = url::form_urlencoded::byte_serialize(&other).collect();
        assert!(!pattern.is_match(&other), "another password in the same charset: {other}");
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
