//! Comparing two JSON Schema models, after Confluent's rules.

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use serde_json::Value;

use super::kind::JsonChangeKind as K;
use super::model::{ArrayNode, Criterion, Id, Model, Node, NumberNode, ObjectNode, StringNode};
use crate::compat::java_order::{map_order, union_order};
use regex_lite::Regex;

/// A change with a path relative to the pair of schemas compared
/// (`""` is the pair itself).
#[derive(Debug, Clone)]
pub(super) struct Rel {
    pub kind: K,
    pub path: String,
}

fn rel(kind: K, path: &str) -> Rel {
    Rel {
        kind,
        path: path.to_owned(),
    }
}

fn compatible(changes: &[Rel]) -> bool {
    changes.iter().all(|c| c.kind.is_backward_compatible())
}

/// Appends `changes` found under `segment` to `out`.
fn extend_under(out: &mut Vec<Rel>, segment: &str, changes: &[Rel]) {
    out.extend(changes.iter().map(|c| Rel {
        kind: c.kind,
        path: if c.path.is_empty() {
            segment.to_owned()
        } else if segment.is_empty() {
            c.path.clone()
        } else {
            format!("{segment}/{}", c.path)
        },
    }));
}

/// Which model plays the original: `Forward` compares old against new,
/// `Reversed` (inside `not`) new against old.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Side {
    Forward,
    Reversed,
}

impl Side {
    fn flip(self) -> Side {
        match self {
            Side::Forward => Side::Reversed,
            Side::Reversed => Side::Forward,
        }
    }
}

pub(super) struct Comparer<'m, 'a> {
    models: [&'m Model<'a>; 2],
    memo: HashMap<(Side, Id, Id), Rc<[Rel]>>,
    in_progress: HashSet<(Side, Id, Id)>,
    regexes: HashMap<&'a str, Option<Regex>>,
    /// How many comparisons are open on the stack.
    depth: usize,
    /// How many pairs of subschemas have been compared.
    work: usize,
}

/// The most pairs of subschemas one diff compares before it reports
/// [`K::ComparisonTooLarge`]: large combined schemas nested in each other
/// compare every member with every member.
const MAX_WORK: usize = 100_000;

/// The deepest the comparison follows nested schemas (through `$ref`s,
/// which JSON's own nesting limit does not bound) before it reports
/// [`K::ComparisonTooDeep`] instead of overflowing the stack.
const MAX_DEPTH: usize = 128;

impl<'m, 'a> Comparer<'m, 'a> {
    pub(super) fn new(old: &'m Model<'a>, new: &'m Model<'a>) -> Self {
        Comparer {
            models: [old, new],
            memo: HashMap::new(),
            in_progress: HashSet::new(),
            regexes: HashMap::new(),
            depth: 0,
            work: 0,
        }
    }

    /// The models playing original and update on `side`.
    fn pair(&self, side: Side) -> (&'m Model<'a>, &'m Model<'a>) {
        match side {
            Side::Forward => (self.models[0], self.models[1]),
            Side::Reversed => (self.models[1], self.models[0]),
        }
    }

    /// Compares the root schemas.
    pub(super) fn root(&mut self) -> Vec<Rel> {
        self.compare(Side::Forward, Some(0), Some(0)).to_vec()
    }

    /// Compares an optional original against an optional update.
    fn compare(&mut self, side: Side, o: Option<Id>, u: Option<Id>) -> Rc<[Rel]> {
        let (om, um) = self.pair(side);
        let (o, u) = match (o, u) {
            (None, None) => return Rc::from([]),
            (None, Some(_)) => return Rc::from([rel(K::SchemaAdded, "")]),
            (Some(_), None) => return Rc::from([rel(K::SchemaRemoved, "")]),
            (Some(o), Some(u)) => (om.resolve(o), um.resolve(u)),
        };
        let key = (side, o, u);
        if let Some(found) = self.memo.get(&key) {
            return Rc::clone(found);
        }
        if !self.in_progress.insert(key) {
            // A recursive schema came back to a pair being compared: the
            // rest of the comparison decides, this visit adds nothing.
            return Rc::from([]);
        }
        if self.depth >= MAX_DEPTH {
            self.in_progress.remove(&key);
            return Rc::from([rel(K::ComparisonTooDeep, "")]);
        }
        if self.work >= MAX_WORK {
            self.in_progress.remove(&key);
            return Rc::from([rel(K::ComparisonTooLarge, "")]);
        }
        self.work += 1;
        self.depth += 1;
        let result: Rc<[Rel]> = Rc::from(self.compare_resolved(side, o, u));
        self.depth -= 1;
        self.in_progress.remove(&key);
        self.memo.insert(key, Rc::clone(&result));
        result
    }

    fn compare_resolved(&mut self, side: Side, o: Id, u: Id) -> Vec<Rel> {
        let (om, um) = self.pair(side);
        let (os, us) = (om.schema(o), um.schema(u));
        match (&os.node, &us.node) {
            (node, Node::Combined(criterion, subs)) if !matches!(node, Node::Combined(..)) => {
                if subs.len() == 1 {
                    let sub = self.compare(side, Some(o), Some(subs[0]));
                    if compatible(&sub) {
                        return sub.to_vec();
                    }
                } else if *criterion != Criterion::All {
                    for &s in subs {
                        let sub = self.compare(side, Some(o), Some(s));
                        if compatible(&sub) {
                            let mut out = sub.to_vec();
                            out.push(rel(K::SumTypeExtended, ""));
                            return out;
                        }
                    }
                }
            }
            (Node::Combined(criterion, subs), node) if !matches!(node, Node::Combined(..)) => {
                if subs.len() == 1 {
                    let sub = self.compare(side, Some(subs[0]), Some(u));
                    if compatible(&sub) {
                        return sub.to_vec();
                    }
                } else if *criterion == Criterion::All {
                    // Dropping the other members of an allOf only relaxes it.
                    for &s in subs {
                        let sub = self.compare(side, Some(s), Some(u));
                        if compatible(&sub) {
                            let mut out = sub.to_vec();
                            out.push(rel(K::ProductTypeNarrowed, ""));
                            return out;
                        }
                    }
                }
            }
            _ => {}
        }
        let (oc, uc) = (om.class(o), um.class(u));
        if oc != uc {
            use super::model::Class;
            if oc == Class::False || uc == Class::Empty {
                return Vec::new();
            }
            return vec![rel(K::TypeChanged, "")];
        }
        let mut out = Vec::new();
        let (oc, uc) = (&os.common, &us.common);
        if !same(oc.id, uc.id) {
            out.push(rel(K::IdChanged, ""));
        }
        if !same(oc.title, uc.title) {
            out.push(rel(K::TitleChanged, ""));
        }
        if !same(oc.description, uc.description) {
            out.push(rel(K::DescriptionChanged, ""));
        }
        if !same(oc.default, uc.default) {
            out.push(rel(K::DefaultChanged, ""));
        }
        match (&os.node, &us.node) {
            (Node::String(a), Node::String(b)) => strings(&mut out, a, b),
            (Node::Number(a), Node::Number(b)) => numbers(&mut out, a, b),
            (Node::Enum(a), Node::Enum(b)) => {
                if let Some(kind) = set_change(
                    a,
                    b,
                    K::EnumArrayExtended,
                    K::EnumArrayNarrowed,
                    K::EnumArrayChanged,
                ) {
                    out.push(rel(kind, "enum"));
                }
            }
            (Node::Const(a), Node::Const(b)) if !json_eq(a, b) => {
                out.push(rel(K::EnumArrayChanged, "const"));
            }
            (Node::ExternalRef(a), Node::ExternalRef(b)) if a != b => {
                out.push(rel(K::TypeChanged, ""));
            }
            (Node::Combined(ac, asubs), Node::Combined(bc, bsubs)) => {
                self.combined(side, &mut out, (*ac, asubs), (*bc, bsubs));
            }
            (Node::Not(a), Node::Not(b)) => {
                // The negated schemas compare the other way round.
                let sub = self.compare(side.flip(), Some(*b), Some(*a));
                if !sub.is_empty() {
                    let kind = if compatible(&sub) {
                        K::NotTypeNarrowed
                    } else {
                        K::NotTypeExtended
                    };
                    out.push(rel(kind, "not"));
                }
            }
            (Node::Object(a), Node::Object(b)) => self.objects(side, &mut out, a, b),
            (Node::Array(a), Node::Array(b)) => self.arrays(side, &mut out, a, b),
            _ => {}
        }
        out
    }

    fn combined(
        &mut self,
        side: Side,
        out: &mut Vec<Rel>,
        (oc, osubs): (Criterion, &[Id]),
        (uc, usubs): (Criterion, &[Id]),
    ) {
        let criterion_change = if oc == uc {
            None
        } else if uc == Criterion::Any
            || (uc == Criterion::One && (oc == Criterion::All || osubs.len() == 1))
            || (uc == Criterion::All && osubs.len() == 1 && usubs.len() == 1)
        {
            Some(K::CombinedTypeExtended)
        } else {
            Some(K::CombinedTypeChanged)
        };
        if let Some(kind) = criterion_change {
            out.push(rel(kind, ""));
            if kind == K::CombinedTypeChanged {
                return;
            }
        }
        let (om, um) = self.pair(side);
        let osubs = dedup(om, osubs);
        let usubs = dedup(um, usubs);
        if osubs.len() < usubs.len() {
            out.push(rel(
                if uc == Criterion::All {
                    K::ProductTypeExtended
                } else {
                    K::SumTypeExtended
                },
                "",
            ));
        } else if osubs.len() > usubs.len() {
            out.push(rel(
                if oc == Criterion::All {
                    K::ProductTypeNarrowed
                } else {
                    K::SumTypeNarrowed
                },
                "",
            ));
        }
        // Compatible pairs (original member, update member) with their changes.
        let mut edges: Vec<Vec<(usize, Rc<[Rel]>)>> = Vec::with_capacity(osubs.len());
        for &os in &osubs {
            let mut row = Vec::new();
            for (j, &us) in usubs.iter().enumerate() {
                let sub = self.compare(side, Some(os), Some(us));
                if compatible(&sub) {
                    row.push((j, sub));
                }
            }
            edges.push(row);
        }
        let matched = maximum_matching(&edges, usubs.len());
        let mut count = 0;
        for (i, j) in matched.iter().enumerate() {
            if let Some(j) = j {
                count += 1;
                if let Some((_, sub)) = edges[i].iter().find(|(jj, _)| jj == j) {
                    extend_under(out, &format!("{}/{i}", oc.keyword()), sub);
                }
            }
        }
        if count < osubs.len().min(usubs.len()) {
            out.push(rel(K::CombinedTypeSubschemasChanged, ""));
        }
    }

    fn objects(&mut self, side: Side, out: &mut Vec<Rel>, o: &ObjectNode<'a>, u: &ObjectNode<'a>) {
        let (om, um) = self.pair(side);
        let okeys: Vec<&str> = o.properties.iter().map(|(k, _)| *k).collect();
        let ukeys: Vec<&str> = u.properties.iter().map(|(k, _)| *k).collect();
        let oprops: HashMap<&str, Id> = o.properties.iter().copied().collect();
        let uprops: HashMap<&str, Id> = u.properties.iter().copied().collect();
        let oprop = |k: &str| oprops.get(k).copied();
        let uprop = |k: &str| uprops.get(k).copied();
        let okeys_ordered = map_order(&okeys);
        let ukeys_ordered = map_order(&ukeys);

        // required
        for &key in &okeys_ordered {
            let Some(up) = uprop(key) else { continue };
            let was = o.required.contains(&key);
            let is = u.required.contains(&key);
            let path = format!("required/{key}");
            if was && !is {
                out.push(rel(K::RequiredAttributeRemoved, &path));
            } else if !was && is {
                out.push(rel(
                    if um.has_default(up) {
                        K::RequiredAttributeWithDefaultAdded
                    } else {
                        K::RequiredAttributeAdded
                    },
                    &path,
                ));
            }
        }

        // properties
        for key in union_order(&okeys_ordered, &ukeys_ordered) {
            let path = format!("properties/{key}");
            match (oprop(key), uprop(key)) {
                (Some(op), None) => {
                    if object_is_open(u) {
                        out.push(rel(K::PropertyRemovedFromOpenContentModel, &path));
                    } else if let Some(partial) = self.partial_schema(u, key) {
                        let sub = self.compare(side, Some(op), Some(partial));
                        extend_under(out, &path, &sub);
                        out.push(rel(
                            if compatible(&sub) {
                                K::PropertyRemovedIsCoveredByPartiallyOpenContentModel
                            } else {
                                K::PropertyRemovedNotCoveredByPartiallyOpenContentModel
                            },
                            &path,
                        ));
                    } else if matches!(om.schema(op).node, Node::False) {
                        out.push(rel(
                            K::PropertyWithFalseRemovedFromClosedContentModel,
                            &path,
                        ));
                    } else {
                        out.push(rel(K::PropertyRemovedFromClosedContentModel, &path));
                    }
                }
                (None, Some(up)) => {
                    let required = u.required.contains(&key);
                    let with_default = um.has_default(up);
                    if object_is_open(o) {
                        let kind = if matches!(um.schema(up).node, Node::Empty) {
                            K::PropertyWithEmptySchemaAddedToOpenContentModel
                        } else if required && with_default {
                            K::RequiredPropertyWithDefaultAddedToOpenContentModel
                        } else if required {
                            K::RequiredPropertyAddedToOpenContentModel
                        } else {
                            K::OptionalPropertyAddedToOpenContentModel
                        };
                        out.push(rel(kind, &path));
                    } else {
                        if let Some(partial) = self.partial_schema(o, key) {
                            let sub = self.compare(side, Some(partial), Some(up));
                            extend_under(out, &path, &sub);
                            out.push(rel(
                                if compatible(&sub) {
                                    K::PropertyAddedIsCoveredByPartiallyOpenContentModel
                                } else {
                                    K::PropertyAddedNotCoveredByPartiallyOpenContentModel
                                },
                                &path,
                            ));
                        }
                        let kind = if required && with_default {
                            K::RequiredPropertyWithDefaultAddedToUnopenContentModel
                        } else if required {
                            K::RequiredPropertyAddedToUnopenContentModel
                        } else {
                            K::OptionalPropertyAddedToUnopenContentModel
                        };
                        out.push(rel(kind, &path));
                    }
                }
                (Some(op), Some(up)) => {
                    let sub = self.compare(side, Some(op), Some(up));
                    extend_under(out, &path, &sub);
                }
                (None, None) => {}
            }
        }

        // dependencies
        let okeys: Vec<&str> = o.property_dependencies.iter().map(|(k, _)| *k).collect();
        let ukeys: Vec<&str> = u.property_dependencies.iter().map(|(k, _)| *k).collect();
        for key in union_order(&map_order(&okeys), &map_order(&ukeys)) {
            let path = format!("dependencies/{key}");
            let od = o.property_dependencies.iter().find(|(k, _)| *k == key);
            let ud = u.property_dependencies.iter().find(|(k, _)| *k == key);
            match (od, ud) {
                (_, None) => out.push(rel(K::DependencyArrayRemoved, &path)),
                (None, Some(_)) => out.push(rel(K::DependencyArrayAdded, &path)),
                (Some((_, a)), Some((_, b))) => {
                    if let Some(kind) = set_change(
                        a,
                        b,
                        K::DependencyArrayExtended,
                        K::DependencyArrayNarrowed,
                        K::DependencyArrayChanged,
                    ) {
                        out.push(rel(kind, &path));
                    }
                }
            }
        }
        let okeys: Vec<&str> = o.schema_dependencies.iter().map(|(k, _)| *k).collect();
        let ukeys: Vec<&str> = u.schema_dependencies.iter().map(|(k, _)| *k).collect();
        for key in union_order(&map_order(&okeys), &map_order(&ukeys)) {
            let path = format!("dependencies/{key}");
            let od = o
                .schema_dependencies
                .iter()
                .find(|(k, _)| *k == key)
                .map(|(_, id)| *id);
            let ud = u
                .schema_dependencies
                .iter()
                .find(|(k, _)| *k == key)
                .map(|(_, id)| *id);
            match (od, ud) {
                (_, None) => out.push(rel(K::DependencySchemaRemoved, &path)),
                (None, Some(_)) => out.push(rel(K::DependencySchemaAdded, &path)),
                (Some(a), Some(b)) => {
                    let sub = self.compare(side, Some(a), Some(b));
                    extend_under(out, &path, &sub);
                }
            }
        }

        // additionalProperties
        let path = "additionalProperties";
        if o.permits_additional != u.permits_additional {
            out.push(rel(
                if u.permits_additional {
                    K::AdditionalPropertiesAdded
                } else {
                    K::AdditionalPropertiesRemoved
                },
                path,
            ));
        } else if o.additional.is_none() && u.additional.is_some() {
            out.push(rel(K::AdditionalPropertiesNarrowed, path));
        } else if u.additional.is_none() && o.additional.is_some() {
            out.push(rel(K::AdditionalPropertiesExtended, path));
        } else {
            let sub = self.compare(side, o.additional, u.additional);
            extend_under(out, path, &sub);
        }

        bound(
            out,
            "maxProperties",
            o.max_properties,
            u.max_properties,
            [
                K::MaxPropertiesAdded,
                K::MaxPropertiesRemoved,
                K::MaxPropertiesIncreased,
                K::MaxPropertiesDecreased,
            ],
        );
        bound(
            out,
            "minProperties",
            o.min_properties,
            u.min_properties,
            [
                K::MinPropertiesAdded,
                K::MinPropertiesRemoved,
                K::MinPropertiesIncreased,
                K::MinPropertiesDecreased,
            ],
        );
    }

    /// The schema a partially open object gives an undeclared property:
    /// the first matching `patternProperties` entry, else `additionalProperties`.
    fn partial_schema(&mut self, o: &ObjectNode<'a>, key: &str) -> Option<Id> {
        for &(pattern, id) in &o.pattern_properties {
            let regex = self
                .regexes
                .entry(pattern)
                .or_insert_with(|| Regex::new(pattern).ok());
            if regex.as_ref().is_some_and(|r| r.is_match(key)) {
                return Some(id);
            }
        }
        o.additional
    }

    fn arrays(&mut self, side: Side, out: &mut Vec<Rel>, o: &ArrayNode, u: &ArrayNode) {
        let (om, _) = self.pair(side);
        let sub = self.compare(side, o.all_items, u.all_items);
        extend_under(out, "items", &sub);

        let common = o.item_schemas.len().min(u.item_schemas.len());
        for i in 0..common {
            let sub = self.compare(side, Some(o.item_schemas[i]), Some(u.item_schemas[i]));
            extend_under(out, &format!("items/{i}"), &sub);
        }
        for (i, &oi) in o.item_schemas.iter().enumerate().skip(common) {
            let path = format!("items/{i}");
            if array_is_open(u) {
                out.push(rel(K::ItemRemovedFromOpenContentModel, &path));
            } else if let Some(partial) = u.additional {
                let sub = self.compare(side, Some(oi), Some(partial));
                extend_under(out, &path, &sub);
                out.push(rel(
                    if compatible(&sub) {
                        K::ItemRemovedIsCoveredByPartiallyOpenContentModel
                    } else {
                        K::ItemRemovedNotCoveredByPartiallyOpenContentModel
                    },
                    &path,
                ));
            } else if matches!(om.schema(oi).node, Node::False) {
                out.push(rel(K::ItemWithFalseRemovedFromClosedContentModel, &path));
            } else {
                out.push(rel(K::ItemRemovedFromClosedContentModel, &path));
            }
        }
        for (i, &ui) in u.item_schemas.iter().enumerate().skip(common) {
            let path = format!("items/{i}");
            let (_, um) = self.pair(side);
            if array_is_open(o) {
                out.push(rel(
                    if matches!(um.schema(ui).node, Node::Empty) {
                        K::ItemWithEmptySchemaAddedToOpenContentModel
                    } else {
                        K::ItemAddedToOpenContentModel
                    },
                    &path,
                ));
            } else if let Some(partial) = o.additional {
                let sub = self.compare(side, Some(partial), Some(ui));
                extend_under(out, &path, &sub);
                out.push(rel(
                    if compatible(&sub) {
                        K::ItemAddedIsCoveredByPartiallyOpenContentModel
                    } else {
                        K::ItemAddedNotCoveredByPartiallyOpenContentModel
                    },
                    &path,
                ));
            } else {
                out.push(rel(K::ItemAddedToClosedContentModel, &path));
            }
        }

        let path = "additionalItems";
        if o.permits_additional != u.permits_additional {
            out.push(rel(
                if o.permits_additional {
                    K::AdditionalItemsRemoved
                } else {
                    K::AdditionalItemsAdded
                },
                path,
            ));
        } else if o.additional.is_none() && u.additional.is_some() {
            out.push(rel(K::AdditionalItemsNarrowed, path));
        } else if u.additional.is_none() && o.additional.is_some() {
            out.push(rel(K::AdditionalItemsExtended, path));
        } else {
            let sub = self.compare(side, o.additional, u.additional);
            extend_under(out, path, &sub);
        }

        bound(
            out,
            "maxItems",
            o.max_items,
            u.max_items,
            [
                K::MaxItemsAdded,
                K::MaxItemsRemoved,
                K::MaxItemsIncreased,
                K::MaxItemsDecreased,
            ],
        );
        bound(
            out,
            "minItems",
            o.min_items,
            u.min_items,
            [
                K::MinItemsAdded,
                K::MinItemsRemoved,
                K::MinItemsIncreased,
                K::MinItemsDecreased,
            ],
        );
        if o.unique_items != u.unique_items {
            out.push(rel(
                if o.unique_items {
                    K::UniqueItemsRemoved
                } else {
                    K::UniqueItemsAdded
                },
                "uniqueItems",
            ));
        }
        bound(
            out,
            "maxContains",
            o.max_contains,
            u.max_contains,
            [
                K::MaxContainsAdded,
                K::MaxContainsRemoved,
                K::MaxContainsIncreased,
                K::MaxContainsDecreased,
            ],
        );
        bound(
            out,
            "minContains",
            o.min_contains,
            u.min_contains,
            [
                K::MinContainsAdded,
                K::MinContainsRemoved,
                K::MinContainsIncreased,
                K::MinContainsDecreased,
            ],
        );
    }
}

fn object_is_open(o: &ObjectNode<'_>) -> bool {
    o.pattern_properties.is_empty() && o.additional.is_none() && o.permits_additional
}

fn array_is_open(a: &ArrayNode) -> bool {
    a.permits_additional && a.additional.is_none()
}

/// `[added, removed, increased, decreased]` for a numeric keyword.
fn bound(out: &mut Vec<Rel>, keyword: &str, o: Option<f64>, u: Option<f64>, kinds: [K; 4]) {
    let kind = match (o, u) {
        (None, Some(_)) => kinds[0],
        (Some(_), None) => kinds[1],
        (Some(a), Some(b)) if a < b => kinds[2],
        (Some(a), Some(b)) if a > b => kinds[3],
        _ => return,
    };
    out.push(rel(kind, keyword));
}

fn strings(out: &mut Vec<Rel>, o: &StringNode<'_>, u: &StringNode<'_>) {
    bound(
        out,
        "maxLength",
        o.max_length,
        u.max_length,
        [
            K::MaxLengthAdded,
            K::MaxLengthRemoved,
            K::MaxLengthIncreased,
            K::MaxLengthDecreased,
        ],
    );
    bound(
        out,
        "minLength",
        o.min_length,
        u.min_length,
        [
            K::MinLengthAdded,
            K::MinLengthRemoved,
            K::MinLengthIncreased,
            K::MinLengthDecreased,
        ],
    );
    match (o.pattern, u.pattern) {
        (None, Some(_)) => out.push(rel(K::PatternAdded, "pattern")),
        (Some(_), None) => out.push(rel(K::PatternRemoved, "pattern")),
        (Some(a), Some(b)) if a != b => out.push(rel(K::PatternChanged, "pattern")),
        _ => {}
    }
}

fn numbers(out: &mut Vec<Rel>, o: &NumberNode, u: &NumberNode) {
    bound(
        out,
        "maximum",
        o.maximum,
        u.maximum,
        [
            K::MaximumAdded,
            K::MaximumRemoved,
            K::MaximumIncreased,
            K::MaximumDecreased,
        ],
    );
    bound(
        out,
        "minimum",
        o.minimum,
        u.minimum,
        [
            K::MinimumAdded,
            K::MinimumRemoved,
            K::MinimumIncreased,
            K::MinimumDecreased,
        ],
    );
    bound(
        out,
        "exclusiveMaximum",
        o.exclusive_maximum,
        u.exclusive_maximum,
        [
            K::ExclusiveMaximumAdded,
            K::ExclusiveMaximumRemoved,
            K::ExclusiveMaximumIncreased,
            K::ExclusiveMaximumDecreased,
        ],
    );
    bound(
        out,
        "exclusiveMinimum",
        o.exclusive_minimum,
        u.exclusive_minimum,
        [
            K::ExclusiveMinimumAdded,
            K::ExclusiveMinimumRemoved,
            K::ExclusiveMinimumIncreased,
            K::ExclusiveMinimumDecreased,
        ],
    );
    let multiple = match (o.multiple_of, u.multiple_of) {
        (None, Some(_)) => Some(K::MultipleOfAdded),
        (Some(_), None) => Some(K::MultipleOfRemoved),
        (Some(a), Some(b)) if a != b => Some(if is_multiple(b, a) {
            K::MultipleOfExpanded
        } else if is_multiple(a, b) {
            K::MultipleOfReduced
        } else {
            K::MultipleOfChanged
        }),
        _ => None,
    };
    if let Some(kind) = multiple {
        out.push(rel(kind, "multipleOf"));
    }
    if o.integer != u.integer {
        out.push(rel(
            if o.integer {
                K::TypeExtended
            } else {
                K::TypeNarrowed
            },
            "",
        ));
    }
}

/// Whether `a` is a whole multiple of `b` (both positive in valid schemas).
fn is_multiple(a: f64, b: f64) -> bool {
    if b == 0.0 || !a.is_finite() || !b.is_finite() {
        return false;
    }
    let q = a / b;
    (q - q.round()).abs() < 1e-9 * q.abs().max(1.0)
}

/// How a set changed: `None` when equal.
fn set_change<T: Copy + SetItem>(
    a: &[T],
    b: &[T],
    extended: K,
    narrowed: K,
    changed: K,
) -> Option<K> {
    let a_in_b = a.iter().all(|x| b.iter().any(|y| x.same(y)));
    let b_in_a = b.iter().all(|y| a.iter().any(|x| x.same(y)));
    match (a_in_b, b_in_a) {
        (true, true) => None,
        (true, false) => Some(extended),
        (false, true) => Some(narrowed),
        (false, false) => Some(changed),
    }
}

trait SetItem {
    fn same(&self, other: &Self) -> bool;
}

impl SetItem for &Value {
    fn same(&self, other: &Self) -> bool {
        json_eq(self, other)
    }
}

impl SetItem for &str {
    fn same(&self, other: &Self) -> bool {
        self == other
    }
}

fn same(a: Option<&Value>, b: Option<&Value>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => json_eq(a, b),
        _ => false,
    }
}

/// JSON equality where `1` and `1.0` are the same number.
fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            x == y || matches!((x.as_f64(), y.as_f64()), (Some(p), Some(q)) if p == q)
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| json_eq(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
        }
        _ => a == b,
    }
}

/// Members with the same JSON count once, first occurrence kept.
fn dedup(model: &Model<'_>, subs: &[Id]) -> Vec<Id> {
    let mut kept: Vec<Id> = Vec::with_capacity(subs.len());
    for &s in subs {
        let source = model.nodes[s].source;
        let duplicate = source.is_some_and(|src| {
            kept.iter().any(|&k| {
                model.nodes[k]
                    .source
                    .is_some_and(|other| json_eq(src, other))
            })
        });
        if !duplicate {
            kept.push(s);
        }
    }
    kept
}

/// A maximum matching of a bipartite graph (augmenting paths); `edges[i]`
/// lists the right-hand nodes left node `i` may take. Returns each left
/// node's partner.
fn maximum_matching<T>(edges: &[Vec<(usize, T)>], right: usize) -> Vec<Option<usize>> {
    fn augment<T>(
        i: usize,
        edges: &[Vec<(usize, T)>],
        seen: &mut [bool],
        owner: &mut [Option<usize>],
    ) -> bool {
        for (j, _) in &edges[i] {
            if seen[*j] {
                continue;
            }
            seen[*j] = true;
            if owner[*j].is_none_or(|k| augment(k, edges, seen, owner)) {
                owner[*j] = Some(i);
                return true;
            }
        }
        false
    }
    let mut owner: Vec<Option<usize>> = vec![None; right];
    for i in 0..edges.len() {
        let mut seen = vec![false; right];
        augment(i, edges, &mut seen, &mut owner);
    }
    let mut partner = vec![None; edges.len()];
    for (j, o) in owner.iter().enumerate() {
        if let Some(i) = o {
            partner[*i] = Some(j);
        }
    }
    partner
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_work_budget_stops_a_combinatorial_comparison() {
        let nested = |base: i64| {
            let outer: Vec<serde_json::Value> = (0..60)
                .map(|i| {
                    let inner: Vec<serde_json::Value> = (0..60)
                        .map(|k| json!({"type": "integer", "minimum": base + i * 100 + k}))
                        .collect();
                    json!({ "anyOf": inner })
                })
                .collect();
            json!({ "anyOf": outer })
        };
        let (old, new) = (nested(0), nested(1));
        let (old, new) = (Model::load(&old), Model::load(&new));
        let mut comparer = Comparer::new(&old, &new);
        let _ = comparer.root();
        assert_eq!(comparer.work, MAX_WORK);
    }
}
