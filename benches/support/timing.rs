//! Wall-clock timing for the benches that print their own tables (the
//! corpus, peer and fallback benches), outside criterion.

use std::hint::black_box;
use std::time::{Duration, Instant};

/// The fastest of `rounds` timings of one call of `f`, each round over as
/// many calls as took about 5 ms at first.
pub fn fastest<T>(rounds: usize, mut f: impl FnMut() -> T) -> Duration {
    let start = Instant::now();
    let mut reps = 0u32;
    while start.elapsed() < Duration::from_millis(5) {
        black_box(f());
        reps += 1;
    }
    let mut best = Duration::MAX;
    for _ in 0..rounds {
        let start = Instant::now();
        for _ in 0..reps {
            black_box(f());
        }
        best = best.min(start.elapsed() / reps);
    }
    best
}

/// [`fastest`] in microseconds.
#[allow(dead_code)]
pub fn fastest_us<T>(rounds: usize, f: impl FnMut() -> T) -> f64 {
    fastest(rounds, f).as_secs_f64() * 1e6
}
