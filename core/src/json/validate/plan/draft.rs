//! The JSON Schema drafts the plan tells apart.

/// A JSON Schema draft, as `jsonschema` reads `$schema`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(in crate::json::validate) enum Draft {
    D4,
    D6,
    D7,
    D2019,
    D2020,
}
