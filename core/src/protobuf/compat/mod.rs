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

mod compare;
pub(crate) mod kind;
mod shape;

use std::collections::{HashMap, HashSet};

use prost_reflect::{DescriptorPool, FileDescriptor};

use self::compare::Comparer;
pub use self::kind::ProtoChangeKind;
use crate::change::check::{check_with, CompatReport};
use crate::change::diff::SchemaDiff;
use crate::change::error::CompatError;
use crate::level::Compatibility;
pub use crate::protobuf::model::UnusableDescriptor;

type P = ProtoChangeKind;

/// Decodes a serialized `FileDescriptorSet`, naming the input (`what`) in
/// the error. The set must hold its dependencies (as `protoc
/// --include_imports` or `protox` write it), and only shapes `protoc`
/// writes (the protobuf schema model's checks, the validator's too): a set
/// that links but holds, say, a map entry without a `value` field is
/// [`CompatError::UnusableDescriptor`].
pub fn decode(what: &str, bytes: &[u8]) -> Result<DescriptorPool, CompatError> {
    use crate::protobuf::model::{decode, DecodeError};
    let pool = decode(bytes).map_err(|err| match err {
        DecodeError::Unusable(source) => CompatError::UnusableDescriptor {
            what: what.to_owned(),
            source,
        },
        DecodeError::NotADescriptorSet(source) => CompatError::NotADescriptorSet {
            what: what.to_owned(),
            source,
        },
    })?;
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

/// The files other than `old` and `new` that both pools hold as the same
/// descriptor and whose imports are all such files too, by name: found
/// without recursion (the files that differ, then their importers, and
/// theirs, from a work list), in any order the pools list their files.
fn unchanged_imports(old: &FileDescriptor, new: &FileDescriptor) -> HashSet<String> {
    let (old_pool, new_pool) = (old.parent_pool(), new.parent_pool());
    let mut importers: HashMap<String, Vec<String>> = HashMap::new();
    let mut same = HashSet::new();
    let mut changed = Vec::new();
    for file in new_pool.files() {
        let name = file.name().to_owned();
        for dependency in file.dependencies() {
            importers
                .entry(dependency.name().to_owned())
                .or_default()
                .push(name.clone());
        }
        let held = old_pool
            .get_file_by_name(&name)
            .is_some_and(|prior| prior.file_descriptor_proto() == file.file_descriptor_proto());
        if held && name != old.name() && name != new.name() {
            same.insert(name);
        } else {
            changed.push(name);
        }
    }
    while let Some(name) = changed.pop() {
        for importer in importers.remove(&name).unwrap_or_default() {
            if same.remove(&importer) {
                changed.push(importer);
            }
        }
    }
    same
}

/// The file a pool's schema is: the file no other file of the set
/// imports (the last such file, when there are several), whatever order the
/// set lists its files in.
fn main_file(pool: &DescriptorPool) -> Option<FileDescriptor> {
    crate::protobuf::source::top_files(pool)
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
        unchanged: unchanged_imports(old, new),
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
/// numbers) under `level`; every input is a serialized `FileDescriptorSet`.
pub fn check(
    level: Compatibility,
    candidate: &[u8],
    priors: &[(u32, &[u8])],
) -> Result<CompatReport, CompatError> {
    let candidate = decode("candidate", candidate)?;
    let pools = priors
        .iter()
        .map(|(v, bytes)| Ok((*v, decode(&format!("version {v}"), bytes)?)))
        .collect::<Result<Vec<_>, CompatError>>()?;
    let refs: Vec<(u32, &DescriptorPool)> = pools.iter().map(|(v, p)| (*v, p)).collect();
    Ok(check_pools(level, &candidate, &refs))
}

/// Checks `candidate` against `priors` (oldest first) under `level`, on
/// decoded descriptor pools.
pub fn check_pools(
    level: Compatibility,
    candidate: &DescriptorPool,
    priors: &[(u32, &DescriptorPool)],
) -> CompatReport {
    check_with(level, candidate, priors, diff)
}
