//! Who this replica is, how to reach the others, and which replica a session id belongs to.

use std::collections::BTreeMap;

/// REPLICA_ID with PEERS and/or PEER_URL_TEMPLATE, validated.
#[derive(Debug, Clone, PartialEq)]
pub struct Topology {
    me: String,
    /// PEERS: name → base URL (without a trailing slash).
    peers: BTreeMap<String, String>,
    /// PEER_URL_TEMPLATE: a base URL with `{replica}` where the name goes.
    template: Option<String>,
}

/// Whose session an id is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Owner<'a> {
    /// This replica's (or an id without a replica: the local map decides).
    Here,
    /// Another replica's, by name.
    Peer(&'a str),
}

/// A configuration error: the variable, its value and why it is refused.
type Refused = (&'static str, String, String);

impl Topology {
    /// Parses REPLICA_ID, PEERS (`name=http://host:port,…`) and PEER_URL_TEMPLATE.
    pub fn parse(me: &str, peers: Option<&str>, template: Option<&str>) -> Result<Self, Refused> {
        if !is_name(me) {
            return Err((
                "REPLICA_ID",
                me.to_owned(),
                "expected a DNS label: lowercase letters, digits and '-', at most 63 (a StatefulSet pod's name)".into(),
            ));
        }
        let mut parsed = BTreeMap::new();
        for pair in peers.unwrap_or_default().split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let refuse = |reason: &str| ("PEERS", pair.to_owned(), reason.to_owned());
            let (name, url) = pair.split_once('=').ok_or_else(|| refuse("expected name=http://host:port"))?;
            let (name, url) = (name.trim(), url.trim());
            if !is_name(name) {
                return Err(refuse("the name must be a DNS label (lowercase letters, digits, '-')"));
            }
            parsed.insert(name.to_owned(), base_url(url).map_err(|reason| refuse(&reason))?);
        }
        if let Some(template) = template {
            let example = template.replace("{replica}", me);
            if !template.contains("{replica}") {
                return Err(("PEER_URL_TEMPLATE", template.to_owned(), "it must contain {replica}".into()));
            }
            base_url(&example).map_err(|reason| ("PEER_URL_TEMPLATE", template.to_owned(), reason))?;
        }
        if parsed.is_empty() && template.is_none() {
            return Err((
                "REPLICA_ID",
                me.to_owned(),
                "set PEERS or PEER_URL_TEMPLATE too, so calls for other replicas' sessions can reach them".into(),
            ));
        }
        let template = template.map(|t| t.trim_end_matches('/').to_owned());
        Ok(Self { me: me.to_owned(), peers: parsed, template })
    }

    /// This replica's name.
    pub fn me(&self) -> &str {
        &self.me
    }

    /// Which replica owns `session_id`.
    pub fn owner<'a>(&self, session_id: &'a str) -> Owner<'a> {
        match session_id.split_once('.') {
            Some((name, _)) if name != self.me && is_name(name) => Owner::Peer(name),
            _ => Owner::Here,
        }
    }

    /// The base URL of replica `name` (PEERS first, then the template), if it is known.
    pub fn url_of(&self, name: &str) -> Option<String> {
        if let Some(url) = self.peers.get(name) {
            return Some(url.clone());
        }
        self.template.as_ref().map(|t| t.replace("{replica}", name))
    }

    /// The names PEERS lists, for messages.
    pub fn listed(&self) -> Vec<&str> {
        self.peers.keys().map(String::as_str).collect()
    }
}

/// A DNS label: what Kubernetes names a StatefulSet's pods.
fn is_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 63
        && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && !name.starts_with('-')
        && !name.ends_with('-')
}

/// An `http://host[:port]` base URL, without a trailing slash (no path, query or TLS: peers talk
/// inside the cluster network).
fn base_url(url: &str) -> Result<String, String> {
    let parsed = url::Url::parse(url).map_err(|e| format!("{url:?} is not a URL: {e}"))?;
    if parsed.scheme() != "http" || parsed.host_str().is_none() {
        return Err(format!("{url:?}: expected http://host:port"));
    }
    if parsed.path() != "/" || parsed.query().is_some() {
        return Err(format!("{url:?}: give the base URL only (no path or query)"));
    }
    Ok(url.trim_end_matches('/').to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_name_their_replica_and_only_other_replicas_own_elsewhere() {
        let t = Topology::parse("tb-0", Some("tb-1=http://127.0.0.1:9001"), None).unwrap();
        assert_eq!(t.owner("tb-0.0123abcd"), Owner::Here);
        assert_eq!(t.owner("tb-1.0123abcd"), Owner::Peer("tb-1"));
        assert_eq!(t.owner("0123abcd"), Owner::Here, "a bare id is looked up here");
        assert_eq!(t.owner("Not A Replica.x"), Owner::Here);
        assert_eq!(t.url_of("tb-1").as_deref(), Some("http://127.0.0.1:9001"));
        assert_eq!(t.url_of("tb-7"), None, "neither listed nor templated");
    }

    #[test]
    fn the_template_names_every_replica_and_peers_come_first() {
        let t = Topology::parse(
            "text-browser-0",
            Some("text-browser-2=http://10.0.0.9:3337"),
            Some("http://{replica}.text-browser:3337/"),
        )
        .unwrap();
        assert_eq!(t.url_of("text-browser-1").as_deref(), Some("http://text-browser-1.text-browser:3337"));
        assert_eq!(t.url_of("text-browser-2").as_deref(), Some("http://10.0.0.9:3337"));
    }

    #[test]
    fn bad_settings_name_the_variable() {
        assert_eq!(Topology::parse("tb_0", Some("a=http://h:1"), None).unwrap_err().0, "REPLICA_ID");
        assert_eq!(Topology::parse("tb-0", Some("a=https://h:1"), None).unwrap_err().0, "PEERS");
        assert_eq!(Topology::parse("tb-0", Some("a=http://h:1/rpc"), None).unwrap_err().0, "PEERS");
        assert_eq!(Topology::parse("tb-0", None, Some("http://{replica")).unwrap_err().0, "PEER_URL_TEMPLATE");
    }
}
