//! What forwarding costs: the same cheap call on a session, sent to the replica that owns it and
//! to another replica that forwards it, alternately in the same rounds (`cargo bench -- replicas`).

use serde_json::json;

use crate::service::Service;
use crate::table::{Samples, time};

pub async fn report(base: &str, rounds: usize) {
    let ports: Vec<u16> = (0..2)
        .map(|_| std::net::TcpListener::bind("127.0.0.1:0").unwrap())
        .collect::<Vec<_>>()
        .iter()
        .map(|l| l.local_addr().unwrap().port())
        .collect();
    let peers = format!("r-0=http://127.0.0.1:{},r-1=http://127.0.0.1:{}", ports[0], ports[1]);
    let start = |i: usize| {
        let (name, port) = (format!("r-{i}"), ports[i].to_string());
        Service::start(&[
            ("REPLICA_ID", name.as_str()),
            ("PEERS", peers.as_str()),
            ("PORT", port.as_str()),
            ("PEER_SECRET", "bench-peers-0123456789"),
        ])
    };
    let (owner, other) = (start(0), start(1));
    let sid = owner.session().await;
    owner.ok("page.goto", json!({ "session_id": sid, "url": format!("{base}/") })).await;
    let (mut direct, mut forwarded) = (Samples::default(), Samples::default());
    let params = json!({ "session_id": sid, "selector": "h1" });
    // Warm both paths (connections, pools) before measuring.
    for _ in 0..20 {
        owner.ok("page.text", params.clone()).await;
        other.ok("page.text", params.clone()).await;
    }
    for _ in 0..rounds {
        direct.push(time(owner.ok("page.text", params.clone())).await);
        forwarded.push(time(other.ok("page.text", params.clone())).await);
    }
    let (d, f) = (direct.p50(), forwarded.p50());
    println!("forwarding: page.text (h1) on a session of replica r-0, {rounds} rounds, alternating");
    println!("  sent to its owner r-0         p50 {d:.2} ms  p95 {:.2} ms", direct.percentile(0.95));
    println!("  sent to r-1, forwarded to r-0 p50 {f:.2} ms  p95 {:.2} ms", forwarded.percentile(0.95));
    println!("  added by forwarding           p50 {:.2} ms ({:.2}x)", f - d, f / d);
}
