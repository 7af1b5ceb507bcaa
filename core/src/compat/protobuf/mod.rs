//! Protobuf compatibility, with Confluent Schema Registry's semantics, over
//! descriptors (feature `protobuf`).
//!
//! The registry stores a protobuf schema as a serialized
//! `FileDescriptorSet`; the schema is the set's last file (dependencies come
//! first), and, as in Confluent, the whole file is compared: its package,
//! every message and enum, at every depth. Fields match by number. A `.proto`
//! source compiled to a set and the set itself compare the same.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use dataschema::compat::{protobuf, Compatibility};
//! # use prost_reflect::prost::Message;
//! # use prost_reflect::prost_types::{field_descriptor_proto::Type, DescriptorProto,
//! #     FieldDescriptorProto, FileDescriptorProto, FileDescriptorSet};
//! # fn set(ty: Type) -> Vec<u8> {
//! #     let field = FieldDescriptorProto { name: Some("id".into()), number: Some(1),
//! #         r#type: Some(ty as i32), label: Some(1), ..Default::default() };
//! #     let msg = DescriptorProto { name: Some("Order".into()), field: vec![field], ..Default::default() };
//! #     let file = FileDescriptorProto { name: Some("order.proto".into()), package: Some("shop".into()),
//! #         syntax: Some("proto3".into()), message_type: vec![msg], ..Default::default() };
//! #     FileDescriptorSet { file: vec![file] }.encode_to_vec()
//! # }
//! let v1 = set(Type::Int32); // message Order { int32 id = 1; }
//! let v2 = set(Type::Int64); // message Order { int64 id = 1; }
//! let v3 = set(Type::String); // message Order { string id = 1; }
//! assert!(protobuf::check(Compatibility::Backward, &v2, &[(1, &v1)])?.is_compatible());
//! let report = protobuf::check(Compatibility::Backward, &v3, &[(2, &v2)])?;
//! assert!(!report.is_compatible());
//! let change = report.breaking().next().unwrap();
//! assert_eq!(change.kind(), protobuf::ProtoChangeKind::FieldScalarKindChanged);
//! assert_eq!(
//!     change.to_string(),
//!     "[v2] backward: FIELD_SCALAR_KIND_CHANGED at #/Order/1 (Order.id)"
//! );
//! # Ok(())
//! # }
//! ```

mod kind;

use std::collections::{HashMap, HashSet};

use prost_reflect::{
    Cardinality, DescriptorPool, EnumDescriptor, FieldDescriptor, FileDescriptor, Kind,
    MessageDescriptor,
};

pub use self::kind::ProtoChangeKind;
use crate::compat::java_order::{int_union_order, java_order, map_order, union_order};
use crate::compat::{check_with, Change, CompatError, CompatReport, Compatibility, SchemaDiff};

type P = ProtoChangeKind;

/// Decodes a serialized `FileDescriptorSet`, naming the input (`what`) in
/// the error. The set must hold its dependencies (as `protoc
/// --include_imports` or `protox` write it), and only shapes `protoc`
/// writes ([`check_descriptors`](crate::validate::scan::check_descriptors)):
/// a set that links but holds, say, a map entry without a `value` field is
/// [`CompatError::UnusableDescriptor`].
pub fn decode(what: &str, bytes: &[u8]) -> Result<DescriptorPool, CompatError> {
    let unusable = |source| CompatError::UnusableDescriptor {
        what: what.to_owned(),
        source,
    };
    crate::validate::scan::check_descriptor_set(bytes).map_err(unusable)?;
    let pool = DescriptorPool::decode(bytes).map_err(|source| CompatError::NotADescriptorSet {
        what: what.to_owned(),
        source,
    })?;
    crate::validate::scan::check_descriptors(&pool).map_err(unusable)?;
    if pool.files().len() == 0 {
        return Err(CompatError::NoSuchFile {
            what: what.to_owned(),
            file: String::new(),
        });
    }
    Ok(pool)
}

/// Whether two pools hold the same files, in the same order.
fn same_files(a: &DescriptorPool, b: &DescriptorPool) -> bool {
    a.files().len() == b.files().len()
        && a.files()
            .zip(b.files())
            .all(|(x, y)| x.file_descriptor_proto() == y.file_descriptor_proto())
}

/// The file a pool's schema is: the file no other file of the set
/// imports (the last such file, when there are several), whatever order the
/// set lists its files in.
fn main_file(pool: &DescriptorPool) -> Option<FileDescriptor> {
    let imported: HashSet<String> = pool
        .files()
        .flat_map(|file| {
            file.dependencies()
                .map(|dep| dep.name().to_owned())
                .collect::<Vec<_>>()
        })
        .collect();
    pool.files()
        .filter(|file| !imported.contains(file.name()))
        .last()
        .or_else(|| pool.files().last())
}

/// Every change between the schema files of two pools (in each, the file no
/// other file imports), in Confluent's order. A pool without files compares as an empty
/// file.
pub fn diff(old: &DescriptorPool, new: &DescriptorPool) -> SchemaDiff<ProtoChangeKind> {
    match (main_file(old), main_file(new)) {
        (Some(o), Some(n)) => diff_files(&o, &n),
        _ => SchemaDiff::new(Vec::new()),
    }
}

/// Every change between two files, in Confluent's order.
pub fn diff_files(old: &FileDescriptor, new: &FileDescriptor) -> SchemaDiff<ProtoChangeKind> {
    // The same file over the same imports has no change, however deep its
    // messages nest.
    if old.name() == new.name() && same_files(old.parent_pool(), new.parent_pool()) {
        return SchemaDiff::new(Vec::new());
    }
    let mut cmp = Comparer {
        old_file: old.name().to_owned(),
        new_file: new.name().to_owned(),
        path: Vec::new(),
        out: Vec::new(),
        in_progress: HashSet::new(),
        imported: HashMap::new(),
        depth: 0,
    };
    if old.package_name() != new.package_name() {
        cmp.push(P::PackageChanged);
    }
    cmp.types(
        &old.messages().collect::<Vec<_>>(),
        &old.enums().collect::<Vec<_>>(),
        &new.messages().collect::<Vec<_>>(),
        &new.enums().collect::<Vec<_>>(),
    );
    SchemaDiff::new(cmp.out)
}

/// Checks `candidate` against `priors` (oldest first, with their version
/// numbers) under `mode`; every input is a serialized `FileDescriptorSet`.
pub fn check(
    mode: Compatibility,
    candidate: &[u8],
    priors: &[(u32, &[u8])],
) -> Result<CompatReport, CompatError> {
    let candidate = decode("candidate", candidate)?;
    let pools = priors
        .iter()
        .map(|(v, bytes)| Ok((*v, decode(&format!("version {v}"), bytes)?)))
        .collect::<Result<Vec<_>, CompatError>>()?;
    let refs: Vec<(u32, &DescriptorPool)> = pools.iter().map(|(v, p)| (*v, p)).collect();
    Ok(check_pools(mode, &candidate, &refs))
}

/// Checks `candidate` against `priors` (oldest first) under `mode`, on
/// decoded descriptor pools.
pub fn check_pools(
    mode: Compatibility,
    candidate: &DescriptorPool,
    priors: &[(u32, &DescriptorPool)],
) -> CompatReport {
    check_with(mode, candidate, priors, diff)
}

struct Comparer {
    old_file: String,
    new_file: String,
    /// Each level: Confluent's segment (a field's number) and its readable
    /// name.
    path: Vec<(String, String)>,
    out: Vec<Change<ProtoChangeKind>>,
    /// Pairs of messages being compared, one inside the other, by the
    /// addresses of their full names in their pools (each name is stored
    /// once per pool, and the pools outlive the comparison): a key that
    /// costs no allocation.
    in_progress: HashSet<(usize, usize)>,
    /// Imported message pairs already compared, and whether they broke.
    imported: HashMap<(String, String), bool>,
    /// Imported messages being compared, one inside the other.
    depth: usize,
}

/// How deep the comparison follows imported messages, one inside the
/// other, before it reports [`P::ComparisonTooDeep`] instead of
/// overflowing the stack.
const MAX_DEPTH: usize = 128;

/// A message's fields the way a `.proto` file declares them: top-level
/// fields (proto3 `optional` included) and real oneofs, with the lookups the
/// comparison makes (by number, by oneof name) in sorted indexes searched by
/// bisection, so that a message of many fields or oneofs compares in time
/// near-linear in its size, and a message of a few fields allocates no hash
/// table.
struct Shape {
    top: Vec<FieldDescriptor>,
    oneofs: Vec<(String, Vec<FieldDescriptor>)>,
    /// Field number -> index into `top` (the first field with the number).
    top_by_tag: TagIndex<usize>,
    /// Field number -> (index into `oneofs`, index among its members) of
    /// the first oneof member with the number.
    oneof_by_tag: TagIndex<(usize, usize)>,
    /// Indexes into `oneofs`, sorted by name, the first oneof of each name
    /// only.
    oneof_by_name: Vec<usize>,
}

/// Field number -> a value, the first value given for each number, sorted
/// by number for bisection.
struct TagIndex<V>(Vec<(u32, V)>);

impl<V: Copy> TagIndex<V> {
    fn new(mut entries: Vec<(u32, V)>) -> Self {
        // Stable: among equal numbers the first given stays first.
        entries.sort_by_key(|(tag, _)| *tag);
        entries.dedup_by_key(|(tag, _)| *tag);
        TagIndex(entries)
    }

    fn get(&self, tag: u32) -> Option<V> {
        self.0
            .binary_search_by_key(&tag, |(t, _)| *t)
            .ok()
            .map(|at| self.0[at].1)
    }
}

impl Shape {
    fn of(message: &MessageDescriptor) -> Shape {
        let top: Vec<FieldDescriptor> = message
            .fields()
            .filter(|f| f.containing_oneof().is_none_or(|o| o.is_synthetic()))
            .collect();
        let oneofs: Vec<(String, Vec<FieldDescriptor>)> = message
            .oneofs()
            .filter(|o| !o.is_synthetic())
            .map(|o| (o.name().to_owned(), o.fields().collect()))
            .collect();
        let top_by_tag = TagIndex::new(
            top.iter()
                .enumerate()
                .map(|(at, f)| (f.number(), at))
                .collect(),
        );
        let oneof_by_tag = TagIndex::new(
            oneofs
                .iter()
                .enumerate()
                .flat_map(|(at, (_, fields))| {
                    fields
                        .iter()
                        .enumerate()
                        .map(move |(member, f)| (f.number(), (at, member)))
                })
                .collect(),
        );
        let mut oneof_by_name: Vec<usize> = (0..oneofs.len()).collect();
        oneof_by_name.sort_by(|&a, &b| oneofs[a].0.cmp(&oneofs[b].0));
        oneof_by_name.dedup_by(|a, b| oneofs[*a].0 == oneofs[*b].0);
        Shape {
            top,
            oneofs,
            top_by_tag,
            oneof_by_tag,
            oneof_by_name,
        }
    }

    fn oneof_of(&self, tag: u32) -> Option<&str> {
        self.oneof_by_tag
            .get(tag)
            .and_then(|(at, _)| self.oneofs.get(at))
            .map(|(name, _)| name.as_str())
    }

    fn top_field(&self, tag: u32) -> Option<&FieldDescriptor> {
        self.top_by_tag.get(tag).and_then(|at| self.top.get(at))
    }

    fn any_field(&self, tag: u32) -> Option<&FieldDescriptor> {
        self.top_field(tag).or_else(|| {
            self.oneof_by_tag
                .get(tag)
                .and_then(|(at, member)| self.oneofs.get(at)?.1.get(member))
        })
    }

    fn has(&self, tag: u32) -> bool {
        self.any_field(tag).is_some()
    }

    /// The members of the oneof named `name`.
    fn oneof(&self, name: &str) -> Option<&[FieldDescriptor]> {
        self.oneof_by_name
            .binary_search_by(|&at| self.oneofs[at].0.as_str().cmp(name))
            .ok()
            .map(|found| self.oneofs[self.oneof_by_name[found]].1.as_slice())
    }
}

/// Fields by number (the first with each number).
fn by_tag(fields: &[FieldDescriptor]) -> Members<'_> {
    Members {
        fields,
        index: TagIndex::new(
            fields
                .iter()
                .enumerate()
                .map(|(at, f)| (f.number(), at))
                .collect(),
        ),
    }
}

/// A list of fields with its index by number.
struct Members<'a> {
    fields: &'a [FieldDescriptor],
    index: TagIndex<usize>,
}

impl<'a> Members<'a> {
    fn get(&self, tag: &u32) -> Option<&'a FieldDescriptor> {
        self.index.get(*tag).map(|at| &self.fields[at])
    }
}

fn tags(fields: &[FieldDescriptor]) -> Vec<i32> {
    let raw: Vec<i32> = fields.iter().map(|f| f.number() as i32).collect();
    java_order(raw, 16, |i| *i)
}

fn nested_messages(m: &MessageDescriptor) -> Vec<MessageDescriptor> {
    m.child_messages().filter(|c| !c.is_map_entry()).collect()
}

/// The groups of scalar types that share a wire encoding.
#[derive(Debug, PartialEq, Eq)]
enum ScalarGroup {
    Varint,
    ZigZag,
    LengthDelimited,
    Fixed32,
    Fixed64,
    Float,
    Double,
}

#[derive(Debug, PartialEq, Eq)]
enum FieldKind {
    Scalar,
    Message,
    Map,
}

fn field_kind(f: &FieldDescriptor) -> FieldKind {
    if f.is_map() {
        FieldKind::Map
    } else if matches!(f.kind(), Kind::Message(_)) {
        FieldKind::Message
    } else {
        FieldKind::Scalar
    }
}

fn scalar_group(kind: &Kind) -> Option<ScalarGroup> {
    Some(match kind {
        Kind::Int32 | Kind::Int64 | Kind::Uint32 | Kind::Uint64 | Kind::Bool | Kind::Enum(_) => {
            ScalarGroup::Varint
        }
        Kind::Sint32 | Kind::Sint64 => ScalarGroup::ZigZag,
        Kind::String | Kind::Bytes => ScalarGroup::LengthDelimited,
        Kind::Fixed32 | Kind::Sfixed32 => ScalarGroup::Fixed32,
        Kind::Fixed64 | Kind::Sfixed64 => ScalarGroup::Fixed64,
        Kind::Float => ScalarGroup::Float,
        Kind::Double => ScalarGroup::Double,
        Kind::Message(_) => return None,
    })
}

/// A message's name without its file's package (`outer.Inner`).
fn local_name(m: &MessageDescriptor) -> &str {
    let package = m.package_name();
    let full = m.full_name();
    if package.is_empty() {
        full
    } else {
        full.strip_prefix(package)
            .and_then(|s| s.strip_prefix('.'))
            .unwrap_or(full)
    }
}

/// Name -> index of its last occurrence.
fn last_index<'a>(names: &[&'a str]) -> HashMap<&'a str, usize> {
    let mut map = HashMap::with_capacity(names.len());
    for (at, name) in names.iter().enumerate() {
        map.insert(*name, at);
    }
    map
}

impl Comparer {
    fn push(&mut self, kind: ProtoChangeKind) {
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
    fn types(
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
