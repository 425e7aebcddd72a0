//! A frame's original function name.
//!
//! A stack frame says where it is (a generated line and column) and what V8 calls its function
//! (`u`, `Object.onClick`, `bound _h`): in a minified bundle, a name the app's authors never wrote.
//! Bundlers that rename a function record its original name in the map's `names`, on the mapping
//! of the function's own name token (rolldown: `function u(){…}` maps `u` to `submit`). So the
//! name is found where DevTools finds it, at the function's name token: from the frame's position,
//! back through the mappings (and a few forward, for a position at a function's start, as an event
//! listener's is) to the nearest token that spells V8's name and *declares* a function there
//! (`function u(`, `u=(…)=>`, `u=function`, `u:async(…)=>`, a method `u(…){`), and its recorded
//! name. A name that was not renamed (a dev server's transformed module, a property key) is its
//! own original when the source's text says so at the mapped position.
//!
//! Maps with the proposed `scopes` field (ECMA-426) would say it outright; no bundler we serve
//! writes it yet, and the crate does not read it.

use std::sync::Arc;

use super::map::SourceMap;

/// Mappings walked back from the frame's position looking for the declaration: a function body
/// of a few thousand tokens (a large component's render) is still searched.
const MAX_TOKENS_BACK: usize = 8192;
/// Mappings looked at forward from the position (a function's start is before its name token).
const MAX_TOKENS_FORWARD: usize = 3;
/// UTF-16 units between the checkpoints of a long line's column → byte table.
const CHECKPOINT: usize = 64;

/// A script's generated text, split into lines once, as a frame's line and column count them.
#[derive(Debug)]
pub struct ScriptText {
    text: Arc<str>,
    /// Byte offset where each line starts.
    starts: Vec<u32>,
}

impl ScriptText {
    pub fn new(text: impl Into<Arc<str>>) -> Self {
        let text: Arc<str> = text.into();
        let bytes = text.as_bytes();
        let mut starts = vec![0];
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'\n' => starts.push(i as u32 + 1),
                b'\r' if bytes.get(i + 1) == Some(&b'\n') => {
                    starts.push(i as u32 + 2);
                    i += 1;
                }
                b'\r' => starts.push(i as u32 + 1),
                _ => {}
            }
            i += 1;
        }
        Self { text, starts }
    }

    /// The memory it holds (its text and line table).
    pub fn bytes(&self) -> usize {
        self.text.len() + self.starts.len() * size_of::<u32>()
    }

    /// Line `line` (0-based) without its terminator.
    pub fn line(&self, line: u32) -> Option<&str> {
        let start = *self.starts.get(line as usize)? as usize;
        let end = self.starts.get(line as usize + 1).map_or(self.text.len(), |&next| next as usize);
        Some(self.text[start..end].trim_end_matches(['\n', '\r']))
    }
}

/// One generated line, addressed by UTF-16 column (as V8 and source maps count) in O(1) for ASCII
/// lines and through checkpoints for others.
struct Line<'a> {
    text: &'a str,
    /// Byte offset of every [`CHECKPOINT`]th UTF-16 unit; empty for an ASCII line.
    checkpoints: Vec<usize>,
}

impl<'a> Line<'a> {
    fn new(text: &'a str) -> Self {
        let mut checkpoints = Vec::new();
        if !text.is_ascii() {
            let mut units = 0;
            for (offset, c) in text.char_indices() {
                while checkpoints.len() * CHECKPOINT <= units {
                    checkpoints.push(offset);
                }
                units += c.len_utf16();
            }
        }
        Self { text, checkpoints }
    }

    /// The text from UTF-16 column `column` to the end of the line.
    fn from(&self, column: u32) -> Option<&'a str> {
        let column = column as usize;
        if self.checkpoints.is_empty() {
            return self.text.get(column..);
        }
        let mut offset = *self.checkpoints.get(column / CHECKPOINT)?;
        let mut units = column / CHECKPOINT * CHECKPOINT;
        while units < column {
            let c = self.text[offset..].chars().next()?;
            offset += c.len_utf8();
            units += c.len_utf16();
        }
        Some(&self.text[offset..])
    }

    /// The text before UTF-16 column `column`.
    fn before(&self, column: u32) -> Option<&'a str> {
        let rest = self.from(column)?;
        Some(&self.text[..self.text.len() - rest.len()])
    }
}

impl SourceMap {
    /// The original name of the function a frame is in: the frame's generated position (0-based
    /// `line`, `column`, in `script`, the text this map is of) and V8's `function_name` for it. `None`
    /// for an anonymous function, or when no declaration of that name is found near the position.
    pub fn function_name(&self, script: &ScriptText, line: u32, column: u32, function_name: &str) -> Option<String> {
        let short = short_name(function_name)?;
        let map = self.inner();
        let count = map.get_token_count() as usize;
        let at = token_index_at(map, line, column)?;
        let forward = (at + 1..count.min(at + 1 + MAX_TOKENS_FORWARD)).rev();
        let back = (at.saturating_sub(MAX_TOKENS_BACK)..=at).rev();
        let mut lines: Option<(u32, Line<'_>)> = None;
        for i in forward.chain(back) {
            let token = map.get_token(i)?;
            let dst_line = token.get_dst_line();
            if lines.as_ref().is_none_or(|(n, _)| *n != dst_line) {
                lines = Some((dst_line, Line::new(script.line(dst_line)?)));
            }
            let (_, text) = lines.as_ref()?;
            if !declares(text, token.get_dst_col(), short) {
                continue;
            }
            if let Some(name) = token.get_name() {
                return Some(name.to_owned());
            }
            // Not renamed: the name is its own original if the source says it there.
            let original = self.source_text_at(token.get_src_id(), token.get_src_line(), token.get_src_col());
            if token.has_source() && original.is_some_and(|text| starts_with_identifier(text, short)) {
                return Some(short.to_owned());
            }
        }
        None
    }

    /// The source's text from a 0-based line and column on.
    fn source_text_at(&self, source: u32, line: u32, column: u32) -> Option<&str> {
        let text = self.inner().get_source_contents(source)?;
        let line = text.lines().nth(line as usize)?;
        Line::new(line).from(column)
    }
}

/// The index of the last mapping at or before (`line`, `column`).
fn token_index_at(map: &sourcemap::SourceMap, line: u32, column: u32) -> Option<usize> {
    let (mut low, mut high) = (0usize, map.get_token_count() as usize);
    while low < high {
        let mid = (low + high) / 2;
        let token = map.get_token(mid)?;
        if (token.get_dst_line(), token.get_dst_col()) <= (line, column) {
            low = mid + 1;
        } else {
            high = mid;
        }
    }
    low.checked_sub(1)
}

/// The function's own name in V8's: `Object.submit` → `submit`, `bound _h` → `_h`; `None` for an
/// anonymous one or one that is not an identifier.
fn short_name(v8_name: &str) -> Option<&str> {
    let name = v8_name.trim();
    let name = name.strip_prefix("bound ").unwrap_or(name).trim();
    let name = name.rsplit('.').next().unwrap_or(name);
    let is_identifier = name.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_' || c == '$')
        && name.chars().all(is_identifier_char);
    (is_identifier && name != "<anonymous>").then_some(name)
}

fn is_identifier_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

/// `text` starts with the identifier `name` (and not a longer one).
fn starts_with_identifier(text: &str, name: &str) -> bool {
    text.strip_prefix(name).is_some_and(|rest| !rest.starts_with(is_identifier_char))
}

/// The identifier `name` at `column` of `line` declares a function: `function name(`,
/// `name=(…)=>` / `name=function` / `name=async…`, `name:(…)=>` (a property), or a method
/// `name(…){`.
fn declares(line: &Line<'_>, column: u32, name: &str) -> bool {
    let (Some(before), Some(at)) = (line.before(column), line.from(column)) else { return false };
    if !starts_with_identifier(at, name) || before.ends_with(is_identifier_char) {
        return false;
    }
    let before = before.trim_end().trim_end_matches('*').trim_end();
    if before.strip_suffix("function").is_some_and(|head| !head.ends_with(is_identifier_char)) {
        return true;
    }
    let after = at[name.len()..].trim_start();
    if let Some(value) = after.strip_prefix('=').or_else(|| after.strip_prefix(':')) {
        return !value.starts_with(['=', '>']) && starts_a_function(value.trim_start());
    }
    after.starts_with('(') && is_method(after) && !before.ends_with('.')
}

/// A value that is a function: `function`, `async`, `(…)=>`, `x=>`.
fn starts_a_function(value: &str) -> bool {
    if starts_with_identifier(value, "function") || starts_with_identifier(value, "async") {
        return true;
    }
    if value.starts_with('(') {
        return close_paren(value).is_some_and(|rest| rest.trim_start().starts_with("=>"));
    }
    let ident_len = value.find(|c: char| !is_identifier_char(c)).unwrap_or(value.len());
    ident_len > 0 && value[ident_len..].trim_start().starts_with("=>")
}

/// `(…){`: a parameter list followed by a body, as a method shorthand is (a call is not).
fn is_method(after_name: &str) -> bool {
    close_paren(after_name).is_some_and(|rest| rest.trim_start().starts_with('{'))
}

/// The text after the parenthesis that closes the one `text` starts with (strings skipped; a
/// parameter list longer than 4 KB is not looked through).
fn close_paren(text: &str) -> Option<&str> {
    let mut depth = 0u32;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in text.char_indices().take(4096) {
        match quote {
            Some(_) if escaped => escaped = false,
            Some(_) if c == '\\' => escaped = true,
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if matches!(c, '"' | '\'' | '`') => quote = Some(c),
            None if c == '(' => depth += 1,
            None if c == ')' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(&text[i + 1..]);
                }
            }
            None => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v8_names_are_cut_to_the_functions_own() {
        assert_eq!(short_name("Object.submit"), Some("submit"));
        assert_eq!(short_name("bound _h"), Some("_h"));
        assert_eq!(short_name("HTMLButtonElement.<anonymous>"), None);
        assert_eq!(short_name(""), None);
        assert_eq!(short_name("u"), Some("u"));
    }

    #[test]
    fn declarations_are_told_from_calls_and_reads() {
        let declared = |text: &str, name: &str| declares(&Line::new(text), text.find(name).unwrap() as u32, name);
        assert!(declared("async function p(e,t,n){let r", "p"));
        assert!(declared("function*g(){yield 1}", "g"));
        assert!(declared("let n=()=>{},x", "n"));
        assert!(declared("a,n=async e=>{},x", "n"));
        assert!(declared("{onClick:e=>i(e.target.value)}", "onClick"));
        assert!(declared("var u=function(){}", "u"));
        assert!(declared("class A{save(e,t){return 1}}", "save"));
        assert!(!declared("h({description:t}),c(`x`)", "h"), "a call");
        assert!(!declared("if(u==null)return", "u"), "a comparison");
        assert!(!declared("let u=e.target", "u"), "a value, not a function");
        assert!(!declared("x.u(1){", "u"), "a property read");
        assert!(!declared("function up(){}", "u"), "part of a longer name");
    }

    #[test]
    fn columns_count_utf16_units_on_lines_with_other_characters() {
        let line = Line::new("let a=`…€😀`;function u(){}");
        // "let a=`" is 7 units, "…€" 2 units, "😀" 2 units, "`;" 2, "function " 9: `u` at 22.
        assert_eq!(line.from(22).map(|t| &t[..1]), Some("u"));
        assert!(declares(&line, 22, "u"));
        let long: String = "é".repeat(200) + "function u(){}";
        assert_eq!(Line::new(&long).from(209), Some("u(){}"));
    }

    #[test]
    fn script_lines_split_on_every_line_terminator() {
        let text = ScriptText::new("a\nb\r\nc\rd");
        assert_eq!(
            (0..5).map(|i| text.line(i)).collect::<Vec<_>>(),
            [Some("a"), Some("b"), Some("c"), Some("d"), None]
        );
        assert_eq!(text.bytes(), 8 + 4 * 4, "its text and where each of its 4 lines starts");
    }
}
