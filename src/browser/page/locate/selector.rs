//! Selectors: one parser for every method that takes `selector`.
//!
//! - CSS is the default (`#id`, `.cls`, `[data-testid="x"]`); `css=` forces it.
//! - `role=button[name="Login"]`: roles and accessible names as Chromium's accessibility tree
//!   computes them. The name matches case-insensitively as a substring; `[name="Login" s]` or
//!   `[exact]` make it exact. Also `[level=2]`, `[checked]`, `[checked=false]`, `[disabled]`,
//!   `[expanded]`, `[pressed]`, `[selected]`.
//! - `text=Sign in` (substring, case-insensitive) and `text="Sign in"` (exact).
//! - `xpath=//button` (or any selector starting with `//`).
//! - `ref=e5`, or `e5` alone: an element page.snapshot named (no HTML element is named `e5`: a
//!   custom element's name has a hyphen; `css=e5` still means the tag).
//!
//! CSS, text and XPath are resolved in the page by `js/lib.js`; roles by the Accessibility domain
//! and refs by the ref table (`resolve`), whose matches are handed to the same scripts as element
//! handles. A parsed selector travels inside a [`super::target::Target`]; it is never turned back
//! into text to be parsed again.

use serde_json::Value;

use crate::browser::chromium::protocol::accessibility::AxNode;
use crate::browser::error::BrowserError;

#[derive(Debug, Clone, PartialEq)]
pub enum Selector {
    Css(String),
    Text {
        text: String,
        exact: bool,
    },
    XPath(String),
    Role(RoleSelector),
    /// `ref=e5`: an element page.snapshot named.
    Ref(String),
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct RoleSelector {
    pub role: String,
    pub name: Option<String>,
    pub exact: bool,
    /// State filters: (property, expected value), e.g. ("level", "2"), ("checked", "true").
    pub states: Vec<(String, String)>,
}

/// Boolean or numeric states a role selector may filter on.
const STATES: &[&str] = &["checked", "disabled", "expanded", "level", "pressed", "selected"];

impl Selector {
    pub fn parse(input: &str) -> Result<Self, BrowserError> {
        let invalid =
            |reason: &str| BrowserError::InvalidSelector { selector: input.to_owned(), reason: reason.to_owned() };
        let s = input.trim();
        if s.is_empty() {
            return Err(invalid("the selector is empty"));
        }
        if let Some(rest) = s.strip_prefix("ref=") {
            let name = rest.trim();
            if !super::refs::is_ref(name) {
                return Err(invalid("ref= needs a ref from page.snapshot, such as ref=e5"));
            }
            return Ok(Selector::Ref(name.to_owned()));
        }
        if super::refs::is_ref(s) {
            return Ok(Selector::Ref(s.to_owned()));
        }
        if let Some(rest) = s.strip_prefix("role=") {
            return parse_role(rest).map(Selector::Role).map_err(|r| invalid(&r));
        }
        if let Some(rest) = s.strip_prefix("text=") {
            let rest = rest.trim();
            if rest.is_empty() {
                return Err(invalid("text= needs the text to look for"));
            }
            return Ok(match unquote(rest) {
                Some(exact) => Selector::Text { text: exact, exact: true },
                None => Selector::Text { text: rest.to_owned(), exact: false },
            });
        }
        if let Some(rest) = s.strip_prefix("xpath=") {
            return Ok(Selector::XPath(rest.trim().to_owned()));
        }
        if s.starts_with("//") || s.starts_with("(//") {
            return Ok(Selector::XPath(s.to_owned()));
        }
        if let Some(rest) = s.strip_prefix("css=") {
            return Ok(Selector::Css(rest.trim().to_owned()));
        }
        if let Some((engine, _)) = s.split_once('=')
            && !engine.is_empty()
            && engine.chars().all(|c| c.is_ascii_alphabetic() || c == '-')
            && !s.starts_with('[')
        {
            return Err(invalid(&format!(
                "unknown selector engine {engine:?}; use css (the default), role=, text= or xpath="
            )));
        }
        Ok(Selector::Css(s.to_owned()))
    }
}

/// `button[name="Login" s][level=2]` → role and filters.
fn parse_role(rest: &str) -> Result<RoleSelector, String> {
    let role_end = rest.find('[').unwrap_or(rest.len());
    let role = rest[..role_end].trim();
    if role.is_empty() || !role.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
        return Err(format!("role= needs a role name such as button or heading, got {role:?}"));
    }
    let mut selector = RoleSelector { role: role.to_ascii_lowercase(), ..Default::default() };
    let mut attrs = &rest[role_end..];
    while !attrs.is_empty() {
        let body_start = attrs.strip_prefix('[').ok_or_else(|| format!("expected '[' at {attrs:?}"))?;
        let close = find_attr_end(body_start).ok_or("an attribute is missing its closing ']'")?;
        parse_attr(body_start[..close].trim(), &mut selector)?;
        attrs = body_start[close + 1..].trim_start();
    }
    Ok(selector)
}

/// The index of the `]` that closes an attribute, skipping quoted text.
fn find_attr_end(body: &str) -> Option<usize> {
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in body.char_indices() {
        match (quote, c) {
            (Some(_), '\\') if !escaped => {
                escaped = true;
                continue;
            }
            (Some(q), c) if c == q && !escaped => quote = None,
            (None, '"' | '\'') => quote = Some(c),
            (None, ']') => return Some(i),
            _ => {}
        }
        escaped = false;
    }
    None
}

fn parse_attr(attr: &str, selector: &mut RoleSelector) -> Result<(), String> {
    let (key, value) = match attr.split_once('=') {
        Some((k, v)) => (k.trim(), Some(v.trim())),
        None => (attr, None),
    };
    match (key, value) {
        ("name", Some(v)) => {
            let (v, flag) = match v.rsplit_once(['"', '\'']) {
                Some((_, flag)) if matches!(flag.trim(), "s" | "i") => (&v[..v.len() - flag.len()], Some(flag.trim())),
                _ => (v, None),
            };
            let name = unquote(v.trim()).ok_or_else(|| format!("name must be quoted: [name=\"…\"], got {v}"))?;
            selector.name = Some(name);
            if flag == Some("s") {
                selector.exact = true;
            }
        }
        ("exact", None) | ("exact", Some("true")) => selector.exact = true,
        ("exact", Some("false")) => selector.exact = false,
        (state, value) if STATES.contains(&state) => {
            let value = value.map(|v| unquote(v).unwrap_or_else(|| v.to_owned())).unwrap_or_else(|| "true".into());
            if state == "level" && value.parse::<u32>().is_err() {
                return Err(format!("level must be a number, got {value:?}"));
            }
            if state != "level" && !matches!(value.as_str(), "true" | "false" | "mixed") {
                return Err(format!("{state} must be true or false, got {value:?}"));
            }
            selector.states.push((state.to_owned(), value));
        }
        (other, _) => {
            return Err(format!("unknown role attribute {other:?}; use name, exact, {}", STATES.join(", ")));
        }
    }
    Ok(())
}

/// `"x"` or `'x'` → `x` (with `\"` unescaped); anything else → None.
fn unquote(s: &str) -> Option<String> {
    let quote = s.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let inner = s.strip_prefix(quote)?.strip_suffix(quote)?;
    Some(inner.replace(&format!("\\{quote}"), &quote.to_string()).replace("\\\\", "\\"))
}

impl RoleSelector {
    /// Whether an accessibility node (from `Accessibility.queryAXTree`) matches the filters.
    pub fn matches(&self, node: &AxNode) -> bool {
        if node.ignored {
            return false;
        }
        if let Some(want) = &self.name {
            let have = match node.name.as_ref().and_then(|name| name.value.as_ref()) {
                Some(Value::String(name)) => name.as_str(),
                _ => "",
            };
            let have = collapse(have);
            let want = collapse(want);
            let ok = if self.exact { have == want } else { have.to_lowercase().contains(&want.to_lowercase()) };
            if !ok {
                return false;
            }
        }
        self.states.iter().all(|(state, want)| {
            match node.property(state) {
                Some(have) => have == *want,
                // An absent boolean state means false.
                None => want == "false",
            }
        })
    }
}

fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}
#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn role(s: &str) -> RoleSelector {
        match Selector::parse(s).unwrap() {
            Selector::Role(r) => r,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn css_is_the_default() {
        assert_eq!(Selector::parse("#save").unwrap(), Selector::Css("#save".into()));
        assert_eq!(Selector::parse("[data-testid=\"x\"]").unwrap(), Selector::Css("[data-testid=\"x\"]".into()));
        assert_eq!(Selector::parse("css=a[href='x=y']").unwrap(), Selector::Css("a[href='x=y']".into()));
        assert_eq!(Selector::parse("a[href='x=y']").unwrap(), Selector::Css("a[href='x=y']".into()));
    }

    #[test]
    fn a_ref_given_as_a_selector_is_the_ref() {
        assert_eq!(Selector::parse("e8").unwrap(), Selector::Ref("e8".into()));
        assert_eq!(Selector::parse(" ref=e8 ").unwrap(), Selector::Ref("e8".into()));
        assert_eq!(Selector::parse("css=e8").unwrap(), Selector::Css("e8".into()));
        assert_eq!(Selector::parse("em").unwrap(), Selector::Css("em".into()));
        assert_eq!(Selector::parse("e8 span").unwrap(), Selector::Css("e8 span".into()));
    }

    #[test]
    fn role_selectors_parse_name_and_states() {
        let r = role("role=button[name=\"Login\"]");
        assert_eq!((r.role.as_str(), r.name.as_deref(), r.exact), ("button", Some("Login"), false));
        let r = role("role=button[name=\"Login\" s]");
        assert!(r.exact);
        let r = role("role=button[name='Save changes'][exact]");
        assert_eq!((r.name.as_deref(), r.exact), (Some("Save changes"), true));
        let r = role("role=heading[level=2]");
        assert_eq!(r.states, vec![("level".to_string(), "2".to_string())]);
        let r = role("role=checkbox[checked=true]");
        assert_eq!(r.states, vec![("checked".to_string(), "true".to_string())]);
        let r = role("role=checkbox[checked]");
        assert_eq!(r.states, vec![("checked".to_string(), "true".to_string())]);
        let r = role("role=button[name=\"a ] b\"]");
        assert_eq!(r.name.as_deref(), Some("a ] b"));
    }

    #[test]
    fn text_and_xpath_selectors() {
        assert_eq!(Selector::parse("text=Sign in").unwrap(), Selector::Text { text: "Sign in".into(), exact: false });
        assert_eq!(
            Selector::parse("text=\"Sign in\"").unwrap(),
            Selector::Text { text: "Sign in".into(), exact: true }
        );
        assert_eq!(Selector::parse("xpath=//button").unwrap(), Selector::XPath("//button".into()));
        assert_eq!(Selector::parse("//div[@id='x']").unwrap(), Selector::XPath("//div[@id='x']".into()));
    }

    #[test]
    fn bad_selectors_say_what_is_wrong() {
        for (bad, says) in [
            ("", "empty"),
            ("role=", "role name"),
            ("role=button[name=Login]", "quoted"),
            ("role=button[name=\"x\"", "closing"),
            ("role=heading[level=two]", "number"),
            ("role=button[colour=\"red\"]", "unknown role attribute"),
            ("text=", "text to look for"),
            ("frob=thing", "unknown selector engine"),
        ] {
            let err = Selector::parse(bad).unwrap_err().to_string();
            assert!(err.contains(says), "{bad:?}: {err}");
        }
    }

    #[test]
    fn role_matching_uses_name_case_insensitively_unless_exact() {
        let node: AxNode = serde_json::from_value(
            json!({"ignored": false, "role": {"value": "button"}, "name": {"value": "Login now"},
                          "properties": [{"name": "level", "value": {"type": "integer", "value": 2}},
                                         {"name": "checked", "value": {"type": "tristate", "value": "true"}}]}),
        )
        .unwrap();
        assert!(role("role=button[name=\"login\"]").matches(&node));
        assert!(!role("role=button[name=\"login\" s]").matches(&node));
        assert!(role("role=button[name=\"Login now\" s]").matches(&node));
        assert!(role("role=button[level=2]").matches(&node));
        assert!(!role("role=button[level=3]").matches(&node));
        assert!(role("role=button[checked]").matches(&node));
        assert!(role("role=button[disabled=false]").matches(&node), "absent means false");
        assert!(!role("role=button[disabled]").matches(&node));
    }
}
