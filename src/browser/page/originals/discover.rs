//! Where a script's source map is: the `SourceMap` / `X-SourceMap` header it was served with, else
//! its last `//# sourceMappingURL=` comment (inline `data:` maps included), read against the
//! script's URL as browsers read it. Pure: the script's text and headers come from the caller.

/// The map reference of a script: its header's value if it was served with one, else the last
/// `//# sourceMappingURL=` (or the older `//@`) comment of its text. As written (maybe relative).
pub fn map_reference<'a>(header: Option<&'a str>, text: &'a str) -> Option<&'a str> {
    if let Some(header) = header.map(str::trim).filter(|h| !h.is_empty()) {
        return Some(header);
    }
    comment(text)
}

/// The URL of the last `sourceMappingURL` comment in `text`.
fn comment(text: &str) -> Option<&str> {
    const KEY: &str = "sourceMappingURL=";
    let mut end = text.len();
    while let Some(at) = text[..end].rfind(KEY) {
        end = at;
        let before = text[..at].trim_end_matches([' ', '\t']);
        let Some(head) = before.strip_suffix("//#").or_else(|| before.strip_suffix("//@")) else { continue };
        // A comment marker inside a string or after code on its line (`"//# sourceMappingURL="`) is
        // not the script's own comment: only a line that is the comment counts.
        if !head.trim_end_matches([' ', '\t']).is_empty() && !head.ends_with(['\n', '\r']) {
            continue;
        }
        let rest = &text[at + KEY.len()..];
        let url = rest.split(|c: char| c.is_whitespace()).next().unwrap_or_default();
        if !url.is_empty() {
            return Some(url);
        }
    }
    None
}

/// The map's absolute URL: `reference` read against the script's URL (a `data:` URL as it is).
/// `None` for a reference no browser would load (a scheme other than http(s) or data).
pub fn map_url(reference: &str, script_url: &str) -> Option<String> {
    if reference.starts_with("data:") {
        return Some(reference.to_owned());
    }
    let joined = url::Url::parse(script_url).and_then(|base| base.join(reference)).ok()?;
    matches!(joined.scheme(), "http" | "https").then(|| joined.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_comment_names_the_map_and_a_header_comes_first() {
        let bundle = "var a=1;\n//# sourceMappingURL=old.js.map\nvar b=2;\n//# sourceMappingURL=index-X.js.map\n";
        assert_eq!(map_reference(None, bundle), Some("index-X.js.map"));
        assert_eq!(map_reference(Some(" /maps/a.map "), bundle), Some("/maps/a.map"));
        assert_eq!(
            map_reference(None, "x();\n//@ sourceMappingURL=data:application/json;base64,e30="),
            Some("data:application/json;base64,e30=")
        );
        assert_eq!(map_reference(None, "let s = \"//# sourceMappingURL=no.map\";"), None, "inside a string");
        assert_eq!(map_reference(None, "x();"), None);
        assert_eq!(map_reference(Some(""), "x();\r\n//# sourceMappingURL=a.map\r\n"), Some("a.map"));
    }

    #[test]
    fn a_relative_map_is_read_against_its_script() {
        let script = "http://127.0.0.1:3338/apps/expenses/assets/index-X.js?v=2";
        assert_eq!(
            map_url("index-X.js.map", script).as_deref(),
            Some("http://127.0.0.1:3338/apps/expenses/assets/index-X.js.map")
        );
        assert_eq!(map_url("/maps/a.map", script).as_deref(), Some("http://127.0.0.1:3338/maps/a.map"));
        assert_eq!(map_url("http://127.0.0.2:9/a.map", script).as_deref(), Some("http://127.0.0.2:9/a.map"));
        assert_eq!(map_url("data:application/json,{}", script).as_deref(), Some("data:application/json,{}"));
        assert_eq!(map_url("file:///etc/passwd", script), None);
    }
}
