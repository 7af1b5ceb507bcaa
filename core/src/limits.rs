//! Bounds on reading outside input that no format states, each with a safe
//! default and a setter, and the one place every compile runs.
//!
//! Schema bytes are input: a registry's answer, a request's body, a file.
//! The readers below them (`protox`, `prost-reflect`, `serde_json`,
//! `apache-avro`, `jsonschema`) recurse as deep as the text nests, so two
//! things keep a hostile schema from overflowing the stack of whatever
//! thread asked (a Tokio worker has 2 MiB):
//!
//! * **nesting is bounded before a reader sees the text**:
//!   [`max_proto_nesting`] brackets in `.proto` text (JSON is read by
//!   `serde_json`, which stops at 128; an Avro schema's types at 64
//!   levels);
//! * **every compile runs on a thread whose stack this crate sizes**
//!   ([`on_compile_stack`]: [`compile_stack_bytes`], derived from the
//!   nesting bound), never on the caller's.
//!
//! Datums are input too: [`max_avro_collection_bytes`] bounds the items an
//! Avro array or map may declare (as `apache-avro` bounds them), and
//! [`max_avro_transcode_bytes`] what reading one version as another may
//! write.
//!
//! The bounds are process-wide, as `apache-avro`'s allocation bound is: set
//! them once, at start-up, before the first compile.

use std::sync::atomic::{AtomicUsize, Ordering};

/// The default of [`max_proto_nesting`]: 64 levels of `{`, `[`, `(` and
/// `<` in a `.proto` file. `protoc` nests messages at most 32 deep; an
/// option's aggregate value, a field's options and a map's type add a few
/// levels to that.
pub const DEFAULT_MAX_PROTO_NESTING: usize = 64;

/// The largest nesting [`set_max_proto_nesting`] takes.
pub const MAX_PROTO_NESTING_CEILING: usize = 4096;

static MAX_PROTO_NESTING: AtomicUsize = AtomicUsize::new(DEFAULT_MAX_PROTO_NESTING);

/// How deep brackets (`{`, `[`, `(`, `<`, outside comments and string
/// literals) may nest in `.proto` text before it is refused, unread:
/// [`DEFAULT_MAX_PROTO_NESTING`] unless set.
pub fn max_proto_nesting() -> usize {
    MAX_PROTO_NESTING.load(Ordering::Relaxed)
}

/// Sets [`max_proto_nesting`] for the process (clamped to
/// `1..=`[`MAX_PROTO_NESTING_CEILING`]); the stack of a compile's thread
/// grows with it ([`compile_stack_bytes`]).
pub fn set_max_proto_nesting(levels: usize) {
    MAX_PROTO_NESTING.store(
        levels.clamp(1, MAX_PROTO_NESTING_CEILING),
        Ordering::Relaxed,
    );
}

/// The default of [`max_avro_collection_bytes`]: 512 MiB, `apache-avro`'s
/// own default (`apache_avro::util::DEFAULT_MAX_ALLOCATION_BYTES`).
pub const DEFAULT_MAX_AVRO_COLLECTION_BYTES: usize = 512 << 20;

static MAX_AVRO_COLLECTION_BYTES: AtomicUsize = AtomicUsize::new(DEFAULT_MAX_AVRO_COLLECTION_BYTES);

/// How many items one Avro array or map of a datum may declare, across
/// its blocks, stated as `apache-avro` states it: the bytes its decoder
/// may allocate for the collection's values
/// ([`DEFAULT_MAX_AVRO_COLLECTION_BYTES`] unless set). `apache-avro`
/// refuses an array whose item count times the size of its `Value` (56
/// bytes) passes the bound, and a map whose entry count times the size of
/// a `(String, Value)` (80 bytes) does (`safe_collection_len` in its
/// `decode.rs`): 9,586,980 items, 6,710,886 entries by default. The
/// validating scanner refuses the same datums, so that a datum the guard
/// calls valid is one the decoder reads; without the bound, an 11-byte
/// datum of `{"type":"array","items":"null"}` declares 2^62 items (Java's
/// `BinaryDecoder` refuses more than 2^31 - 9, its
/// `SystemLimitException.checkMaxCollectionLength`). Read when a schema
/// is compiled.
pub fn max_avro_collection_bytes() -> usize {
    MAX_AVRO_COLLECTION_BYTES.load(Ordering::Relaxed)
}

/// Sets [`max_avro_collection_bytes`] for the process (at least 1; set it
/// as `apache_avro::util::max_allocation_bytes` is set where that crate
/// decodes the same data).
pub fn set_max_avro_collection_bytes(bytes: usize) {
    MAX_AVRO_COLLECTION_BYTES.store(bytes.max(1), Ordering::Relaxed);
}

/// The default of [`max_avro_transcode_bytes`]: 64 MiB.
pub const DEFAULT_MAX_AVRO_TRANSCODE_BYTES: usize = 64 << 20;

static MAX_AVRO_TRANSCODE_BYTES: AtomicUsize = AtomicUsize::new(DEFAULT_MAX_AVRO_TRANSCODE_BYTES);

/// The largest datum reading one Avro version as another may write
/// ([`DEFAULT_MAX_AVRO_TRANSCODE_BYTES`] unless set): a reader's defaults
/// are written once per record read, so a few bytes of a writer's array
/// of empty records can stand for gigabytes of the reader's. A larger
/// result is refused (`ViolationKind::Bounds`), and the work stops when
/// the bound is reached. Read when a transcode starts.
pub fn max_avro_transcode_bytes() -> usize {
    MAX_AVRO_TRANSCODE_BYTES.load(Ordering::Relaxed)
}

/// Sets [`max_avro_transcode_bytes`] for the process (at least 1).
pub fn set_max_avro_transcode_bytes(bytes: usize) {
    MAX_AVRO_TRANSCODE_BYTES.store(bytes.max(1), Ordering::Relaxed);
}

/// An estimate of the memory a compiled schema (or a schema read for a
/// compatibility check) holds, from its bytes alone: one scan, no parse.
/// 4 KiB (the fixed parts), twice the bytes (a compile may keep the text
/// and its parsed form), and 512 bytes per structural byte (`{`, `[`,
/// `,`, `:`, `;`, `=`: about one per value, member or declaration), which
/// decides for most schemas: each value becomes nodes of a validator's
/// tree and of the scanner's plan. Measured with a counting allocator on
/// schemas of several shapes (`tests/guard/cache_bound.rs`), a compile
/// keeps up to about 340 bytes per structural byte (a JSON Schema of
/// 5,000 small properties keeps 43 times its 213 KB). A schema written to
/// look small is counted larger than it is, never smaller. What the
/// guard's compiled-validator cache and the registry's readings are
/// counted by.
pub fn held_estimate(schema: &[u8]) -> usize {
    let structural = schema
        .iter()
        .filter(|&&b| matches!(b, b'{' | b'[' | b',' | b':' | b';' | b'='))
        .count();
    (4usize << 10)
        .saturating_add(schema.len().saturating_mul(2))
        .saturating_add(structural.saturating_mul(512))
}

/// The stack of the thread a compile runs on ([`on_compile_stack`]): 8 MiB,
/// plus 128 KiB per level of [`max_proto_nesting`] (16 MiB by default).
/// The compiler of `.proto` text takes about 40 KiB of stack per level in
/// a debug build, a few in a release one; the JSON Schema analysis bounds
/// its own compile to about 1.1 MiB. The memory is reserved, not used: a
/// compile touches the pages it needs.
pub fn compile_stack_bytes() -> usize {
    (8 << 20) + max_proto_nesting() * (128 << 10)
}

thread_local! {
    /// Whether this thread is a compile thread (then a nested
    /// [`on_compile_stack`] runs inline).
    static ON_COMPILE_STACK: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Why [`on_compile_stack`] could not run its work.
#[derive(Debug)]
pub enum StackError {
    /// No thread could be started (the process is out of threads or
    /// memory): a passing failure, worth trying again later.
    Spawn(std::io::Error),
    /// The work panicked; the panic was caught on its own thread.
    Panicked,
}

impl std::fmt::Display for StackError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StackError::Spawn(err) => {
                write!(f, "no thread could be started for the compile: {err}")
            }
            StackError::Panicked => f.write_str("the compiler failed on the schema"),
        }
    }
}

impl std::error::Error for StackError {}

/// Runs `work` on a thread of its own whose stack is
/// [`compile_stack_bytes`], and answers what it returned; the caller's
/// thread waits. Inside such a thread already, `work` runs inline. A
/// panic in `work` is [`StackError::Panicked`], not the caller's panic.
pub fn on_compile_stack<T: Send>(work: impl FnOnce() -> T + Send) -> Result<T, StackError> {
    if ON_COMPILE_STACK.with(std::cell::Cell::get) {
        return std::panic::catch_unwind(std::panic::AssertUnwindSafe(work))
            .map_err(|_| StackError::Panicked);
    }
    let _running = Running::start();
    std::thread::scope(|scope| {
        let handle = std::thread::Builder::new()
            .name("dataschema-compile".into())
            .stack_size(compile_stack_bytes())
            .spawn_scoped(scope, || {
                ON_COMPILE_STACK.with(|on| on.set(true));
                work()
            })
            .map_err(StackError::Spawn)?;
        handle.join().map_err(|_| StackError::Panicked)
    })
}

/// Compile threads of [`on_compile_stack`] running now.
static COMPILES_RUNNING: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// One compile thread counted in [`COMPILES_RUNNING`] while it lives; the
/// last of a burst to end gives the allocator's free memory back.
struct Running;

impl Running {
    fn start() -> Running {
        COMPILES_RUNNING.fetch_add(1, std::sync::atomic::Ordering::AcqRel);
        Running
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if COMPILES_RUNNING.fetch_sub(1, std::sync::atomic::Ordering::AcqRel) == 1 {
            release_free_memory();
        }
    }
}

/// Returns the free memory of the allocator's heaps to the system. A compile of a large schema makes millions of
/// small allocations on a thread of its own, and glibc keeps what such a
/// thread's arena freed for later use: a burst of compiles would leave
/// the process at its peak for good. `malloc_trim(0)` releases the free
/// pages of every arena (glibc 2.8 and later); it costs a walk of the
/// heaps, paid once per burst, never on a validation's path. Elsewhere
/// (musl, other systems, another global allocator's own heaps) nothing
/// is done.
///
/// Called by [`on_compile_stack`] when its last thread ends, and by the
/// server when its last compile slot is given back (its compatibility
/// analyses run on the blocking pool's threads, with the same effect).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub fn release_free_memory() {
    extern "C" {
        fn malloc_trim(pad: usize) -> std::os::raw::c_int;
    }
    // SAFETY: `malloc_trim` takes no pointer and touches only the
    // allocator's own free lists, under each arena's lock; glibc provides
    // it on every Linux target this cfg selects.
    unsafe {
        malloc_trim(0);
    }
}

/// Does nothing here: only glibc's heaps are trimmed (see the Linux
/// build's documentation).
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn release_free_memory() {}

/// Where `text` (`.proto` source) nests brackets deeper than
/// [`max_proto_nesting`]: `Err` says how deep and where (line and
/// column, from 1). Brackets inside comments and string literals do not
/// count; unbalanced ones are the parser's to report.
pub fn check_proto_nesting(text: &str) -> Result<(), String> {
    let max = max_proto_nesting();
    let bytes = text.as_bytes();
    let (mut depth, mut line, mut line_start) = (0usize, 1usize, 0usize);
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\n' => {
                line += 1;
                line_start = i + 1;
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i < bytes.len() && !(bytes[i] == b'*' && bytes.get(i + 1) == Some(&b'/')) {
                    if bytes[i] == b'\n' {
                        line += 1;
                        line_start = i + 1;
                    }
                    i += 1;
                }
                i += 2;
                continue;
            }
            quote @ (b'"' | b'\'') => {
                i += 1;
                while i < bytes.len() && bytes[i] != quote && bytes[i] != b'\n' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'{' | b'[' | b'(' | b'<' => {
                depth += 1;
                if depth > max {
                    let column = text[line_start..i].chars().count() + 1;
                    return Err(format!(
                        "the .proto text nests brackets more than {max} levels deep (line \
                         {line}, column {column}): it is refused unread"
                    ));
                }
            }
            b'}' | b']' | b')' | b'>' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nesting_is_counted_outside_comments_and_strings() {
        let deep = |n: usize| format!("option (o) = {}{};", "{m: ".repeat(n), "}".repeat(n));
        assert!(check_proto_nesting(&deep(DEFAULT_MAX_PROTO_NESTING)).is_ok());
        let err = check_proto_nesting(&deep(DEFAULT_MAX_PROTO_NESTING + 1)).unwrap_err();
        assert!(err.contains("line 1, column 270"), "{err}");
        let quiet = format!(
            "// {}\n/* {} */\nstring s = 1 [default = \"{}\"];\n'{}'",
            "{".repeat(500),
            "[".repeat(500),
            "(".repeat(500),
            "<".repeat(500)
        );
        assert!(check_proto_nesting(&quiet).is_ok());
        let escaped = format!("x = \"\\\"{}\";", "{".repeat(500));
        assert!(check_proto_nesting(&escaped).is_ok());
        let unclosed = format!("/* {}", "{".repeat(500));
        assert!(check_proto_nesting(&unclosed).is_ok());
    }

    #[test]
    fn work_runs_on_a_sized_stack_and_a_panic_is_caught() {
        let name = on_compile_stack(|| std::thread::current().name().map(str::to_owned)).unwrap();
        assert_eq!(name.as_deref(), Some("dataschema-compile"));
        // Nested: inline, on the same thread.
        let nested = on_compile_stack(|| {
            let outer = std::thread::current().id();
            on_compile_stack(move || std::thread::current().id() == outer).unwrap()
        })
        .unwrap();
        assert!(nested);
        assert!(matches!(
            on_compile_stack(|| -> () { panic!("boom") }),
            Err(StackError::Panicked)
        ));
    }
}
