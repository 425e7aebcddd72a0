//! A URL's origin, and URLs and lines shown relative to one (`/api/orders` for
//! `http://localhost:3000/api/orders` on a page of that origin): what every view and the causes'
//! lines shorten URLs with. Pure functions of strings; depends on nothing of the watch.

/// `scheme://host[:port]` of a URL, or "" when it has none.
pub fn origin_of(url: &str) -> String {
    url::Url::parse(url).map(|u| u.origin().ascii_serialization()).ok().filter(|o| o != "null").unwrap_or_default()
}

/// `url` without `origin` when it starts with it.
pub fn relative(url: &str, origin: &str) -> String {
    match url.strip_prefix(origin) {
        Some(rest) if !origin.is_empty() && rest.starts_with('/') => rest.to_owned(),
        _ => url.to_owned(),
    }
}

/// A socket's `ws://` (`wss://`) URL shown as its path when its host is the page's origin's.
pub fn relative_socket(url: &str, origin: &str) -> String {
    let as_http = if let Some(rest) = url.strip_prefix("ws://") {
        format!("http://{rest}")
    } else if let Some(rest) = url.strip_prefix("wss://") {
        format!("https://{rest}")
    } else {
        return relative(url, origin);
    };
    match relative(&as_http, origin) {
        path if path.starts_with('/') => path,
        _ => url.to_owned(),
    }
}

/// Every occurrence of `origin` + `/` in `text` shortened to `/`.
pub fn relative_in(text: &str, origin: &str) -> String {
    if origin.is_empty() { text.to_owned() } else { text.replace(&format!("{origin}/"), "/") }
}
