//! Who this replica is, how to reach the others, and which replica a session id belongs to.
//!
//! Replica names are an allow-list, never input: a session id (or MCP session id) names its
//! replica, but only a name PEERS lists, or `<stem>-<ordinal>` of this replica's own StatefulSet
//! (`text-browser-2` for `text-browser-0`) below REPLICA_COUNT, is a peer. Any other prefix —
//! `2130706434.x`, `0x7f000002.x`, a Service's name in the namespace — names no replica: the id is
//! looked up here and is not found, nothing is resolved and nothing connects.

use std::collections::BTreeMap;

/// REPLICA_ID with PEERS and/or PEER_URL_TEMPLATE, validated.
#[derive(Debug, Clone, PartialEq)]
pub struct Topology {
    me: String,
    /// PEERS: name → base URL (without a trailing slash).
    peers: BTreeMap<String, String>,
    /// PEER_URL_TEMPLATE with the names it may be filled with.
    template: Option<Template>,
}

/// PEER_URL_TEMPLATE: a base URL with `{replica}` where the name goes, for `<stem>-0` …
/// `<stem>-(count-1)` only.
#[derive(Debug, Clone, PartialEq)]
struct Template {
    url: String,
    /// REPLICA_ID without its ordinal: the StatefulSet's name.
    stem: String,
    /// REPLICA_COUNT: how many ordinals the StatefulSet may have.
    count: u32,
}

/// Whose session an id is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Owner<'a> {
    /// This replica's (or an id that names no known replica: the local map decides, and does not
    /// know it).
    Here,
    /// Another replica's.
    Peer(Peer<'a>),
}

/// A replica this one knows, and its base URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Peer<'a> {
    pub name: &'a str,
    pub url: String,
}

/// A configuration error: the variable, its value and why it is refused.
type Refused = (&'static str, String, String);

/// The replica settings as read from the environment.
#[derive(Debug, Default, Clone, Copy)]
pub struct Settings<'a> {
    pub me: &'a str,
    pub peers: Option<&'a str>,
    pub template: Option<&'a str>,
    pub count: Option<&'a str>,
}

impl Topology {
    /// Parses REPLICA_ID, PEERS (`name=http://host:port,…`), PEER_URL_TEMPLATE and REPLICA_COUNT.
    pub fn parse(settings: Settings<'_>) -> Result<Self, Refused> {
        let me = settings.me;
        if !is_name(me) {
            return Err((
                "REPLICA_ID",
                me.to_owned(),
                "expected a DNS label: lowercase letters, digits and '-', at most 63 (a StatefulSet pod's name)".into(),
            ));
        }
        let peers = parse_peers(settings.peers.unwrap_or_default())?;
        let template = settings.template.map(|t| parse_template(me, t, settings.count)).transpose()?;
        if peers.is_empty() && template.is_none() {
            return Err((
                "REPLICA_ID",
                me.to_owned(),
                "set PEERS or PEER_URL_TEMPLATE too, so calls for other replicas' sessions can reach them".into(),
            ));
        }
        Ok(Self { me: me.to_owned(), peers, template })
    }

    /// This replica's name.
    pub fn me(&self) -> &str {
        &self.me
    }

    /// Which replica owns `session_id`: a peer only when its prefix is a name this replica knows.
    pub fn owner<'a>(&self, session_id: &'a str) -> Owner<'a> {
        match session_id.split_once('.') {
            Some((name, _)) if name != self.me => match self.url_of(name) {
                Some(url) => Owner::Peer(Peer { name, url }),
                None => Owner::Here,
            },
            _ => Owner::Here,
        }
    }

    /// The base URL of replica `name` (PEERS first, then the template), if it is one.
    fn url_of(&self, name: &str) -> Option<String> {
        if let Some(url) = self.peers.get(name) {
            return Some(url.clone());
        }
        let template = self.template.as_ref()?;
        template.admits(name).then(|| template.url.replace("{replica}", name))
    }
}

impl Template {
    /// `<stem>-<ordinal>`, the ordinal written as Kubernetes writes it (no sign, no leading zero)
    /// and below the count.
    fn admits(&self, name: &str) -> bool {
        let Some(ordinal) = name.strip_prefix(self.stem.as_str()).and_then(|rest| rest.strip_prefix('-')) else {
            return false;
        };
        let canonical = !ordinal.is_empty()
            && ordinal.bytes().all(|b| b.is_ascii_digit())
            && (ordinal == "0" || !ordinal.starts_with('0'));
        canonical && ordinal.parse::<u32>().is_ok_and(|n| n < self.count)
    }
}

fn parse_peers(peers: &str) -> Result<BTreeMap<String, String>, Refused> {
    let mut parsed = BTreeMap::new();
    for pair in peers.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let refuse = |reason: &str| ("PEERS", pair.to_owned(), reason.to_owned());
        let (name, url) = pair.split_once('=').ok_or_else(|| refuse("expected name=http://host:port"))?;
        let (name, url) = (name.trim(), url.trim());
        if !is_name(name) {
            return Err(refuse("the name must be a DNS label (lowercase letters, digits, '-')"));
        }
        parsed.insert(name.to_owned(), base_url(url).map_err(|reason| refuse(&reason))?);
    }
    Ok(parsed)
}

/// PEER_URL_TEMPLATE with REPLICA_COUNT: REPLICA_ID must be `<stem>-<ordinal>`, so that the
/// template reaches only that StatefulSet's pods.
fn parse_template(me: &str, template: &str, count: Option<&str>) -> Result<Template, Refused> {
    let refuse = |reason: &str| ("PEER_URL_TEMPLATE", template.to_owned(), reason.to_owned());
    if !template.contains("{replica}") {
        return Err(refuse("it must contain {replica}"));
    }
    base_url(&template.replace("{replica}", me)).map_err(|reason| refuse(&reason))?;
    let Some((stem, ordinal)) = me.rsplit_once('-').filter(|(s, o)| !s.is_empty() && o.parse::<u32>().is_ok()) else {
        return Err((
            "REPLICA_ID",
            me.to_owned(),
            "with PEER_URL_TEMPLATE, REPLICA_ID must be a StatefulSet pod's name, <name>-<ordinal>".into(),
        ));
    };
    let count = count.ok_or_else(|| {
        refuse("set REPLICA_COUNT too (the StatefulSet's most replicas): the template reaches only its pods")
    })?;
    let count: u32 = count
        .trim()
        .parse()
        .ok()
        .filter(|n| (1..=10_000).contains(n) && ordinal.parse::<u32>().is_ok_and(|o| o < *n))
        .ok_or_else(|| {
            (
                "REPLICA_COUNT",
                count.to_owned(),
                format!("expected a number from 1 to 10000, above this replica's ordinal ({ordinal})"),
            )
        })?;
    Ok(Template { url: template.trim_end_matches('/').to_owned(), stem: stem.to_owned(), count })
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

    fn parse(me: &str, peers: Option<&str>, template: Option<&str>, count: Option<&str>) -> Result<Topology, Refused> {
        Topology::parse(Settings { me, peers, template, count })
    }

    fn peer(t: &Topology, id: &str) -> Option<String> {
        match t.owner(id) {
            Owner::Peer(peer) => Some(peer.url),
            Owner::Here => None,
        }
    }

    #[test]
    fn ids_name_their_replica_and_only_other_replicas_own_elsewhere() {
        let t = parse("tb-0", Some("tb-1=http://127.0.0.1:9001"), None, None).unwrap();
        assert_eq!(t.owner("tb-0.0123abcd"), Owner::Here);
        assert_eq!(peer(&t, "tb-1.0123abcd").as_deref(), Some("http://127.0.0.1:9001"));
        assert_eq!(t.owner("0123abcd"), Owner::Here, "a bare id is looked up here");
        assert_eq!(t.owner("Not A Replica.x"), Owner::Here);
        assert_eq!(t.owner("tb-7.0123abcd"), Owner::Here, "neither listed nor templated: no replica");
    }

    #[test]
    fn the_template_names_only_its_own_statefulsets_pods_and_peers_come_first() {
        let t = parse(
            "text-browser-0",
            Some("text-browser-2=http://10.0.0.9:3337"),
            Some("http://{replica}.text-browser:3337/"),
            Some("4"),
        )
        .unwrap();
        assert_eq!(peer(&t, "text-browser-1.x").as_deref(), Some("http://text-browser-1.text-browser:3337"));
        assert_eq!(peer(&t, "text-browser-2.x").as_deref(), Some("http://10.0.0.9:3337"));
        assert_eq!(peer(&t, "text-browser-3.x").as_deref(), Some("http://text-browser-3.text-browser:3337"));
        // Names a caller may pick that resolve elsewhere (127.0.0.2 in three spellings, another
        // Service of the namespace, ordinals Kubernetes never writes or past the count).
        for id in [
            "2130706434.x",
            "0x7f000002.x",
            "017700000002.x",
            "text-browser-api.x",
            "text-browser-01.x",
            "text-browser-4.x",
            "text-browser--1.x",
            "other-1.x",
            "text-browser.x",
        ] {
            assert_eq!(t.owner(id), Owner::Here, "{id}");
        }
    }

    #[test]
    fn bad_settings_name_the_variable() {
        let refused = |me, peers, template, count| parse(me, peers, template, count).unwrap_err().0;
        assert_eq!(refused("tb_0", Some("a=http://h:1"), None, None), "REPLICA_ID");
        assert_eq!(refused("tb-0", Some("a=https://h:1"), None, None), "PEERS");
        assert_eq!(refused("tb-0", Some("a=http://h:1/rpc"), None, None), "PEERS");
        assert_eq!(refused("tb-0", None, Some("http://{replica"), Some("3")), "PEER_URL_TEMPLATE");
        assert_eq!(refused("tb-0", None, Some("http://{replica}:1"), None), "PEER_URL_TEMPLATE");
        assert_eq!(refused("tb", None, Some("http://{replica}:1"), Some("3")), "REPLICA_ID");
        assert_eq!(refused("tb-3", None, Some("http://{replica}:1"), Some("3")), "REPLICA_COUNT");
        assert_eq!(refused("tb-0", None, Some("http://{replica}:1"), Some("many")), "REPLICA_COUNT");
    }
}
