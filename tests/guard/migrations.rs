//! Data contracts' migration rules on read: `Guard::read_as` runs the
//! `JSONATA` `UPGRADE`/`DOWNGRADE` rules of the versions between a
//! payload's writer and the version read, as Confluent's deserializers
//! run them, on the versions of Confluent's own test
//! (`tests/data/migrations/README.md`).

use dataschema::{Guard, Outcome, Reason, Registry, RuleSet, Schema, Urn, ViolationKind};
use serde_json::{json, Value};

use crate::common::read;

fn version(n: u32) -> Urn {
    format!("urn:acme:schema:product:{n}").parse().unwrap()
}

fn schema(n: u32, rules: Option<Value>) -> Schema {
    let schema = Schema::json(version(n), read(&format!("migrations/product.v{n}.json")));
    match rules {
        Some(rules) => schema.with_rule_set(Some(RuleSet::from_json(&rules).unwrap())),
        None => schema,
    }
}

fn rules_of(n: u32) -> Value {
    serde_json::from_slice(&read(&format!("migrations/product.v{n}.rules.json"))).unwrap()
}

/// v1, v2 and v3 with Confluent's rules; `v3_rules` replaces v3's.
fn guard_with(v3_rules: Value) -> Guard {
    let registry = Registry::embed([
        schema(1, None),
        schema(2, Some(rules_of(2))),
        schema(3, Some(v3_rules)),
    ])
    .unwrap();
    Guard::new(registry)
}

fn guard() -> Guard {
    guard_with(rules_of(3))
}

fn read_as(guard: &Guard, writer: u32, payload: &Value, reader: u32) -> Value {
    let bytes = serde_json::to_vec(payload).unwrap();
    let read = guard
        .read_as(version(writer).as_str(), &bytes, &version(reader))
        .unwrap_or_else(|invalid| panic!("v{writer} as v{reader}: {invalid}"));
    assert!(read.outcome().is_validated(), "{:?}", read.outcome());
    assert_eq!(read.crossed(), writer != reader);
    serde_json::from_slice(read.bytes()).unwrap()
}

#[test]
fn every_version_reads_as_every_other_as_confluents_deserializer_returns_it() {
    // `deserialize_with_all_versions` of Confluent's test: each object
    // written with one version, read with each.
    let guard = guard();
    let objects = [
        json!({"name": "alice", "size": 123, "version": 1}),
        json!({"name": "alice", "height": 123, "version": 1}),
        json!({"name": "alice", "length": 123, "version": 1}),
    ];
    for writer in 1..=3u32 {
        for reader in 1..=3u32 {
            let read = read_as(&guard, writer, &objects[writer as usize - 1], reader);
            assert_eq!(
                read,
                objects[reader as usize - 1],
                "v{writer} read as v{reader}"
            );
        }
    }
    assert_eq!(guard.unvalidated(), 0);
}

#[test]
fn without_migration_rules_the_pair_is_read_by_the_schemas() {
    // The same versions, no rules: `size` is a field only v1 declares,
    // dropped (no rule renames it).
    let registry = Registry::embed([schema(1, None), schema(2, None)]).unwrap();
    let guard = Guard::new(registry);
    let v1 = json!({"name": "alice", "size": 123});
    assert_eq!(read_as(&guard, 1, &v1, 2), json!({"name": "alice"}));
}

#[test]
fn a_rule_giving_no_value_fails_closed_naming_it() {
    let guard = guard_with(json!({"migrationRules": [
        {"name": "lost", "kind": "TRANSFORM", "mode": "UPGRADE", "type": "JSONATA",
         "expr": "$.nothing"}
    ]}));
    let payload = br#"{"name": "alice", "height": 1}"#;
    let invalid = guard
        .read_as(version(2).as_str(), payload, &version(3))
        .unwrap_err();
    assert_eq!(invalid.urn(), &version(3));
    let violation = &invalid.violations()[0];
    assert_eq!(violation.kind(), ViolationKind::Rule);
    for said in [
        "lost",
        "$.nothing",
        "gives no value",
        "UPGRADE",
        "action ERROR",
    ] {
        assert!(violation.message().contains(said), "{said}: {violation}");
    }
}

#[test]
fn a_rule_failing_with_action_none_passes_the_message_on() {
    let guard = guard_with(json!({"migrationRules": [
        {"name": "lost", "kind": "TRANSFORM", "mode": "UPGRADE", "type": "JSONATA",
         "expr": "$.nothing", "onFailure": "NONE"}
    ]}));
    let v2 = json!({"name": "alice", "height": 1});
    assert_eq!(read_as(&guard, 2, &v2, 3), v2);
}

#[test]
fn a_migrated_message_the_reader_refuses_fails_closed() {
    let guard = guard_with(json!({"migrationRules": [
        {"name": "wrongType", "kind": "TRANSFORM", "mode": "UPGRADE", "type": "JSONATA",
         "expr": "$merge([$, {'length': 'long'}])"}
    ]}));
    let invalid = guard
        .read_as(version(2).as_str(), br#"{"height": 1}"#, &version(3))
        .unwrap_err();
    assert_eq!(invalid.urn(), &version(3));
    assert_eq!(invalid.violations()[0].path(), "/length");
}

#[test]
fn a_migration_rule_that_cannot_run_fails_open_counted() {
    for (rule, said) in [
        (
            json!({"name": "cel", "kind": "TRANSFORM", "mode": "UPGRADE", "type": "CEL",
                   "expr": "message"}),
            "no executor for migration rules of type \"CEL\"",
        ),
        (
            json!({"name": "broken", "kind": "TRANSFORM", "mode": "UPGRADE", "type": "JSONATA",
                   "expr": "$merge([$"}),
            "does not compile",
        ),
        (
            json!({"name": "regex", "kind": "TRANSFORM", "mode": "UPDOWN", "type": "JSONATA",
                   "expr": "$match(name, /a/)"}),
            "does not compile",
        ),
    ] {
        let guard = guard_with(json!({ "migrationRules": [rule] }));
        let payload = br#"{"name": "alice", "height": 1}"#;
        let read = guard
            .read_as(version(2).as_str(), payload, &version(3))
            .unwrap();
        let Outcome::Unvalidated(unvalidated) = read.outcome() else {
            panic!("{said}: {:?}", read.outcome());
        };
        assert_eq!(unvalidated.reason(), Reason::RuleUnusable);
        let error = unvalidated.error();
        let why = format!(
            "{error}: {}",
            std::error::Error::source(error)
                .map(ToString::to_string)
                .unwrap_or_default()
        );
        assert!(why.contains(said), "{said}: {why}");
        // Handed back as written.
        assert_eq!(read.bytes(), payload);
        assert_eq!(guard.unvalidated(), 1);
    }
}

#[test]
fn disabled_rules_and_rules_of_the_other_way_do_not_run() {
    let guard = guard_with(json!({"migrationRules": [
        {"name": "off", "kind": "TRANSFORM", "mode": "UPGRADE", "type": "JSONATA",
         "expr": "$.nothing", "disabled": true},
        {"name": "down", "kind": "TRANSFORM", "mode": "DOWNGRADE", "type": "JSONATA",
         "expr": "$.nothing"}
    ]}));
    // v2 -> v3: only the disabled UPGRADE rule: read as it is.
    let v2 = json!({"name": "alice", "height": 1});
    assert_eq!(read_as(&guard, 2, &v2, 3), v2);
    // v3 -> v2: the DOWNGRADE rule runs, and gives nothing.
    assert!(guard
        .read_as(version(3).as_str(), br#"{"length": 1}"#, &version(2))
        .is_err());
}

/// `Registry::resolution` runs the same rules as `Guard::read_as` (one
/// chain of versions, `registry::resolution::migration_chain`): `UPGRADE`
/// reading, `DOWNGRADE` writing back, on pairs the schemas alone do not
/// resolve (v2 requires `height`, which v1 does not have).
#[test]
fn registry_resolution_runs_the_same_rules_both_ways() {
    let registry = Registry::embed([
        schema(1, None),
        schema(2, Some(rules_of(2))),
        schema(3, Some(rules_of(3))),
    ])
    .unwrap();
    let guard = Guard::new(registry.clone());
    let objects = [
        json!({"name": "alice", "size": 123, "version": 1}),
        json!({"name": "alice", "height": 123, "version": 1}),
        json!({"name": "alice", "length": 123, "version": 1}),
    ];
    let parsed = |bytes: &[u8]| serde_json::from_slice::<Value>(bytes).unwrap();
    for writer in 1..=3u32 {
        for reader in 1..=3u32 {
            if writer == reader {
                continue;
            }
            let (w, r) = (writer as usize - 1, reader as usize - 1);
            let resolution = registry
                .resolution(&version(writer), &version(reader))
                .unwrap_or_else(|err| panic!("v{writer} as v{reader}: {err}"));
            assert!(!resolution.is_identity());
            let out = resolution
                .transcode(&serde_json::to_vec(&objects[w]).unwrap())
                .unwrap_or_else(|err| panic!("v{writer} as v{reader}: {err}"));
            assert_eq!(parsed(&out), objects[r], "v{writer} read as v{reader}");
            assert_eq!(parsed(&out), read_as(&guard, writer, &objects[w], reader));
            assert!(resolution.can_write_back().is_ok());
            let back = resolution
                .write_back(&serde_json::to_vec(&objects[r]).unwrap())
                .unwrap_or_else(|err| panic!("v{reader} back as v{writer}: {err}"));
            assert_eq!(
                parsed(&back),
                objects[w],
                "v{reader} written back as v{writer}"
            );
        }
    }
}
