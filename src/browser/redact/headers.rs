//! A request or response header as the service keeps it. The values that carry credentials are
//! never kept: `Cookie` keeps its cookies' names (`portal_lang=…; portal_sid=…`), `Set-Cookie`
//! its name and attributes (`portal_sid=…; Path=/; HttpOnly`), `Authorization` and
//! `Proxy-Authorization` their scheme (`Basic [redacted]`), and a header whose name names a secret
//! (`X-Api-Key`, `X-Vault-Key`, `X-CSRF-Token`, `X-Auth-…`) nothing. Every other value goes
//! through the session's secrets like any page text.

use super::{MASK, Redactor, keys};

/// Schemes an `Authorization` value keeps (the rest of it is masked).
const SCHEMES: &[&str] = &["basic", "bearer", "digest", "negotiate", "ntlm", "token", "hoba", "mutual"];

impl Redactor {
    /// `value` of header `name` as kept (see the module's rule).
    pub fn header(&self, name: &str, value: &str) -> String {
        let lower = name.to_ascii_lowercase();
        match lower.as_str() {
            "cookie" => names_only(value, ';').join("; "),
            "set-cookie" => set_cookie(value),
            "authorization" | "proxy-authorization" => {
                let scheme =
                    value.split_whitespace().next().filter(|s| SCHEMES.contains(&s.to_ascii_lowercase().as_str()));
                scheme.map_or_else(|| MASK.to_owned(), |s| format!("{s} {MASK}"))
            }
            _ if secret_header(&lower) => MASK.to_owned(),
            _ => self.text(value),
        }
    }
}

/// Whether a header's name names a secret: any secret-named key (`keys`), or one ending in `key`
/// (`X-Vault-Key`), `auth` or `signature`.
fn secret_header(lower: &str) -> bool {
    keys::is_secret(lower)
        || ["key", "auth", "signature", "session"].iter().any(|end| lower.rsplit(['-', '_']).next() == Some(end))
}

/// `a=…; b=…` for a cookie list.
fn names_only(value: &str, separator: char) -> Vec<String> {
    value
        .split(separator)
        .filter_map(|pair| {
            let name = pair.split_once('=').map_or(pair, |(n, _)| n).trim();
            (!name.is_empty()).then(|| format!("{name}=…"))
        })
        .collect()
}

/// `name=…; Path=/; HttpOnly`: the line's attributes kept, its value not.
fn set_cookie(line: &str) -> String {
    let mut parts = line.split(';');
    let name = parts.next().and_then(|p| p.split_once('=')).map_or("", |(n, _)| n.trim());
    let mut kept = vec![format!("{name}=…")];
    kept.extend(parts.map(|p| p.trim().to_owned()).filter(|p| !p.is_empty()));
    kept.join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_in_headers_are_never_kept_and_names_and_attributes_are() {
        let r = Redactor::default();
        r.remember("Harbour-Lights-9");
        assert_eq!(r.header("Cookie", "portal_lang=en; portal_sid=9f2c"), "portal_lang=…; portal_sid=…");
        assert_eq!(
            r.header("set-cookie", "portal_sid=9f2c; HttpOnly; SameSite=Lax"),
            "portal_sid=…; HttpOnly; SameSite=Lax"
        );
        assert_eq!(r.header("Authorization", "Basic b3duZXI6SGFyYm91cg=="), "Basic [redacted]");
        assert_eq!(r.header("Proxy-Authorization", "s3cr3t"), "[redacted]");
        for name in ["X-Vault-Key", "X-Api-Key", "X-CSRF-Token", "x-amz-signature", "X-Auth"] {
            assert_eq!(r.header(name, "anything"), MASK, "{name}");
        }
        assert_eq!(r.header("X-Echo", "got Harbour-Lights-9"), "got [redacted]", "typed secrets masked anywhere");
        assert_eq!(r.header("Accept", "text/html"), "text/html");
        assert_eq!(r.header("Location", "/portal/home"), "/portal/home");
    }
}
