//! Indexes of `anyOf`/`oneOf` branches ([`Branches`]): which branches a
//! value can possibly pass, read from the value's keys and one member's
//! string value (a discriminator) or from a string value itself, so that
//! the scanner reads only those branches. SchemaStore's schemas key their
//! large `anyOf`s this way (azure-pipelines' 259 tasks, each
//! `{"properties": {"task": {"pattern": "^Name@2$"}}, "required": ["task"]}`).
//!
//! Every branch left out is one the value fails for certain: it requires a
//! member the object lacks, or it allows the discriminating member (or the
//! string value) only strings other than the value's. The verdict of an
//! `anyOf` or a `oneOf` over the branches left is its verdict over all.
//!
//! This file holds the index and its reads, below the plan's nodes that
//! carry it; `indexing.rs` builds it from the nodes.

/// An index of one `anyOf`'s or `oneOf`'s branches (by their position in
/// the keyword's list).
#[derive(Clone)]
pub(in crate::json::validate) struct Branches {
    /// Every branch, in order: the candidates when nothing discriminates.
    pub(in crate::json::validate) all: Box<[u32]>,
    /// For an object: every name the index knows (those some branch
    /// requires, those a closed branch lists, the tag), sorted by length
    /// and then bytes (most comparisons end on the length), each with what
    /// a member of that name tells; a key not there tells [`Branches::other`].
    pub(in crate::json::validate) keys: Box<[(Box<str>, Key)]>,
    /// For an object: per branch, the bits of the names it requires.
    pub(in crate::json::validate) needs: Box<[u64]>,
    /// For an object: the bits of the branches (the first 64) that take
    /// any name, and a key the index does not know.
    pub(in crate::json::validate) other: Key,
    /// The names that point to a branch as an object's first key
    /// ([`Key::first`], or the tag by its value), few: a first key not
    /// among them points to [`Key::first`] of [`Branches::other`].
    pub(in crate::json::validate) pointing: Box<[(Box<str>, Key)]>,
    /// The branches by the tag's value, when a string or an integer.
    pub(in crate::json::validate) by_tag: Keyed,
    /// The branches by the value itself, when a string or an integer.
    pub(in crate::json::validate) by_value: Keyed,
    /// The branches (bits, the first 64) that ask nothing of a string but
    /// to be one of their strings ([`Node::string_set`](super::node::Node)):
    /// a string [`Branches::by_value`] keys to one of them passes it, unread.
    pub(in crate::json::validate) sure: u64,
}

/// Branches keyed by a string or an integer value: those allowing it, and
/// those that do not restrict values of its kind.
#[derive(Clone, Default)]
pub(in crate::json::validate) struct Keyed {
    /// (string, branch), sorted by [`by_length`], then branch.
    pub(in crate::json::validate) strings: Box<[(Box<str>, u32)]>,
    /// The branches not restricting strings.
    pub(in crate::json::validate) any_string: Box<[u32]>,
    /// (integer, branch), sorted by integer.
    pub(in crate::json::validate) integers: Box<[(i128, u32)]>,
    /// The branches not restricting integers.
    pub(in crate::json::validate) any_integer: Box<[u32]>,
}

/// What a member's key tells about the branches of an object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::json::validate) struct Key {
    /// The name's bit, when some branch requires it (bit `i` for the
    /// `i`th of the required names in sorted order), or 0.
    pub(in crate::json::validate) present: u64,
    /// The branches (bits, the first 64) that may take a member of this
    /// name: those that take any name, and the closed ones listing it.
    pub(in crate::json::validate) taking: u64,
    /// Whether the name is the tag: the member whose value picks the
    /// branches ([`Branches::by_tag`]).
    pub(in crate::json::validate) tag: bool,
    /// The branch an object whose first key is this name is checked
    /// against first ([`NO_BRANCH`] for none): the only branch requiring
    /// the name, else the only one taking it.
    pub(in crate::json::validate) first: u32,
}

/// No branch ([`Key::first`]).
pub(in crate::json::validate) const NO_BRANCH: u32 = u32::MAX;

impl Keyed {
    /// Whether the table restricts any branch.
    pub(super) fn restricts(&self, branches: usize) -> bool {
        self.any_string.len() < branches || self.any_integer.len() < branches
    }
}

impl Branches {
    /// What a member named `name` tells: one binary search over
    /// [`Branches::keys`].
    #[inline]
    pub(in crate::json::validate) fn key(&self, name: &str) -> Key {
        match self.keys.binary_search_by(|(n, _)| by_length(n, name)) {
            Ok(at) => self.keys[at].1,
            Err(_) => self.other,
        }
    }

    /// Whether any first key may point to a branch.
    #[inline]
    pub(in crate::json::validate) fn points(&self) -> bool {
        !self.pointing.is_empty() || self.other.first != NO_BRANCH
    }

    /// What a first key named `name` tells, when it may point to a branch.
    #[inline]
    pub(in crate::json::validate) fn pointed(&self, name: &str) -> Option<Key> {
        if let Some((_, key)) = self.pointing.iter().find(|(n, _)| **n == *name) {
            return Some(*key);
        }
        if self.other.first == NO_BRANCH {
            return None;
        }
        // A name the index knows and that points nowhere, or one it does
        // not know, which points where `other` does.
        let key = self.key(name);
        (key.first != NO_BRANCH).then_some(key)
    }

    /// Whether an object's keys tell anything (a required name, a closed
    /// branch or a tag).
    #[inline]
    pub(in crate::json::validate) fn reads_keys(&self) -> bool {
        !self.keys.is_empty()
    }
}

/// The entries of a sorted `by` whose key is `key`.
#[inline]
pub(in crate::json::validate) fn keyed<'b, K: Ord + ?Sized, O: std::borrow::Borrow<K>>(
    by: &'b [(O, u32)],
    key: &K,
) -> &'b [(O, u32)] {
    let from = by.partition_point(|(k, _)| k.borrow() < key);
    let to = from + by[from..].partition_point(|(k, _)| k.borrow() == key);
    &by[from..to]
}

/// The entries of `by` (sorted by [`by_length`]) whose string is `key`:
/// most steps of the search compare lengths only, where [`keyed`]'s
/// string order calls `memcmp` at each.
#[inline]
pub(in crate::json::validate) fn keyed_text<'b>(
    by: &'b [(Box<str>, u32)],
    key: &str,
) -> &'b [(Box<str>, u32)] {
    let from = by.partition_point(|(k, _)| by_length(k, key).is_lt());
    let to = from + by[from..].partition_point(|(k, _)| k.len() == key.len() && **k == *key);
    &by[from..to]
}

/// Strings ordered by length, then bytes: most comparisons of a search
/// end on the length, without reading the bytes.
#[inline]
pub(in crate::json::validate) fn by_length(a: &str, b: &str) -> std::cmp::Ordering {
    a.len()
        .cmp(&b.len())
        .then_with(|| a.as_bytes().cmp(b.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::{by_length, keyed_text};

    #[test]
    fn keyed_text_finds_what_a_linear_search_finds() {
        let words = [
            "",
            "a",
            "b",
            "ab",
            "ba",
            "abc",
            "abd",
            "Job",
            "Task",
            "Route",
            "Service",
            "é",
            "ée",
            "Revision",
            "Execution",
            "Configuration",
            "DomainMapping",
            "a\u{0}",
            "zz",
        ];
        // Each word keyed to one or two branches, some twice.
        let mut by: Vec<(Box<str>, u32)> = Vec::new();
        for (i, w) in words.iter().enumerate() {
            by.push((Box::from(*w), i as u32));
            if i % 3 == 0 {
                by.push((Box::from(*w), i as u32 + 100));
            }
        }
        by.sort_by(|a, b| by_length(&a.0, &b.0).then(a.1.cmp(&b.1)));
        let probes = words
            .iter()
            .copied()
            .chain(["c", "abe", "Jo", "Jobs", "Z", "éé"]);
        for probe in probes {
            let found: Vec<u32> = keyed_text(&by, probe).iter().map(|e| e.1).collect();
            let linear: Vec<u32> = by.iter().filter(|e| *e.0 == *probe).map(|e| e.1).collect();
            assert_eq!(found, linear, "{probe:?}");
        }
    }
}
