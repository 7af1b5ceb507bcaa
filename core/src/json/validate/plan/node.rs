//! The plan's table: [`Node`], one per subschema, and what it holds.

use std::collections::HashMap;

use super::branches::Branches;
use super::format::{Format, Quick};
use super::pattern::Pattern;
use super::strings::Strings;
use super::switch::Switches;

/// Type bits of [`Node::types`].
pub(in crate::json::validate) const NULL: u8 = 1;
pub(in crate::json::validate) const BOOLEAN: u8 = 2;
pub(in crate::json::validate) const INTEGER: u8 = 4;
pub(in crate::json::validate) const NUMBER: u8 = 8;
pub(in crate::json::validate) const STRING: u8 = 16;
pub(in crate::json::validate) const ARRAY: u8 = 32;
pub(in crate::json::validate) const OBJECT: u8 = 64;
pub(in crate::json::validate) const ALL_TYPES: u8 = 127;

/// A numeric bound [`Node::bounds`] checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::json::validate) enum Bound {
    Minimum,
    Maximum,
    ExclusiveMinimum,
    ExclusiveMaximum,
}

/// 2^53: integers up to it in magnitude are exactly `f64`s.
pub(in crate::json::validate) const EXACT: u64 = 1 << 53;

/// `value` as an `f64` holding exactly the same number, if there is one
/// (floats as serde_json read them, integers up to 2^53).
pub(in crate::json::validate) fn exact_f64(value: &serde_json::Number) -> Option<f64> {
    if let Some(n) = value.as_u64() {
        return (n <= EXACT).then_some(n as f64);
    }
    if let Some(n) = value.as_i64() {
        return (n.unsigned_abs() <= EXACT).then_some(n as f64);
    }
    value.as_f64()
}

/// How many names of one first byte must share their first eight bytes
/// for a key to be looked up among them by its length
/// ([`Member::by_length`]): below it, comparing each name's first word
/// costs less than finding the key's length.
const SHARED_PREFIXES: usize = 8;

/// What a node is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::json::validate) enum Kind {
    /// `true` or a schema without assertions: any JSON value.
    Any,
    /// `false`: no value.
    Never,
    /// Keywords to check.
    Check,
}

/// A property a node knows by name: its subschema (`properties`) and its
/// presence bit (`required`, dependencies), either or both.
#[derive(Clone)]
pub(in crate::json::validate) struct Member {
    pub(in crate::json::validate) name: Box<str>,
    pub(in crate::json::validate) schema: Option<u32>,
    pub(in crate::json::validate) bit: u64,
    /// The name's first byte when a key written as the name's bytes, with
    /// no escape, can only be this member (the name is not empty and holds
    /// no quote, backslash or control character); 0 otherwise. The scanner
    /// then matches such a key on the payload bytes, before tokenizing it.
    pub(in crate::json::validate) first: u8,
    /// The name's first eight bytes (fewer, zero-padded, for a shorter
    /// name) as a little-endian word, and the mask of the bytes it has.
    pub(in crate::json::validate) prefix: u64,
    pub(in crate::json::validate) prefix_mask: u64,
    /// The members of this one's first byte are many and share their
    /// first eight bytes (jscsrc's seventy `disallow...`): a key is then
    /// compared with those of its length only, which are sorted together
    /// ([`Node::finish`]).
    pub(in crate::json::validate) by_length: bool,
}

impl Member {
    pub(super) fn new(name: &str) -> Member {
        let plain = name.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\');
        let mut word = [0u8; 8];
        let head = &name.as_bytes()[..name.len().min(8)];
        word[..head.len()].copy_from_slice(head);
        Member {
            name: name.into(),
            schema: None,
            bit: 0,
            prefix: u64::from_le_bytes(word),
            prefix_mask: match head.len() {
                8 => u64::MAX,
                n => (1u64 << (8 * n)) - 1,
            },
            by_length: false,
            first: if plain {
                name.bytes().next().unwrap_or(0)
            } else {
                0
            },
        }
    }
}

/// One subschema.
///
/// Laid out in declaration order (`repr(C)`), by when the scanner reads
/// them: the fields every visit reads first (within the first 64 bytes),
/// then a string's, an object's, the in-place applicators', an array's,
/// and the rarely read last; the validators the node asks only at times
/// are boxed. A plan of hundreds of nodes then touches few cache lines
/// per node a payload visits.
#[derive(Clone)]
#[repr(C, align(64))]
pub(in crate::json::validate) struct Node {
    /// The node asserts nothing but a `type`: the types it allows (all for
    /// `true` or `{}`, none for `false`).
    pub(in crate::json::validate) leaf: Option<u8>,
    pub(in crate::json::validate) kind: Kind,
    /// Allowed JSON types ([`NULL`], ...; all when there is no `type`).
    pub(in crate::json::validate) types: u8,
    /// The types a value may have and still conform, as far as `type` and
    /// the in-place `allOf`/`$ref`/`anyOf`/`oneOf` tell ([`JsonPlan::
    /// accepts`]): a branch of an applicator is not read for a value of
    /// another type.
    pub(in crate::json::validate) accepts: u8,
    /// Draft 4 decides `integer` by how the number is written.
    pub(in crate::json::validate) draft4_integers: bool,
    /// Nothing but its own keywords, read once: no in-place applicator,
    /// no `unevaluated*`.
    pub(in crate::json::validate) simple: bool,
    /// Nothing but in-place applicators (a `$ref` alone, say): the value is
    /// read only by them, not first by this node.
    pub(in crate::json::validate) only_in_place: bool,
    /// In-place applicators beside nothing but a `type` the value's first
    /// byte decides (`"type": "object", "allOf": [...]`): a value of that
    /// type is read only by the applicators, as for
    /// [`Node::only_in_place`]; any other fails.
    pub(in crate::json::validate) type_only: bool,
    /// `enum`/`const` holds an array or an object: an array or object value
    /// is parsed from its bytes and asked about ([`Node::choice`]).
    pub(in crate::json::validate) compound_choice: bool,
    /// Every member's name is matched on the bytes ([`Member::first`] is
    /// set): a key written without an escape that no member matched there
    /// is no member's.
    pub(in crate::json::validate) plain_members: bool,
    /// `uniqueItems: true` (an array of fewer than two items is unique).
    pub(in crate::json::validate) unique: bool,
    /// A `format` checked on the string's text here ([`Format`]); the
    /// other formats are in [`Node::text`].
    pub(in crate::json::validate) format: Option<Format>,
    /// When [`Node::text`] holds nothing but a `format` with a quick check
    /// ([`Quick`]): a string that check accepts is not asked about.
    pub(in crate::json::validate) quick: Option<Quick>,
    /// The node asks about one member of an object and nothing else
    /// ([`Probe`]): on an object read before, that member is looked up on
    /// the object's tape and checked alone.
    pub(in crate::json::validate) probe: Option<Box<Probe>>,
    /// `minimum`, `maximum`, `exclusive*`, `multipleOf`: asked about numbers.
    pub(in crate::json::validate) numeric: Option<Box<jsonschema::Validator>>,
    /// `enum`/`const` (scalars only): asked about scalars; arrays and
    /// objects never match.
    pub(in crate::json::validate) choice: Option<Box<jsonschema::Validator>>,
    /// The string keywords the scanner does not check itself (a `format`
    /// [`Node::format`] does not hold, drafts 6 and 7's `content*`): asked
    /// about strings.
    pub(in crate::json::validate) text: Option<Box<jsonschema::Validator>>,
    /// `pattern`, matched on the string's text.
    pub(in crate::json::validate) pattern: Option<Box<Pattern>>,
    /// The keywords the scanner leaves to `jsonschema` on the subvalue
    /// alone (`uniqueItems`, `minProperties`, `maxProperties`): asked about
    /// an array or object value parsed from its bytes, when the fast paths
    /// below do not decide.
    pub(in crate::json::validate) extra: Option<Box<jsonschema::Validator>>,
    /// The same, when it is one `enum` or `const`: its string options,
    /// which a string must equal one of (`jsonschema` compares strings by
    /// their text, and a string equals no other value). Strings are checked
    /// here; other values still ask [`Node::choice`].
    pub(in crate::json::validate) strings: Option<Strings>,
    pub(in crate::json::validate) min_length: u64,
    pub(in crate::json::validate) max_length: u64,
    pub(in crate::json::validate) members: Vec<Member>,
    /// Where the members whose name starts with each byte lie in
    /// [`Node::members`] (sorted by first byte): `members[ranges[b]..
    /// ranges[b + 1]]`; for a node of many members.
    pub(in crate::json::validate) ranges: Option<Box<[u16; 257]>>,
    pub(in crate::json::validate) additional: Option<u32>,
    pub(in crate::json::validate) names: Option<u32>,
    /// Bits of the members that must be present.
    pub(in crate::json::validate) required: u64,
    /// `minProperties` (an object with fewer members fails; at most one is
    /// decided here, as duplicate keys cannot make one member none).
    pub(in crate::json::validate) min_properties: u64,
    /// `maxProperties` (an object with no more members, duplicates
    /// counted, passes).
    pub(in crate::json::validate) max_properties: u64,
    /// (trigger bit, bits then required).
    pub(in crate::json::validate) dependent_required: Vec<(u64, u64)>,
    /// (trigger bit, subschema then applied to the object).
    pub(in crate::json::validate) dependent_schemas: Vec<(u64, u32)>,
    /// `patternProperties`: a pattern matched on the key, and the
    /// subschema of a matching member.
    pub(in crate::json::validate) patterns: Vec<(Pattern, u32)>,
    /// The same bounds checked here, when they are only `minimum`,
    /// `maximum` and (drafts 6 on) numeric `exclusive*`, each exactly an
    /// `f64`: (kind, limit). Used for numbers exactly an `f64` too (any
    /// float serde_json reads, integers up to 2^53), where comparing `f64`s
    /// is comparing the values; other numbers ask [`Node::numeric`].
    pub(in crate::json::validate) bounds: Option<Vec<(Bound, f64)>>,
    /// In place: `$ref` targets and `allOf`.
    pub(in crate::json::validate) all_of: Vec<u32>,
    pub(in crate::json::validate) any_of: Vec<u32>,
    pub(in crate::json::validate) one_of: Vec<u32>,
    pub(in crate::json::validate) not: Option<u32>,
    /// `if`, `then`, `else`.
    pub(in crate::json::validate) condition: Option<(u32, Option<u32>, Option<u32>)>,
    /// The indexes of `anyOf`'s and `oneOf`'s branches, when they can
    /// leave a branch out ([`Branches`]).
    pub(in crate::json::validate) any_index: Option<Box<Branches>>,
    pub(in crate::json::validate) one_index: Option<Box<Branches>>,
    /// Tuple items (`prefixItems`, or `items` as an array).
    pub(in crate::json::validate) prefix: Vec<u32>,
    /// The items past the tuple (`items`, or `additionalItems`).
    pub(in crate::json::validate) rest: Option<u32>,
    /// `contains` (drafts 6 on), and how many items must match it:
    /// `minContains` (1 unless given, from 2019-09) to `maxContains`.
    pub(in crate::json::validate) contains: Option<u32>,
    pub(in crate::json::validate) min_items: u64,
    pub(in crate::json::validate) max_items: u64,
    pub(in crate::json::validate) min_contains: u64,
    pub(in crate::json::validate) max_contains: u64,
    /// `unevaluatedProperties` (2019-09 on): the subschema an object's
    /// members must match when no keyword evaluated them (see
    /// `JsonPlan::mark_members` in the scanner).
    pub(in crate::json::validate) unevaluated_properties: Option<u32>,
    /// `unevaluatedItems` (2019-09 on), the same for an array's items.
    pub(in crate::json::validate) unevaluated_items: Option<u32>,
    /// How many leading items `items`/`prefixItems` evaluate, as
    /// `jsonschema` counts them for `unevaluatedItems`: `u64::MAX` for
    /// every item (`items` as a schema, or an array beside
    /// `additionalItems`; any `items` in 2020-12), the tuple's length, or 0.
    pub(in crate::json::validate) evaluated_items: u64,
    /// The `dependentSchemas` entries (of [`Node::dependent_schemas`]) that
    /// evaluate members for `unevaluatedProperties` (object subschemas of
    /// `dependentSchemas`; `dependencies` evaluates nothing).
    pub(in crate::json::validate) evaluating_dependents: Vec<(u64, u32)>,
    /// An `if` without `then` or `else` (2019-09 on): it asserts nothing,
    /// but what it evaluates when it holds counts for `unevaluated*`.
    pub(in crate::json::validate) lone_if: Option<u32>,
    /// The same, for integers: the values of the `enum`/`const` an integer
    /// must equal one of (read by the branch indexes, [`Branches`]).
    pub(in crate::json::validate) integers: Option<Box<[i128]>>,
    /// The one string a `pattern` of the form `^literal$` matches: a string
    /// value other than it fails the node (read by the branch indexes,
    /// [`Branches`]).
    /// (Boxed: read when the plan is built, not by the scanner.)
    pub(in crate::json::validate) literal: Option<Box<Strings>>,
    /// The `allOf` read with its `if`/`then` members on one object member
    /// as switches ([`Switches`]), when it has such members.
    pub(in crate::json::validate) all_switches: Option<Box<Switches>>,
    // (Read only when a branch is read again from a tape: off the
    // first lines, which every visit reads.)
    /// On a branch of an `anyOf`/`oneOf`: members (indexes into
    /// [`Node::members`]) whose subschema asks a string for a pattern or
    /// one of a few strings and nothing nested. On an object read before,
    /// these are looked up on its tape and checked first, so that a branch
    /// whose tag does not match fails before its other members are read
    /// again (set by [`JsonPlan::compile`](super::JsonPlan::compile)).
    pub(in crate::json::validate) selective: Box<[u16]>,
}

/// A node of nothing but one property (`properties` of one name, that
/// name `required` or not, `type: object` or no `type`): the shape of the
/// conditions SchemaStore's schemas dispatch on (`"if": {"properties":
/// {"type": {"const": "markdown"}}}`). On an object, it holds when the
/// member is absent (and not required) or its value passes `schema`.
#[derive(Clone)]
pub(in crate::json::validate) struct Probe {
    pub(in crate::json::validate) name: Box<str>,
    pub(in crate::json::validate) schema: Option<u32>,
    pub(in crate::json::validate) required: bool,
    /// When `schema` asks nothing of a string but that it be one of these
    /// ([`Node::string_set`]): a string value written without an escape
    /// is looked up here, not checked against `schema`.
    pub(in crate::json::validate) values: Option<Strings>,
}

impl Node {
    pub(super) fn new(kind: Kind) -> Node {
        Node {
            kind,
            types: ALL_TYPES,
            accepts: ALL_TYPES,
            draft4_integers: false,
            numeric: None,
            bounds: None,
            text: None,
            format: None,
            quick: None,
            pattern: None,
            choice: None,
            strings: None,
            literal: None,
            all_switches: None,
            integers: None,
            compound_choice: false,
            extra: None,
            unevaluated_properties: None,
            unevaluated_items: None,
            evaluated_items: 0,
            evaluating_dependents: Vec::new(),
            unique: false,
            min_properties: 0,
            max_properties: u64::MAX,
            only_in_place: false,
            type_only: false,
            min_length: 0,
            max_length: u64::MAX,
            min_items: 0,
            max_items: u64::MAX,
            prefix: Vec::new(),
            rest: None,
            contains: None,
            min_contains: 1,
            max_contains: u64::MAX,
            members: Vec::new(),
            patterns: Vec::new(),
            additional: None,
            names: None,
            required: 0,
            dependent_required: Vec::new(),
            dependent_schemas: Vec::new(),
            all_of: Vec::new(),
            any_of: Vec::new(),
            one_of: Vec::new(),
            any_index: None,
            one_index: None,
            not: None,
            plain_members: false,
            ranges: None,
            leaf: None,
            simple: false,
            condition: None,
            lone_if: None,
            probe: None,
            selective: Box::new([]),
        }
    }

    /// Whether the node applies subschemas to the value itself.
    pub(in crate::json::validate) fn in_place(&self) -> bool {
        !self.all_of.is_empty()
            || !self.any_of.is_empty()
            || !self.one_of.is_empty()
            || self.not.is_some()
            || self.condition.is_some()
    }

    pub(super) fn asserts_nothing(&self) -> bool {
        self.asserts_nothing_itself() && !self.in_place() && self.lone_if.is_none()
    }

    /// Whether the node's own keywords (its in-place applicators aside)
    /// accept any JSON value.
    pub(super) fn asserts_nothing_itself(&self) -> bool {
        self.types == ALL_TYPES
            && self.numeric.is_none()
            && self.text.is_none()
            && self.format.is_none()
            && self.pattern.is_none()
            && self.choice.is_none()
            && self.extra.is_none()
            && self.unevaluated_properties.is_none()
            && self.unevaluated_items.is_none()
            && self.min_length == 0
            && self.max_length == u64::MAX
            && self.min_items == 0
            && self.max_items == u64::MAX
            && self.prefix.is_empty()
            && self.rest.is_none()
            && self.contains.is_none()
            && self.members.iter().all(|m| m.schema.is_none())
            && self.patterns.is_empty()
            && self.additional.is_none()
            && self.names.is_none()
            && self.required == 0
            && self.dependent_required.is_empty()
            && self.dependent_schemas.is_empty()
    }

    /// Fills the fields derived from the others ([`Node::plain_members`],
    /// [`Node::ranges`], [`Node::simple`]), once the node is final: the
    /// members are put in order of their first byte.
    pub(super) fn finish(&mut self) {
        self.plain_members = self.members.iter().all(|m| m.first != 0);
        self.simple = self.kind == Kind::Check
            && !self.only_in_place
            && !self.in_place()
            && self.lone_if.is_none()
            && self.unevaluated_properties.is_none()
            && self.unevaluated_items.is_none();
        self.type_only = self.kind == Kind::Check
            && !self.only_in_place
            && self.in_place()
            && self.types != ALL_TYPES
            && (self.types & NUMBER != 0 || self.types & INTEGER == 0)
            && {
                let mut bare = self.clone();
                bare.types = ALL_TYPES;
                bare.asserts_nothing_itself()
            };
        self.leaf = match self.kind {
            Kind::Any => Some(ALL_TYPES),
            Kind::Never => Some(0),
            Kind::Check => {
                let mut bare = self.clone();
                bare.types = ALL_TYPES;
                bare.asserts_nothing().then_some(self.types)
            }
        };
        self.probe = None;
        if self.kind == Kind::Check
            && self.members.len() == 1
            && (self.types == ALL_TYPES || self.types == OBJECT)
        {
            let mut rest = self.clone();
            rest.types = ALL_TYPES;
            rest.members.clear();
            rest.required = 0;
            if rest.asserts_nothing() {
                let member = &self.members[0];
                self.probe = Some(Box::new(Probe {
                    name: member.name.clone(),
                    schema: member.schema,
                    required: self.required != 0,
                    values: None,
                }));
                self.simple = false;
            }
        }
        self.ranges = None;
        if self.members.len() > 8 && self.members.len() < usize::from(u16::MAX) {
            // Where many names of one first byte share their first eight
            // bytes, a key's first word does not tell them apart: its length
            // does (`Cursor::known_key`).
            let mut shared: HashMap<(u8, u64), usize> = HashMap::new();
            for m in &self.members {
                *shared.entry((m.first, m.prefix)).or_default() += 1;
            }
            let mut by_length = [false; 256];
            for (&(first, _), &n) in &shared {
                by_length[usize::from(first)] |= first != 0 && n >= SHARED_PREFIXES;
            }
            for m in &mut self.members {
                m.by_length = by_length[usize::from(m.first)];
            }
            // By first byte, and those by length by their length (otherwise
            // in the schema's order).
            self.members
                .sort_by_key(|m| (m.first, if m.by_length { m.name.len() } else { 0 }));
            let mut ranges = Box::new([0u16; 257]);
            for (at, m) in self.members.iter().enumerate() {
                ranges[usize::from(m.first) + 1] = at as u16 + 1;
            }
            // Each bound is where the next byte's members start.
            for b in 1..257 {
                ranges[b] = ranges[b].max(ranges[b - 1]);
            }
            self.ranges = Some(ranges);
        }
    }

    /// The strings a string value must be one of, when the node asks
    /// nothing else of strings (`{"const": "markdown"}`, `{"type":
    /// "string", "enum": [...]}`): a string conforms exactly when it is
    /// one of them. Read once the node is final.
    pub(super) fn string_set(&self) -> Option<&Strings> {
        if self.kind != Kind::Check || !(self.types == ALL_TYPES || self.types == STRING) {
            return None;
        }
        let mut rest = self.clone();
        rest.types = ALL_TYPES;
        rest.choice = None;
        rest.strings = None;
        rest.integers = None;
        if !rest.asserts_nothing() {
            return None;
        }
        self.strings.as_ref()
    }

    /// How the node tells a tag-like string apart, when it asks nothing
    /// nested: `Some(true)` by one of its strings (what an index reads),
    /// `Some(false)` by a pattern of one of the cheap anchored matchers
    /// (an exact text, words, runs of classes: `^2.0.0$`), `None`
    /// otherwise ([`Node::selective`]).
    pub(super) fn selects_by(&self) -> Option<bool> {
        let plain = self.kind == Kind::Check
            && self.members.is_empty()
            && self.patterns.is_empty()
            && self.additional.is_none()
            && self.prefix.is_empty()
            && self.rest.is_none()
            && self.contains.is_none()
            && !self.in_place();
        if !plain {
            return None;
        }
        if self.strings.is_some() || self.literal.is_some() {
            return Some(true);
        }
        match self.pattern.as_deref()? {
            Pattern::Exact(_)
            | Pattern::Alternation(_)
            | Pattern::Folded(_)
            | Pattern::Classes(_) => Some(false),
            _ => None,
        }
    }

    /// The members a key whose body starts with `first` may be.
    #[inline(always)]
    pub(in crate::json::validate) fn candidates(&self, first: u8) -> (usize, &[Member]) {
        match &self.ranges {
            Some(ranges) => {
                let from = usize::from(ranges[usize::from(first)]);
                let to = usize::from(ranges[usize::from(first) + 1]);
                (from, &self.members[from..to])
            }
            None => (0, &self.members),
        }
    }

    /// The member a key is, when the bytes already tell: the one the
    /// tokenizer's `Cursor::known_key` matched (`known`), or none for an unescaped key it did not match
    /// when every name is matched so ([`Node::plain_members`]). `None`:
    /// look the key's text up ([`Node::member_named`]).
    #[inline(always)]
    pub(in crate::json::validate) fn matched(
        &self,
        known: Option<usize>,
        escaped: bool,
    ) -> Option<Option<&Member>> {
        match known {
            Some(at) => Some(self.members.get(at)),
            None if !escaped && self.plain_members => Some(None),
            None => None,
        }
    }

    /// The member named `name` (a key's text), looked up among the members
    /// that start like it (and those [`Member::first`] does not place).
    #[inline]
    pub(in crate::json::validate) fn member_named(&self, name: &str) -> Option<&Member> {
        let among = |first: u8| self.candidates(first).1.iter().find(|m| *m.name == *name);
        match name.as_bytes().first() {
            Some(&first) if first != 0 && self.ranges.is_some() => {
                among(first).or_else(|| among(0))
            }
            _ => among(0),
        }
    }

    /// Calls `f` on every subschema the node refers to (its children in
    /// the plan's graph, in place or not).
    pub(super) fn for_each_child(&mut self, mut f: impl FnMut(&mut u32)) {
        self.prefix.iter_mut().for_each(&mut f);
        let singles = [
            &mut self.rest,
            &mut self.contains,
            &mut self.additional,
            &mut self.names,
            &mut self.unevaluated_properties,
            &mut self.unevaluated_items,
            &mut self.not,
            &mut self.lone_if,
        ];
        for child in singles.into_iter().flatten() {
            f(child);
        }
        for m in &mut self.members {
            if let Some(child) = &mut m.schema {
                f(child);
            }
        }
        for (_, child) in &mut self.patterns {
            f(child);
        }
        for (_, child) in &mut self.evaluating_dependents {
            f(child);
        }
        for (_, child) in &mut self.dependent_schemas {
            f(child);
        }
        self.all_of.iter_mut().for_each(&mut f);
        self.any_of.iter_mut().for_each(&mut f);
        self.one_of.iter_mut().for_each(&mut f);
        if let Some((condition, then, otherwise)) = &mut self.condition {
            f(condition);
            if let Some(then) = then {
                f(then);
            }
            if let Some(otherwise) = otherwise {
                f(otherwise);
            }
        }
    }

    pub(super) fn in_place_edges(&self) -> impl Iterator<Item = u32> + '_ {
        let condition = self
            .condition
            .iter()
            .flat_map(|&(i, t, e)| std::iter::once(i).chain(t).chain(e));
        self.all_of
            .iter()
            .chain(&self.any_of)
            .chain(&self.one_of)
            .copied()
            .chain(self.not)
            .chain(condition)
            .chain(self.dependent_schemas.iter().map(|&(_, s)| s))
    }
}
#[cfg(test)]
mod tests {
    use std::mem::{align_of, offset_of, size_of};

    use super::{Node, Strings};

    #[test]
    fn the_fields_every_visit_reads_share_one_cache_line() {
        assert_eq!(align_of::<Node>(), 64);
        for end in [
            offset_of!(Node, leaf),
            offset_of!(Node, kind),
            offset_of!(Node, types),
            offset_of!(Node, simple),
            offset_of!(Node, probe),
            offset_of!(Node, numeric),
            offset_of!(Node, choice),
            offset_of!(Node, text),
            offset_of!(Node, pattern),
            offset_of!(Node, extra) + 8,
        ] {
            assert!(end <= 64, "{end}");
        }
        // Nine lines: the validators, patterns and probes are boxed.
        assert!(size_of::<Node>() <= 9 * 64, "{}", size_of::<Node>());
    }

    #[test]
    fn strings_hold_exactly_their_options() {
        let mut options: Vec<String> = ["", "a", "b", "ab", "ba", "abcdefgh", "abcdefgi"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        // Longer than a key's eight bytes, differing past them or in them;
        // a NUL byte where a shorter option is zero-padded.
        options.extend(
            [
                "abcdefghij",
                "abcdefghik",
                "abcdefgxij",
                "a\0",
                "é",
                "ééééé",
            ]
            .map(String::from),
        );
        let probes: Vec<String> = options
            .iter()
            .cloned()
            .chain(
                [
                    "c",
                    "abc",
                    "abcdefg",
                    "abcdefghi",
                    "abcdefghijk",
                    "a\0\0",
                    "\0",
                    "x",
                ]
                .map(String::from),
            )
            .collect();
        // Each count of options, in turn: searched in order (up to eight)
        // or by halves.
        for n in 0..=options.len() {
            let chosen = &options[..n];
            let mut given: Vec<Box<str>> = chosen.iter().map(|s| Box::from(s.as_str())).collect();
            given.extend(given.clone()); // duplicates kept once
            let set = Strings::new(given);
            assert_eq!(set.iter().count(), {
                let mut c = chosen.to_vec();
                c.sort();
                c.dedup();
                c.len()
            });
            for probe in &probes {
                assert_eq!(set.contains(probe), chosen.contains(probe), "{n} {probe:?}");
            }
        }
    }
}
