//! Requests spaced to hold a backfill to a rate.

use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Spaces requests so that `rate` units per second are not exceeded, over
/// every segment: each request reserves its share of time after the last.
pub(super) struct Pacer {
    per_unit: Duration,
    next: Mutex<Instant>,
}

impl Pacer {
    pub(super) fn new(rate: f64) -> Self {
        Pacer {
            per_unit: Duration::from_secs_f64(1.0 / rate),
            next: Mutex::new(Instant::now()),
        }
    }

    /// How long to wait before spending `units` at `now`.
    pub(super) fn reserve(&self, units: f64, now: Instant) -> Duration {
        let mut next = self.next.lock().unwrap_or_else(|p| p.into_inner());
        let start = (*next).max(now);
        *next = start + self.per_unit.mul_f64(units.max(0.0));
        start - now
    }

    pub(super) async fn take(&self, units: f64) {
        let wait = self.reserve(units, Instant::now());
        if !wait.is_zero() {
            tokio::time::sleep(wait).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Pacer;
    use std::time::{Duration, Instant};

    /// Requests are spaced by their units over the rate, across callers,
    /// and time not used is not saved up beyond now.
    #[test]
    fn the_pacer_spaces_requests_by_their_units() {
        let pacer = Pacer::new(100.0); // 10 ms per unit
        let now = Instant::now();
        *pacer.next.lock().unwrap() = now;
        assert_eq!(pacer.reserve(5.0, now), Duration::ZERO);
        assert_eq!(pacer.reserve(1.0, now), Duration::from_millis(50));
        assert_eq!(pacer.reserve(1.0, now), Duration::from_millis(60));
        let later = now + Duration::from_secs(1);
        assert_eq!(pacer.reserve(1.0, later), Duration::ZERO);
    }
}
