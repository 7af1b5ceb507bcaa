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
    pub(in crate::json::validate) keys: Box<[Text<Key>]>,
    /// For an object: per branch, the bits of the names it requires.
    pub(in crate::json::validate) needs: Box<[u64]>,
    /// For an object: the bits of the branches (the first 64) that take
    /// any name, and a key the index does not know.
    pub(in crate::json::validate) other: Key,
    /// The names that point to a branch as an object's first key
    /// ([`Key::first`], or the tag by its value), few: a first key not
    /// among them points to [`Key::first`] of [`Branches::other`].
    pub(in crate::json::validate) pointing: Box<[Text<Key>]>,
    /// The branches by the tag's value, when a string or an integer.
    pub(in crate::json::validate) by_tag: Keyed,
    /// The tag's name, when the index has one ([`Key::tag`]).
    pub(in crate::json::validate) tag: Option<Box<str>>,
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
    /// (string, branch), sorted by [`sort_texts`].
    pub(in crate::json::validate) strings: Box<[Text<u32>]>,
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
        match texts_of(&self.keys, name).first() {
            Some(text) => text.value,
            None => self.other,
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
        let quick = Quick::of(name.as_bytes());
        if let Some(text) = self.pointing.iter().find(|t| t.is(quick, name.as_bytes())) {
            return Some(text.value);
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

/// A string with a value, in a table sorted by [`sort_texts`] and
/// searched by [`texts_of`]: its length and a word of its bytes
/// ([`Quick`]) sit beside the value, so that most steps of a search
/// compare two words and read no string bytes (nor a pointer to them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(in crate::json::validate) struct Text<T> {
    quick: Quick,
    pub(in crate::json::validate) name: Box<str>,
    pub(in crate::json::validate) value: T,
}

/// A string's length and a word of its bytes: for a string of at most
/// eight bytes, a word that tells it from every other of its length (its
/// bytes loaded as words that may overlap); for a longer one, its first
/// eight bytes. Two loads at most, where a string compare calls `memcmp`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(in crate::json::validate) struct Quick {
    len: usize,
    word: u64,
}

impl Quick {
    #[inline(always)]
    pub(in crate::json::validate) fn of(bytes: &[u8]) -> Quick {
        let n = bytes.len();
        let word = if let Some(first) = bytes.first_chunk::<8>() {
            u64::from_le_bytes(*first)
        } else if let (Some(first), Some(last)) =
            (bytes.first_chunk::<4>(), bytes.last_chunk::<4>())
        {
            u64::from(u32::from_le_bytes(*first)) | u64::from(u32::from_le_bytes(*last)) << 32
        } else if let (Some(&first), Some(&last)) = (bytes.first(), bytes.last()) {
            u64::from(first) | u64::from(bytes[n / 2]) << 8 | u64::from(last) << 16
        } else {
            0
        };
        Quick { len: n, word }
    }
}

impl<T> Text<T> {
    pub(in crate::json::validate) fn new(name: Box<str>, value: T) -> Text<T> {
        Text {
            quick: Quick::of(name.as_bytes()),
            name,
            value,
        }
    }

    /// Whether the text comes before `key` (of [`Quick`] `quick`) in a
    /// table's order: by [`Quick`], then by the bytes past the eighth.
    #[inline(always)]
    fn before(&self, quick: Quick, key: &[u8]) -> bool {
        self.quick < quick
            || (self.quick == quick && key.len() > 8 && self.name.as_bytes()[8..] < key[8..])
    }

    /// Whether the text is `key` (of [`Quick`] `quick`).
    #[inline(always)]
    fn is(&self, quick: Quick, key: &[u8]) -> bool {
        self.quick == quick && (key.len() <= 8 || self.name.as_bytes()[8..] == key[8..])
    }
}

/// Sorts `texts` as [`texts_of`] searches them (by [`Quick`], then by
/// the bytes past the eighth, then by value); a repeated (name, value) is
/// kept once. The sort is stable: texts equal in all that keep their
/// order.
pub(in crate::json::validate) fn sort_texts<T: Ord>(texts: &mut Vec<Text<T>>) {
    texts.sort_by(|a, b| a.cmp_name(b).then(a.value.cmp(&b.value)));
    texts.dedup();
}

/// Sorts `texts` by name as [`texts_of`] searches them, stably: the
/// values of one name keep their order.
pub(in crate::json::validate) fn sort_texts_by_name<T>(texts: &mut [Text<T>]) {
    texts.sort_by(|a, b| a.cmp_name(b));
}

impl<T> Text<T> {
    fn cmp_name<U>(&self, other: &Text<U>) -> std::cmp::Ordering {
        self.quick.cmp(&other.quick).then_with(|| {
            let (a, b) = (self.name.as_bytes(), other.name.as_bytes());
            a[a.len().min(8)..].cmp(&b[b.len().min(8)..])
        })
    }
}

/// The entries of `by` (sorted by [`sort_texts`] or
/// [`sort_texts_by_name`]) whose string is `key`: a binary search whose
/// steps compare [`Quick`]s (two words), and the bytes past the eighth
/// only between names that share them.
#[inline(always)]
pub(in crate::json::validate) fn texts_of<'b, T>(by: &'b [Text<T>], key: &str) -> &'b [Text<T>] {
    let key = key.as_bytes();
    let quick = Quick::of(key);
    let (mut from, mut size) = (0, by.len());
    while size > 0 {
        let half = size / 2;
        let mid = from + half;
        if by[mid].before(quick, key) {
            from = mid + 1;
            size -= half + 1;
        } else {
            size = half;
        }
    }
    let mut to = from;
    while by.get(to).is_some_and(|t| t.is(quick, key)) {
        to += 1;
    }
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
    use super::{sort_texts, texts_of, Text};

    #[test]
    fn texts_of_finds_what_a_linear_search_finds() {
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
            // Each form of `Quick`: 1-3 bytes, 4-7 (two words that
            // overlap), 8, and longer ones sharing their first eight.
            "aba",
            "aab",
            "abcde",
            "abdce",
            "abcdefg",
            "abcdefgh",
            "abcdefgi",
            "abcdefghi",
            "abcdefghj",
            "abcdefghij",
            "abcdefghik",
        ];
        // Each word keyed to one or two branches, some twice.
        let mut by: Vec<Text<u32>> = Vec::new();
        for (i, w) in words.iter().enumerate() {
            by.push(Text::new(Box::from(*w), i as u32));
            if i % 3 == 0 {
                by.push(Text::new(Box::from(*w), i as u32 + 100));
            }
        }
        sort_texts(&mut by);
        let probes = words.iter().copied().chain([
            "c",
            "abe",
            "Jo",
            "Jobs",
            "Z",
            "éé",
            "acb",
            "abcdf",
            "abcdefghh",
            "abcdefghijk",
        ]);
        for probe in probes {
            let found: Vec<u32> = texts_of(&by, probe).iter().map(|e| e.value).collect();
            let linear: Vec<u32> = by
                .iter()
                .filter(|e| *e.name == *probe)
                .map(|e| e.value)
                .collect();
            assert_eq!(found, linear, "{probe:?}");
        }
    }
}
