//! Resolution's vocabulary, below the languages' plans: which way a plan
//! runs ([`Direction`]), why a pair cannot be resolved ([`Unresolvable`]),
//! the aliases and options a plan is made with, the seam for migration
//! rules ([`Migration`]), and the helpers every language's plan shares
//! (the path being built, refusals, the output bound). The plans live in
//! each language's folder (`json/resolution.rs`, `avro/resolution.rs`,
//! `protobuf/resolution.rs`); `dispatch/resolution.rs` chooses among them; the
//! public face is `resolve` in `lib.rs`.

// Without a language's plan compiled in, every pair is refused and the
// plan-making helpers have nothing to do.
#![cfg_attr(
    not(any(feature = "json", feature = "avro", feature = "protobuf")),
    allow(unused_imports, unused_variables, dead_code, unreachable_code)
)]

use std::borrow::Cow;
use std::fmt;

pub use crate::aliases::Aliases;
use crate::violation::{Violation, ViolationKind};

/// The most bytes one run of a plan writes,
/// [`limits::max_avro_transcode_bytes`](crate::limits::max_avro_transcode_bytes)
/// (64 MiB unless set), whatever the language: a payload declaring more
/// (billions of empty items read as items that are not empty, defaults
/// repeated per item) is refused, never written.
pub fn max_output() -> usize {
    crate::limits::max_avro_transcode_bytes()
}

/// Which way a plan runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    /// The writer's payload, read in the reader's layout.
    Read,
    /// A payload in the reader's layout, written back in the writer's.
    WriteBack,
}

impl fmt::Display for Direction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Direction::Read => "read",
            Direction::WriteBack => "write back",
        })
    }
}

/// Why a pair of schemas cannot be resolved (one way): where in the
/// reader's data (`/amount`, `/items/*/price`; `*` any array item or map
/// value) and why (`cannot read long as int`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unresolvable {
    path: String,
    reason: String,
}

impl Unresolvable {
    /// A refusal at `path` (a pointer into the reader's data, `""` for the
    /// whole datum), for `reason`.
    pub fn new(path: impl Into<String>, reason: impl Into<String>) -> Unresolvable {
        Unresolvable {
            path: path.into(),
            reason: reason.into(),
        }
    }

    /// Where in the reader's data; empty for the whole datum.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// Why, in words.
    pub fn reason(&self) -> &str {
        &self.reason
    }
}

impl fmt::Display for Unresolvable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = if self.path.is_empty() {
            "/"
        } else {
            &self.path
        };
        write!(f, "{} at {path}", self.reason)
    }
}

impl std::error::Error for Unresolvable {}

/// A path in the reader's data built while a plan is made.
#[derive(Debug, Default, Clone)]
pub(crate) struct PlanPath(Vec<String>);

impl PlanPath {
    pub(crate) fn push(&mut self, segment: impl Into<String>) {
        self.0.push(segment.into());
    }

    pub(crate) fn pop(&mut self) {
        self.0.pop();
    }

    pub(crate) fn depth(&self) -> usize {
        self.0.len()
    }

    /// A refusal here.
    pub(crate) fn fail(&self, reason: impl Into<String>) -> Unresolvable {
        let mut path = String::new();
        for segment in &self.0 {
            path.push('/');
            path.push_str(&escape_pointer(segment));
        }
        Unresolvable::new(path, reason)
    }
}

/// A JSON pointer segment (`~` and `/` escaped).
pub(crate) fn escape_pointer(segment: &str) -> Cow<'_, str> {
    if segment.contains(['~', '/']) {
        Cow::Owned(segment.replace('~', "~0").replace('/', "~1"))
    } else {
        Cow::Borrowed(segment)
    }
}

/// A payload refused while a plan ran: one violation, of kind
/// [`ViolationKind::Unrepresentable`] unless the bytes were not what the
/// plan's input schema writes.
pub(crate) fn refused(path: impl Into<String>, message: impl Into<String>) -> Vec<Violation> {
    vec![Violation::new(
        path,
        ViolationKind::Unrepresentable,
        message,
    )]
}

/// The output of one run grew past [`max_output`].
pub(crate) fn too_large() -> Vec<Violation> {
    vec![Violation::new(
        "",
        ViolationKind::Bounds,
        format!(
            "the datum read as the other version would be larger than {} bytes \
             (limits::max_avro_transcode_bytes)",
            max_output()
        ),
    )]
}

/// A rewrite of payloads between two versions that the structural rules
/// cannot express: the seam where Confluent's data-contract migration rules
/// (JSONata `UPGRADE` and `DOWNGRADE`, `ruleSet.migrationRules`) plug in.
///
/// Given for one (writer, reader) pair and one [`Direction`], it replaces
/// the structural plan that way: `Read` receives the writer's payload (one
/// the writer's schema validated) and returns it in the reader's layout;
/// `WriteBack` the other way round. Its output is validated against the
/// target schema before anyone sees it, so a rule that produces a payload
/// the target does not accept is refused with the target's violations.
pub trait Migration: Send + Sync + fmt::Debug {
    /// The payload rewritten, or why not (the violations say where).
    fn migrate(&self, payload: &[u8]) -> Result<Vec<u8>, Vec<Violation>>;
}

/// Options of a plan.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct PlanOptions {
    /// Aliases given outside the reader's schema.
    pub aliases: Aliases,
    /// Protobuf: drop the fields the target does not declare (by default
    /// they are kept, as protobuf keeps unknown fields).
    pub drop_unknown_fields: bool,
    /// Protobuf: the message resolved, by full name, in both schemas (a
    /// frame's message indexes may name any message of the schema's
    /// file); `None`, the default, is the one a payload without indexes
    /// is (the root).
    pub message: Option<String>,
}

impl PlanOptions {
    /// The defaults: no aliases beyond the schema's, unknown fields kept.
    pub fn new() -> PlanOptions {
        PlanOptions::default()
    }

    /// Aliases given outside the reader's schema.
    pub fn with_aliases(mut self, aliases: Aliases) -> PlanOptions {
        self.aliases = aliases;
        self
    }

    /// Protobuf: resolve the message `full_name` (a frame's, which its
    /// message indexes name) instead of the root.
    pub fn with_message(mut self, full_name: impl Into<String>) -> PlanOptions {
        self.message = Some(full_name.into());
        self
    }

    /// Protobuf: whether fields the target does not declare are dropped.
    pub fn with_drop_unknown_fields(mut self, drop: bool) -> PlanOptions {
        self.drop_unknown_fields = drop;
        self
    }
}
