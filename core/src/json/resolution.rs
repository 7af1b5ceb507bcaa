//! Resolution for JSON Schema: a plan made from two schemas' documents,
//! run over the payload's bytes with the validating scanner's tokenizer
//! (no `serde_json::Value` built for a payload; only an `enum` member is
//! read into one to be compared).
//!
//! One builder makes both ways. It pairs a *source* subschema (whose
//! payload comes in) with a *target* one (whose layout goes out); reading,
//! the source is the writer and the target the reader, writing back the
//! other way round. Aliases always come from the reader's side.
//!
//! What the plan reads (see `docs/resolution.md` for the table):
//!
//! * `type` (a name or a list; absent is any type), `enum`, `const`,
//!   `properties`, `required`, `additionalProperties`, `items` (one
//!   schema), `anyOf`/`oneOf`, `default`, `$ref` to a JSON pointer in the
//!   same document, and the annotations (`title`, `description`,
//!   `aliases`, ...);
//! * the value constraints (`minLength`, `maximum`, `pattern`, `format`,
//!   ...), compared: reading, the reader's must hold for every value the
//!   writer's allow (else the pair is narrowing and refused); writing back
//!   they are checked on the output (the writer's validator runs on it).
//!
//! A subschema using anything else resolves only against an identical one
//! (its value copied as it is), else the pair is refused naming the
//! keyword.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::validate::plan::KeyPattern as Pattern;
use super::validate::tokenizer::{Cursor, Stop};
use super::validate::MAX_NESTING;
use crate::resolution::{
    max_output, refused, too_large, Aliases, Direction, PlanPath, Unresolvable,
};
use crate::violation::{Violation, ViolationKind};

type StepId = usize;

/// The JSON types, as bits.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Types(u8);

impl Types {
    const NULL: u8 = 1;
    const BOOLEAN: u8 = 2;
    const INTEGER: u8 = 4;
    /// A number that is not an integer.
    const FRACTION: u8 = 8;
    const STRING: u8 = 16;
    const ARRAY: u8 = 32;
    const OBJECT: u8 = 64;
    const ALL: Types = Types(127);
    const NONE: Types = Types(0);

    fn has(self, bit: u8) -> bool {
        self.0 & bit != 0
    }

    fn of_name(name: &str) -> Option<Types> {
        Some(Types(match name {
            "null" => Self::NULL,
            "boolean" => Self::BOOLEAN,
            "integer" => Self::INTEGER,
            "number" => Self::INTEGER | Self::FRACTION,
            "string" => Self::STRING,
            "array" => Self::ARRAY,
            "object" => Self::OBJECT,
            _ => return None,
        }))
    }

    fn of_value(value: &Value) -> Types {
        Types(match value {
            Value::Null => Self::NULL,
            Value::Bool(_) => Self::BOOLEAN,
            Value::Number(n) if n.is_i64() || n.is_u64() => Self::INTEGER,
            Value::Number(n) if n.as_f64().is_some_and(|x| x.fract() == 0.0) => Self::INTEGER,
            Value::Number(_) => Self::FRACTION,
            Value::String(_) => Self::STRING,
            Value::Array(_) => Self::ARRAY,
            Value::Object(_) => Self::OBJECT,
        })
    }

    /// Each type's bit and keyword name, in the order `type` lists them.
    const NAMES: [(u8, &'static str); 7] = [
        (Self::NULL, "null"),
        (Self::BOOLEAN, "boolean"),
        (Self::INTEGER, "integer"),
        (Self::FRACTION, "number"),
        (Self::STRING, "string"),
        (Self::ARRAY, "array"),
        (Self::OBJECT, "object"),
    ];

    /// The names of the types present, a fraction named `number`.
    fn present(self) -> impl Iterator<Item = &'static str> {
        Self::NAMES
            .into_iter()
            .filter(move |&(bit, _)| self.has(bit))
            .map(|(_, name)| name)
    }

    fn names(self) -> String {
        let out: Vec<&str> = self.present().collect();
        if out.is_empty() {
            "nothing".into()
        } else {
            out.join(" or ")
        }
    }
}

/// What to do with a source enum member the target lacks.
#[derive(Debug, Clone)]
enum Missing {
    /// Write this JSON text instead (the reader's default).
    Default(String),
    /// Leave the member out of its object (an optional property).
    Absent,
    /// Refuse the payload.
    Refuse,
}

/// How one value becomes one value.
#[derive(Debug, Clone)]
enum Step {
    /// The value as it is (the target accepts every value the source
    /// writes there).
    Copy,
    /// Per JSON type of the value.
    Value(Box<ValueStep>),
    /// The first of these that reads the value.
    Union(Vec<StepId>),
    /// An object union with a discriminator: the branch whose `key` has
    /// this value.
    Discriminated {
        key: String,
        branches: Vec<(Value, StepId)>,
    },
}

#[derive(Debug, Clone)]
struct ValueStep {
    /// The types the target accepts (others are refused: only writing back
    /// may meet them, reading refuses such a pair when planned).
    accept: Types,
    /// Enum members the target accepts (`None`: any), and what becomes of
    /// the others.
    members: Option<(Vec<Value>, Missing)>,
    array: Option<StepId>,
    object: Option<Box<ObjectStep>>,
}

#[derive(Debug, Clone)]
struct ObjectStep {
    /// Source property name to (target field index, step); `None` for a
    /// source property the target has no field for (dropped).
    by_name: Vec<(String, Option<(usize, StepId)>)>,
    /// Target fields: the key written (`"name":`) and what to write when
    /// nothing was read into it.
    targets: Vec<(String, Fill)>,
    /// Keys the source does not declare (unless the target declares them:
    /// a target field is written from its source field or its fill alone).
    others: Others,
}

/// What becomes of an object's keys the source does not declare.
#[derive(Debug, Clone)]
enum Others {
    /// Dropped: the target does not take them.
    Drop,
    /// Each value through this step (a map's values).
    Step(StepId),
    /// By the `patternProperties` each key matches on either side.
    Patterns(Box<PatternRoutes>),
}

/// An undeclared key's way when either side has `patternProperties`: the
/// source slot is the first source pattern the key matches (else the
/// source's `additionalProperties`), the target slot likewise; each pair
/// of slots has its route, planned when the plan is made.
#[derive(Clone)]
struct PatternRoutes {
    source: Vec<Pattern>,
    target: Vec<Pattern>,
    /// `(source.len() + 1) * (target.len() + 1)` routes, a row per source
    /// slot (the last: no pattern matched).
    routes: Vec<Route>,
}

impl std::fmt::Debug for PatternRoutes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PatternRoutes")
            .field("routes", &self.routes)
            .finish_non_exhaustive()
    }
}

#[derive(Debug, Clone)]
enum Route {
    Drop,
    Step(StepId),
    /// The key's value cannot be read as the target's (two different
    /// patterns whose subschemas do not resolve): the payload is refused
    /// when a key matches both.
    Refuse(String),
}

impl PatternRoutes {
    fn slot(patterns: &[Pattern], key: &str) -> Result<usize, Fail> {
        for (i, pattern) in patterns.iter().enumerate() {
            match pattern.is_match(key) {
                Some(true) => return Ok(i),
                Some(false) => {}
                None => {
                    return Err(refuse(
                        "cannot tell whether the key matches a patternProperties pattern \
                         (its match ran out of budget)",
                    ))
                }
            }
        }
        Ok(patterns.len())
    }

    fn route(&self, key: &str) -> Result<&Route, Fail> {
        let s = Self::slot(&self.source, key)?;
        let t = Self::slot(&self.target, key)?;
        Ok(&self.routes[s * (self.target.len() + 1) + t])
    }
}

/// Subschemas made while a plan is made (an `allOf` merged, a `$ref`
/// beside other keywords, a union's siblings carried into its branches),
/// dropped with the builder.
#[derive(Default)]
struct Arena(std::cell::RefCell<Vec<*mut Value>>);

impl Arena {
    fn alloc(&self, value: Value) -> &Value {
        let at = Box::into_raw(Box::new(value));
        self.0.borrow_mut().push(at);
        // SAFETY: `at` is a live allocation owned by the arena, freed only
        // by its `Drop`; nothing takes it mutably, and the reference lives
        // no longer than `&self`.
        unsafe { &*at }
    }
}

impl Drop for Arena {
    fn drop(&mut self) {
        for at in self.0.get_mut().drain(..) {
            // SAFETY: each pointer came from `Box::into_raw` in `alloc`,
            // once, and no reference to it outlives the arena.
            drop(unsafe { Box::from_raw(at) });
        }
    }
}

/// A node's merged form, as `Builder::normal` made it.
#[derive(Clone, Copy)]
enum Merged<'a> {
    Pending,
    Done(&'a Value),
}

/// What a target field gets when the source did not give it a value.
#[derive(Debug, Clone)]
enum Fill {
    /// Nothing: the field is optional.
    Absent,
    /// This JSON text (a default, or `null`).
    Text(String),
    /// The payload is refused (a required field the source may omit:
    /// only writing back plans one).
    Refuse(String),
}

/// One way of a JSON pair's plan.
#[derive(Debug)]
pub(crate) struct JsonWay {
    steps: Vec<Step>,
    root: StepId,
    check: bool,
}

/// A subschema of a document, its `$ref`s to pointers followed.
#[derive(Clone, Copy)]
struct Sub<'a> {
    doc: &'a Value,
    node: &'a Value,
}

const ANNOTATIONS: &[&str] = &[
    "$schema",
    "$id",
    "$comment",
    "$anchor",
    "$defs",
    "definitions",
    "title",
    "description",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "default",
    "aliases",
];

const STRUCTURE: &[&str] = &[
    "$ref",
    "allOf",
    "patternProperties",
    "type",
    "enum",
    "const",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "anyOf",
    "oneOf",
];

/// The validation keywords of drafts 4 to 2020-12 the plan does not read:
/// a subschema using one resolves only against an identical one. Any
/// other keyword it does not list (draft-04's `id`, `x-` extensions, a
/// vocabulary of one's own) is an annotation, as validators take it:
/// ignored.
const UNREAD: &[&str] = &[
    "$dynamicRef",
    "$dynamicAnchor",
    "$recursiveRef",
    "$recursiveAnchor",
    "not",
    "if",
    "then",
    "else",
    "dependencies",
    "dependentRequired",
    "dependentSchemas",
    "prefixItems",
    "additionalItems",
    "contains",
    "minContains",
    "maxContains",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
    "contentSchema",
    RESIDUAL,
];

/// The assertions among [`UNREAD`]: each only narrows which values are
/// valid, changing no other keyword's meaning. A source's are ignored
/// (the plan then assumes less of its values); a target's must be the
/// source's own (the same keyword, the same value) and the output is
/// validated against the target schema.
const ASSERTIONS: &[&str] = &[
    "not",
    "if",
    "then",
    "else",
    "dependencies",
    "dependentRequired",
    "dependentSchemas",
    "contains",
    "minContains",
    "maxContains",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
    RESIDUAL,
];

/// In a merged node: the `allOf` branches' assertions that could not be
/// merged keyword by keyword (two branches' `if`/`then`/`else`, two
/// `not`s), each branch's kept whole.
const RESIDUAL: &str = "$resolution:allOf";

/// The conditional keywords, merged or kept as one group.
const CONDITIONAL: &[&str] = &["if", "then", "else"];

/// Whether `keyword` says nothing about which values are valid: a listed
/// annotation, or a keyword of no validation vocabulary.
fn is_annotation(keyword: &str) -> bool {
    ANNOTATIONS.contains(&keyword)
        || !(STRUCTURE.contains(&keyword)
            || LOWER.contains(&keyword)
            || UPPER.contains(&keyword)
            || SAME.contains(&keyword)
            || UNREAD.contains(&keyword))
}

/// Lower bounds: the target's must be at most the source's.
const LOWER: &[&str] = &["minLength", "minimum", "minItems", "minProperties"];
/// Upper bounds: the target's must be at least the source's.
const UPPER: &[&str] = &["maxLength", "maximum", "maxItems", "maxProperties"];
/// Constraints the target must share exactly (or not have).
const SAME: &[&str] = &[
    "format",
    "pattern",
    "multipleOf",
    "uniqueItems",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "contentEncoding",
    "contentMediaType",
];

impl<'a> Sub<'a> {
    fn object(&self) -> Option<&'a Map<String, Value>> {
        self.node.as_object()
    }

    fn get(&self, key: &str) -> Option<&'a Value> {
        self.object().and_then(|o| o.get(key))
    }

    fn child(&self, node: &'a Value) -> Sub<'a> {
        Sub {
            doc: self.doc,
            node,
        }
    }

    /// Follows a `$ref` that is alone (or beside annotations) to a pointer
    /// in the same document; up to 32 in a row. A `$ref` beside other
    /// keywords stays (`Builder::normal` merges it with them).
    fn follow(mut self) -> Result<Sub<'a>, String> {
        for _ in 0..32 {
            let Some(Value::String(target)) = self.get("$ref") else {
                return Ok(self);
            };
            let others = self
                .object()
                .into_iter()
                .flatten()
                .any(|(k, _)| k != "$ref" && !is_annotation(k));
            if others {
                return Ok(self);
            }
            let Some(pointer) = target.strip_prefix('#') else {
                return Err(format!("a $ref to another document ({target})"));
            };
            let pointer = percent_decode(pointer);
            self.node = self
                .doc
                .pointer(&pointer)
                .ok_or_else(|| format!("a $ref to nothing ({target})"))?;
        }
        Err("$refs that lead 32 deep".into())
    }

    /// The types the subschema allows, from `type`, `enum`, `const`.
    fn types(&self) -> Types {
        match self.node {
            Value::Bool(false) => return Types::NONE,
            Value::Bool(true) => return Types::ALL,
            _ => {}
        }
        let mut types = match self.get("type") {
            Some(Value::String(name)) => Types::of_name(name).unwrap_or(Types::NONE),
            Some(Value::Array(names)) => Types(
                names
                    .iter()
                    .filter_map(|n| n.as_str().and_then(Types::of_name))
                    .fold(0, |acc, t| acc | t.0),
            ),
            _ => Types::ALL,
        };
        if let Some(members) = self.members() {
            let of = members.iter().fold(0, |acc, v| acc | Types::of_value(v).0);
            types = Types(types.0 & of);
        }
        types
    }

    /// The `enum` members, or the `const` as one.
    fn members(&self) -> Option<Vec<&'a Value>> {
        if let Some(c) = self.get("const") {
            return Some(vec![c]);
        }
        match self.get("enum") {
            Some(Value::Array(members)) => Some(members.iter().collect()),
            _ => None,
        }
    }

    fn properties(&self) -> Vec<(&'a str, Sub<'a>)> {
        match self.get("properties") {
            Some(Value::Object(props)) => props
                .iter()
                .map(|(k, v)| (k.as_str(), self.child(v)))
                .collect(),
            _ => Vec::new(),
        }
    }

    fn required(&self) -> Vec<&'a str> {
        match self.get("required") {
            Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        }
    }

    fn union(&self) -> Option<(&'static str, &'a [Value])> {
        for key in ["oneOf", "anyOf"] {
            if let Some(Value::Array(branches)) = self.get(key) {
                return Some((key, branches));
            }
        }
        None
    }

    /// The first validation keyword the plan does not read, if any.
    fn unknown_keyword(&self) -> Option<&'a str> {
        self.object()?
            .keys()
            .map(String::as_str)
            .find(|k| UNREAD.contains(k) && !ASSERTIONS.contains(k))
    }
}

/// The most JSON values the merged nodes of one plan hold.
const MAX_MERGED: usize = 1 << 20;

/// The values in `value` (itself included), counted up to `cap`.
fn count_values(value: &Value, cap: usize) -> usize {
    let mut count = 0;
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        count += 1;
        if count >= cap {
            return cap;
        }
        match v {
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => stack.extend(map.values()),
            _ => {}
        }
    }
    count
}

/// Whether `normal` merges this node: an `allOf`, a `$ref` (`follow` left
/// it: other keywords beside it), or a union beside other keywords.
fn needs_merge(object: &Map<String, Value>) -> bool {
    if object.contains_key("allOf") || object.contains_key("$ref") {
        return true;
    }
    let union = if object.contains_key("oneOf") {
        "oneOf"
    } else if object.contains_key("anyOf") {
        "anyOf"
    } else {
        return false;
    };
    object.keys().any(|k| k != union && !is_annotation(k))
}

/// A union's sibling keywords carried into each branch (`{P, oneOf: [A,
/// B]}` allows what `{oneOf: [{allOf: [P, A]}, {allOf: [P, B]}]}` does);
/// the annotations (`default`) stay beside the union.
fn distribute(merged: Value) -> Result<Value, String> {
    let Value::Object(mut object) = merged else {
        return Ok(merged);
    };
    let union = if object.contains_key("oneOf") {
        "oneOf"
    } else if object.contains_key("anyOf") {
        "anyOf"
    } else {
        return Ok(Value::Object(object));
    };
    let siblings: Vec<String> = object
        .keys()
        .filter(|k| *k != union && !is_annotation(k))
        .cloned()
        .collect();
    if siblings.is_empty() {
        return Ok(Value::Object(object));
    }
    if siblings.iter().any(|k| k == "oneOf" || k == "anyOf") {
        return Err("both oneOf and anyOf".into());
    }
    let Some(Value::Array(branches)) = object.remove(union) else {
        return Err(format!("a {union} that is not a list"));
    };
    let mut common = Map::new();
    for k in siblings {
        if let Some(v) = object.remove(&k) {
            common.insert(k, v);
        }
    }
    let common = Value::Object(common);
    let branches = branches
        .into_iter()
        .map(|branch| both(common.clone(), &branch))
        .collect();
    object.insert(union.into(), Value::Array(branches));
    Ok(Value::Object(object))
}

/// `{allOf: [a, b]}`, for two values of one keyword both sides give.
fn both(a: Value, b: &Value) -> Value {
    let mut map = Map::new();
    map.insert("allOf".into(), Value::Array(vec![a, b.clone()]));
    Value::Object(map)
}

/// Two values both of which must hold, as one (`true` left out).
fn combine(x: Value, y: Value) -> Value {
    match (&x, &y) {
        (Value::Bool(true), _) => y,
        (_, Value::Bool(true)) => x,
        _ if same_value(&x, &y) => x,
        _ => both(x, &y),
    }
}

/// The object keywords (`properties`, `patternProperties`,
/// `additionalProperties`) of two `allOf` branches as one set: each
/// branch's `additionalProperties` sees its own `properties` and patterns
/// only, so a property one branch declares gets, from the other, that
/// branch's property, else its matching patterns, else its
/// `additionalProperties`. Exact when at most one branch has patterns, or
/// neither is closed.
fn merge_objects(
    a: &Map<String, Value>,
    b: &Map<String, Value>,
) -> Result<Map<String, Value>, String> {
    fn map<'m>(m: &'m Map<String, Value>, k: &str) -> Option<&'m Map<String, Value>> {
        m.get(k).and_then(Value::as_object)
    }
    let rest = |m: &Map<String, Value>| {
        m.get("additionalProperties")
            .cloned()
            .unwrap_or(Value::Bool(true))
    };
    let patterned =
        |m: &Map<String, Value>| map(m, "patternProperties").is_some_and(|p| !p.is_empty());
    let open = |m: &Map<String, Value>| matches!(rest(m), Value::Bool(true));
    if patterned(a) && patterned(b) && !(open(a) && open(b)) {
        return Err(
            "an allOf of two branches with patternProperties, one closed by \
             additionalProperties"
                .into(),
        );
    }
    let applicable = |m: &Map<String, Value>, name: &str| -> Result<Value, String> {
        if let Some(v) = map(m, "properties").and_then(|p| p.get(name)) {
            return Ok(v.clone());
        }
        let mut matching = Vec::new();
        for (pattern, v) in map(m, "patternProperties").into_iter().flatten() {
            let compiled = Pattern::new(pattern).ok_or_else(|| {
                format!("a patternProperties pattern {pattern:?} that does not compile")
            })?;
            match compiled.is_match(name) {
                Some(true) => matching.push(v.clone()),
                Some(false) => {}
                None => {
                    return Err(format!(
                        "a pattern {pattern:?} that cannot tell about {name}"
                    ))
                }
            }
        }
        if matching.is_empty() {
            return Ok(rest(m));
        }
        Ok(matching.into_iter().fold(Value::Bool(true), combine))
    };
    let mut out = Map::new();
    let mut props = Map::new();
    for name in map(a, "properties")
        .into_iter()
        .chain(map(b, "properties"))
        .flat_map(|p| p.keys())
    {
        if !props.contains_key(name) {
            props.insert(
                name.clone(),
                combine(applicable(a, name)?, applicable(b, name)?),
            );
        }
    }
    if !props.is_empty() {
        out.insert("properties".into(), Value::Object(props));
    }
    let mut pats = Map::new();
    for (own, other) in [(a, b), (b, a)] {
        for (pattern, v) in map(own, "patternProperties").into_iter().flatten() {
            let value = if patterned(other) {
                // Both open: each pattern stands, the same one merged.
                match pats.remove(pattern) {
                    Some(old) => combine(old, v.clone()),
                    None => v.clone(),
                }
            } else {
                combine(v.clone(), rest(other))
            };
            pats.insert(pattern.clone(), value);
        }
    }
    if !pats.is_empty() {
        out.insert("patternProperties".into(), Value::Object(pats));
    }
    let additional = combine(rest(a), rest(b));
    if additional != Value::Bool(true) {
        out.insert("additionalProperties".into(), additional);
    }
    Ok(out)
}

/// Two subschemas as one that allows what both allow (an `allOf`'s
/// branches); `b` is normal (no `allOf` or `$ref` of its own).
fn merge_two(a: Value, b: &Value) -> Result<Value, String> {
    let (mut a, b) = match (a, b) {
        (Value::Bool(false), _) | (_, Value::Bool(false)) => return Ok(Value::Bool(false)),
        (a, Value::Bool(true)) => return Ok(a),
        (Value::Bool(true), b) => return Ok(b.clone()),
        (Value::Object(a), Value::Object(b)) => (a, b),
        _ => return Err("an allOf branch that is not a schema".into()),
    };
    const OBJECT: [&str; 3] = ["properties", "patternProperties", "additionalProperties"];
    let touches = |m: &Map<String, Value>| OBJECT.iter().any(|k| m.contains_key(*k));
    let objects = if touches(&a) && touches(b) {
        let merged = merge_objects(&a, b)?;
        for k in OBJECT {
            a.remove(k);
        }
        Some(merged)
    } else {
        None
    };
    // Two branches' conditionals (or other assertions) are kept apart,
    // whole.
    let mut residual = Vec::new();
    let conditional = |m: &Map<String, Value>| CONDITIONAL.iter().any(|k| m.contains_key(*k));
    if conditional(&a) && conditional(b) {
        let mut group = Map::new();
        for k in CONDITIONAL {
            if let Some(v) = b.get(*k) {
                group.insert((*k).into(), v.clone());
            }
        }
        residual.push(Value::Object(group));
    }
    for (k, bv) in b {
        if !residual.is_empty() && CONDITIONAL.contains(&k.as_str()) {
            continue;
        }
        if k == RESIDUAL {
            residual.extend(bv.as_array().into_iter().flatten().cloned());
            continue;
        }
        if objects.is_some() && OBJECT.contains(&k.as_str()) {
            continue;
        }
        let Some(av) = a.remove(k) else {
            a.insert(k.clone(), bv.clone());
            continue;
        };
        if same_value(&av, bv) {
            a.insert(k.clone(), av);
            continue;
        }
        let value = match k.as_str() {
            "type" => {
                let types = |v: &Value| match v {
                    Value::String(n) => Types::of_name(n).map_or(0, |t| t.0),
                    Value::Array(ns) => ns
                        .iter()
                        .filter_map(|n| n.as_str().and_then(Types::of_name))
                        .fold(0, |acc, t| acc | t.0),
                    _ => Types::ALL.0,
                };
                type_names(Types(types(&av) & types(bv)))
            }
            "properties" | "patternProperties" => match (av, bv) {
                (Value::Object(mut am), Value::Object(bm)) => {
                    for (name, sub) in bm {
                        let value = match am.remove(name) {
                            Some(old) if same_value(&old, sub) => old,
                            Some(old) => both(old, sub),
                            None => sub.clone(),
                        };
                        am.insert(name.clone(), value);
                    }
                    Value::Object(am)
                }
                _ => return Err(format!("an allOf whose {k} is not an object")),
            },
            "items" | "additionalProperties" => both(av, bv),
            "required" => {
                let mut names = match av {
                    Value::Array(names) => names,
                    _ => Vec::new(),
                };
                for name in bv.as_array().into_iter().flatten() {
                    if !names.contains(name) {
                        names.push(name.clone());
                    }
                }
                Value::Array(names)
            }
            "enum" => Value::Array(
                av.as_array()
                    .into_iter()
                    .flatten()
                    .filter(|m| {
                        bv.as_array()
                            .into_iter()
                            .flatten()
                            .any(|n| same_value(m, n))
                    })
                    .cloned()
                    .collect(),
            ),
            k if LOWER.contains(&k) || UPPER.contains(&k) => match (av.as_f64(), bv.as_f64()) {
                (Some(x), Some(y)) => {
                    let keep_a = if LOWER.contains(&k) { x >= y } else { x <= y };
                    if keep_a {
                        av
                    } else {
                        bv.clone()
                    }
                }
                _ => return Err(format!("an allOf whose {k} is not a number")),
            },
            k if is_annotation(k) => av,
            "oneOf" | "anyOf" => return Err(format!("an allOf of two unions ({k})")),
            k if ASSERTIONS.contains(&k) => {
                let mut one = Map::new();
                one.insert(k.into(), bv.clone());
                residual.push(Value::Object(one));
                av
            }
            _ => {
                return Err(format!(
                    "an allOf whose branches give {k} differently, which resolution does not \
                     merge"
                ))
            }
        };
        a.insert(k.clone(), value);
    }
    a.extend(objects.into_iter().flatten());
    if !residual.is_empty() {
        match a.get_mut(RESIDUAL) {
            Some(Value::Array(kept)) => kept.extend(residual),
            _ => {
                a.insert(RESIDUAL.into(), Value::Array(residual));
            }
        }
    }
    // A `const` beside an `enum`: the const, when the enum has it.
    if let (Some(c), Some(Value::Array(members))) = (a.get("const"), a.get("enum")) {
        if !members.iter().any(|m| same_value(m, c)) {
            return Err("an allOf whose const is not a member of its enum".into());
        }
        a.remove("enum");
    }
    Ok(Value::Object(a))
}

/// A subschema's assertions the plan does not read, each as a unit to
/// compare (`if`/`then`/`else` together, each merged `allOf` branch's
/// apart), with the keyword to name.
fn assertion_units(sub: &Sub<'_>) -> Vec<(&'static str, Value)> {
    let mut units = Vec::new();
    let Some(object) = sub.object() else {
        return units;
    };
    let mut conditional = Map::new();
    for (k, v) in object {
        if CONDITIONAL.contains(&k.as_str()) {
            conditional.insert(k.clone(), v.clone());
        } else if k == RESIDUAL {
            for part in v.as_array().into_iter().flatten() {
                units.push(("allOf", part.clone()));
            }
        } else if let Some(&name) = ASSERTIONS.iter().find(|a| **a == k) {
            let mut one = Map::new();
            one.insert(k.clone(), v.clone());
            units.push((name, Value::Object(one)));
        }
    }
    if !conditional.is_empty() {
        units.push(("if/then/else", Value::Object(conditional)));
    }
    units
}

/// `type` for these types.
fn type_names(types: Types) -> Value {
    // `number` takes the integers in too, so `integer` beside it is dropped.
    let integer_in_number = types.has(Types::FRACTION);
    Value::Array(
        types
            .present()
            .filter(|&name| !(integer_in_number && name == "integer"))
            .map(|name| Value::String(name.into()))
            .collect(),
    )
}

/// A subschema's `patternProperties`, in order.
fn patterns<'a>(sub: &Sub<'a>) -> Vec<(&'a str, &'a Value)> {
    match sub.get("patternProperties") {
        Some(Value::Object(map)) => map.iter().map(|(k, v)| (k.as_str(), v)).collect(),
        _ => Vec::new(),
    }
}

/// `%xx` escapes of a URI fragment decoded (a JSON pointer in a `$ref`).
fn percent_decode(text: &str) -> String {
    if !text.contains('%') {
        return text.to_owned();
    }
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            if let Some(n) = text
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
            {
                out.push(n);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Whether a subschema holds a `$ref` anywhere (its meaning then depends
/// on its document).
fn has_ref(value: &Value, depth: usize) -> bool {
    if depth > MAX_NESTING {
        return true;
    }
    match value {
        Value::Object(map) => map
            .iter()
            .any(|(k, v)| k == "$ref" || has_ref(v, depth + 1)),
        Value::Array(items) => items.iter().any(|v| has_ref(v, depth + 1)),
        _ => false,
    }
}

fn json_text(value: &Value) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| "null".into())
}

/// `"name":`, as JSON text.
fn key_text(name: &str) -> String {
    let mut out = json_text(&Value::String(name.to_owned()));
    out.push(':');
    out
}

/// JSON Schema equality of two instances: numbers by value.
fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64()) {
            (Some(x), Some(y)) => x == y,
            _ => x.as_f64() == y.as_f64(),
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same_value(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| same_value(v, w)))
        }
        _ => a == b,
    }
}

struct Builder<'a, 'x> {
    direction: Direction,
    arena: &'a Arena,
    /// Nodes merged (`normal`), by address.
    merged: HashMap<usize, Merged<'a>>,
    /// How deep `normal` is in merges.
    merging: usize,
    /// How many JSON values the merged nodes hold, all told (bounded by
    /// [`MAX_MERGED`]: merges of merges may grow exponentially).
    merged_size: usize,
    aliases: &'x Aliases,
    steps: Vec<Step>,
    memo: HashMap<(usize, usize, bool), StepId>,
    path: PlanPath,
    /// The reader's data path as a pointer, for the manifest's aliases.
    pointer: Vec<String>,
    check: bool,
    _docs: std::marker::PhantomData<&'a Value>,
}

impl<'a> Builder<'a, '_> {
    fn reading(&self) -> bool {
        self.direction == Direction::Read
    }

    fn push(&mut self, step: Step) -> StepId {
        self.steps.push(step);
        self.steps.len() - 1
    }

    /// The step reading source `s` as target `t`; `optional`: the value is
    /// an optional property's (a dropped enum member may leave it out).
    fn step(&mut self, s: Sub<'a>, t: Sub<'a>, optional: bool) -> Result<StepId, Unresolvable> {
        if self.path.depth() > 64 {
            return Err(self.path.fail("the schemas nest deeper than 64 levels"));
        }
        let s = s.follow().map_err(|why| {
            self.path
                .fail(format!("the {} schema has {why}", self.source_name()))
        })?;
        let t = t.follow().map_err(|why| {
            self.path
                .fail(format!("the {} schema has {why}", self.target_name()))
        })?;
        // The same subschema, meaning the same in both documents.
        if s.node == t.node && !has_ref(s.node, 0) {
            let key = (
                s.node as *const Value as usize,
                t.node as *const Value as usize,
                optional,
            );
            if let Some(&id) = self.memo.get(&key) {
                return Ok(id);
            }
            return Ok(self.copy(key));
        }
        let s = self.normal(s).map_err(|why| {
            self.path
                .fail(format!("the {} schema has {why}", self.source_name()))
        })?;
        let t = self.normal(t).map_err(|why| {
            self.path
                .fail(format!("the {} schema has {why}", self.target_name()))
        })?;
        let key = (
            s.node as *const Value as usize,
            t.node as *const Value as usize,
            optional,
        );
        if let Some(&id) = self.memo.get(&key) {
            return Ok(id);
        }
        // The target takes anything.
        if matches!(t.node, Value::Bool(true))
            || t.object()
                .is_some_and(|o| o.keys().all(|k| is_annotation(k)))
        {
            return Ok(self.copy(key));
        }
        // The same subschema, meaning the same in both documents.
        if s.node == t.node && !has_ref(s.node, 0) {
            return Ok(self.copy(key));
        }
        if matches!(s.node, Value::Bool(false)) {
            // The source writes nothing here.
            return Ok(self.copy(key));
        }
        for (side, sub) in [(self.source_name(), s), (self.target_name(), t)] {
            if let Some(keyword) = sub.unknown_keyword() {
                return Err(self.path.fail(format!(
                    "the {side} schema uses {keyword}, which resolution reads only between identical \
                     subschemas"
                )));
            }
        }
        let source_units = assertion_units(&s);
        for (keyword, unit) in assertion_units(&t) {
            if !source_units.iter().any(|(_, u)| same_value(u, &unit)) {
                return Err(self.path.fail(format!(
                    "the {} schema uses {keyword}, which resolution reads only where the {} \
                     schema has the same",
                    self.target_name(),
                    self.source_name()
                )));
            }
            self.check = true;
        }
        // Reserved first: a `$ref` may lead back here.
        let id = self.push(Step::Copy);
        self.memo.insert(key, id);
        let step = match (s.union(), t.union()) {
            (_, Some((_, t_branches))) => self.union_target(s, t, t_branches, optional)?,
            (Some((_, s_branches)), None) => {
                let mut steps = Vec::with_capacity(s_branches.len());
                let mut last = None;
                for branch in s_branches {
                    let before = (self.steps.len(), self.memo.clone());
                    match self.step(s.child(branch), t, optional) {
                        Ok(step) => steps.push(step),
                        Err(err) if self.reading() => return Err(err),
                        // Writing back, a reader branch the writer cannot
                        // hold is refused when a value takes it.
                        Err(err) => {
                            self.steps.truncate(before.0);
                            self.memo = before.1;
                            last = Some(err);
                        }
                    }
                }
                if steps.is_empty() {
                    return Err(last.unwrap_or_else(|| self.path.fail("an empty union")));
                }
                Step::Union(steps)
            }
            (None, None) => self.value(s, t, optional)?,
        };
        self.steps[id] = step;
        Ok(id)
    }

    /// A property whose subschema is a `const` (or a one-member `enum`) in
    /// every branch, with distinct values: the union's discriminator.
    fn discriminator(
        &mut self,
        sub: Sub<'a>,
        branches: &'a [Value],
    ) -> Option<(&'a str, Vec<&'a Value>)> {
        let branches: Vec<Sub<'a>> = branches
            .iter()
            .map(|b| self.normal(sub.child(b)))
            .collect::<Result<_, _>>()
            .ok()?;
        let first = branches.first()?;
        'candidates: for (name, _) in first.properties() {
            let mut values: Vec<&Value> = Vec::with_capacity(branches.len());
            for branch in &branches {
                let Some(Value::Object(props)) = branch.get("properties") else {
                    continue 'candidates;
                };
                let Some(sub) = props.get(name) else {
                    continue 'candidates;
                };
                let Ok(sub) = self.normal(branch.child(sub)) else {
                    continue 'candidates;
                };
                match sub.members() {
                    Some(m) if m.len() == 1 && !values.contains(&m[0]) => values.push(m[0]),
                    _ => continue 'candidates,
                }
            }
            return Some((name, values));
        }
        None
    }

    /// `sub` with its `$ref`s followed and, where it has an `allOf`, a
    /// `$ref` beside other keywords (draft 2019-09 on: both apply) or a
    /// union beside other keywords, those merged into one subschema that
    /// allows the same values (made once per node, kept in the arena).
    fn normal(&mut self, sub: Sub<'a>) -> Result<Sub<'a>, String> {
        let mut sub = sub.follow()?;
        for _ in 0..32 {
            let Some(object) = sub.object() else {
                return Ok(sub);
            };
            if !needs_merge(object) {
                return Ok(sub);
            }
            let key = sub.node as *const Value as usize;
            let node = match self.merged.get(&key) {
                Some(Merged::Done(node)) => *node,
                Some(Merged::Pending) => {
                    return Err("an allOf or $ref that includes itself".into());
                }
                None => {
                    if self.merging >= 64 {
                        return Err("allOf and $refs nested deeper than 64".into());
                    }
                    self.merged.insert(key, Merged::Pending);
                    self.merging += 1;
                    let merged = self.merge_node(sub, object);
                    self.merging -= 1;
                    let merged = merged.and_then(|value| {
                        self.merged_size += count_values(&value, MAX_MERGED);
                        if self.merged_size > MAX_MERGED {
                            return Err(format!("allOf merges that grow past {MAX_MERGED} values"));
                        }
                        Ok(value)
                    });
                    match merged {
                        Ok(value) => {
                            let node = self.arena.alloc(value);
                            self.merged.insert(key, Merged::Done(node));
                            node
                        }
                        Err(why) => {
                            self.merged.remove(&key);
                            return Err(why);
                        }
                    }
                }
            };
            sub = sub.child(node).follow()?;
        }
        Err("allOf and $refs that lead 32 deep".into())
    }

    /// One node's `allOf` branches and `$ref` merged with its own keywords;
    /// a union beside other keywords gets them in each branch.
    fn merge_node(
        &mut self,
        sub: Sub<'a>,
        object: &'a Map<String, Value>,
    ) -> Result<Value, String> {
        let mut merged = Map::new();
        for (k, v) in object {
            // Definitions are reached by pointer into the document, not
            // through the merged node.
            if !matches!(k.as_str(), "allOf" | "$ref" | "$defs" | "definitions") {
                merged.insert(k.clone(), v.clone());
            }
        }
        let mut merged = Value::Object(merged);
        let mut parts: Vec<&'a Value> = Vec::new();
        if let Some(target) = object.get("$ref") {
            let mut only = Map::new();
            only.insert("$ref".into(), target.clone());
            parts.push(self.arena.alloc(Value::Object(only)));
        }
        match object.get("allOf") {
            Some(Value::Array(branches)) => parts.extend(branches),
            Some(_) => return Err("an allOf that is not a list".into()),
            None => {}
        }
        for part in parts {
            let part = self.normal(sub.child(part))?;
            merged = merge_two(merged, part.node)?;
        }
        distribute(merged)
    }

    fn copy(&mut self, key: (usize, usize, bool)) -> StepId {
        let id = self.push(Step::Copy);
        self.memo.insert(key, id);
        id
    }

    fn source_name(&self) -> &'static str {
        if self.reading() {
            "writer's"
        } else {
            "reader's"
        }
    }

    fn target_name(&self) -> &'static str {
        if self.reading() {
            "reader's"
        } else {
            "writer's"
        }
    }

    /// Source `s` (a union or not) read as the union `t`.
    fn union_target(
        &mut self,
        s: Sub<'a>,
        t: Sub<'a>,
        t_branches: &'a [Value],
        optional: bool,
    ) -> Result<Step, Unresolvable> {
        let t_disc = self.discriminator(t, t_branches);
        if let Some((_, s_branches)) = s.union() {
            let s_disc = self.discriminator(s, s_branches);
            match (&s_disc, &t_disc) {
                (Some((s_key, s_values)), Some((t_key, t_values))) => {
                    if s_key != t_key {
                        return Err(self.path.fail(format!(
                            "the {} union is discriminated by {s_key}, the {} by {t_key}",
                            self.source_name(),
                            self.target_name()
                        )));
                    }
                    let mut branches = Vec::with_capacity(s_values.len());
                    for (s_branch, value) in s_branches.iter().zip(s_values) {
                        let Some(j) = t_values.iter().position(|v| same_value(v, value)) else {
                            if self.reading() {
                                return Err(self.path.fail(format!(
                                    "the reader's union has no branch for {s_key} {value}"
                                )));
                            }
                            // Written back, such a value is refused.
                            continue;
                        };
                        let step =
                            self.step(s.child(s_branch), t.child(&t_branches[j]), optional)?;
                        branches.push(((*value).clone(), step));
                    }
                    return Ok(Step::Discriminated {
                        key: (*s_key).to_owned(),
                        branches,
                    });
                }
                _ => {
                    // Each source branch read as the target union.
                    let mut steps = Vec::with_capacity(s_branches.len());
                    for branch in s_branches {
                        match self.first_branch(s.child(branch), t, t_branches, optional) {
                            Ok(step) => steps.push(step),
                            Err(err) if self.reading() => return Err(err),
                            Err(_) => {}
                        }
                    }
                    self.check = true;
                    return Ok(Step::Union(steps));
                }
            }
        }
        let step = self.first_branch(s, t, t_branches, optional)?;
        Ok(self.steps[step].clone())
    }

    /// The candidates of target union `t` that resolve `s`, tried in order
    /// at run time; refused when none does.
    fn first_branch(
        &mut self,
        s: Sub<'a>,
        t: Sub<'a>,
        t_branches: &'a [Value],
        optional: bool,
    ) -> Result<StepId, Unresolvable> {
        let mut candidates = Vec::new();
        let mut last = None;
        for branch in t_branches {
            let before = (self.steps.len(), self.memo.clone(), self.check);
            match self.step(s, t.child(branch), optional) {
                Ok(step) => candidates.push(step),
                Err(err) => {
                    self.steps.truncate(before.0);
                    self.memo = before.1;
                    self.check = before.2;
                    last = Some(err);
                }
            }
        }
        match candidates.len() {
            0 => Err(last.unwrap_or_else(|| {
                self.path
                    .fail(format!("the {} union has no branch", self.target_name()))
            })),
            1 => Ok(candidates[0]),
            _ => {
                self.check = true;
                Ok(self.push(Step::Union(candidates)))
            }
        }
    }

    /// Neither side a union: per JSON type.
    fn value(&mut self, s: Sub<'a>, t: Sub<'a>, optional: bool) -> Result<Step, Unresolvable> {
        let s_types = s.types();
        let t_types = t.types();
        let mut accept = t_types;
        // Integer written, number read: widened (the text stays).
        let missing = Types(s_types.0 & !t_types.0);
        if missing.0 != 0 {
            if self.reading() {
                let why = if missing.has(Types::FRACTION) && t_types.has(Types::INTEGER) {
                    "narrowing number to integer".to_owned()
                } else {
                    format!("cannot read {} as {}", s_types.names(), t_types.names())
                };
                return Err(self.path.fail(why));
            }
            if s_types.0 & t_types.0 == 0 {
                return Err(self.path.fail(format!(
                    "cannot write {} back as {}",
                    s_types.names(),
                    t_types.names()
                )));
            }
            // Written back: a value of a type the writer lacks is refused
            // when met (a number must be integral to be an integer).
            accept = t_types;
        }
        self.constraints(s, t)?;
        let members = self.members(s, t, optional)?;
        let array = if s_types.has(Types::ARRAY) && t_types.has(Types::ARRAY) {
            let items = |sub: &Sub<'a>| match sub.get("items") {
                Some(v @ (Value::Object(_) | Value::Bool(_))) => Some(sub.child(v)),
                Some(_) => None,
                None => Some(sub.child(&Value::Bool(true))),
            };
            match (items(&s), items(&t)) {
                (Some(si), Some(ti)) => {
                    self.path.push("*");
                    self.pointer.push("*".into());
                    let step = self.step(si, ti, false);
                    self.path.pop();
                    self.pointer.pop();
                    Some(step?)
                }
                _ => return Err(self.path.fail("items given as a list (tuple form)")),
            }
        } else {
            None
        };
        let object = if s_types.has(Types::OBJECT) && t_types.has(Types::OBJECT) {
            Some(Box::new(self.object(s, t)?))
        } else {
            None
        };
        Ok(Step::Value(Box::new(ValueStep {
            accept,
            members,
            array,
            object,
        })))
    }

    /// The value constraints: reading, the target's must hold whenever the
    /// source's do; writing back, the output is checked.
    fn constraints(&mut self, s: Sub<'a>, t: Sub<'a>) -> Result<(), Unresolvable> {
        let number = |v: Option<&Value>| v.and_then(Value::as_f64);
        let mut narrowing = None;
        for &k in LOWER {
            if let Some(tv) = number(t.get(k)) {
                if number(s.get(k)).is_none_or(|sv| sv < tv) {
                    narrowing = Some(k);
                }
            }
        }
        for &k in UPPER {
            if let Some(tv) = number(t.get(k)) {
                if number(s.get(k)).is_none_or(|sv| sv > tv) {
                    narrowing = Some(k);
                }
            }
        }
        for &k in SAME {
            if let Some(tv) = t.get(k) {
                if s.get(k) != Some(tv) {
                    narrowing = Some(k);
                }
            }
        }
        if let Some(k) = narrowing {
            if self.reading() {
                return Err(self.path.fail(format!(
                    "narrowing: the reader's {k} {} does not hold for every value the writer's \
                     schema allows",
                    t.get(k).map(json_text).unwrap_or_default()
                )));
            }
            self.check = true;
        }
        Ok(())
    }

    /// `enum`/`const` of both sides.
    fn members(
        &mut self,
        s: Sub<'a>,
        t: Sub<'a>,
        optional: bool,
    ) -> Result<Option<(Vec<Value>, Missing)>, Unresolvable> {
        let Some(t_members) = t.members() else {
            return Ok(None);
        };
        let target: Vec<Value> = t_members.into_iter().cloned().collect();
        match s.members() {
            None => {
                if self.reading() {
                    return Err(self.path.fail(
                        "narrowing: the reader allows only some values (enum/const) and the \
                         writer any",
                    ));
                }
                Ok(Some((target, Missing::Refuse)))
            }
            Some(s_members) => {
                if s_members
                    .iter()
                    .all(|v| target.iter().any(|w| same_value(v, w)))
                {
                    return Ok(None);
                }
                if !self.reading() {
                    return Ok(Some((target, Missing::Refuse)));
                }
                let missing = match t.get("default") {
                    Some(d) if target.iter().any(|w| same_value(d, w)) => {
                        Missing::Default(json_text(d))
                    }
                    _ if optional => Missing::Absent,
                    _ => Missing::Refuse,
                };
                Ok(Some((target, missing)))
            }
        }
    }

    /// Two object schemas, fields paired by name and the reader's aliases.
    fn object(&mut self, s: Sub<'a>, t: Sub<'a>) -> Result<ObjectStep, Unresolvable> {
        let s_props = s.properties();
        let t_props = t.properties();
        let s_required = s.required();
        let t_required = t.required();
        let (reader_props, writer_props) = if self.reading() {
            (&t_props, &s_props)
        } else {
            (&s_props, &t_props)
        };
        // (reader index, writer index)
        let pairs = self.pair(reader_props, writer_props)?;
        let (s_of_t, t_of_s): (Vec<Option<usize>>, Vec<Option<usize>>) = {
            let mut s_of_t = vec![None; t_props.len()];
            let mut t_of_s = vec![None; s_props.len()];
            for &(ri, wi) in &pairs {
                let (si, ti) = if self.reading() { (wi, ri) } else { (ri, wi) };
                s_of_t[ti] = Some(si);
                t_of_s[si] = Some(ti);
            }
            (s_of_t, t_of_s)
        };
        let mut by_name = Vec::with_capacity(s_props.len());
        for (si, (s_name, s_sub)) in s_props.iter().enumerate() {
            match t_of_s[si] {
                Some(ti) => {
                    let (t_name, t_sub) = t_props[ti];
                    let reader_name = if self.reading() { t_name } else { s_name };
                    self.path.push(reader_name);
                    self.pointer.push(reader_name.to_owned());
                    let optional = !t_required.contains(&t_name);
                    let step = self.step(*s_sub, t_sub, optional);
                    self.path.pop();
                    self.pointer.pop();
                    by_name.push(((*s_name).to_owned(), Some((ti, step?))));
                }
                None => by_name.push(((*s_name).to_owned(), None)),
            }
        }
        let mut targets = Vec::with_capacity(t_props.len());
        for (ti, (t_name, t_sub)) in t_props.iter().enumerate() {
            let required = t_required.contains(t_name);
            let source_always = s_of_t[ti].is_some_and(|si| s_required.contains(&s_props[si].0));
            let t_sub = self.normal(*t_sub).unwrap_or(*t_sub);
            let fill = if source_always {
                Fill::Refuse(format!("{t_name} is required and absent"))
            } else if let Some(default) = t_sub
                .get("default")
                .filter(|d| t_sub.types().has(Types::of_value(d).0))
            {
                // (A default its own `type` refuses is no default.)
                Fill::Text(json_text(default))
            } else if !required {
                Fill::Absent
            } else if !self.reading() && t_sub.types().has(Types::NULL) {
                Fill::Text("null".into())
            } else if !self.reading() && s_of_t[ti].is_some() {
                // Writing back a field the reader made optional: refused
                // when a payload leaves it out.
                Fill::Refuse(format!(
                    "{t_name} is absent, and the writer requires it with no default"
                ))
            } else {
                let reader_name = if self.reading() {
                    (*t_name).to_owned()
                } else {
                    String::new()
                };
                if !reader_name.is_empty() {
                    self.path.push(reader_name);
                }
                let why = match (self.reading(), s_of_t[ti].is_some()) {
                    (true, false) => format!(
                        "the writer has no field {t_name} and the reader requires it with no \
                         default"
                    ),
                    (true, true) => format!(
                        "the writer's {t_name} is optional and the reader requires it with no \
                         default"
                    ),
                    (false, _) => format!(
                        "the writer requires {t_name}, which the reader may not hold, and it has \
                         no default and does not allow null"
                    ),
                };
                let err = self.path.fail(why);
                if self.reading() {
                    self.path.pop();
                }
                return Err(err);
            };
            targets.push((key_text(t_name), fill));
        }
        // Keys the source does not declare: by the two
        // `additionalProperties` (the values of a map), each value read
        // through their pair; dropped where the target does not take them.
        // With `patternProperties`, by the patterns each key matches.
        let s_patterns = patterns(&s);
        let t_patterns = patterns(&t);
        let others = if s_patterns.is_empty() && t_patterns.is_empty() {
            let (sv, tv) = (s.get("additionalProperties"), t.get("additionalProperties"));
            match self.slot_route(s, t, sv, tv, true)? {
                Route::Drop => Others::Drop,
                Route::Step(step) => Others::Step(step),
                Route::Refuse(why) => return Err(self.path.fail(why)),
            }
        } else {
            self.pattern_routes(s, t, &s_patterns, &t_patterns)?
        };
        Ok(ObjectStep {
            by_name,
            targets,
            others,
        })
    }

    /// The route of an undeclared key from source slot `sv` (a
    /// `patternProperties` subschema, or `additionalProperties`; `None`:
    /// absent) to target slot `tv`. `strict`: a pair that does not
    /// resolve refuses the plan; else the payload is refused when a key
    /// takes that route (two different patterns, which may match no key
    /// in common).
    fn slot_route(
        &mut self,
        s: Sub<'a>,
        t: Sub<'a>,
        sv: Option<&'a Value>,
        tv: Option<&'a Value>,
        strict: bool,
    ) -> Result<Route, Unresolvable> {
        let (sv, tv) = match (sv, tv) {
            (_, Some(Value::Bool(false))) => return Ok(Route::Drop),
            (Some(sv @ Value::Object(_)), Some(tv @ Value::Object(_))) => (sv, tv),
            (_, None | Some(Value::Bool(true))) => return Ok(Route::Step(self.push(Step::Copy))),
            // The writer takes any value there, the reader only some: as
            // for `additionalProperties`, such keys are dropped.
            (None | Some(Value::Bool(true)), Some(_)) if self.reading() => return Ok(Route::Drop),
            (sv, Some(tv)) => (sv.unwrap_or(&Value::Bool(true)), tv),
        };
        let before = (self.steps.len(), self.check);
        self.path.push("*");
        self.pointer.push("*".into());
        let step = self.step(s.child(sv), t.child(tv), true);
        self.path.pop();
        self.pointer.pop();
        match step {
            Ok(step) => Ok(Route::Step(step)),
            Err(err) if strict => Err(err),
            Err(err) => {
                self.steps.truncate(before.0);
                self.memo.retain(|_, id| *id < before.0);
                self.check = before.1;
                Ok(Route::Refuse(format!(
                    "the key matches patterns of both versions whose values do not resolve \
                     (at {}: {})",
                    err.path(),
                    err.reason()
                )))
            }
        }
    }

    /// The routes of undeclared keys by the `patternProperties` of both
    /// sides (each with its `additionalProperties` for keys matching none).
    fn pattern_routes(
        &mut self,
        s: Sub<'a>,
        t: Sub<'a>,
        s_patterns: &[(&'a str, &'a Value)],
        t_patterns: &[(&'a str, &'a Value)],
    ) -> Result<Others, Unresolvable> {
        if (s_patterns.len() + 1) * (t_patterns.len() + 1) > 4096 {
            return Err(self.path.fail("more than 4096 pairs of patternProperties"));
        }
        let mut compiled = [Vec::new(), Vec::new()];
        for (k, (side, list)) in [
            (self.source_name(), s_patterns),
            (self.target_name(), t_patterns),
        ]
        .into_iter()
        .enumerate()
        {
            for (pattern, _) in list {
                compiled[k].push(Pattern::new(pattern).ok_or_else(|| {
                    self.path.fail(format!(
                        "the {side} schema's patternProperties pattern {pattern:?} does not \
                         compile"
                    ))
                })?);
            }
        }
        let slots = |list: &[(&'a str, &'a Value)], rest: Option<&'a Value>| {
            list.iter()
                .map(|&(p, v)| (Some(p), Some(v)))
                .chain([(None, rest)])
                .collect::<Vec<_>>()
        };
        let s_slots = slots(s_patterns, s.get("additionalProperties"));
        let t_slots = slots(t_patterns, t.get("additionalProperties"));
        let mut routes = Vec::with_capacity(s_slots.len() * t_slots.len());
        for &(sp, sv) in &s_slots {
            for &(tp, tv) in &t_slots {
                let strict = sp == tp;
                routes.push(self.slot_route(s, t, sv, tv, strict)?);
            }
        }
        // A key two target patterns match, or a target property a pattern
        // matches, must hold both subschemas: the output is validated.
        let [source, target] = compiled;
        if target.len() > 1
            || t.properties()
                .iter()
                .any(|(name, _)| target.iter().any(|p| p.is_match(name) != Some(false)))
        {
            self.check = true;
        }
        Ok(Others::Patterns(Box::new(PatternRoutes {
            source,
            target,
            routes,
        })))
    }

    /// Reader fields paired with writer fields: by name first, then by the
    /// reader's aliases (the schema's `aliases` and the manifest's), each
    /// writer field claimed once.
    fn pair(
        &mut self,
        reader: &[(&'a str, Sub<'a>)],
        writer: &[(&'a str, Sub<'a>)],
    ) -> Result<Vec<(usize, usize)>, Unresolvable> {
        let mut claimed = vec![false; writer.len()];
        let mut paired = vec![false; reader.len()];
        let mut pairs = Vec::new();
        for (ri, (name, _)) in reader.iter().enumerate() {
            if let Some(wi) = writer.iter().position(|(w, _)| w == name) {
                claimed[wi] = true;
                paired[ri] = true;
                pairs.push((ri, wi));
            }
        }
        for (ri, (name, sub)) in reader.iter().enumerate() {
            if paired[ri] {
                continue;
            }
            let mut pointer = String::new();
            for segment in &self.pointer {
                pointer.push('/');
                pointer.push_str(&crate::resolution::escape_pointer(segment));
            }
            pointer.push('/');
            pointer.push_str(&crate::resolution::escape_pointer(name));
            let own = self.normal(*sub).ok().and_then(|s| match s.get("aliases") {
                Some(Value::Array(a)) => Some(a.iter().filter_map(Value::as_str).collect()),
                _ => None,
            });
            let own: Vec<&str> = own.unwrap_or_default();
            let given: Vec<&str> = self.aliases.at(&pointer).collect();
            for alias in own.iter().chain(&given) {
                if let Some(wi) = writer
                    .iter()
                    .position(|(w, _)| w == alias)
                    .filter(|&wi| !claimed[wi])
                {
                    claimed[wi] = true;
                    pairs.push((ri, wi));
                    break;
                }
            }
        }
        Ok(pairs)
    }
}

impl JsonWay {
    /// The plan reading payloads of `source` as `target` (documents);
    /// `direction` says which is the writer.
    pub(crate) fn new(
        source: &Value,
        target: &Value,
        direction: Direction,
        aliases: &Aliases,
    ) -> Result<JsonWay, Unresolvable> {
        let arena = Arena::default();
        let mut builder = Builder {
            direction,
            arena: &arena,
            merged: HashMap::new(),
            merging: 0,
            merged_size: 0,
            aliases,
            steps: Vec::new(),
            memo: HashMap::new(),
            path: PlanPath::default(),
            pointer: Vec::new(),
            check: direction == Direction::WriteBack,
            _docs: std::marker::PhantomData,
        };
        let root = builder.step(
            Sub {
                doc: source,
                node: source,
            },
            Sub {
                doc: target,
                node: target,
            },
            false,
        )?;
        Ok(JsonWay {
            steps: builder.steps,
            root,
            check: builder.check,
        })
    }

    /// Whether the output must be validated against the target schema.
    pub(crate) fn checks_output(&self) -> bool {
        self.check
    }

    /// Whether the plan copies every value as it is.
    pub(crate) fn is_copy(&self) -> bool {
        matches!(self.steps[self.root], Step::Copy)
    }

    /// Runs the plan over a payload of the source schema.
    pub(crate) fn run(&self, payload: &[u8]) -> Result<Vec<u8>, Vec<Violation>> {
        let mut cursor = Cursor {
            bytes: payload,
            pos: 0,
        };
        let mut out = Vec::with_capacity(payload.len() + 16);
        cursor.ws();
        let mut run = Run {
            out: &mut out,
            limit: max_output(),
        };
        match run.value(self, self.root, &mut cursor, 0) {
            Ok(Wrote::Value) => {}
            Ok(Wrote::Nothing) => {
                return Err(refused(
                    "",
                    "the value has no member in the other version and no default",
                ))
            }
            Err(Fail::Refused(path, message)) => return Err(refused(path.render(), message)),
            Err(Fail::NotJson) => {
                return Err(vec![Violation::new(
                    "",
                    ViolationKind::NotJson,
                    "the payload is not JSON",
                )])
            }
            Err(Fail::TooLarge) => return Err(too_large()),
        }
        cursor.ws();
        if cursor.pos != payload.len() {
            return Err(vec![Violation::new(
                "",
                ViolationKind::NotJson,
                "the payload is not JSON: bytes after the value",
            )]);
        }
        Ok(out)
    }
}

/// Where a refusal happened, built on the way out (only when refused).
#[derive(Default)]
struct Where(Vec<String>);

impl Where {
    fn render(&self) -> String {
        let mut out = String::new();
        for segment in self.0.iter().rev() {
            out.push('/');
            out.push_str(&crate::resolution::escape_pointer(segment));
        }
        out
    }
}

enum Fail {
    Refused(Where, String),
    NotJson,
    TooLarge,
}

impl Fail {
    fn at(mut self, segment: impl FnOnce() -> String) -> Fail {
        if let Fail::Refused(path, _) = &mut self {
            path.0.push(segment());
        }
        self
    }
}

impl From<Stop> for Fail {
    fn from(_: Stop) -> Fail {
        Fail::NotJson
    }
}

fn refuse(message: impl Into<String>) -> Fail {
    Fail::Refused(Where::default(), message.into())
}

/// What a step wrote.
enum Wrote {
    Value,
    /// Nothing: the value is to be left out of its object.
    Nothing,
}

struct Run<'o> {
    out: &'o mut Vec<u8>,
    limit: usize,
}

impl Run<'_> {
    fn emit(&mut self, bytes: &[u8]) -> Result<(), Fail> {
        if self.out.len() + bytes.len() > self.limit {
            return Err(Fail::TooLarge);
        }
        self.out.extend_from_slice(bytes);
        Ok(())
    }

    fn value(
        &mut self,
        way: &JsonWay,
        step: StepId,
        c: &mut Cursor<'_>,
        depth: usize,
    ) -> Result<Wrote, Fail> {
        if depth >= MAX_NESTING {
            return Err(Fail::NotJson);
        }
        match &way.steps[step] {
            Step::Copy => {
                let start = c.pos;
                c.skip(depth)?;
                self.emit(&c.bytes[start..c.pos])?;
                Ok(Wrote::Value)
            }
            Step::Union(candidates) => {
                let mark = (c.pos, self.out.len());
                let mut last = None;
                for &candidate in candidates {
                    match self.value(way, candidate, c, depth) {
                        Ok(wrote) => return Ok(wrote),
                        Err(Fail::Refused(path, why)) => {
                            last = Some(Fail::Refused(path, why));
                            c.pos = mark.0;
                            self.out.truncate(mark.1);
                        }
                        Err(other) => return Err(other),
                    }
                }
                Err(last.unwrap_or_else(|| {
                    refuse("the value matches no branch the other version can read")
                }))
            }
            Step::Discriminated { key, branches } => {
                let value = discriminator_of(c, key, depth)?;
                let Some(value) = value else {
                    return Err(refuse(format!("the union's discriminator {key} is absent")));
                };
                match branches.iter().find(|(v, _)| same_value(v, &value)) {
                    Some(&(_, branch)) => self.value(way, branch, c, depth),
                    None => Err(refuse(format!(
                        "the other version's union has no branch for {key} {value}"
                    ))),
                }
            }
            Step::Value(step) => self.typed(way, step, c, depth),
        }
    }

    fn typed(
        &mut self,
        way: &JsonWay,
        step: &ValueStep,
        c: &mut Cursor<'_>,
        depth: usize,
    ) -> Result<Wrote, Fail> {
        let kind = match c.peek() {
            Some(b'n') => Types::NULL,
            Some(b't' | b'f') => Types::BOOLEAN,
            Some(b'"') => Types::STRING,
            Some(b'[') => Types::ARRAY,
            Some(b'{') => Types::OBJECT,
            Some(b'-' | b'0'..=b'9') => Types::INTEGER,
            _ => return Err(Fail::NotJson),
        };
        if !step.accept.has(kind) && kind != Types::INTEGER {
            return Err(refuse(format!(
                "a {} where the other version takes {}",
                Types(kind).names(),
                step.accept.names()
            )));
        }
        if let Some((members, missing)) = &step.members {
            let start = c.pos;
            c.skip(depth)?;
            let text = &c.bytes[start..c.pos];
            let value: Value = serde_json::from_slice(text).map_err(|_| Fail::NotJson)?;
            if members.iter().any(|m| same_value(m, &value)) {
                self.emit(text)?;
                return Ok(Wrote::Value);
            }
            return match missing {
                Missing::Default(text) => {
                    self.emit(text.as_bytes())?;
                    Ok(Wrote::Value)
                }
                Missing::Absent => Ok(Wrote::Nothing),
                Missing::Refuse => Err(refuse(format!(
                    "{value} is not a value the other version has"
                ))),
            };
        }
        match kind {
            Types::INTEGER => self.number(step.accept, c),
            Types::ARRAY => match step.array {
                Some(items) => self.array(way, items, c, depth),
                None => self.copy(c, depth),
            },
            Types::OBJECT => match &step.object {
                Some(object) => self.object(way, object, c, depth),
                None => self.copy(c, depth),
            },
            _ => self.copy(c, depth),
        }
    }

    fn copy(&mut self, c: &mut Cursor<'_>, depth: usize) -> Result<Wrote, Fail> {
        let start = c.pos;
        c.skip(depth)?;
        self.emit(&c.bytes[start..c.pos])?;
        Ok(Wrote::Value)
    }

    /// A number: as it is, or, where only integers are taken, the integer
    /// it is (refused when it is not one).
    fn number(&mut self, accept: Types, c: &mut Cursor<'_>) -> Result<Wrote, Fail> {
        let start = c.pos;
        c.number().map_err(|_| Fail::NotJson)?;
        let text = &c.bytes[start..c.pos];
        let plain = !text.iter().any(|b| matches!(b, b'.' | b'e' | b'E'));
        if accept.has(Types::FRACTION) || (plain && accept.has(Types::INTEGER)) {
            self.emit(text)?;
            return Ok(Wrote::Value);
        }
        if !accept.has(Types::INTEGER) {
            return Err(refuse(format!(
                "a number where the other version takes {}",
                accept.names()
            )));
        }
        // 5.0, 1e3: the integer, written plainly when exact.
        let x: f64 = std::str::from_utf8(text)
            .ok()
            .and_then(|t| t.parse().ok())
            .ok_or(Fail::NotJson)?;
        if x.fract() != 0.0 || !x.is_finite() {
            return Err(refuse(format!(
                "{} does not fit the other version's integer",
                String::from_utf8_lossy(text)
            )));
        }
        if x.abs() < 9_007_199_254_740_992.0 {
            self.emit((x as i64).to_string().as_bytes())?;
        } else {
            self.emit(text)?;
        }
        Ok(Wrote::Value)
    }

    fn array(
        &mut self,
        way: &JsonWay,
        items: StepId,
        c: &mut Cursor<'_>,
        depth: usize,
    ) -> Result<Wrote, Fail> {
        c.pos += 1;
        c.ws();
        self.emit(b"[")?;
        if c.peek() == Some(b']') {
            c.pos += 1;
            self.emit(b"]")?;
            return Ok(Wrote::Value);
        }
        let mut index = 0usize;
        loop {
            if index > 0 {
                self.emit(b",")?;
            }
            match self.value(way, items, c, depth + 1) {
                Ok(Wrote::Value) => {}
                Ok(Wrote::Nothing) => {
                    return Err(
                        refuse("the item has no value in the other version and no default")
                            .at(|| index.to_string()),
                    )
                }
                Err(fail) => return Err(fail.at(|| index.to_string())),
            }
            index += 1;
            if !c.next_or_close(b']')? {
                break;
            }
        }
        self.emit(b"]")?;
        Ok(Wrote::Value)
    }

    fn object(
        &mut self,
        way: &JsonWay,
        plan: &ObjectStep,
        c: &mut Cursor<'_>,
        depth: usize,
    ) -> Result<Wrote, Fail> {
        c.pos += 1;
        c.ws();
        self.emit(b"{")?;
        let mut written = Written::new(plan.targets.len());
        let mut first = true;
        let mut hint = 0usize;
        let mut decoded = String::new();
        if c.peek() == Some(b'}') {
            c.pos += 1;
        } else {
            loop {
                let key_start = c.pos;
                let key = c.key()?;
                let key_end = c.pos;
                let name: &str = if key.escaped {
                    key.decode_into(&mut decoded);
                    &decoded
                } else {
                    key.body
                };
                let found = if plan.by_name.get(hint).is_some_and(|(n, _)| n == name) {
                    Some(hint)
                } else {
                    plan.by_name.iter().position(|(n, _)| n == name)
                };
                match found {
                    Some(at) => {
                        hint = at + 1;
                        match &plan.by_name[at].1 {
                            Some((ti, step)) => {
                                let mark = self.out.len();
                                if !first {
                                    self.emit(b",")?;
                                }
                                self.emit(plan.targets[*ti].0.as_bytes())?;
                                match self.value(way, *step, c, depth + 1) {
                                    Ok(Wrote::Value) => {
                                        first = false;
                                        written.set(*ti);
                                    }
                                    Ok(Wrote::Nothing) => self.out.truncate(mark),
                                    Err(fail) => {
                                        let name = name.to_owned();
                                        return Err(fail.at(|| name));
                                    }
                                }
                            }
                            None => c.skip(depth + 1)?,
                        }
                    }
                    None => match others_step(plan, name) {
                        Ok(Some(step)) => {
                            let mark = self.out.len();
                            if !first {
                                self.emit(b",")?;
                            }
                            self.emit(&c.bytes[key_start..key_end])?;
                            match self.value(way, step, c, depth + 1) {
                                Ok(Wrote::Value) => first = false,
                                Ok(Wrote::Nothing) => self.out.truncate(mark),
                                Err(fail) => {
                                    let name = name.to_owned();
                                    return Err(fail.at(|| name));
                                }
                            }
                        }
                        Ok(None) => c.skip(depth + 1)?,
                        Err(fail) => {
                            let name = name.to_owned();
                            return Err(fail.at(|| name));
                        }
                    },
                }
                if !c.next_or_close(b'}')? {
                    break;
                }
            }
        }
        for (ti, (key, fill)) in plan.targets.iter().enumerate() {
            if written.get(ti) {
                continue;
            }
            match fill {
                Fill::Absent => {}
                Fill::Text(text) => {
                    if !first {
                        self.emit(b",")?;
                    }
                    first = false;
                    self.emit(key.as_bytes())?;
                    self.emit(text.as_bytes())?;
                }
                Fill::Refuse(why) => return Err(refuse(why.clone())),
            }
        }
        self.emit(b"}")?;
        Ok(Wrote::Value)
    }
}

/// The step an undeclared key `name` takes (`None`: dropped).
fn others_step(plan: &ObjectStep, name: &str) -> Result<Option<StepId>, Fail> {
    let declared = || plan.targets.iter().any(|(key, _)| key_is(key, name));
    match &plan.others {
        Others::Drop => Ok(None),
        Others::Step(_) | Others::Patterns(_) if declared() => Ok(None),
        Others::Step(step) => Ok(Some(*step)),
        Others::Patterns(routes) => match routes.route(name)? {
            Route::Drop => Ok(None),
            Route::Step(step) => Ok(Some(*step)),
            Route::Refuse(why) => Err(refuse(why.clone())),
        },
    }
}

/// Whether `key` (`"name":` as written) is the key `name`.
fn key_is(key: &str, name: &str) -> bool {
    let plain = |text: &str| text.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\');
    if plain(name) {
        key.len() == name.len() + 3 && &key[1..key.len() - 2] == name
    } else {
        serde_json::from_str::<String>(&key[..key.len() - 1]).is_ok_and(|k| k == name)
    }
}

/// Which target fields an object's run has written.
enum Written {
    Bits(u64),
    Many(Vec<bool>),
}

impl Written {
    fn new(n: usize) -> Written {
        if n <= 64 {
            Written::Bits(0)
        } else {
            Written::Many(vec![false; n])
        }
    }

    fn set(&mut self, i: usize) {
        match self {
            Written::Bits(bits) => *bits |= 1 << i,
            Written::Many(v) => v[i] = true,
        }
    }

    fn get(&self, i: usize) -> bool {
        match self {
            Written::Bits(bits) => bits & (1 << i) != 0,
            Written::Many(v) => v[i],
        }
    }
}

/// The value of member `key` of the object at the cursor (the cursor
/// left where it was), read into a `Value` (a discriminator is a scalar).
fn discriminator_of(c: &Cursor<'_>, key: &str, depth: usize) -> Result<Option<Value>, Fail> {
    let mut look = c.clone();
    if look.peek() != Some(b'{') {
        return Ok(None);
    }
    look.pos += 1;
    look.ws();
    if look.peek() == Some(b'}') {
        return Ok(None);
    }
    let mut decoded = String::new();
    let mut found = None;
    loop {
        let name = look.key()?;
        let start = look.pos;
        look.skip(depth + 1)?;
        let same = if name.escaped {
            name.decode_into(&mut decoded);
            decoded == key
        } else {
            name.body == key
        };
        if same {
            // The last of duplicates counts, as serde_json keeps it.
            found = Some(
                serde_json::from_slice(&look.bytes[start..look.pos]).map_err(|_| Fail::NotJson)?,
            );
        }
        if !look.next_or_close(b'}')? {
            break;
        }
    }
    Ok(found)
}
