//! URL globs as `network.route` and `assert.url` take them: `*` any characters (so `**` too) and,
//! in routes, `?` one character — Chromium's `Fetch` pattern syntax — over the whole URL.
//!
//! A glob comes from a request, so compiling it can only fail as the caller's error, never panic:
//! it is at most [`MAX_CHARS`] characters, runs of `*` count as one, and the compiled matcher is
//! bounded by [`MAX_COMPILED_BYTES`] (the regex crate's size limit) before anything is built.

use regex::{Regex, RegexBuilder};

/// Characters a glob may have (a URL rarely has more than 2 000).
pub const MAX_CHARS: usize = 4096;
/// Memory the compiled matcher may take.
const MAX_COMPILED_BYTES: usize = 1 << 20;

/// Which wildcards a glob has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wildcards {
    /// `*` and `?` (network.route, as Chromium's Fetch patterns).
    StarAndQuestion,
    /// `*` only (assert.url, where `?` starts a query).
    Star,
}

/// A compiled URL glob.
#[derive(Debug, Clone)]
pub struct UrlGlob {
    source: String,
    matcher: Regex,
}

impl UrlGlob {
    /// Compiles `pattern`, or says why it cannot be used.
    pub fn parse(pattern: &str, wildcards: Wildcards) -> Result<Self, String> {
        let chars = pattern.chars().count();
        if chars > MAX_CHARS {
            return Err(format!("a URL pattern has at most {MAX_CHARS} characters; this one has {chars}"));
        }
        let mut re = String::with_capacity(pattern.len() * 2 + 2);
        re.push('^');
        let mut after_star = false;
        for c in pattern.chars() {
            match c {
                '*' if after_star => {}
                '*' => re.push_str(".*"),
                '?' if wildcards == Wildcards::StarAndQuestion => re.push('.'),
                c => re.push_str(&regex::escape(c.encode_utf8(&mut [0; 4]))),
            }
            after_star = c == '*';
        }
        re.push('$');
        let matcher = RegexBuilder::new(&re)
            .size_limit(MAX_COMPILED_BYTES)
            .build()
            .map_err(|_| "the URL pattern has too many wildcards to match with; use fewer `*` and `?`".to_owned())?;
        Ok(Self { source: pattern.to_owned(), matcher })
    }

    /// The glob as given.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// Whether `url` matches as a whole.
    pub fn matches(&self, url: &str) -> bool {
        self.matcher.is_match(url)
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stars_match_anything_and_question_marks_one_character_in_routes_only() {
        let route = UrlGlob::parse("*/api/v?/*", Wildcards::StarAndQuestion).unwrap();
        assert!(route.matches("http://h/api/v2/users"));
        assert!(!route.matches("http://h/api/v10/users"));
        let url = UrlGlob::parse("**/search?q=*", Wildcards::Star).unwrap();
        assert!(url.matches("http://h/search?q=ada"));
        assert!(!url.matches("http://h/searchXq=ada"), "a ? is itself in assert.url");
        assert!(UrlGlob::parse("http://h/(x)[y]+.", Wildcards::Star).unwrap().matches("http://h/(x)[y]+."));
    }

    #[test]
    fn long_or_wildcard_heavy_globs_are_refused_not_compiled_into_a_panic() {
        let long = "a".repeat(20_000);
        assert!(UrlGlob::parse(&long, Wildcards::StarAndQuestion).unwrap_err().contains("at most"));
        // The pattern the panic was found with: within the length cap, far too big to compile.
        let heavy = "*?".repeat(MAX_CHARS / 2);
        assert!(UrlGlob::parse(&heavy, Wildcards::StarAndQuestion).unwrap_err().contains("too many wildcards"));
        let stars = "*".repeat(MAX_CHARS);
        assert!(UrlGlob::parse(&stars, Wildcards::StarAndQuestion).unwrap().matches("http://anything/"));
    }
}
