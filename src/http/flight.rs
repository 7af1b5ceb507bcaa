//! The resolver's IO: a lookup runs the [`Policy`] under one mutex, starts
//! the fetch it asks for on a thread of its own, and waits for a flight to
//! land on a condvar, at most `blocking_wait`.

use std::time::{Duration, Instant};

use dataschema_core::Schema;
use parking_lot::{Condvar, Mutex};

use super::fetch::Fetcher;
use super::policy::{Fetched, Key, Landed, Miss, Policy, Step};

/// What the resolver's clones share.
pub(crate) struct Shared {
    pub(crate) fetcher: Fetcher,
    pub(crate) blocking_wait: Duration,
    pub(crate) policy: Mutex<Policy>,
    pub(crate) landed: Condvar,
}

impl Shared {
    /// Looks `key` up: from what the policy holds, or by a fetch (started
    /// here, or by another lookup), waited for at most `blocking_wait`.
    /// `content` is the schema of a [`Key::Content`], for its fetch.
    pub(crate) fn lookup(
        self: &std::sync::Arc<Shared>,
        key: Key,
        content: Option<&Schema>,
    ) -> Landed {
        let deadline = Instant::now() + self.blocking_wait;
        let mut policy = self.policy.lock();
        let (flight, started) = match policy.poll(&key, Instant::now()) {
            Step::Answer(answer) => return answer,
            Step::Wait(flight) => (flight, false),
            Step::Fetch(flight) => {
                let background = self.clone();
                let flight_key = key.clone();
                let content = content.cloned();
                let spawned = std::thread::Builder::new()
                    .name("dataschema-http".into())
                    .spawn(move || {
                        let fetched =
                            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                                background.fetcher.fetch(&flight_key, content.as_ref())
                            }))
                            .unwrap_or_else(|_| Err(Miss::Transient("the fetch panicked".into())));
                        background.land(&flight_key, fetched);
                    });
                if let Err(err) = spawned {
                    let why = format!("no thread for the fetch: {err}");
                    policy.abandon(&key, why.clone());
                    return Err(Miss::Transient(why));
                }
                if self.blocking_wait.is_zero() {
                    return Err(Miss::Transient(
                        "fetch started in the background (blocking_wait is zero)".into(),
                    ));
                }
                (flight, true)
            }
        };
        loop {
            // Set under the mutex, before `notify_all`: no wake-up is lost.
            if let Some(landed) = flight.get() {
                return landed.clone();
            }
            if Instant::now() >= deadline {
                return Err(Miss::Transient(if started {
                    "the fetch is still running (waiting stopped)".into()
                } else {
                    "another lookup's fetch is still running".into()
                }));
            }
            self.landed.wait_until(&mut policy, deadline);
        }
    }

    fn land(&self, key: &Key, fetched: Fetched) {
        let draw = random_unit();
        self.policy.lock().land(key, fetched, Instant::now(), draw);
        self.landed.notify_all();
    }
}

/// A number in `[0, 1)`, from the standard library's random hash keys.
fn random_unit() -> f64 {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(0);
    (hasher.finish() >> 11) as f64 / (1u64 << 53) as f64
}
