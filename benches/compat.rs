//! Compatibility-check cost: a 200-property JSON Schema against 50 prior
//! versions under `BackwardTransitive`, a 100-message protobuf file, and two
//! large generated protobuf files (20,000 messages; one message of 18,000
//! oneofs), which show whether the protobuf engine is near-linear in schema
//! size.
//!
//! Each group also measures the bare baseline in the same run: one JSON diff
//! against one prior version, and decoding the protobuf descriptor sets
//! without comparing them.
//!
//! `json_large` measures the inputs that used to be quadratic or to exhaust
//! the comparison budget: a 400-member `anyOf` whose title changes, 8,000
//! `anyOf` members to de-duplicate, a 40,000-value `enum` that gains a value,
//! 20,000 required properties one of which stops being required, and a
//! genuinely combinatorial nesting that ends in `COMPARISON_TOO_LARGE`.
//!
//! `protobuf_cap` and `json_cap` check schemas of about
//! [`MAX_SCHEMA_BYTES`] (1 MiB; each row's name gives its size in KiB)
//! against one prior version, from bytes as a publish would: decoding (or
//! parsing) both versions, comparing, and freeing them. Each group's
//! baseline decodes (or parses) the two versions without comparing them.

use criterion::{criterion_group, criterion_main, Criterion};
use dataschema::compat::{json, protobuf, Compatibility};
use dataschema::MAX_SCHEMA_BYTES;
use serde_json::{json, Map, Value};
use std::hint::black_box;

/// Version `v` of a 200-property object schema: each version adds an
/// optional property to the closed model and widens one bound.
fn json_version(v: usize) -> Value {
    let mut props = Map::new();
    for i in 0..200 {
        let schema = match i % 4 {
            0 => json!({"type": "string", "maxLength": 10 + v}),
            1 => json!({"type": "integer", "minimum": -(v as i64)}),
            2 => json!({"type": "array", "items": {"type": "string"}}),
            _ => json!({"type": "object", "properties": {"x": {"type": "boolean"}}}),
        };
        props.insert(format!("p{i}"), schema);
    }
    for i in 0..v {
        props.insert(format!("extra{i}"), json!({"type": "string"}));
    }
    json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": props,
        "required": ["p0", "p1"],
        "additionalProperties": false
    })
}

fn proto_version(v: usize) -> Vec<u8> {
    use protox::file::{ChainFileResolver, File, FileResolver, GoogleFileResolver};
    struct One(String);
    impl FileResolver for One {
        fn open_file(&self, name: &str) -> Result<File, protox::Error> {
            if name == "bench.proto" {
                File::from_source(name, &self.0)
            } else {
                Err(protox::Error::file_not_found(name))
            }
        }
    }
    let mut text = String::from("syntax = \"proto3\";\npackage bench;\n");
    for m in 0..100 {
        text.push_str(&format!("message M{m} {{\n"));
        for f in 1..=10 {
            let ty = match f % 3 {
                0 => "string".to_owned(),
                1 => "int64".to_owned(),
                _ => format!("M{}", (m + 1) % 100),
            };
            text.push_str(&format!("  {ty} f{f} = {f};\n"));
        }
        if v > 0 {
            text.push_str("  oneof choice { string a = 11; int32 b = 12; }\n");
        }
        text.push_str("}\n");
    }
    let mut chain = ChainFileResolver::new();
    chain.add(One(text));
    chain.add(GoogleFileResolver::new());
    let mut compiler = protox::Compiler::with_file_resolver(chain);
    compiler.include_imports(true);
    compiler
        .open_file("bench.proto")
        .expect("bench schema compiles");
    compiler.encode_file_descriptor_set()
}

fn bench_json(c: &mut Criterion) {
    let priors: Vec<Value> = (0..50).map(json_version).collect();
    let candidate = json_version(50);
    let refs: Vec<(u32, &Value)> = priors
        .iter()
        .enumerate()
        .map(|(i, p)| (i as u32 + 1, p))
        .collect();
    assert!(
        json::check(Compatibility::BackwardTransitive, &candidate, &refs)
            .unwrap()
            .is_compatible()
    );
    let mut group = c.benchmark_group("json_200_properties");
    group.bench_function("baseline_one_diff", |b| {
        b.iter(|| json::diff(black_box(&priors[49]), black_box(&candidate)))
    });
    group.bench_function("backward_transitive_50_versions", |b| {
        b.iter(|| {
            json::check(
                Compatibility::BackwardTransitive,
                black_box(&candidate),
                &refs,
            )
        })
    });
    group.finish();
}

/// `{"title": title, "anyOf": [{"const": 0}, ..]}` with `members` members.
fn const_any_of(title: &str, members: usize) -> Value {
    let subs: Vec<Value> = (0..members).map(|i| json!({ "const": i })).collect();
    json!({"title": title, "anyOf": subs})
}

/// An object of `n` properties, every one required but `optional`.
fn required_object(n: usize, optional: Option<usize>) -> Value {
    let mut props = Map::new();
    let mut required = Vec::new();
    for i in 0..n {
        props.insert(format!("p{i}"), json!({"type": "integer", "minimum": i}));
        if Some(i) != optional {
            required.push(Value::String(format!("p{i}")));
        }
    }
    json!({"type": "object", "properties": props, "required": required, "additionalProperties": false})
}

/// Sixty `anyOf`s of sixty integer ranges, shifted by `base`: every member
/// differs, so every member is compared with every member.
fn combinatorial(base: i64) -> Value {
    let outer: Vec<Value> = (0..60)
        .map(|i| {
            let inner: Vec<Value> = (0..60)
                .map(|k| json!({"type": "integer", "minimum": base + i * 100 + k}))
                .collect();
            json!({ "anyOf": inner })
        })
        .collect();
    json!({ "anyOf": outer })
}

fn bench_json_large(c: &mut Criterion) {
    let mut group = c.benchmark_group("json_large");
    group.sample_size(10);

    let (a, b) = (const_any_of("a", 400), const_any_of("b", 400));
    group.bench_function("any_of_400_const_title_changed", |bench| {
        bench.iter(|| json::diff(black_box(&a), black_box(&b)))
    });

    let (a, b) = (const_any_of("a", 8_000), const_any_of("b", 8_000));
    group.bench_function("any_of_8000_members_dedup_title_changed", |bench| {
        bench.iter(|| json::diff(black_box(&a), black_box(&b)))
    });

    let values: Vec<Value> = (0..40_000).map(|i| json!(i)).collect();
    let a = json!({ "enum": values });
    let mut more = values.clone();
    more.push(json!(40_000));
    let b = json!({ "enum": more });
    group.bench_function("enum_40000_values_one_added", |bench| {
        bench.iter(|| json::diff(black_box(&a), black_box(&b)))
    });

    let (a, b) = (
        required_object(20_000, None),
        required_object(20_000, Some(7)),
    );
    group.bench_function("required_20000_one_dropped", |bench| {
        bench.iter(|| json::diff(black_box(&a), black_box(&b)))
    });

    let (a, b) = (combinatorial(0), combinatorial(1));
    group.bench_function("combinatorial_60x60_too_large", |bench| {
        bench.iter(|| json::diff(black_box(&a), black_box(&b)))
    });
    group.finish();
}

fn bench_proto(c: &mut Criterion) {
    let old = proto_version(0);
    let new = proto_version(1);
    assert!(protobuf::check(Compatibility::Backward, &new, &[(1, &old)])
        .unwrap()
        .is_compatible());
    let mut group = c.benchmark_group("protobuf_100_messages");
    group.bench_function("baseline_decode_both", |b| {
        b.iter(|| {
            (
                protobuf::decode("old", black_box(&old)).map(|p| p.files().len()),
                protobuf::decode("new", black_box(&new)).map(|p| p.files().len()),
            )
        })
    });
    group.bench_function("backward_check", |b| {
        b.iter(|| protobuf::check(Compatibility::Backward, black_box(&new), &[(1, &old)]))
    });
    let (o, n) = (
        protobuf::decode("old", &old).unwrap(),
        protobuf::decode("new", &new).unwrap(),
    );
    group.bench_function("diff_decoded", |b| {
        b.iter(|| protobuf::diff(black_box(&o), black_box(&n)))
    });
    group.finish();
}

/// A large generated protobuf file, as a `FileDescriptorSet`: `messages`
/// messages `M<i> { int32 a = 1; M<i+1> next = 2; }`, then one message
/// `Wide` of `oneofs` oneofs `o<k> { int32 x<k> = 2k+1; string y<k> = 2k+2; }` (numbers
/// from 19000 shifted past protobuf's reserved range).
/// Version 1 adds a field to every tenth message and renames every tenth
/// oneof member.
fn large_proto(messages: usize, oneofs: usize, v: usize) -> Vec<u8> {
    use prost::Message as _;
    use prost_reflect::prost_types::field_descriptor_proto::{Label, Type};
    use prost_reflect::prost_types::{
        DescriptorProto, FieldDescriptorProto, FileDescriptorProto, FileDescriptorSet,
        OneofDescriptorProto,
    };
    let field =
        |name: String, number: usize, ty: Type, type_name: Option<String>| FieldDescriptorProto {
            name: Some(name),
            number: Some(number as i32),
            label: Some(Label::Optional as i32),
            r#type: Some(ty as i32),
            type_name,
            ..Default::default()
        };
    let mut types = Vec::with_capacity(messages + 1);
    for m in 0..messages {
        let mut fields = vec![
            field("a".into(), 1, Type::Int32, None),
            field(
                "next".into(),
                2,
                Type::Message,
                Some(format!(".big.M{}", (m + 1) % messages)),
            ),
        ];
        if v > 0 && m % 10 == 0 {
            fields.push(field("added".into(), 3, Type::String, None));
        }
        types.push(DescriptorProto {
            name: Some(format!("M{m}")),
            field: fields,
            ..Default::default()
        });
    }
    let mut wide = DescriptorProto {
        name: Some("Wide".into()),
        ..Default::default()
    };
    for k in 0..oneofs {
        wide.oneof_decl.push(OneofDescriptorProto {
            name: Some(format!("o{k}")),
            ..Default::default()
        });
        let renamed = if v > 0 && k % 10 == 0 { "z" } else { "y" };
        for (name, number, ty) in [
            (format!("x{k}"), 2 * k + 1, Type::Int32),
            (format!("{renamed}{k}"), 2 * k + 2, Type::String),
        ] {
            // 19000 to 19999 are reserved for protobuf's own use.
            let number = if number >= 19_000 {
                number + 1_000
            } else {
                number
            };
            let mut f = field(name, number, ty, None);
            f.oneof_index = Some(k as i32);
            wide.field.push(f);
        }
    }
    types.push(wide);
    let file = FileDescriptorProto {
        name: Some("big.proto".into()),
        package: Some("big".into()),
        syntax: Some("proto3".into()),
        message_type: types,
        ..Default::default()
    };
    FileDescriptorSet { file: vec![file] }.encode_to_vec()
}

fn bench_proto_large(c: &mut Criterion) {
    let mut group = c.benchmark_group("protobuf_large");
    group.sample_size(10);
    for (name, messages, oneofs) in [("20000_messages", 20_000, 0), ("18000_oneofs", 1, 18_000)] {
        let old = large_proto(messages, oneofs, 0);
        let new = large_proto(messages, oneofs, 1);
        let (o, n) = (
            protobuf::decode("old", &old).unwrap(),
            protobuf::decode("new", &new).unwrap(),
        );
        group.bench_function(format!("{name}/baseline_decode_both"), |b| {
            b.iter(|| {
                (
                    protobuf::decode("old", black_box(&old)).map(|p| p.files().len()),
                    protobuf::decode("new", black_box(&new)).map(|p| p.files().len()),
                )
            })
        });
        group.bench_function(format!("{name}/diff_decoded"), |b| {
            b.iter(|| protobuf::diff(black_box(&o), black_box(&n)))
        });
    }
    group.finish();
}

/// Asserts that a generated schema is near the size cap (90% to 100% of
/// it), and names it by its size in KiB.
fn at_cap(bytes: &[u8], what: &str) -> String {
    assert!(
        bytes.len() <= MAX_SCHEMA_BYTES && bytes.len() * 10 >= MAX_SCHEMA_BYTES * 9,
        "{what}: {} bytes is not near the {MAX_SCHEMA_BYTES}-byte cap",
        bytes.len()
    );
    format!("{}KiB_{what}", bytes.len() / 1024)
}

fn bench_proto_cap(c: &mut Criterion) {
    let mut group = c.benchmark_group("protobuf_cap");
    group.sample_size(10);
    for (what, messages, oneofs) in [("21500_messages", 21_500, 0), ("20900_oneofs", 1, 20_900)] {
        let old = large_proto(messages, oneofs, 0);
        let new = large_proto(messages, oneofs, 1);
        let name = at_cap(&new, what);
        let report = protobuf::check(Compatibility::Backward, &new, &[(1, &old)]).unwrap();
        // Every tenth oneof member renamed: compatible; fields added: compatible.
        assert!(report.is_compatible());
        group.bench_function(format!("{name}/baseline_decode_both"), |b| {
            b.iter(|| {
                (
                    protobuf::decode("old", black_box(&old)).map(|p| p.files().len()),
                    protobuf::decode("new", black_box(&new)).map(|p| p.files().len()),
                )
            })
        });
        group.bench_function(format!("{name}/backward_check_one_prior"), |b| {
            b.iter(|| protobuf::check(Compatibility::Backward, black_box(&new), &[(1, &old)]))
        });
    }
    group.finish();
}

/// An object schema of `n` properties of every kind (strings with bounds,
/// integers, arrays, nested objects), half of them required; version 1
/// adds an optional property and widens every string bound.
fn wide_json(n: usize, v: usize) -> Value {
    let mut props = Map::new();
    let mut required = Vec::new();
    for i in 0..n {
        let schema = match i % 4 {
            0 => json!({"type": "string", "maxLength": 10 + v}),
            1 => json!({"type": "integer", "minimum": i}),
            2 => json!({"type": "array", "items": {"type": "string"}}),
            _ => json!({"type": "object", "properties": {"x": {"type": "boolean"}}}),
        };
        props.insert(format!("p{i}"), schema);
        if i % 2 == 0 {
            required.push(Value::String(format!("p{i}")));
        }
    }
    if v > 0 {
        props.insert("added".into(), json!({"type": "string"}));
    }
    json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": props,
        "required": required,
        "additionalProperties": false
    })
}

fn bench_json_cap(c: &mut Criterion) {
    let mut group = c.benchmark_group("json_cap");
    group.sample_size(10);
    let cases = [
        (
            "19000_properties_one_added",
            wide_json(19_000, 0),
            wide_json(19_000, 1),
        ),
        (
            "20000_required_one_dropped",
            required_object(20_000, None),
            required_object(20_000, Some(7)),
        ),
    ];
    for (what, old, new) in cases {
        let (old, new) = (
            serde_json::to_vec(&old).unwrap(),
            serde_json::to_vec(&new).unwrap(),
        );
        let name = at_cap(&new, what);
        let check = |old: &[u8], new: &[u8]| {
            let old = json::parse("old", old)?;
            let new = json::parse("new", new)?;
            json::check(Compatibility::Backward, &new, &[(1, &old)])
        };
        let report = check(&old, &new).unwrap();
        let changes: usize = report.versions().iter().map(|v| v.changes().len()).sum();
        assert!(changes > 0, "{name}: the versions differ");
        eprintln!(
            "json_cap/{name}: compatible {}, {changes} changes",
            report.is_compatible()
        );
        group.bench_function(format!("{name}/baseline_parse_both"), |b| {
            b.iter(|| {
                (
                    json::parse("old", black_box(&old)).is_ok(),
                    json::parse("new", black_box(&new)).is_ok(),
                )
            })
        });
        group.bench_function(format!("{name}/backward_check_one_prior"), |b| {
            b.iter(|| check(black_box(&old), black_box(&new)))
        });
    }
    group.finish();
}

/// Version `v` of a protobuf schema near the cap for the publish rows:
/// `messages` messages of two fields each (an `int32` and the next
/// message), every hundredth with `v` more optional fields (each version
/// adds one: compatible under every backward mode). Root `big.M0`.
fn publish_proto(messages: usize, v: usize) -> Vec<u8> {
    use prost::Message as _;
    use prost_reflect::prost_types::field_descriptor_proto::{Label, Type};
    use prost_reflect::prost_types::{
        DescriptorProto, FieldDescriptorProto, FileDescriptorProto, FileDescriptorSet,
    };
    let field =
        |name: String, number: usize, ty: Type, type_name: Option<String>| FieldDescriptorProto {
            name: Some(name),
            number: Some(number as i32),
            label: Some(Label::Optional as i32),
            r#type: Some(ty as i32),
            type_name,
            ..Default::default()
        };
    let types = (0..messages)
        .map(|m| {
            let mut fields = vec![
                field("a".into(), 1, Type::Int32, None),
                field(
                    "next".into(),
                    2,
                    Type::Message,
                    Some(format!(".big.M{}", (m + 1) % messages)),
                ),
            ];
            if m % 100 == 0 {
                for k in 0..v {
                    fields.push(field(format!("added{k}"), 3 + k, Type::String, None));
                }
            }
            DescriptorProto {
                name: Some(format!("M{m}")),
                field: fields,
                ..Default::default()
            }
        })
        .collect();
    let file = FileDescriptorProto {
        name: Some("big.proto".into()),
        package: Some("big".into()),
        syntax: Some("proto3".into()),
        message_type: types,
        ..Default::default()
    };
    FileDescriptorSet { file: vec![file] }.encode_to_vec()
}

/// A publish at the cap through a real `Registry` over a `MemoryStore`:
/// compile, then the compatibility check against `n` prior versions
/// under the store's lock, then the insert. Each iteration publishes
/// version `n + 1` into a registry (built untimed) holding versions 1 to
/// `n`, under `Backward` (one prior looked at) for `n = 1` and
/// `BackwardTransitive` (every prior) for `n = 5`. Rows:
///
/// * `decode_all_baseline`: decoding the candidate and the `n` priors with
///   `protobuf::decode`, what the check had to read before.
/// * `publish_uncached`: the registry keeps no readings
///   (`set_compat_cache_bytes(0)`): every prior decoded by every publish
///   (as after a restart), the candidate decoded once (its compile's pool).
/// * `publish`: the default registry: each prior's reading was kept when
///   it was published, so the publish decodes the candidate once and
///   compares.
fn bench_proto_publish(c: &mut Criterion) {
    use criterion::BatchSize;
    use dataschema::{MemoryStore, Registry, Schema, Urn};
    let mut group = c.benchmark_group("protobuf_cap_publish");
    group.sample_size(10);
    let messages = 21_000;
    let versions: Vec<Vec<u8>> = (0..=5).map(|v| publish_proto(messages, v)).collect();
    let name = at_cap(&versions[5], "21000_messages");
    let schema = |v: usize| {
        let urn: Urn = format!("urn:acme:schema:big:{}", v + 1).parse().unwrap();
        Schema::protobuf(urn, versions[v].clone(), "big.M0")
    };
    for (n, mode) in [
        (1, Compatibility::Backward),
        (5, Compatibility::BackwardTransitive),
    ] {
        let registry = |cache: bool| {
            let registry = Registry::new(MemoryStore::new());
            if !cache {
                registry.set_compat_cache_bytes(0);
            }
            for v in 0..n {
                registry.publish(schema(v), Compatibility::None).unwrap();
            }
            registry
        };
        let candidate = schema(n);
        // The rows measure a publish that passes.
        registry(true).publish(candidate.clone(), mode).unwrap();
        group.bench_function(format!("{name}/{n}_priors/decode_all_baseline"), |b| {
            b.iter(|| {
                (0..=n)
                    .map(|v| {
                        protobuf::decode("v", black_box(&versions[v])).map(|p| p.files().len())
                    })
                    .collect::<Vec<_>>()
            })
        });
        for (row, cache) in [("publish_uncached", false), ("publish", true)] {
            group.bench_function(format!("{name}/{n}_priors/{row}"), |b| {
                b.iter_batched_ref(
                    || registry(cache),
                    |registry| registry.publish(black_box(candidate.clone()), mode),
                    BatchSize::PerIteration,
                )
            });
        }
    }
    group.finish();
}

criterion_group!(
    benches,
    bench_json,
    bench_json_large,
    bench_proto,
    bench_proto_large,
    bench_proto_cap,
    bench_proto_publish,
    bench_json_cap
);
criterion_main!(benches);
