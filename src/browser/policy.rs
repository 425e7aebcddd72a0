//! The URL policy: which URLs a session may load (ALLOW_HOST_REGEX).
//!
//! Only http and https URLs are ever loadable; everything else (`file:`, `data:`, `javascript:`,
//! `chrome:` …) is refused before the regex is consulted.

use regex::Regex;

use super::error::BrowserError;

#[derive(Debug, Clone)]
pub struct UrlPolicy {
    allow: Regex,
}

impl UrlPolicy {
    pub fn new(allow: Regex) -> Self {
        Self { allow }
    }

    pub fn check(&self, url: &str) -> Result<(), BrowserError> {
        let lower = url.trim_start().to_ascii_lowercase();
        if !(lower.starts_with("http://") || lower.starts_with("https://")) {
            return Err(BrowserError::UrlNotAllowed(format!(
                "{url:?} is not an http(s) URL; only http:// and https:// URLs can be loaded"
            )));
        }
        if !self.allow.is_match(url) {
            return Err(BrowserError::UrlNotAllowed(format!(
                "{url:?} does not match ALLOW_HOST_REGEX ({})",
                self.allow.as_str()
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::DEFAULT_ALLOW_HOST_REGEX;

    fn policy() -> UrlPolicy {
        UrlPolicy::new(Regex::new(DEFAULT_ALLOW_HOST_REGEX).unwrap())
    }

    #[test]
    fn local_http_urls_are_allowed() {
        assert!(policy().check("http://localhost:3000/projects").is_ok());
        assert!(policy().check("https://127.0.0.1/").is_ok());
    }

    #[test]
    fn other_hosts_and_schemes_are_refused() {
        for url in [
            "http://example.com/",
            "http://localhost@evil.example/",
            "http://localhost.evil.example/",
            "file:///etc/passwd",
            "javascript:alert(1)",
            "data:text/html,hi",
            "chrome://settings",
            "about:blank",
        ] {
            assert!(matches!(policy().check(url), Err(BrowserError::UrlNotAllowed(_))), "{url}");
        }
    }
}
