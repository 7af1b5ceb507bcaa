//! The token bucket: requests started per second, with bursts.

use std::time::Instant;

/// `per_second` requests a second, bursts of as many.
pub(crate) struct Bucket {
    per_second: f64,
    tokens: f64,
    last: Instant,
}

impl Bucket {
    /// A full bucket at `now`.
    pub(crate) fn new(per_second: u32, now: Instant) -> Bucket {
        Bucket {
            per_second: f64::from(per_second),
            tokens: f64::from(per_second),
            last: now,
        }
    }

    /// Takes a token at `now`, if one is left.
    pub(crate) fn take(&mut self, now: Instant) -> bool {
        let elapsed = now.saturating_duration_since(self.last).as_secs_f64();
        self.last = self.last.max(now);
        self.tokens = (self.tokens + elapsed * self.per_second).min(self.per_second);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn the_bucket_refills_at_its_rate() {
        let start = Instant::now();
        let mut bucket = Bucket::new(20, start);
        assert_eq!((0..100).filter(|_| bucket.take(start)).count(), 20);
        let later = start + Duration::from_millis(500);
        assert_eq!((0..100).filter(|_| bucket.take(later)).count(), 10);
        // A long pause refills it to a burst, no more.
        let much_later = later + Duration::from_secs(3600);
        assert_eq!((0..100).filter(|_| bucket.take(much_later)).count(), 20);
    }

    #[test]
    fn a_clock_that_goes_back_gives_no_tokens() {
        let start = Instant::now() + Duration::from_secs(10);
        let mut bucket = Bucket::new(1, start);
        assert!(bucket.take(start));
        assert!(!bucket.take(start - Duration::from_secs(5)));
        // Time before `last` is not counted twice.
        assert!(!bucket.take(start + Duration::from_millis(500)));
        assert!(bucket.take(start + Duration::from_secs(1)));
    }
}
