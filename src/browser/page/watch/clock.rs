//! One clock for everything a page does: milliseconds since the Unix epoch.
//!
//! CDP dates network and lifecycle events by a monotonic clock (seconds since the browser's
//! start), console calls and exceptions by the wall clock, and our DOM watcher and the service
//! itself by the wall clock too. `Network.requestWillBeSent` carries both (`timestamp` and
//! `wallTime`), which ties the two together; until one has been seen, the first monotonic time is
//! tied to the moment it arrived (off by the event's delivery delay, well under a millisecond
//! here).

use std::time::{SystemTime, UNIX_EPOCH};

use tokio::time::Instant;

/// Milliseconds since the Unix epoch, now.
pub fn now_ms() -> f64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64() * 1000.0)
}

/// The moment the pump applies an event: both clocks, read once by the pump and handed to the
/// reducer, which reads none itself.
#[derive(Debug, Clone, Copy)]
pub struct Now {
    /// Milliseconds since the Unix epoch.
    pub wall: f64,
    pub instant: Instant,
}

impl Now {
    pub fn read() -> Self {
        Self { wall: now_ms(), instant: Instant::now() }
    }
}

#[derive(Debug, Default, Clone, Copy)]
pub struct Clock {
    /// wall ms − monotonic ms.
    offset: Option<f64>,
    /// The offset comes from a pair the browser gave (not from an arrival time).
    exact: bool,
}

impl Clock {
    /// Learns the offset from a moment the browser dated both ways.
    pub fn learn(&mut self, monotonic_s: f64, wall_s: f64) {
        if monotonic_s > 0.0 && wall_s > 0.0 {
            self.offset = Some(wall_s * 1000.0 - monotonic_s * 1000.0);
            self.exact = true;
        }
    }

    /// A monotonic CDP time (seconds) as ms since the Unix epoch; 0 (unknown) gives `now` (ms
    /// since the Unix epoch), the moment it arrived.
    pub fn wall(&mut self, monotonic_s: f64, now: f64) -> f64 {
        if monotonic_s <= 0.0 {
            return now;
        }
        let offset = *self.offset.get_or_insert(now - monotonic_s * 1000.0);
        monotonic_s * 1000.0 + offset
    }

    #[cfg(test)]
    pub fn is_exact(&self) -> bool {
        self.exact
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_monotonic_time_maps_through_the_learned_pair() {
        let mut clock = Clock::default();
        clock.learn(100.0, 1_700_000_000.0);
        assert!(clock.is_exact());
        assert_eq!(clock.wall(100.5, now_ms()), 1_700_000_000_500.0);
    }

    #[test]
    fn before_any_pair_the_first_time_is_tied_to_its_arrival() {
        let mut clock = Clock::default();
        let before = now_ms();
        let first = clock.wall(50.0, now_ms());
        assert!(first >= before && first <= now_ms());
        assert_eq!(clock.wall(50.25, now_ms()) - first, 250.0);
    }
}
