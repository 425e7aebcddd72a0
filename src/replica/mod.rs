//! Replicas: running several services side by side (a Kubernetes StatefulSet), each with its own
//! Chromium and sessions, so that any of them can take any call.
//!
//! A session lives in one process. With `REPLICA_ID` set, its id carries its replica
//! (`text-browser-1.<uuid>`), so whichever replica a call reaches knows the owner without asking
//! anyone: there is no shared store and no membership protocol, only names and URLs.
//!
//! - `topology`: this replica's name, the others' URLs (PEERS, PEER_URL_TEMPLATE with
//!   REPLICA_COUNT), who owns an id — only a replica this one knows, never a name a caller made up
//! - `forward`: sends a call to its owner over HTTP (the same JSON-RPC call and key) and brings
//!   the answer back unchanged, or says why it could not (`replica_unavailable`, `wrong_replica`)
//! - `proof`: the HMAC (PEER_SECRET) a forwarded request carries, so that only peers are peers
//!
//! A forwarded request carries the API key, [`FORWARDED_BY`] naming the peer and its proof
//! ([`PEER_PROOF`]); the HTTP layer (`http::forwarded`) checks the proof and marks the request
//! with [`ForwardedBy`], so it is not forwarded again (no loops when two replicas disagree about
//! an owner) nor counted a second time by the rate limit (the replica the client reached counted
//! it). A caller who sends the header without a right proof is any caller.
//!
//! Without `REPLICA_ID` none of this runs and session ids are bare UUIDs, as before.

mod forward;
mod proof;
mod topology;

pub use forward::{Forwarder, Outcome, Relayed, ReplicaError, Transport};
pub use proof::{MIN_SECRET_LEN, PEER_PROOF, PeerSecret, Signed};
pub use topology::{Owner, Peer, Settings, Topology};

/// REPLICA_ID's settings: who the replicas are, and the secret they prove themselves with.
#[derive(Debug, Clone, PartialEq)]
pub struct Replicas {
    pub topology: Topology,
    pub secret: PeerSecret,
}

/// The header a replica names itself in on a call it forwards.
pub const FORWARDED_BY: &str = "x-text-browser-forwarded-by";

/// A request extension: a peer (named) forwarded this request, with a right proof.
#[derive(Debug, Clone)]
pub struct ForwardedBy(pub String);
