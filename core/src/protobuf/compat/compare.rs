//! The comparison itself: Confluent's rules, walked over two files'
//! messages and enums, field by field.

use std::collections::{HashMap, HashSet};

use prost_reflect::{Cardinality, EnumDescriptor, FieldDescriptor, Kind, MessageDescriptor};

use super::shape::{
    by_tag, field_kind, last_index, local_name, nested_messages, scalar_group, tags, FieldKind,
    ScalarGroup, Shape,
};
use super::ProtoChangeKind;
use crate::change::diff::Change;
use crate::change::java_order::{int_union_order, java_order, map_order, union_order};

type P = ProtoChangeKind;

pub(super) struct Comparer {
    pub(super) old_file: String,
    pub(super) new_file: String,
    /// Each level: Confluent's segment (a field's number) and its readable
    /// name.
    pub(super) path: Vec<(String, String)>,
    pub(super) out: Vec<Change<ProtoChangeKind>>,
    /// Pairs of messages being compared, one inside the other, by the
    /// addresses of their full names in their pools (each name is stored
    /// once per pool, and the pools outlive the comparison): a key that
    /// costs no allocation.
    pub(super) in_progress: HashSet<(usize, usize)>,
    /// Imported message pairs already compared, and whether they broke.
    pub(super) imported: HashMap<(String, String), bool>,
    /// Imported messages being compared, one inside the other.
    pub(super) depth: usize,
    /// The imported files that are the same in both pools, with all they
    /// import ([`super::unchanged_imports`]): a message of one of them is
    /// the same message on both sides, however deep it nests.
    pub(super) unchanged: HashSet<String>,
}

/// How deep the comparison follows imported messages, one inside the
/// other, before it reports [`P::ComparisonTooDeep`] instead of
/// overflowing the stack.
pub(super) const MAX_DEPTH: usize = 128;
impl Comparer {
    pub(super) fn push(&mut self, kind: ProtoChangeKind) {
        let path: Vec<&str> = self
            .path
            .iter()
            .map(|(segment, _)| segment.as_str())
            .collect();
        let label: Vec<&str> = self.path.iter().map(|(_, label)| label.as_str()).collect();
        self.out
            .push(Change::new(kind, format!("#/{}", path.join("/"))).with_label(label.join(".")));
    }

    fn push_at(&mut self, segment: &str, label: &str, kind: ProtoChangeKind) {
        self.enter(segment, label);
        self.push(kind);
        self.leave();
    }

    /// Goes one level down: `segment` in Confluent's path (a field's number),
    /// `label` in the readable one (its name).
    fn enter(&mut self, segment: impl Into<String>, label: impl Into<String>) {
        self.path.push((segment.into(), label.into()));
    }

    fn leave(&mut self) {
        self.path.pop();
    }

    /// Compares the messages and enums declared at one level.
    pub(super) fn types(
        &mut self,
        old_messages: &[MessageDescriptor],
        old_enums: &[EnumDescriptor],
        new_messages: &[MessageDescriptor],
        new_enums: &[EnumDescriptor],
    ) {
        if old_messages.is_empty()
            && old_enums.is_empty()
            && new_messages.is_empty()
            && new_enums.is_empty()
        {
            return;
        }
        let old_names: Vec<&str> = old_messages.iter().map(|m| m.name()).collect();
        let new_names: Vec<&str> = new_messages.iter().map(|m| m.name()).collect();
        let (old_at, new_at) = (last_index(&old_names), last_index(&new_names));
        for name in union_order(&map_order(&old_names), &map_order(&new_names)) {
            // The last declaration of a name wins, as in a Java map.
            let old = old_at.get(name).copied();
            let new = new_at.get(name).copied();
            self.enter(name, name);
            match (old, new) {
                (Some(_), None) => self.push(P::MessageRemoved),
                (None, Some(_)) => self.push(P::MessageAdded),
                (Some(i), Some(j)) => {
                    self.message(&old_messages[i], &new_messages[j]);
                    if i != j {
                        self.push(P::MessageMoved);
                    }
                }
                (None, None) => {}
            }
            self.leave();
        }
        let old_names: Vec<&str> = old_enums.iter().map(|e| e.name()).collect();
        let new_names: Vec<&str> = new_enums.iter().map(|e| e.name()).collect();
        let (old_at, new_at) = (last_index(&old_names), last_index(&new_names));
        for name in union_order(&map_order(&old_names), &map_order(&new_names)) {
            let old = old_at.get(name).map(|&at| &old_enums[at]);
            let new = new_at.get(name).map(|&at| &new_enums[at]);
            self.enter(name, name);
            match (old, new) {
                (Some(_), None) => self.push(P::EnumRemoved),
                (None, Some(_)) => self.push(P::EnumAdded),
                (Some(o), Some(n)) => self.enumeration(o, n),
                (None, None) => {}
            }
            self.leave();
        }
    }

    fn enumeration(&mut self, old: &EnumDescriptor, new: &EnumDescriptor) {
        // Aliases: the last value declared for a number wins.
        let by_number = |e: &EnumDescriptor| {
            let mut map: HashMap<i32, String> = HashMap::new();
            let mut order = Vec::new();
            for v in e.values() {
                if map.insert(v.number(), v.name().to_owned()).is_none() {
                    order.push(v.number());
                }
            }
            (map, java_order(order, 16, |i| *i))
        };
        let (old_map, old_order) = by_number(old);
        let (new_map, new_order) = by_number(new);
        for number in int_union_order(&old_order, &new_order) {
            let segment = number.to_string();
            match (old_map.get(&number), new_map.get(&number)) {
                (Some(a), None) => self.push_at(&segment, a, P::EnumConstRemoved),
                (None, Some(b)) => self.push_at(&segment, b, P::EnumConstAdded),
                (Some(a), Some(b)) if a != b => self.push_at(&segment, b, P::EnumConstChanged),
                _ => {}
            }
        }
    }

    fn message(&mut self, old: &MessageDescriptor, new: &MessageDescriptor) {
        let key = (
            old.full_name().as_ptr() as usize,
            new.full_name().as_ptr() as usize,
        );
        if self.in_progress.insert(key) {
            self.fields(old, new);
            self.in_progress.remove(&key);
        }
        let old_nested = nested_messages(old);
        let new_nested = nested_messages(new);
        self.types(
            &old_nested,
            &old.child_enums().collect::<Vec<_>>(),
            &new_nested,
            &new.child_enums().collect::<Vec<_>>(),
        );
    }

    fn fields(&mut self, old: &MessageDescriptor, new: &MessageDescriptor) {
        let o = Shape::of(old);
        let u = Shape::of(new);
        // Top-level fields of the original that moved into a oneof.
        let mut moved_into_oneof: HashSet<u32> = HashSet::new();

        // 1. Each oneof of the update may hold at most one field that could
        //    be set independently of the others in the original.
        for (name, fields) in &u.oneofs {
            let mut moved = 0;
            let mut groups: HashSet<&str> = HashSet::new();
            for f in fields {
                if o.top_field(f.number()).is_some() {
                    moved += 1;
                    moved_into_oneof.insert(f.number());
                } else if let Some(group) = o.oneof_of(f.number()) {
                    groups.insert(group);
                }
            }
            if moved > 1 {
                self.push_at(name, name, P::MultipleFieldsMovedToOneof);
            } else if moved + groups.len() > 1 {
                self.push_at(name, name, P::FieldMovedToExistingOneof);
            }
        }

        // 2. Oneofs by name.
        let old_names: Vec<&str> = o.oneofs.iter().map(|(n, _)| n.as_str()).collect();
        let new_names: Vec<&str> = u.oneofs.iter().map(|(n, _)| n.as_str()).collect();
        // The original's oneofs first, then those only the update has.
        let mut names = map_order(&old_names);
        let old_set: HashSet<&str> = old_names.iter().copied().collect();
        names.extend(
            map_order(&new_names)
                .into_iter()
                .filter(|n| !old_set.contains(n)),
        );
        for &name in &names {
            let of = o.oneof(name);
            let uf = u.oneof(name);
            self.enter(name, name);
            match (of, uf) {
                (Some(_), None) => self.push(P::OneofRemoved),
                (None, Some(uf)) => {
                    self.push(P::OneofAdded);
                    let mut new_tags: Vec<u32> = uf
                        .iter()
                        .map(FieldDescriptor::number)
                        .filter(|t| !o.has(*t))
                        .collect();
                    new_tags.sort_unstable();
                    let members = by_tag(uf);
                    for tag in new_tags {
                        let label = members.get(&tag).map_or("", |f| f.name());
                        self.push_at(&tag.to_string(), label, P::OneofFieldAdded);
                    }
                }
                (Some(of), Some(uf)) => {
                    let mut all: Vec<u32> =
                        of.iter().chain(uf).map(FieldDescriptor::number).collect();
                    all.sort_unstable();
                    all.dedup();
                    let (old_members, new_members) = (by_tag(of), by_tag(uf));
                    for tag in all {
                        let a = old_members.get(&tag);
                        let b = new_members.get(&tag);
                        let label = a.or(b).map_or("", |f| f.name());
                        self.enter(tag.to_string(), label);
                        match (a, b) {
                            (Some(_), None) if !u.has(tag) => self.push(P::OneofFieldRemoved),
                            (None, Some(_)) if !o.has(tag) => self.push(P::OneofFieldAdded),
                            (Some(a), Some(b)) => self.field(a, b),
                            _ => {}
                        }
                        self.leave();
                    }
                }
                (None, None) => {}
            }
            self.leave();
        }
        // Fields deleted together with their oneof.
        for &name in &names {
            if u.oneof(name).is_some() {
                continue;
            }
            if let Some(fields) = o.oneof(name) {
                let mut gone: Vec<u32> = fields
                    .iter()
                    .map(FieldDescriptor::number)
                    .filter(|t| !u.has(*t))
                    .collect();
                gone.sort_unstable();
                let members = by_tag(fields);
                for tag in gone {
                    self.enter(name, name);
                    self.push_at(
                        &tag.to_string(),
                        members.get(&tag).map_or("", |f| f.name()),
                        P::OneofFieldRemoved,
                    );
                    self.leave();
                }
            }
        }

        // 3. Top-level fields by number.
        let old_top: Vec<FieldDescriptor> = o
            .top
            .iter()
            .filter(|f| !moved_into_oneof.contains(&f.number()))
            .cloned()
            .collect();
        let old_top_by_tag = by_tag(&old_top);
        for tag in int_union_order(&tags(&old_top), &tags(&u.top)) {
            let tag = tag as u32;
            let a = old_top_by_tag.get(&tag);
            let b = u.top_field(tag);
            self.enter(tag.to_string(), a.or(b).map_or("", |f| f.name()));
            match (a, b) {
                (Some(a), None) => self.push(if a.cardinality() == Cardinality::Required {
                    P::RequiredFieldRemoved
                } else {
                    P::FieldRemoved
                }),
                (None, Some(b)) => self.push(if o.oneof_of(tag).is_some() {
                    P::OneofFieldMovedToTopLevel
                } else if b.cardinality() == Cardinality::Required {
                    P::RequiredFieldAdded
                } else {
                    P::FieldAdded
                }),
                (Some(a), Some(b)) => self.field(a, b),
                (None, None) => {}
            }
            self.leave();
        }

        // 4. Fields whose oneof membership changed, compared by number.
        let mut common: Vec<u32> = o
            .top
            .iter()
            .chain(o.oneofs.iter().flat_map(|(_, f)| f.iter()))
            .map(FieldDescriptor::number)
            .filter(|t| u.has(*t))
            .collect();
        common.sort_unstable();
        common.dedup();
        for tag in common {
            let (oo, uo) = (o.oneof_of(tag), u.oneof_of(tag));
            if oo == uo {
                continue;
            }
            let (Some(a), Some(b)) = (o.any_field(tag), u.any_field(tag)) else {
                continue;
            };
            let pushed = if let Some(name) = uo {
                self.enter(name, name);
                true
            } else {
                false
            };
            self.enter(tag.to_string(), b.name());
            self.field(a, b);
            self.leave();
            if pushed {
                self.leave();
            }
        }
    }

    /// Compares two fields with the same number, at the current path.
    fn field(&mut self, old: &FieldDescriptor, new: &FieldDescriptor) {
        if old.name() != new.name() {
            self.push(P::FieldNameChanged);
        }
        let same_kind = self.field_type(old, new);
        // The label (optional, required, repeated), as Confluent compares
        // it for scalars: proto2 `optional` to `required` counts too.
        if same_kind && !old.is_map() && !new.is_map() && old.cardinality() != new.cardinality() {
            match scalar_group(&old.kind()) {
                Some(ScalarGroup::LengthDelimited) => self.push(P::FieldStringOrBytesLabelChanged),
                Some(_) => self.push(P::FieldNumericLabelChanged),
                None => {}
            }
        }
    }

    /// Compares the types of two fields; returns whether they are of the same kind.
    fn field_type(&mut self, old: &FieldDescriptor, new: &FieldDescriptor) -> bool {
        let (ok, nk) = (field_kind(old), field_kind(new));
        if ok != nk {
            self.push(P::FieldKindChanged);
            return false;
        }
        match ok {
            FieldKind::Scalar => {
                if scalar_group(&old.kind()) != scalar_group(&new.kind()) {
                    self.push(P::FieldScalarKindChanged);
                }
            }
            FieldKind::Message => {
                if let (Kind::Message(a), Kind::Message(b)) = (old.kind(), new.kind()) {
                    self.named_type(&a, &b);
                }
            }
            FieldKind::Map => {
                // `get_field`, not `map_entry_key_field`, which panics on
                // a malformed entry: `diff` takes pools built by anyone.
                if let (Kind::Message(a), Kind::Message(b)) = (old.kind(), new.kind()) {
                    for number in [1, 2] {
                        match (a.get_field(number), b.get_field(number)) {
                            (Some(x), Some(y)) => {
                                self.field_type(&x, &y);
                            }
                            (None, None) => {}
                            _ => self.push(P::FieldKindChanged),
                        }
                    }
                }
            }
        }
        true
    }

    /// Compares the messages two fields name.
    fn named_type(&mut self, old: &MessageDescriptor, new: &MessageDescriptor) {
        let (old_local, new_local) = (local_name(old), local_name(new));
        if old_local != new_local {
            self.push(P::FieldNamedTypeChanged);
            return;
        }
        // Messages of the compared files are compared by name at their own
        // level; a message from an import is compared here, at its local name.
        if old.parent_file().name() == self.old_file && new.parent_file().name() == self.new_file {
            return;
        }
        // The same message of a file unchanged on both sides, with all it
        // imports: nothing to compare (a chain of 1,000 imported files,
        // unchanged, is no deeper than one).
        if old.full_name() == new.full_name()
            && old.parent_file().name() == new.parent_file().name()
            && self.unchanged.contains(old.parent_file().name())
        {
            return;
        }
        // Each pair of imported messages is compared once: its changes are
        // listed the first time a field names it, and later fields reuse
        // the verdict (comparing again per reference is exponential in a
        // chain of messages that name the next one twice).
        let key = (old.full_name().to_owned(), new.full_name().to_owned());
        if let Some(&broke) = self.imported.get(&key) {
            if broke {
                self.push(P::FieldNamedTypeChanged);
            }
            return;
        }
        if self.depth >= MAX_DEPTH {
            self.push(P::ComparisonTooDeep);
            return;
        }
        // A cycle back to this pair while comparing it adds nothing.
        self.imported.insert(key.clone(), false);
        let saved_path = std::mem::replace(
            &mut self.path,
            old_local
                .split('.')
                .map(|part| (part.to_owned(), part.to_owned()))
                .collect(),
        );
        let saved_out = std::mem::take(&mut self.out);
        self.depth += 1;
        self.message(old, new);
        self.depth -= 1;
        let sub = std::mem::replace(&mut self.out, saved_out);
        self.path = saved_path;
        let broke = sub.iter().any(|c| !c.is_backward_compatible());
        self.imported.insert(key, broke);
        self.out.extend(sub);
        if broke {
            self.push(P::FieldNamedTypeChanged);
        }
    }
}
