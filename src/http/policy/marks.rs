//! Remembered misses and failures: a bounded map of marks that expire,
//! each delay doubling while they come back to back.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::Key;

/// Remembered misses (or failures): at most `cap`, oldest forgotten first.
pub(crate) struct Marks {
    map: HashMap<Key, Mark>,
    /// Insertion order, with stale entries (a key marked again) skipped
    /// when met and compacted once they outnumber the live ones.
    order: VecDeque<(Key, u64)>,
    cap: usize,
    seq: u64,
    /// Adds up to a quarter of the delay (by the caller's draw), so that
    /// the clients of a registry that was down do not all come back at once.
    jitter: bool,
}

/// One remembered miss or failure.
pub(crate) struct Mark {
    until: Instant,
    delay: Duration,
    seq: u64,
    why: Arc<str>,
    /// A registration the registry refused, not a transport failure.
    refused: bool,
}

impl Mark {
    /// Why the lookup failed (empty for a miss).
    pub(crate) fn why(&self) -> &str {
        &self.why
    }

    /// Whether the registry refused a registration (rather than failing).
    pub(crate) fn refused(&self) -> bool {
        self.refused
    }
}

impl Marks {
    /// At most `cap` marks; with `jitter`, delays are spread.
    pub(crate) fn new(cap: usize, jitter: bool) -> Marks {
        Marks {
            map: HashMap::new(),
            order: VecDeque::new(),
            cap,
            seq: 0,
            jitter,
        }
    }

    /// The mark of `key`, if it has not expired at `now`.
    pub(crate) fn live(&self, key: &Key, now: Instant) -> Option<&Mark> {
        self.map.get(key).filter(|mark| mark.until > now)
    }

    /// Marks `key` at `now` for `base` (doubled from the last mark when
    /// that one expired less than its delay ago, up to `max`), plus
    /// `draw` (in `[0, 1)`) times a quarter of it with jitter on.
    pub(crate) fn insert(
        &mut self,
        key: Key,
        base: Duration,
        max: Duration,
        why: Arc<str>,
        now: Instant,
        draw: f64,
    ) {
        let delay = match self.map.get(&key) {
            // Consecutive: the delay doubles. Long after the last one: anew.
            Some(mark) if now < mark.until + mark.delay => (mark.delay * 2).min(max),
            _ => base.min(max),
        };
        self.seq += 1;
        let seq = self.seq;
        let extra = if self.jitter {
            delay.mul_f64(draw.clamp(0.0, 1.0) / 4.0)
        } else {
            Duration::ZERO
        };
        self.map.insert(
            key.clone(),
            Mark {
                until: now + delay + extra,
                delay,
                seq,
                why,
                refused: false,
            },
        );
        self.order.push_back((key, seq));
        while self.map.len() > self.cap {
            let Some((old, old_seq)) = self.order.pop_front() else {
                break;
            };
            if self.map.get(&old).is_some_and(|mark| mark.seq == old_seq) {
                self.map.remove(&old);
            }
        }
        if self.order.len() > 2 * self.cap + 16 {
            let map = &self.map;
            self.order
                .retain(|(key, seq)| map.get(key).is_some_and(|mark| mark.seq == *seq));
        }
    }

    /// Marks `key`'s mark as a refused registration.
    pub(crate) fn mark_refused(&mut self, key: &Key) {
        if let Some(mark) = self.map.get_mut(key) {
            mark.refused = true;
        }
    }

    /// Forgets `key`'s mark.
    pub(crate) fn remove(&mut self, key: &Key) {
        self.map.remove(key);
    }

    /// How many marks are held (expired ones included, until pushed out).
    pub(crate) fn len(&self) -> usize {
        self.map.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECOND: Duration = Duration::from_secs(1);
    const MAX: Duration = Duration::from_secs(60);

    fn delay_of(marks: &Marks, key: &Key) -> Duration {
        marks.map[key].delay
    }

    #[test]
    fn marks_stay_under_their_cap_oldest_out_first() {
        let mut marks = Marks::new(3, false);
        let now = Instant::now();
        for id in 0..100 {
            marks.insert(Key::Id(id), SECOND, MAX, "".into(), now, 0.0);
        }
        assert_eq!(marks.len(), 3);
        assert!(marks.order.len() <= 2 * 3 + 16);
        assert!(marks.live(&Key::Id(99), now).is_some());
        assert!(marks.live(&Key::Id(97), now).is_some());
        assert!(marks.live(&Key::Id(96), now).is_none());
        // Marking a held key again does not push another out.
        marks.insert(Key::Id(98), SECOND, MAX, "".into(), now, 0.0);
        assert_eq!(marks.len(), 3);
        assert!(marks.live(&Key::Id(97), now).is_some());
    }

    #[test]
    fn back_to_back_marks_double_up_to_the_max_and_start_anew_later() {
        let mut marks = Marks::new(10, false);
        let key = Key::Id(1);
        let mut now = Instant::now();
        let mut seen = Vec::new();
        for _ in 0..9 {
            marks.insert(key.clone(), SECOND, MAX, "".into(), now, 0.0);
            let delay = delay_of(&marks, &key);
            seen.push(delay.as_secs());
            // Live until its delay ends, expired after.
            assert!(marks
                .live(&key, now + delay - Duration::from_millis(1))
                .is_some());
            assert!(marks.live(&key, now + delay).is_none());
            // Asked again right when it expired: consecutive.
            now += delay;
        }
        assert_eq!(seen, [1, 2, 4, 8, 16, 32, 60, 60, 60]);
        // Long after (more than its delay past its end): the base again.
        now += MAX + MAX;
        marks.insert(key.clone(), SECOND, MAX, "".into(), now, 0.0);
        assert_eq!(delay_of(&marks, &key), SECOND);
    }

    #[test]
    fn jitter_adds_at_most_a_quarter_by_the_draw() {
        let now = Instant::now();
        let key = Key::Id(1);
        for (draw, extra_ms) in [(0.0, 0), (0.5, 125), (0.999, 249)] {
            let mut marks = Marks::new(10, true);
            marks.insert(key.clone(), SECOND, MAX, "down".into(), now, draw);
            let end = now + SECOND + Duration::from_millis(extra_ms);
            assert!(
                marks.live(&key, end - Duration::from_millis(1)).is_some(),
                "{draw}"
            );
            assert!(
                marks.live(&key, end + Duration::from_millis(2)).is_none(),
                "{draw}"
            );
            assert_eq!(marks.live(&key, now).unwrap().why(), "down");
        }
        // Without jitter the draw is ignored.
        let mut marks = Marks::new(10, false);
        marks.insert(key.clone(), SECOND, MAX, "".into(), now, 0.999);
        assert!(marks.live(&key, now + SECOND).is_none());
    }

    #[test]
    fn removed_marks_are_gone() {
        let mut marks = Marks::new(10, false);
        let now = Instant::now();
        marks.insert(Key::Id(1), SECOND, MAX, "".into(), now, 0.0);
        marks.remove(&Key::Id(1));
        assert!(marks.live(&Key::Id(1), now).is_none());
        assert_eq!(marks.len(), 0);
    }
}
