//! Compatibility's vocabulary, below the languages' engines: change kinds
//! ([`kind`], and [`any_kind`] over every language's), diffs ([`diff`]),
//! the typed report and its language-agnostic driver ([`check`]), the
//! JSON Schema policy ([`policy`]), the engine's error ([`error`]), Java's
//! orders ([`java_order`]).
//! The public face is `compat` (in `lib.rs`); the dispatch over the
//! languages is `dispatch::compare`.

pub(crate) mod any_kind;
pub(crate) mod check;
pub(crate) mod diff;
pub(crate) mod error;
pub(crate) mod java_order;
pub(crate) mod kind;
pub(crate) mod policy;
