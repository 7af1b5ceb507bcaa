//! The dispatch over the languages, above every language: compiling a
//! schema into its language's validator ([`compile`]), comparing schemas
//! of any language ([`compare`]), the schema read for comparison that
//! both share ([`reading`]), and the plan reading one version as another
//! ([`resolution`]). Below it, each language (`json/`,
//! `protobuf/`, `avro/`) uses only the language-agnostic vocabulary
//! (`violation`, `change`, `resolution`, `level`, the model); above it, `lib.rs` holds the
//! public faces `validate`, `compat` and `resolve`.

pub(crate) mod compare;
pub(crate) mod compile;
pub(crate) mod reading;
pub(crate) mod resolution;
