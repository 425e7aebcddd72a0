//! Replicas: running several services side by side (a Kubernetes StatefulSet), each with its own
//! Chromium and sessions, so that any of them can take any call.
//!
//! A session lives in one process. With `REPLICA_ID` set, its id carries its replica
//! (`text-browser-1.<uuid>`), so whichever replica a call reaches knows the owner without asking
//! anyone: there is no shared store and no membership protocol, only names and URLs.
//!
//! - `topology`: this replica's name, the others' URLs (PEERS, PEER_URL_TEMPLATE), who owns an id
//! - `forward`: sends a call to its owner over HTTP (the same JSON-RPC call and key) and brings
//!   the answer back unchanged, or says why it could not (`replica_unavailable`, `wrong_replica`)
//!
//! A forwarded request carries the API key and [`FORWARDED_BY`] naming the peer; the HTTP layer
//! (`http::forwarded`) checks both and marks the request with [`ForwardedBy`], so it is not
//! forwarded again (no loops when two replicas disagree about an owner) nor counted a second time
//! by the rate limit (the replica the client reached counted it).
//!
//! Without `REPLICA_ID` none of this runs and session ids are bare UUIDs, as before.

mod forward;
mod topology;

pub use forward::{Forwarder, Outcome, Relayed, ReplicaError, Transport};
pub use topology::{Owner, Topology};

/// The header a replica names itself in on a call it forwards.
pub const FORWARDED_BY: &str = "x-text-browser-forwarded-by";

/// A request extension: a peer (named) forwarded this request, with the right API key.
#[derive(Debug, Clone)]
pub struct ForwardedBy(pub String);
