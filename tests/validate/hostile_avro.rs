//! Hostile Avro datums: counts of items a datum declares without paying
//! for them in bytes. An array of `null` (or of an empty record) costs no
//! byte per item, so an 11-byte datum may declare 2^62 of them; the
//! scanner refuses what `apache-avro`'s decoder refuses (its bound on the
//! values one collection holds), and reading it as another version
//! (`Registry::resolution(..).transcode`) is bounded in work and output.

use std::sync::Arc;

use dataschema::validate::avro_scan::{parse_schema, Plan};
use dataschema::{Compatibility, MemoryStore, Registry, Schema, Urn, ViolationKind};

/// The items one array may declare by default: `apache-avro`'s
/// `DEFAULT_MAX_ALLOCATION_BYTES` over the size of the value it decodes
/// each item into.
fn array_bound() -> u64 {
    (apache_avro::util::DEFAULT_MAX_ALLOCATION_BYTES
        / std::mem::size_of::<apache_avro::types::Value>()) as u64
}

/// The entries one map may declare by default (each a key and a value).
fn map_bound() -> u64 {
    (apache_avro::util::DEFAULT_MAX_ALLOCATION_BYTES
        / std::mem::size_of::<(String, apache_avro::types::Value)>()) as u64
}

fn zigzag(value: i64, out: &mut Vec<u8>) {
    let mut n = ((value << 1) ^ (value >> 63)) as u64;
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

/// A datum of blocks of the given counts (positive: count only; the
/// items, if any, follow as `items`), then the terminating 0.
fn blocks(counts: &[i64]) -> Vec<u8> {
    let mut out = Vec::new();
    for &count in counts {
        zigzag(count, &mut out);
    }
    out.push(0);
    out
}

fn plan(schema: &str) -> Plan {
    Plan::new(Arc::new(parse_schema(schema.as_bytes()).expect("a schema")))
}

/// Whether `apache-avro`'s decoder reads `payload` as one datum of
/// `schema`, every byte.
fn apache_avro_reads(schema: &str, payload: &[u8]) -> bool {
    let schema = apache_avro::Schema::parse_str(schema).expect("apache-avro reads it");
    let mut reader = payload;
    let Ok(datum_reader) = apache_avro::reader::datum::GenericDatumReader::builder(&schema).build()
    else {
        return false;
    };
    datum_reader.read_value(&mut reader).is_ok() && reader.is_empty()
}

const NULLS: &str = r#"{"type":"array","items":"null"}"#;
const EMPTY_RECORDS: &str =
    r#"{"type":"array","items":{"type":"record","name":"Nothing","fields":[]}}"#;

#[test]
fn eleven_bytes_declaring_2_to_the_62_items_are_refused_as_apache_avro_refuses_them() {
    let payload = blocks(&[1 << 62]);
    assert_eq!(payload.len(), 11);
    for schema in [NULLS, EMPTY_RECORDS] {
        assert!(!apache_avro_reads(schema, &payload), "{schema}");
        let plan = plan(schema);
        assert!(!plan.is_valid(&payload), "{schema}");
        let violations = plan.violations(&payload);
        assert_eq!(violations.len(), 1, "{schema}");
        assert_eq!(violations[0].kind(), ViolationKind::Bounds, "{schema}");
        assert!(
            violations[0]
                .message()
                .contains("max_avro_collection_bytes"),
            "{}",
            violations[0].message()
        );
    }
}

#[test]
fn the_bound_is_apache_avros_and_counts_every_block_of_a_collection() {
    let bound = array_bound() as i64;
    let plan = plan(NULLS);
    // At the bound: valid (apache-avro would hold it, in 512 MiB).
    assert!(plan.is_valid(&blocks(&[bound])));
    assert!(plan.is_valid(&blocks(&[bound / 2, bound - bound / 2])));
    // One past it, in one block or over several, or in a block with its
    // byte size (a negative count): refused by both.
    for counts in [
        vec![bound + 1],
        vec![bound / 2, bound / 2, 2],
        vec![1; 3].into_iter().chain([bound - 1]).collect(),
    ] {
        let payload = blocks(&counts);
        assert!(!plan.is_valid(&payload), "{counts:?}");
        assert_eq!(plan.violations(&payload)[0].kind(), ViolationKind::Bounds);
        assert!(!apache_avro_reads(NULLS, &payload), "{counts:?}");
    }
    let mut sized = Vec::new();
    zigzag(-(bound + 1), &mut sized);
    zigzag(0, &mut sized);
    sized.push(0);
    assert!(!plan.is_valid(&sized));
    assert!(!apache_avro_reads(NULLS, &sized));
    // Each array has its own count: two arrays at the bound are valid.
    let pair = r#"{"type":"record","name":"Pair","fields":[
        {"name":"a","type":{"type":"array","items":"null"}},
        {"name":"b","type":{"type":"array","items":"null"}}]}"#;
    let mut two = blocks(&[bound]);
    two.extend(blocks(&[bound]));
    assert!(self::plan(pair).is_valid(&two));
}

#[test]
fn a_map_declares_at_most_apache_avros_entries() {
    // Entries of an empty key and a null value: two bytes each.
    let schema = r#"{"type":"map","values":"null"}"#;
    let bound = map_bound();
    let datum = |entries: u64| {
        let mut out = Vec::new();
        zigzag(entries as i64, &mut out);
        out.resize(out.len() + entries as usize, 0);
        out.push(0);
        out
    };
    let plan = plan(schema);
    assert!(plan.is_valid(&datum(bound)));
    let past = datum(bound + 1);
    assert!(!plan.is_valid(&past));
    let violations = plan.violations(&past);
    assert_eq!(violations[0].kind(), ViolationKind::Bounds);
    assert!(violations[0].message().starts_with("a map declares"));
    assert!(!apache_avro_reads(schema, &past));
}

fn registry_with(writer: &str, reader: &str) -> (Registry, Urn, Urn) {
    let registry = Registry::new(MemoryStore::new());
    let w: Urn = "urn:acme:schema:hostile.items:1".parse().unwrap();
    let r: Urn = "urn:acme:schema:hostile.items:2".parse().unwrap();
    registry
        .publish(Schema::avro(w.clone(), writer), Compatibility::None)
        .expect("the writer publishes");
    registry
        .publish(Schema::avro(r.clone(), reader), Compatibility::None)
        .expect("the reader publishes");
    (registry, w, r)
}

#[test]
fn transcoding_a_count_of_empty_items_is_refused_or_bounded() {
    // The issue's case: 2^62 nulls read as nullable ints. Refused by the
    // scanner first (before: for ever, or 268 MB written from 11 bytes).
    let (registry, w, r) = registry_with(NULLS, r#"{"type":"array","items":["null","int"]}"#);
    let resolution = registry.resolution(&w, &r).expect("resolvable");
    let refused = resolution.transcode(&blocks(&[1 << 62])).unwrap_err();
    assert_eq!(refused.violations()[0].kind(), ViolationKind::Bounds);

    // At the bound: each null becomes the union's index 0, one byte each.
    let bound = array_bound() as i64;
    let out = resolution.transcode(&blocks(&[bound])).expect("valid");
    let mut expected = Vec::new();
    zigzag(bound, &mut expected);
    assert_eq!(out.len(), expected.len() + bound as usize + 1);
    assert_eq!(&out[..expected.len()], &expected[..]);
    assert!(out[expected.len()..].iter().all(|&b| b == 0));

    // Nulls read as nulls: nothing written per item (identical schemas
    // are the identity: the payload as it is).
    let (registry, w, r) = registry_with(NULLS, NULLS);
    let resolution = registry.resolution(&w, &r).expect("resolvable");
    let payload = blocks(&[bound / 2, bound - bound / 2]);
    assert_eq!(resolution.transcode(&payload).expect("valid"), payload);
    // Nulls read as nulls of another schema's text: one block.
    let (registry, w, r) = registry_with(
        r#"{"type":"array","items":"null","doc":"the same, in other words"}"#,
        NULLS,
    );
    let resolution = registry.resolution(&w, &r).expect("resolvable");
    let out = resolution.transcode(&payload).expect("valid");
    let mut expected = Vec::new();
    zigzag(bound, &mut expected);
    expected.push(0);
    assert_eq!(out, expected);
}

#[test]
fn a_readers_defaults_cannot_blow_a_few_bytes_up_past_the_output_bound() {
    // Empty records read as records with a 1,000-byte default: 11 million
    // of them would be 11 GB; refused at the bound instead.
    let default = "x".repeat(1_000);
    let reader = format!(
        r#"{{"type":"array","items":{{"type":"record","name":"Nothing","fields":[
            {{"name":"s","type":"string","default":"{default}"}}]}}}}"#
    );
    let (registry, w, r) = registry_with(EMPTY_RECORDS, &reader);
    let resolution = registry.resolution(&w, &r).expect("resolvable");
    let payload = blocks(&[array_bound() as i64]);
    assert!(payload.len() < 16);
    let refused = resolution.transcode(&payload).unwrap_err();
    let violation = &refused.violations()[0];
    assert_eq!(violation.kind(), ViolationKind::Bounds);
    assert!(
        violation.message().contains("max_avro_transcode_bytes"),
        "{}",
        violation.message()
    );
    // A few of them are read.
    let out = resolution.transcode(&blocks(&[3])).expect("valid");
    assert_eq!(out.len(), 1 + 3 * (2 + 1_000) + 1);
}

/// Publishes `text` as `urn:acme:schema:<name>:1` with references to the
/// given schemas (each named by the first type it defines).
fn publish_avro(
    registry: &Registry,
    name: &str,
    text: &str,
    references: &[(&str, &str)],
) -> Result<Urn, dataschema::Error> {
    let urn: Urn = format!("urn:acme:schema:{name}:1").parse().unwrap();
    let references = references.iter().map(|(type_name, schema)| {
        dataschema::contract::Reference::new(
            *type_name,
            format!("urn:acme:schema:{schema}:1")
                .parse::<Urn>()
                .unwrap(),
        )
    });
    let schema = Schema::avro(urn.clone(), text).with_references(references);
    registry.publish(schema, Compatibility::None).map(|_| urn)
}

#[test]
fn a_type_defined_by_a_schema_and_by_its_reference_is_refused_in_every_order() {
    let registry = Registry::new(MemoryStore::new());
    let money = r#"{"type":"record","name":"Money","namespace":"acme.common",
        "fields":[{"name":"cents","type":"long"}]}"#;
    publish_avro(&registry, "money", money, &[]).expect("money publishes");
    let same = r#"{"type":"record","name":"Money","namespace":"acme.common",
        "fields":[{"name":"cents","type":"long"}]}"#;
    let other = r#"{"type":"record","name":"acme.common.Money","fields":[]}"#;
    let cases = [
        // Defined first, then used: accepted before (the schema's own
        // definition hid the reference's).
        format!(
            r#"{{"type":"record","name":"acme.Pay","fields":[
            {{"name":"a","type":{other}}},{{"name":"b","type":"acme.common.Money"}}]}}"#
        ),
        format!(
            r#"{{"type":"record","name":"acme.Pay","fields":[
            {{"name":"a","type":{same}}},{{"name":"b","type":"acme.common.Money"}}]}}"#
        ),
        // Defined, never used.
        format!(
            r#"{{"type":"record","name":"acme.Pay","fields":[
            {{"name":"a","type":["null",{same}]}}]}}"#
        ),
        // The schema itself is the type.
        same.to_owned(),
        // Used first, then defined (refused before too).
        format!(
            r#"{{"type":"record","name":"acme.Pay","fields":[
            {{"name":"a","type":"acme.common.Money"}},
            {{"name":"b","type":{{"type":"array","items":{other}}}}}]}}"#
        ),
    ];
    for (i, text) in cases.iter().enumerate() {
        let refused = publish_avro(
            &registry,
            &format!("pay{i}"),
            text,
            &[("acme.common.Money", "money")],
        )
        .expect_err(text);
        let message = refused.chain().to_string();
        assert!(
            message.contains("\"acme.common.Money\" is defined twice")
                && message.contains("urn:acme:schema:money:1"),
            "{text}: {message}"
        );
    }
    // The same schemas without the reference are fine.
    for (i, text) in cases.iter().enumerate().take(4) {
        publish_avro(&registry, &format!("alone{i}"), text, &[]).expect(text);
    }
}

#[test]
fn a_long_chain_of_references_reads_or_is_refused_for_its_nesting() {
    // link_i is a record with a field of link_{i+1}'s type, each the
    // reference of the one before.
    let registry = Registry::new(MemoryStore::new());
    let links = 70;
    let mut refused = None;
    for i in (0..links).rev() {
        let text = if i == links - 1 {
            format!(
                r#"{{"type":"record","name":"chain.L{i}","fields":[{{"name":"end","type":"long"}}]}}"#
            )
        } else {
            format!(
                r#"{{"type":"record","name":"chain.L{i}","fields":[{{"name":"next","type":"chain.L{}"}}]}}"#,
                i + 1
            )
        };
        let next_type = format!("chain.L{}", i + 1);
        let next_schema = format!("link{}", i + 1);
        let references: Vec<(&str, &str)> = if i == links - 1 {
            Vec::new()
        } else {
            vec![(next_type.as_str(), next_schema.as_str())]
        };
        match publish_avro(&registry, &format!("link{i}"), &text, &references) {
            Ok(_) => assert!(refused.is_none(), "link {i} after a refusal"),
            Err(err) => {
                // Refused for what it is: types nested too deep, said by
                // the model with where, not a parser's recursion limit.
                let message = err.chain().to_string();
                assert!(message.contains("deeper than 64"), "link {i}: {message}");
                assert!(!message.contains("recursion limit"), "{message}");
                refused = Some(links - i);
                break;
            }
        }
    }
    // The model's bound (64 levels: a field and its record each count
    // one) decides, past the 42 the text round trip allowed.
    let depth = refused.expect("a chain of 70 is too deep");
    assert!(depth > 43, "refused at a chain of {depth}");
}
