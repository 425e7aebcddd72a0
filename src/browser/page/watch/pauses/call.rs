//! Reading a paused storage call from its script's text: the frame on top of a `debug()` pause is
//! the caller's, its column at the method's name (`localStorage.getItem(PREFS_KEY)` pauses at
//! `getItem`). From there: which method, the receiver's text (`localStorage`, `this.store`) and
//! the first argument's text (brackets, strings and template literals balanced), for the pause's
//! reader to evaluate side-effect-free on the frame.

/// The storage methods the service pauses on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    GetItem,
    SetItem,
    RemoveItem,
    Clear,
}

/// A call as its text reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Call {
    pub method: Method,
    /// The receiver's text (`localStorage`, `window.sessionStorage`, `s`), when it is a plain chain.
    pub receiver: Option<String>,
    /// The first argument's text (`PREFS_KEY`, `'readerPrefs'`), when the method takes one.
    pub key: Option<String>,
}

/// Characters of an argument's text read at most (a longer one is not evaluated).
const MAX_ARGUMENT: usize = 400;

/// The call at 0-based `line` and `column` (UTF-16 units, as V8 counts) of `source`.
pub fn read(source: &str, line: u32, column: u32) -> Option<Call> {
    let start = offset(source, line, column)?;
    let (before, at) = source.split_at(start);
    let name: String = at.chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '$').collect();
    let method = match name.as_str() {
        "getItem" => Method::GetItem,
        "setItem" => Method::SetItem,
        "removeItem" => Method::RemoveItem,
        "clear" => Method::Clear,
        _ => return None,
    };
    let rest = at[name.len()..].trim_start();
    let key = match method {
        Method::Clear => None,
        _ => rest.strip_prefix('(').and_then(first_argument),
    };
    Some(Call { method, receiver: receiver(before), key })
}

/// The byte offset of 0-based `line` and UTF-16 `column` in `source`.
fn offset(source: &str, line: u32, column: u32) -> Option<usize> {
    let mut at = 0;
    for (n, text) in source.split_inclusive('\n').enumerate() {
        if n == line as usize {
            let mut units = 0;
            for (i, c) in text.char_indices() {
                if units >= column as usize {
                    return Some(at + i);
                }
                units += c.len_utf16();
            }
            return None;
        }
        at += text.len();
    }
    None
}

/// The receiver before `.method`: a chain of names and dots (`window.localStorage`), else `None`.
fn receiver(before: &str) -> Option<String> {
    let head = before.trim_end();
    let head = head.strip_suffix("?.").or_else(|| head.strip_suffix('.'))?.trim_end();
    let chain: String = head
        .chars()
        .rev()
        .take_while(|c| c.is_alphanumeric() || matches!(c, '_' | '$' | '.'))
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    let chain = chain.trim_start_matches('.');
    (!chain.is_empty() && !chain.starts_with(|c: char| c.is_ascii_digit())).then(|| chain.to_owned())
}

/// The first argument's text after a call's `(`: up to the `,` or `)` at its own depth.
fn first_argument(text: &str) -> Option<String> {
    let mut depth = 0u32;
    let mut chars = text.char_indices();
    while let Some((i, c)) = chars.next() {
        if i > MAX_ARGUMENT {
            return None;
        }
        match c {
            '\'' | '"' | '`' => {
                let mut escaped = false;
                loop {
                    let (_, d) = chars.next()?;
                    match d {
                        _ if escaped => escaped = false,
                        '\\' => escaped = true,
                        _ if d == c => break,
                        _ => {}
                    }
                }
            }
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' if depth > 0 => depth -= 1,
            ')' | ',' if depth == 0 => {
                let argument = text[..i].trim();
                return (!argument.is_empty()).then(|| argument.to_owned());
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(line: &str, at: &str) -> Option<Call> {
        let column = line.find(at).expect("in the line") as u32;
        read(&format!("// first\n{line}\n"), 1, column)
    }

    #[test]
    fn a_read_names_its_receiver_and_the_text_of_its_key() {
        let read = call("  const saved = localStorage.getItem(PREFS_KEY);", "getItem");
        assert_eq!(
            read,
            Some(Call {
                method: Method::GetItem,
                receiver: Some("localStorage".into()),
                key: Some("PREFS_KEY".into())
            })
        );
        let write = call("window.sessionStorage.setItem(`cart:${id}`, JSON.stringify(f(a, b)));", "setItem");
        assert_eq!(write.as_ref().and_then(|c| c.key.as_deref()), Some("`cart:${id}`"));
        assert_eq!(write.and_then(|c| c.receiver), Some("window.sessionStorage".into()));
        let nested = call("s.removeItem(keys[i + 1], 'x,y')", "removeItem");
        assert_eq!(nested.map(|c| (c.method, c.key)), Some((Method::RemoveItem, Some("keys[i + 1]".into()))));
        let quoted = call(r#"localStorage.getItem("a,b\")")"#, "getItem");
        assert_eq!(quoted.and_then(|c| c.key), Some(r#""a,b\")""#.into()));
    }

    #[test]
    fn a_call_its_text_does_not_tell_is_not_read() {
        assert_eq!(call("get(PREFS_KEY)", "get"), None, "not a storage method");
        let cleared = call("store().clear()", "clear");
        assert_eq!(cleared, Some(Call { method: Method::Clear, receiver: None, key: None }));
        assert_eq!(call("localStorage.getItem(", "getItem").and_then(|c| c.key), None, "unbalanced");
        // Columns count UTF-16 units: a character outside the BMP before the call counts two.
        let source = "const e = '😀'; localStorage.getItem(k);";
        let column = source[..source.find("getItem").unwrap()].encode_utf16().count() as u32;
        assert_eq!(read(source, 0, column).and_then(|c| c.key), Some("k".into()));
    }
}
