//! `cargo bench`: what every method costs on top of Chromium, measured in one run.
//!
//! It starts the fixtures app and the service (release build), calls each method through real
//! HTTP JSON-RPC, and measures next to it the raw chromiumoxide floor for the same work on a
//! Chromium of its own. The machine is noisy, so every figure is a p50/p95 of many rounds with its
//! floor measured in turn in the same rounds, and held to its target as a ratio.
//!
//! - `service`: the fixtures and the service as child processes, and a keep-alive RPC client
//! - `floors`: the raw chromiumoxide work each method is compared with
//! - `latency`: per-method rows; `throughput`: 8 sessions at once; `memory`: resident memory
//! - `churn`: the DOM watcher's cost on a page rewriting 2,000 nodes ten times a second
//! - `flood`: a page sending 10,000 socket frames a second for 10 s: memory, another session's reads
//! - `cookies`: a page setting 1,000 cookies beside another session's reads, and the RSS
//! - `egress`: page loads through a session's egress proxy vs no proxy
//! - `replicas`: a call sent to the replica owning its session vs forwarded by another
//! - `maps`: a click on the production React fixture with source maps cold, warm and off, and a
//!   session's map cache on 5 MB maps
//! - `table`: samples, percentiles, the printed table
//!
//! BENCH_ROUNDS (default 30) sets the rounds per row, BENCH_CYCLES (default 1000) the
//! create/close cycles of the memory check. `cargo bench -- storm` runs only the memory storm,
//! `cargo bench -- throughput` only the 8-session throughput, `cargo bench -- churn` only the DOM
//! watcher's cost, `cargo bench -- flood` only the socket flood's, `cargo bench -- cookies` only the
//! 1,000-cookie page's, `cargo bench -- replicas` only the cost of forwarding a call to another
//! replica, `cargo bench -- maps` only the source-map rows.

mod churn;
mod cookies;
mod egress;
mod flood;
mod floors;
mod latency;
mod maps;
mod memory;
mod replicas;
mod service;
mod table;
mod throughput;

fn env_num(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

#[tokio::main]
async fn main() {
    let rounds = env_num("BENCH_ROUNDS", 30).max(1);
    let cycles = env_num("BENCH_CYCLES", 1000);
    let (_fixtures, base) = service::start_fixtures();
    if std::env::args().any(|a| a == "replicas") {
        replicas::report(&base, rounds * 20).await;
        return;
    }
    let svc = service::Service::start(&[("MAX_SESSIONS", "16")]);
    if std::env::args().any(|a| a == "maps") {
        table::header();
        maps::report(&svc, &base, rounds).await;
        maps::cap(&svc).await;
        return;
    }
    if std::env::args().any(|a| a == "storm") {
        memory::storm(&svc, &base).await;
        return;
    }
    if std::env::args().any(|a| a == "flood") {
        flood::report(&svc, &base, rounds).await;
        return;
    }
    let raw = floors::Raw::start().await;
    if std::env::args().any(|a| a == "throughput") {
        throughput::report(&svc, &raw, &base).await;
        raw.chromium.shutdown().await;
        return;
    }
    if std::env::args().any(|a| a == "cookies") {
        cookies::report(&svc, &base, rounds).await;
        return;
    }
    if std::env::args().any(|a| a == "churn") {
        churn::report(&svc, &raw, &base, rounds).await;
        raw.chromium.shutdown().await;
        return;
    }

    println!("text-browser benchmark: {rounds} rounds per row; floors measured in the same rounds\n");
    // Memory first, while the service has done nothing else: the allocator keeps what the big
    // snapshots below needed, which is reported at the end.
    memory::report(&svc, &base, cycles).await;
    println!();
    table::header();
    latency::report(&svc, &raw, &base, rounds).await;
    maps::report(&svc, &base, rounds).await;
    maps::cap(&svc).await;
    egress::report(&raw.chromium, &base, rounds).await;
    churn::report(&svc, &raw, &base, rounds).await;
    flood::report(&svc, &base, rounds).await;
    cookies::report(&svc, &base, rounds).await;
    println!();
    throughput::report(&svc, &raw, &base).await;
    println!("service RSS after all of the above (incl. 2,000-element snapshots): {:.1} MiB", memory::rss_mib(svc.pid));
    println!();
    memory::storm(&svc, &base).await;
    println!();
    replicas::report(&base, rounds * 20).await;

    raw.chromium.shutdown().await;
}
