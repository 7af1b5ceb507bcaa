//! [`Aliases`]: names a reader version's fields answer to beyond their
//! own, given outside its schema (the manifest's `[aliases."<name>.v<version>"]`).
//! A version carries them as a [`Resolver`](crate::Resolver) hands them out
//! ([`Resolver::aliases`](crate::Resolver::aliases)), beside its schema;
//! resolution (`resolution.rs`, the languages' plans) reads them. They sit on
//! the model's floor so that the `Resolver` trait can name them.

/// Names a reader field answers to beyond its own, given outside the
/// schema (the manifest's `[aliases."<name>.v<version>"]`, for schemas one
/// cannot edit): a reader path (`/customer/name`, JSON pointer, `*` for any
/// array item) to the writer names it reads.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Aliases(Vec<(String, Vec<String>)>);

impl Aliases {
    /// No aliases.
    pub fn new() -> Aliases {
        Aliases::default()
    }

    /// Adds `names` as aliases of the reader's field at `path`.
    pub fn with(mut self, path: impl Into<String>, names: Vec<String>) -> Aliases {
        self.0.push((path.into(), names));
        self
    }

    /// The aliases given for the field at `path`.
    #[cfg_attr(not(feature = "json"), allow(dead_code))]
    pub(crate) fn at<'s>(&'s self, path: &'s str) -> impl Iterator<Item = &'s str> + 's {
        self.0
            .iter()
            .filter(move |(p, _)| p == path)
            .flat_map(|(_, names)| names.iter().map(String::as_str))
    }

    /// Each path with the names given for it, in the order given.
    pub fn entries(&self) -> impl Iterator<Item = (&str, &[String])> {
        self.0
            .iter()
            .map(|(p, names)| (p.as_str(), names.as_slice()))
    }

    /// The paths aliases were given for.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(|(p, _)| p.as_str())
    }

    /// These aliases followed by `more`'s (a field's names from both).
    pub fn and(mut self, more: &Aliases) -> Aliases {
        self.0.extend(more.0.iter().cloned());
        self
    }

    /// Whether none are given.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}
