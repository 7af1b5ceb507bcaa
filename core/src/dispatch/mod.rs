//! The dispatch over the languages, above every language: compiling a
//! schema into its language's validator ([`compile`]), comparing schemas
//! of any language ([`compare`]), and the schema read for comparison that
//! both share ([`reading`]). Below it, each language (`json/`,
//! `protobuf/`, `avro/`) uses only the language-agnostic vocabulary
//! (`violation`, `change`, `level`, the model); above it, `lib.rs` holds the
//! public faces `validate` and `compat`.

pub(crate) mod compare;
pub(crate) mod compile;
pub(crate) mod reading;
