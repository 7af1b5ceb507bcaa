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

use super::node::{Kind, Node, Strings, OBJECT, STRING};

/// The most names an index tracks the presence of (one bit each).
const MAX_NAMES: usize = 64;

/// Fewer branches than this are read one by one, without an index.
const MIN_BRANCHES: usize = 3;

/// An index of one `anyOf`'s or `oneOf`'s branches (by their position in
/// the keyword's list).
pub(in crate::json::validate) struct Branches {
    /// Every branch, in order: the candidates when nothing discriminates.
    pub(in crate::json::validate) all: Box<[u32]>,
    /// For an object: the names some branch requires, sorted; a name's bit
    /// is `1 << ` its position.
    pub(in crate::json::validate) names: Box<[Box<str>]>,
    /// For an object: per branch, the bits of the names it requires.
    pub(in crate::json::validate) needs: Box<[u64]>,
    /// The member whose string value picks the branches of an object.
    pub(in crate::json::validate) tag: Option<Box<str>>,
    /// (string, branch), sorted by string: the branches allowing the tag
    /// that string.
    pub(in crate::json::validate) tagged: Box<[(Box<str>, u32)]>,
    /// The branches that do not constrain the tag's string value.
    pub(in crate::json::validate) untagged: Box<[u32]>,
    /// For a string value: (string, branch), the branches allowing it.
    pub(in crate::json::validate) strings: Box<[(Box<str>, u32)]>,
    /// For a string value: the branches not restricted to given strings.
    pub(in crate::json::validate) free: Box<[u32]>,
}

impl Branches {
    /// The bit of a name some branch requires.
    #[inline]
    pub(in crate::json::validate) fn name_bit(&self, name: &str) -> u64 {
        match self.names.binary_search_by(|n| (**n).cmp(name)) {
            Ok(at) => 1 << at,
            Err(_) => 0,
        }
    }

    /// The branches of `by` allowing `text`.
    #[inline]
    pub(in crate::json::validate) fn allowing<'b>(
        by: &'b [(Box<str>, u32)],
        text: &str,
    ) -> &'b [(Box<str>, u32)] {
        let from = by.partition_point(|(s, _)| **s < *text);
        let to = from + by[from..].partition_point(|(s, _)| **s == *text);
        &by[from..to]
    }
}

/// The index of `branches` (node ids) within `nodes`, when it can leave
/// any branch out; `None` otherwise.
pub(super) fn index(nodes: &[Node], branches: &[u32]) -> Option<Branches> {
    if branches.len() < MIN_BRANCHES {
        return None;
    }
    // Per branch: the names it requires, and (name, strings) of its members
    // allowing only some strings.
    let mut required: Vec<Vec<&str>> = Vec::with_capacity(branches.len());
    let mut members: Vec<Vec<(&str, &Strings)>> = Vec::with_capacity(branches.len());
    let mut own: Vec<Option<&Strings>> = Vec::with_capacity(branches.len());
    for &b in branches {
        let mut names = Vec::new();
        let mut tags = Vec::new();
        necessary(nodes, b, &mut names, &mut tags, 0);
        required.push(names);
        members.push(tags);
        own.push(string_set(nodes, b, 0));
    }
    // The names, most required first, at most 64.
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for names in &required {
        for name in names {
            match counts.iter_mut().find(|(n, _)| n == name) {
                Some((_, c)) => *c += 1,
                None => counts.push((name, 1)),
            }
        }
    }
    counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    counts.truncate(MAX_NAMES);
    let mut names: Vec<Box<str>> = counts.iter().map(|(n, _)| Box::from(*n)).collect();
    names.sort();
    let bit = |name: &str| match names.binary_search_by(|n| (**n).cmp(name)) {
        Ok(at) => 1u64 << at,
        Err(_) => 0,
    };
    let needs: Vec<u64> = required
        .iter()
        .map(|names| names.iter().fold(0, |bits, n| bits | bit(n)))
        .collect();
    // The tag: the member constrained to strings by the most branches.
    let mut tag_counts: Vec<(&str, usize)> = Vec::new();
    for tags in &members {
        for (name, _) in tags {
            match tag_counts.iter_mut().find(|(n, _)| n == name) {
                Some((_, c)) => *c += 1,
                None => tag_counts.push((name, 1)),
            }
        }
    }
    tag_counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let tag = tag_counts.first().filter(|(_, c)| *c >= 2).map(|(n, _)| *n);
    let mut tagged = Vec::new();
    let mut untagged = Vec::new();
    if let Some(tag) = tag {
        for (i, tags) in members.iter().enumerate() {
            match tags.iter().find(|(n, _)| *n == tag) {
                Some((_, strings)) => {
                    for s in strings.0.iter() {
                        tagged.push((s.clone(), i as u32));
                    }
                }
                None => untagged.push(i as u32),
            }
        }
        tagged.sort();
    }
    let mut strings = Vec::new();
    let mut free = Vec::new();
    for (i, set) in own.iter().enumerate() {
        match set {
            Some(set) => strings.extend(set.0.iter().map(|s| (s.clone(), i as u32))),
            None => free.push(i as u32),
        }
    }
    strings.sort();
    let useful = needs.iter().any(|&n| n != 0) || tag.is_some() || free.len() < branches.len();
    useful.then(|| Branches {
        all: (0..branches.len() as u32).collect(),
        names: names.into_boxed_slice(),
        needs: needs.into_boxed_slice(),
        tag: tag.map(Box::from),
        tagged: tagged.into_boxed_slice(),
        untagged: untagged.into_boxed_slice(),
        strings: strings.into_boxed_slice(),
        free: free.into_boxed_slice(),
    })
}

/// How deep [`necessary`] and [`string_set`] follow in-place `allOf`s
/// (`$ref`s).
const MAX_FOLLOWED: usize = 8;

/// What an object needs to pass node `id`, by its own keywords and those
/// of its in-place `allOf`s (`$ref`s): the names it requires, and members
/// allowed only some strings.
fn necessary<'n>(
    nodes: &'n [Node],
    id: u32,
    required: &mut Vec<&'n str>,
    tags: &mut Vec<(&'n str, &'n Strings)>,
    depth: usize,
) {
    let node = &nodes[id as usize];
    if node.kind != Kind::Check || node.whole.is_some() || depth > MAX_FOLLOWED {
        return;
    }
    // `required` and `properties` apply to objects only: the node may
    // accept objects and constrain them.
    if node.accepts & OBJECT == 0 {
        return;
    }
    for m in &node.members {
        if m.bit & node.required != 0 && !required.contains(&&*m.name) {
            required.push(&m.name);
        }
        if let Some(schema) = m.schema {
            if let Some(set) = string_set(nodes, schema, 0) {
                if !tags.iter().any(|(n, _)| *n == &*m.name) {
                    tags.push((&m.name, set));
                }
            }
        }
    }
    for &member in &node.all_of {
        necessary(nodes, member, required, tags, depth + 1);
    }
}

/// The only strings node `id` accepts, among strings (its `enum`/`const`,
/// or a `pattern` that is `^literal$`), if it restricts them so.
fn string_set(nodes: &[Node], id: u32, depth: usize) -> Option<&Strings> {
    let node = &nodes[id as usize];
    if node.kind != Kind::Check || node.whole.is_some() || depth > MAX_FOLLOWED {
        return None;
    }
    if node.accepts & STRING == 0 {
        // (No string passes: not a restriction this index can use.)
        return None;
    }
    if let Some(set) = node.strings.as_ref().or(node.literal.as_ref()) {
        return Some(set);
    }
    node.all_of
        .iter()
        .find_map(|&member| string_set(nodes, member, depth + 1))
}

/// The string a `pattern` matches alone, when it is `^literal$` (the
/// literal's characters plain or escaped punctuation): in both of the
/// engines `jsonschema` uses, `^` and `$` then anchor the whole text, and
/// the pattern matches exactly that string.
pub(super) fn literal_pattern(pattern: &str) -> Option<Box<str>> {
    let body = pattern.strip_prefix('^')?.strip_suffix('$')?;
    let mut text = String::with_capacity(body.len());
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let escaped = chars.next()?;
                if !".^$*+?()[]{}|\\/-".contains(escaped) {
                    return None;
                }
                text.push(escaped);
            }
            '.' | '^' | '$' | '*' | '+' | '?' | '(' | ')' | '[' | ']' | '{' | '}' | '|' => {
                return None
            }
            c => text.push(c),
        }
    }
    Some(text.into_boxed_str())
}

#[cfg(test)]
mod tests {
    use super::literal_pattern;

    #[test]
    fn literal_patterns_are_the_anchored_plain_ones() {
        assert_eq!(
            literal_pattern("^PowerShell@2$").as_deref(),
            Some("PowerShell@2")
        );
        assert_eq!(literal_pattern(r"^a\.b$").as_deref(), Some("a.b"));
        assert_eq!(literal_pattern("^$").as_deref(), Some(""));
        assert_eq!(literal_pattern("^a.b$"), None);
        assert_eq!(literal_pattern("^ab"), None);
        assert_eq!(literal_pattern("ab$"), None);
        assert_eq!(literal_pattern(r"^\d$"), None);
        assert_eq!(literal_pattern("^a|b$"), None);
        assert_eq!(literal_pattern("^a$|^b$"), None);
    }
}
