//! Building the index of an `anyOf`'s or a `oneOf`'s branches
//! ([`Branches`], `branches.rs`) from the plan's nodes: which names each
//! branch requires or allows, and the strings or integers it allows a
//! discriminating member (or the value itself).

use std::collections::BTreeMap;

use super::branches::{sort_texts, sort_texts_by_name, Branches, Key, Keyed, Text, NO_BRANCH};
use super::node::{Kind, Node, OBJECT, STRING};
use super::strings::Strings;

/// The most names an index tracks the presence of (one bit each).
const MAX_NAMES: usize = 64;

/// Fewer branches than this are read one by one, without an index.
const MIN_BRANCHES: usize = 3;

/// What a branch allows a value of: its only strings, its only integers
/// (magnitude at most 2^53), each when it restricts them so, as the union
/// of some sets (one, but for the branches of an `anyOf` or a `oneOf`).
#[derive(Clone, Default)]
struct Allowed<'n> {
    strings: Option<Vec<&'n Strings>>,
    integers: Option<Vec<&'n [i128]>>,
}

impl<'n> Allowed<'n> {
    fn restricts(&self) -> bool {
        self.strings.is_some() || self.integers.is_some()
    }

    /// What a value passing this or `other` may be: the union of each
    /// kind both restrict.
    fn or(self, other: Allowed<'n>) -> Allowed<'n> {
        Allowed {
            strings: union(self.strings, other.strings),
            integers: union(self.integers, other.integers),
        }
    }
}

/// The values either side allows, when both restrict them.
fn union<T>(a: Option<Vec<T>>, b: Option<Vec<T>>) -> Option<Vec<T>> {
    let (mut a, b) = (a?, b?);
    a.extend(b);
    Some(a)
}

/// How many nodes [`necessary`] and [`allowed`] visit for one branch, at
/// most: following the branches of nested `anyOf`s and `oneOf`s could
/// otherwise visit a number of nodes exponential in their depth. A visit
/// refused leaves a constraint out, which only keeps a branch in.
const VISITS: usize = 1024;

/// The index of `branches` (node ids) within `nodes`, when it can leave
/// any branch out; `None` otherwise.
pub(super) fn index(nodes: &[Node], branches: &[u32]) -> Option<Branches> {
    if branches.len() < MIN_BRANCHES {
        return None;
    }
    // Per branch: the names it requires, and (name, allowed) of its
    // members restricting their values.
    let mut required: Vec<Vec<&str>> = Vec::with_capacity(branches.len());
    let mut members: Vec<Vec<(&str, Allowed<'_>)>> = Vec::with_capacity(branches.len());
    let mut own: Vec<Allowed<'_>> = Vec::with_capacity(branches.len());
    for &b in branches {
        let mut names = Vec::new();
        let mut tags = Vec::new();
        necessary(nodes, b, &mut names, &mut tags, 0, &mut VISITS.clone());
        required.push(names);
        members.push(tags);
        own.push(allowed(nodes, b, 0, &mut VISITS.clone()));
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
    // The tag: the member restricted by the most branches.
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
    // (A branch taking no object allows the tag no value.)
    let nothing = Allowed {
        strings: Some(Vec::new()),
        integers: Some(Vec::new()),
    };
    let by_tag = match tag {
        Some(tag) => keyed_table(members.iter().zip(branches).map(|(tags, &b)| {
            if nodes[b as usize].accepts & OBJECT == 0 {
                return nothing.clone();
            }
            tags.iter()
                .find(|(n, _)| *n == tag)
                .map(|(_, allowed)| allowed.clone())
                .unwrap_or_default()
        })),
        None => Keyed::default(),
    };
    let by_value = keyed_table(own.into_iter());
    // Branches that take only the names they list.
    let mut open = 0u64;
    let mut closed: Vec<(Box<str>, u64)> = Vec::new();
    for (i, &b) in branches.iter().enumerate().take(64) {
        match closed_names(nodes, b, 0) {
            Some(listed) => {
                for name in listed {
                    match closed.iter_mut().find(|(n, _)| **n == *name) {
                        Some((_, bits)) => *bits |= 1 << i,
                        None => closed.push((Box::from(name), 1 << i)),
                    }
                }
            }
            None => open |= 1 << i,
        }
    }
    let all_open = open == u64::MAX || open.count_ones() as usize >= branches.len().min(64);
    if all_open {
        closed.clear();
    }
    let useful = needs.iter().any(|&n| n != 0)
        || !all_open
        || by_tag.restricts(branches.len())
        || by_value.restricts(branches.len());
    let open = if all_open { u64::MAX } else { open };
    let tag = tag.filter(|_| by_tag.restricts(branches.len()));
    // One table of every name: a key is looked up once.
    let none = Key {
        present: 0,
        taking: 0,
        tag: false,
        first: NO_BRANCH,
    };
    let other = Key {
        taking: open,
        ..none
    };
    let required = names.iter().map(|name| {
        let present = bit(name);
        (&**name, Key { present, ..none })
    });
    let listed = closed.iter().map(|(name, taking)| {
        (
            &**name,
            Key {
                taking: *taking,
                ..none
            },
        )
    });
    let tagged = tag.map(|tag| (tag, Key { tag: true, ..none }));
    let roles = required.chain(listed).chain(tagged);
    let mut table: BTreeMap<&str, Key> = BTreeMap::new();
    for (name, role) in roles {
        let key = table.entry(name).or_insert(other);
        key.present |= role.present;
        key.taking |= role.taking;
        key.tag |= role.tag;
    }
    // The branch a first key points to, when only one can take it.
    let first = |key: &Key| {
        let mut needing = (0u32..)
            .zip(needs.iter())
            .filter(|(_, &n)| key.present != 0 && n & key.present != 0);
        let only_needing = needing.next().filter(|_| needing.next().is_none());
        match only_needing {
            Some((b, _)) if b >= 64 || key.taking & (1 << b) != 0 => b,
            Some(_) => NO_BRANCH,
            None if key.taking.count_ones() == 1 => key.taking.trailing_zeros(),
            None => NO_BRANCH,
        }
    };
    let mut other = other;
    other.first = first(&other);
    let mut keys: Vec<Text<Key>> = table
        .into_iter()
        .map(|(name, mut key)| {
            key.first = first(&key);
            Text::new(Box::from(name), key)
        })
        .collect();
    // The names that point to a branch as an object's first key.
    let pointing: Box<[Text<Key>]> = keys
        .iter()
        .filter(|t| t.value.first != NO_BRANCH || t.value.tag)
        .cloned()
        .collect();
    // (The names are distinct.)
    sort_texts_by_name(&mut keys);
    let sure = (0u32..)
        .zip(branches.iter().take(64))
        .filter(|(_, &b)| nodes[b as usize].string_set().is_some())
        .fold(0u64, |bits, (i, _)| bits | 1 << i);
    useful.then(|| Branches {
        sure,
        all: (0..branches.len() as u32).collect(),
        keys: keys.into_boxed_slice(),
        needs: needs.into_boxed_slice(),
        other,
        pointing,
        by_tag,
        tag: tag.map(Box::from),
        by_value,
    })
}

/// The table of what each branch (in order) allows.
fn keyed_table<'n>(allowed: impl Iterator<Item = Allowed<'n>>) -> Keyed {
    let mut strings = Vec::new();
    let mut any_string = Vec::new();
    let mut integers = Vec::new();
    let mut any_integer = Vec::new();
    for (i, allowed) in allowed.enumerate() {
        let i = i as u32;
        match allowed.strings {
            Some(sets) => strings.extend(
                sets.iter()
                    .flat_map(|set| set.iter())
                    .map(|s| Text::new(Box::from(s), i)),
            ),
            None => any_string.push(i),
        }
        match allowed.integers {
            Some(sets) => integers.extend(sets.iter().flat_map(|set| set.iter()).map(|&n| (n, i))),
            None => any_integer.push(i),
        }
    }
    // By length, then bytes, as `texts_of` searches them; each
    // string's branches in order, once (a union may list one twice).
    sort_texts(&mut strings);
    integers.sort();
    integers.dedup();
    Keyed {
        strings: strings.into_boxed_slice(),
        any_string: any_string.into_boxed_slice(),
        integers: integers.into_boxed_slice(),
        any_integer: any_integer.into_boxed_slice(),
    }
}

/// How deep [`necessary`] and [`allowed`] follow in-place `allOf`s
/// (`$ref`s).
const MAX_FOLLOWED: usize = 8;

/// What an object needs to pass node `id`, by its own keywords, those
/// of its in-place `allOf`s (`$ref`s), and what all the branches of its
/// `anyOf` or `oneOf` need: the names it requires, and members allowed
/// only some strings or integers. At most `visits` nodes are read.
fn necessary<'n>(
    nodes: &'n [Node],
    id: u32,
    required: &mut Vec<&'n str>,
    tags: &mut Vec<(&'n str, Allowed<'n>)>,
    depth: usize,
    visits: &mut usize,
) {
    let node = &nodes[id as usize];
    if node.kind != Kind::Check || depth > MAX_FOLLOWED || *visits == 0 {
        return;
    }
    *visits -= 1;
    // (A node accepting no object is never read for one.)
    if node.accepts & OBJECT == 0 {
        return;
    }
    for m in &node.members {
        if m.bit & node.required != 0 && !required.contains(&&*m.name) {
            required.push(&m.name);
        }
        if let Some(schema) = m.schema {
            let restricted = allowed(nodes, schema, 0, visits);
            if restricted.restricts() && !tags.iter().any(|(n, _)| *n == &*m.name) {
                tags.push((&m.name, restricted));
            }
        }
    }
    for &member in &node.all_of {
        necessary(nodes, member, required, tags, depth + 1, visits);
    }
    for branches in [&node.any_of, &node.one_of] {
        common_needs(nodes, branches, required, tags, depth + 1, visits);
    }
}

/// What an object passing one of `branches` (those of an `anyOf` or a
/// `oneOf`) needs, into `required` and `tags`: the names every branch
/// that takes objects requires, and the members each of them restricts,
/// allowed what one of them allows.
fn common_needs<'n>(
    nodes: &'n [Node],
    branches: &[u32],
    required: &mut Vec<&'n str>,
    tags: &mut Vec<(&'n str, Allowed<'n>)>,
    depth: usize,
    visits: &mut usize,
) {
    let mut each = Vec::new();
    for &b in branches {
        if nodes[b as usize].accepts & OBJECT == 0 {
            continue;
        }
        let (mut names, mut restricted) = (Vec::new(), Vec::new());
        necessary(nodes, b, &mut names, &mut restricted, depth, visits);
        each.push((names, restricted));
    }
    let Some(((first_names, first_tags), rest)) = each.split_first() else {
        return;
    };
    for name in first_names {
        if !required.contains(name) && rest.iter().all(|(names, _)| names.contains(name)) {
            required.push(name);
        }
    }
    for (name, first) in first_tags {
        if tags.iter().any(|(n, _)| n == name) {
            continue;
        }
        let mut union = first.clone();
        for (_, restricted) in rest {
            match restricted.iter().find(|(n, _)| n == name) {
                Some((_, more)) => union = union.or(more.clone()),
                None => union = Allowed::default(),
            }
        }
        if union.restricts() {
            tags.push((name, union));
        }
    }
}

/// The names an object may have to pass node `id`, when its (or an
/// in-place `allOf` member's) `additionalProperties` is `false` with no
/// `patternProperties`: its `properties`.
fn closed_names(nodes: &[Node], id: u32, depth: usize) -> Option<Vec<&str>> {
    let node = &nodes[id as usize];
    if node.kind != Kind::Check || depth > MAX_FOLLOWED {
        return None;
    }
    let shut = node.patterns.is_empty()
        && node
            .additional
            .is_some_and(|a| nodes[a as usize].kind == Kind::Never);
    if shut {
        return Some(
            node.members
                .iter()
                .filter(|m| m.schema.is_some())
                .map(|m| &*m.name)
                .collect(),
        );
    }
    node.all_of
        .iter()
        .find_map(|&member| closed_names(nodes, member, depth + 1))
}

/// The only strings and integers node `id` accepts (its `enum`/`const`,
/// or for strings a `pattern` that is `^literal$`), where it restricts
/// them so, by its own keywords, its in-place `allOf`s, or (the union)
/// all the branches of its `anyOf` or `oneOf`. At most `visits` nodes
/// are read.
fn allowed<'n>(nodes: &'n [Node], id: u32, depth: usize, visits: &mut usize) -> Allowed<'n> {
    let node = &nodes[id as usize];
    if node.kind != Kind::Check || depth > MAX_FOLLOWED || *visits == 0 {
        return Allowed::default();
    }
    *visits -= 1;
    let mut found = Allowed {
        strings: node
            .strings
            .as_ref()
            .or(node.literal.as_deref())
            .map(|s| vec![s]),
        integers: node.integers.as_deref().map(|i| vec![i]),
    };
    for &member in &node.all_of {
        if found.strings.is_some() && found.integers.is_some() {
            return found;
        }
        let more = allowed(nodes, member, depth + 1, visits);
        found.strings = found.strings.or(more.strings);
        found.integers = found.integers.or(more.integers);
    }
    for branches in [&node.any_of, &node.one_of] {
        if branches.is_empty() || (found.strings.is_some() && found.integers.is_some()) {
            continue;
        }
        // A branch taking no string allows none: it adds nothing to the
        // union of strings.
        let mut strings = Some(Vec::new());
        let mut integers = Some(Vec::new());
        for &b in branches {
            if strings.is_none() && integers.is_none() {
                break;
            }
            let more = allowed(nodes, b, depth + 1, visits);
            if nodes[b as usize].accepts & STRING != 0 {
                strings = union(strings, more.strings);
            }
            integers = union(integers, more.integers);
        }
        found.strings = found.strings.or(strings);
        found.integers = found.integers.or(integers);
    }
    found
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
