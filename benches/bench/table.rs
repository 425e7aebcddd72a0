//! Samples, percentiles and the printed table.

use std::future::Future;
use std::time::Instant;

/// Milliseconds `op` takes.
pub async fn time<Fut: Future>(op: Fut) -> f64 {
    let start = Instant::now();
    op.await;
    start.elapsed().as_secs_f64() * 1000.0
}

/// Latencies in milliseconds.
#[derive(Default)]
pub struct Samples(Vec<f64>);

impl Samples {
    pub fn push(&mut self, ms: f64) {
        self.0.push(ms);
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn percentile(&self, p: f64) -> f64 {
        let mut sorted = self.0.clone();
        sorted.sort_by(f64::total_cmp);
        let rank = ((sorted.len() as f64 - 1.0) * p).round() as usize;
        sorted.get(rank).copied().unwrap_or(f64::NAN)
    }

    pub fn p50(&self) -> f64 {
        self.percentile(0.5)
    }
}

/// What a row is held to.
pub enum Target {
    /// p50 at most this many times the floor.
    Ratio(f64),
    /// p50 at most this many milliseconds.
    Ms(f64),
    /// p50 at most the floor plus this many milliseconds.
    FloorPlus(f64),
    None,
}

pub fn header() {
    println!(
        "{:<34} {:>4} {:>9} {:>9} {:>9} {:>7}  {:<16} met",
        "method", "n", "p50 ms", "p95 ms", "floor ms", "ratio", "target"
    );
}

pub fn row(what: &str, samples: &Samples, floor: Option<f64>, target: Target) {
    let (p50, p95) = (samples.p50(), samples.percentile(0.95));
    let floor_text = floor.map_or("-".into(), |f| format!("{f:.2}"));
    let ratio = floor.map_or("-".into(), |f| format!("{:.2}x", p50 / f));
    let (target_text, met) = match (target, floor) {
        (Target::Ratio(r), Some(f)) => (format!("<= {r}x floor"), Some(p50 <= r * f)),
        (Target::Ms(ms), _) => (format!("<= {ms} ms"), Some(p50 <= ms)),
        (Target::FloorPlus(ms), Some(f)) => (format!("<= floor+{ms} ms"), Some(p50 <= f + ms)),
        _ => (String::new(), None),
    };
    let met = met.map_or("", |m| if m { "yes" } else { "NO" });
    println!(
        "{what:<34} {:>4} {p50:>9.2} {p95:>9.2} {floor_text:>9} {ratio:>7}  {target_text:<16} {met}",
        samples.len()
    );
}
