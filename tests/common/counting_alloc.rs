//! A global allocator that counts, per thread, the allocations made and the
//! bytes live, for the tests that show a path allocates nothing or holds a
//! bounded amount at once. An area's test binary installs it with
//! `#[global_allocator] static GLOBAL: Counting = Counting;`.
//!
//! Everything is counted per thread: the test harness runs a binary's tests
//! on threads of their own, and its own threads (output capture, timers)
//! allocate too, so a process-wide count would see its neighbours.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

pub struct Counting;

thread_local! {
    /// This thread's allocations (and reallocations).
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
    /// Bytes this thread allocated less bytes it freed (negative when it
    /// frees what another thread allocated).
    static LIVE: Cell<isize> = const { Cell::new(0) };
    /// The most `LIVE` has been since `peak_during` last reset it.
    static PEAK: Cell<isize> = const { Cell::new(0) };
    /// Bytes this thread allocated (and grew by reallocating), never
    /// less what it freed.
    static ALLOCATED: Cell<usize> = const { Cell::new(0) };
}

/// `try_with` throughout: a thread being torn down may still allocate.
fn grew(delta: isize, counted: bool) {
    if counted {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
    }
    if delta > 0 {
        let _ = ALLOCATED.try_with(|n| n.set(n.get() + delta.unsigned_abs()));
    }
    let _ = LIVE.try_with(|live| {
        let now = live.get() + delta;
        live.set(now);
        let _ = PEAK.try_with(|peak| peak.set(peak.get().max(now)));
    });
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grew(layout.size() as isize, true);
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        grew(-(layout.size() as isize), false);
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        grew(new_size as isize - layout.size() as isize, true);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// Allocations this thread made while `f` ran.
pub fn allocations_during(f: impl FnOnce()) -> usize {
    let before = ALLOCATIONS.with(Cell::get);
    f();
    ALLOCATIONS.with(Cell::get) - before
}

/// Bytes this thread allocated while `f` ran (what it freed not taken
/// off): the work of building values, not what they hold at once.
pub fn bytes_during(f: impl FnOnce()) -> usize {
    let before = ALLOCATED.with(Cell::get);
    f();
    ALLOCATED.with(Cell::get) - before
}

/// The most bytes this thread held at once while `f` ran, beyond what it
/// held before, with `f`'s value.
pub fn peak_during<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let base = LIVE.with(Cell::get);
    PEAK.with(|peak| peak.set(base));
    let value = f();
    let peak = PEAK.with(Cell::get);
    (value, usize::try_from(peak - base).unwrap_or(0))
}

/// The bytes this thread holds now (allocated less freed, since it began).
pub fn live() -> isize {
    LIVE.with(Cell::get)
}
