//! What `violations()` says, and where: paths and messages for specific
//! payloads, plus the edge cases of the verdict checked one by one.

use crate::support;

use dataschema::validate::protobuf_scan::{reference_is_valid, Plan, ScanOptions, ViolationKind};
use prost::Message as _;
use prost_reflect::{DescriptorPool, DynamicMessage, MessageDescriptor};

fn pool() -> &'static DescriptorPool {
    static POOL: std::sync::OnceLock<DescriptorPool> = std::sync::OnceLock::new();
    POOL.get_or_init(support::pool)
}

fn desc(name: &str) -> MessageDescriptor {
    support::message(pool(), name)
}

fn plan(name: &str) -> Plan {
    Plan::compile(&desc(name), ScanOptions::default()).expect("a usable descriptor")
}

/// Builds a message from protobuf text format and encodes it.
fn encode(name: &str, text: &str) -> Vec<u8> {
    DynamicMessage::parse_text_format(desc(name), text)
        .expect("valid text format")
        .encode_to_vec()
}

fn varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

fn ld(number: u32, body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    varint(&mut out, u64::from(number) << 3 | 2);
    varint(&mut out, body.len() as u64);
    out.extend_from_slice(body);
    out
}

/// The verdict agrees with the reference, and the violations are exactly
/// these `(path, message)` pairs in order.
fn assert_violations(name: &str, payload: &[u8], expected: &[(&str, &str)]) {
    let plan = plan(name);
    let reference = reference_is_valid(&desc(name), payload, ScanOptions::default());
    assert_eq!(plan.is_valid(payload), reference, "verdict vs reference");
    assert_eq!(plan.is_valid(payload), expected.is_empty(), "verdict");
    let found: Vec<(String, String)> = plan
        .violations(payload)
        .iter()
        .map(|v| (v.path().to_owned(), v.message().to_owned()))
        .collect();
    let expected: Vec<(String, String)> = expected
        .iter()
        .map(|(p, m)| ((*p).to_owned(), (*m).to_owned()))
        .collect();
    assert_eq!(found, expected);
}

fn corrupt_utf8(payload: &mut [u8], needle: &[u8]) {
    let at = payload
        .windows(needle.len())
        .position(|w| w == needle)
        .expect("needle present");
    payload[at] = 0xff;
}

#[test]
fn invalid_utf8_in_a_nested_list_element() {
    let mut payload = encode(
        "shop.orders.Order",
        r#"id: "o1" items { sku: "A1" } items { sku: "B2" } items { sku: "C3" } items { sku: "D4" }"#,
    );
    corrupt_utf8(&mut payload, b"D4");
    assert_violations(
        "shop.orders.Order",
        &payload,
        &[("items[3].sku", "invalid UTF-8 in string field")],
    );
}

#[test]
fn problems_in_several_items_are_all_reported() {
    let mut payload = encode(
        "shop.orders.Order",
        r#"items { sku: "A1" } items { sku: "B2" title: "T" } items { sku: "C3" }"#,
    );
    corrupt_utf8(&mut payload, b"A1");
    corrupt_utf8(&mut payload, b"C3");
    assert_violations(
        "shop.orders.Order",
        &payload,
        &[
            ("items[0].sku", "invalid UTF-8 in string field"),
            ("items[2].sku", "invalid UTF-8 in string field"),
        ],
    );
}

#[test]
fn map_paths_quote_string_keys() {
    let mut payload = encode(
        "shop.orders.Order",
        r#"labels { key: "env" value: "Xprod" } items { attributes { key: "color" value: "Yblue" } }"#,
    );
    corrupt_utf8(&mut payload, b"Xprod");
    corrupt_utf8(&mut payload, b"Yblue");
    assert_violations(
        "shop.orders.Order",
        &payload,
        &[
            (
                "items[0].attributes[\"color\"]",
                "invalid UTF-8 in string field",
            ),
            ("labels[\"env\"]", "invalid UTF-8 in string field"),
        ],
    );
}

#[test]
fn map_paths_print_other_keys_bare() {
    let mut payload = encode(
        "scan.scalars.Scalars",
        r#"m_int32_string { key: -7 value: "Zbad" } m_bool { key: true value: "Wbad" }"#,
    );
    corrupt_utf8(&mut payload, b"Zbad");
    corrupt_utf8(&mut payload, b"Wbad");
    assert_violations(
        "scan.scalars.Scalars",
        &payload,
        &[
            ("m_int32_string[-7]", "invalid UTF-8 in string field"),
            ("m_bool[true]", "invalid UTF-8 in string field"),
        ],
    );
}

#[test]
fn wire_type_mismatch_names_the_declared_type() {
    // f_int32 (3) sent as length-delimited.
    assert_violations(
        "scan.scalars.Scalars",
        &ld(3, b"xy"),
        &[("f_int32", "wire type 2 does not match field type int32")],
    );
    // f_string (14) sent as a varint.
    assert_violations(
        "scan.scalars.Scalars",
        &[0x70, 0x01],
        &[("f_string", "wire type 0 does not match field type string")],
    );
}

#[test]
fn truncated_varint_and_lengths() {
    assert_violations(
        "scan.scalars.Scalars",
        &[0x18, 0x80, 0x80],
        &[("f_int32", "truncated varint")],
    );
    assert_violations(
        "scan.scalars.Scalars",
        &[0x72, 0x05, b'a'],
        &[("f_string", "length 5 exceeds the 1 bytes remaining")],
    );
    assert_violations(
        "scan.scalars.Scalars",
        &[0x80],
        &[("", "truncated varint in tag")],
    );
}

#[test]
fn varint_of_ten_bytes_accepts_only_0_or_1_last() {
    let plan = plan("scan.scalars.Scalars");
    let mut ok = vec![0x20];
    ok.extend_from_slice(&[0xff; 9]);
    ok.push(0x01);
    assert!(plan.is_valid(&ok));
    let mut overflow = ok.clone();
    *overflow.last_mut().unwrap() = 0x02;
    assert!(!plan.is_valid(&overflow));
    let mut eleven = vec![0x20];
    eleven.extend_from_slice(&[0x80; 10]);
    eleven.push(0x00);
    assert!(!plan.is_valid(&eleven));
    // Non-minimal encodings are accepted, as prost accepts them.
    assert!(plan.is_valid(&[0x20, 0x80, 0x80, 0x00]));
    for payload in [&ok, &overflow, &eleven] {
        let reference = reference_is_valid(
            &desc("scan.scalars.Scalars"),
            payload,
            ScanOptions::default(),
        );
        assert_eq!(plan.is_valid(payload), reference);
    }
}

#[test]
fn tags_field_zero_wire_types_6_7_and_large_numbers() {
    let plan = plan("scan.scalars.Scalars");
    assert!(!plan.is_valid(&[0x00, 0x01])); // field 0
    assert!(!plan.is_valid(&[0x0e])); // field 1, wire type 6
    assert!(!plan.is_valid(&[0x0f])); // field 1, wire type 7
                                      // Field 2^29 - 1 ("far", a string): the largest number a tag can carry.
    let mut far = Vec::new();
    varint(&mut far, (((1u64 << 29) - 1) << 3) | 2);
    far.extend_from_slice(&[0x01, b'x']);
    assert!(plan.is_valid(&far));
    // A key above u32::MAX is refused even though it is a valid varint.
    let mut huge = Vec::new();
    varint(&mut huge, 1u64 << 32);
    assert!(!plan.is_valid(&huge));
    assert_violations(
        "scan.scalars.Scalars",
        &[0x0e],
        &[("", "invalid wire type 6")],
    );
}

#[test]
fn required_fields_missing_with_paths() {
    let payload = encode(
        "scan.legacy.Holder",
        r#"main { sku: "m" qty: 1 } parts { sku: "a" qty: 1 } parts { qty: 2 }
           by_name { key: "x" value { sku: "s" } }"#,
    );
    assert_violations(
        "scan.legacy.Holder",
        &payload,
        &[
            ("parts[1].sku", "required field missing"),
            ("by_name[\"x\"].qty", "required field missing"),
        ],
    );
    assert_violations(
        "scan.legacy.Holder",
        &[],
        &[("main", "required field missing")],
    );
}

#[test]
fn required_fields_of_groups() {
    let payload = encode(
        "scan.legacy.Holder",
        r#"main { sku: "m" qty: 1 } Line { text: "ok" } Line { marks: 3 } Meta { author: "me" }"#,
    );
    assert_violations(
        "scan.legacy.Holder",
        &payload,
        &[
            ("meta.version", "required field missing"),
            ("line[1].text", "required field missing"),
        ],
    );
}

#[test]
fn merged_occurrences_can_complete_a_message() {
    let name = "scan.legacy.Holder";
    let plan = plan(name);
    // main { sku } then main { qty }: protobuf merges them into one complete Part.
    let mut payload = ld(1, &[0x0a, 0x01, b's']);
    payload.extend(ld(1, &[0x10, 0x01]));
    assert!(plan.is_valid(&payload));
    assert!(plan.violations(&payload).is_empty());
    assert!(reference_is_valid(
        &desc(name),
        &payload,
        ScanOptions::default()
    ));

    // A later map entry with the same key replaces an incomplete one.
    let complete = encode(name, r#"main { sku: "m" qty: 1 }"#);
    let mut entry_bad = ld(1, b"k");
    entry_bad.extend(ld(2, &[0x10, 0x01])); // value without sku
    let mut entry_good = ld(1, b"k");
    entry_good.extend(ld(2, &[0x0a, 0x01, b's', 0x10, 0x01]));
    let mut replaced = complete.clone();
    replaced.extend(ld(4, &entry_bad));
    replaced.extend(ld(4, &entry_good));
    assert!(plan.is_valid(&replaced));
    let mut not_replaced = complete.clone();
    not_replaced.extend(ld(4, &entry_good));
    not_replaced.extend(ld(4, &entry_bad));
    assert!(!plan.is_valid(&not_replaced));

    // Another oneof member clears an incomplete one.
    let mut cleared = complete.clone();
    cleared.extend(ld(19, &[0x10, 0x01])); // picked_part without sku
    cleared.extend(ld(20, b"name")); // picked_name
    assert!(plan.is_valid(&cleared));

    // A map entry without its value holds an empty Part: sku and qty missing.
    let mut no_value = complete;
    no_value.extend(ld(4, &ld(1, b"k")));
    assert_violations(
        name,
        &no_value,
        &[
            ("by_name[\"k\"].sku", "required field missing"),
            ("by_name[\"k\"].qty", "required field missing"),
        ],
    );
}

#[test]
fn extensions_are_known_fields() {
    let name = "scan.legacy.Holder";
    let payload = encode(
        name,
        r#"main { sku: "m" qty: 1 } [scan.legacy.ext_label]: "hi" [scan.legacy.ext_part] { qty: 1 }"#,
    );
    assert_violations(
        name,
        &payload,
        &[("[scan.legacy.ext_part].sku", "required field missing")],
    );
    // Refusing unknown fields does not refuse an extension.
    let strict = Plan::compile(
        &desc(name),
        ScanOptions::default().with_reject_unknown_fields(true),
    )
    .expect("a usable descriptor");
    let ok = encode(
        name,
        r#"main { sku: "m" qty: 1 } [scan.legacy.ext_label]: "hi""#,
    );
    assert!(strict.is_valid(&ok));
}

#[test]
fn packed_and_unpacked_both_accepted() {
    let plan = plan("scan.scalars.Scalars");
    // r_int32 (23): packed [1, 300] and unpacked 5.
    let mut payload = ld(23, &[0x01, 0xac, 0x02]);
    payload.extend_from_slice(&[0xb8, 0x01, 0x05]);
    // r_fixed32 (29) packed, two elements; and unpacked.
    payload.extend(ld(29, &[1, 0, 0, 0, 2, 0, 0, 0]));
    payload.extend_from_slice(&[0xed, 0x01, 9, 0, 0, 0]);
    assert!(plan.is_valid(&payload));
    // A packed fixed32 run of 5 bytes is broken.
    assert_violations(
        "scan.scalars.Scalars",
        &ld(29, &[1, 0, 0, 0, 2]),
        &[(
            "r_fixed32[0]",
            "packed field length 5 is not a multiple of 4 bytes",
        )],
    );
    // A packed run of a singular field is a wire type mismatch.
    assert!(!plan.is_valid(&ld(3, &[0x01])));
}

#[test]
fn map_field_reads_any_wire_type_as_length_delimited() {
    // Field 51 (map<int32, string>) with wire type 0: prost-reflect reads a length.
    let name = "scan.scalars.Scalars";
    let mut payload = Vec::new();
    varint(&mut payload, 51 << 3);
    payload.extend_from_slice(&[0x02, 0x08, 0x07]);
    let reference = reference_is_valid(&desc(name), &payload, ScanOptions::default());
    assert!(reference, "prost-reflect accepts it");
    assert!(plan(name).is_valid(&payload));
}

#[test]
fn unknown_fields_skipped_or_refused() {
    let name = "scan.scalars.Inner";
    // field 9: varint, 64-bit, length-delimited, group {1: 1}, 32-bit.
    let payload = [
        0x48, 0x01, 0x49, 1, 2, 3, 4, 5, 6, 7, 8, 0x4a, 0x01, 0x00, 0x4b, 0x08, 0x01, 0x4c, 0x4d,
        1, 2, 3, 4,
    ];
    assert!(plan(name).is_valid(&payload));
    let strict = Plan::compile(
        &desc(name),
        ScanOptions::default().with_reject_unknown_fields(true),
    )
    .expect("a usable descriptor");
    assert!(!strict.is_valid(&payload));
    let violations = strict.violations(&payload);
    assert_eq!(violations.len(), 5);
    assert!(violations
        .iter()
        .all(|v| v.kind() == ViolationKind::UnknownField && v.path().is_empty()));
    // Refused inside a nested message too, with its path.
    let nested = ld(37, &[0x48, 0x01]);
    let strict = Plan::compile(
        &desc("scan.scalars.Scalars"),
        ScanOptions::default().with_reject_unknown_fields(true),
    )
    .expect("a usable descriptor");
    let violations = strict.violations(&nested);
    assert_eq!(violations.len(), 1);
    assert_eq!(violations[0].path(), "r_inner[0]");
    assert_eq!(
        violations[0].message(),
        "unknown field 9 (varint wire type) refused"
    );
    // Refused in a map entry, and in a map entry a later one replaces.
    let scalars = desc("scan.scalars.Scalars");
    let mut entry = ld(1, b"k");
    entry.extend_from_slice(&[0x18, 0x01]);
    let in_entry = ld(50, &entry);
    assert!(plan("scan.scalars.Scalars").is_valid(&in_entry));
    assert!(!strict.is_valid(&in_entry));
    assert_eq!(
        strict.violations(&in_entry)[0].message(),
        "unknown field 3 (varint wire type) in map entry refused"
    );
    let mut replaced = ld(50, &[ld(1, b"k"), ld(2, &[0x48, 0x01])].concat());
    replaced.extend(ld(50, &ld(1, b"k")));
    assert!(!strict.is_valid(&replaced));
    let strict_options = ScanOptions::default().with_reject_unknown_fields(true);
    assert!(!reference_is_valid(&scalars, &replaced, strict_options));
    assert!(reference_is_valid(
        &scalars,
        &replaced,
        ScanOptions::default()
    ));
    // A stray end-group tag is not skippable.
    assert!(!plan(name).is_valid(&[0x4c]));
}

/// `levels` nested `child` messages, innermost holding `inner`.
fn nested_children(levels: usize, inner: &[u8]) -> Vec<u8> {
    let mut body = inner.to_vec();
    for _ in 0..levels {
        body = ld(1, &body);
    }
    body
}

#[test]
fn depth_limit_matches_prost() {
    let name = "scan.recursive.Node";
    let plan = plan(name);
    let d = desc(name);
    let check = |payload: &[u8]| {
        let reference = reference_is_valid(&d, payload, ScanOptions::default());
        assert_eq!(plan.is_valid(payload), reference, "{} bytes", payload.len());
        reference
    };
    // 100 nested messages below the root decode; 101 do not.
    assert!(check(&nested_children(100, &[0x20, 0x01])));
    assert!(!check(&nested_children(101, &[])));
    // At the 100th level an unknown varint still decodes, an unknown group does not.
    assert!(check(&nested_children(100, &[0xf8, 0x01, 0x01])));
    assert!(!check(&nested_children(100, &[0xfb, 0x01, 0xfc, 0x01])));
    assert!(check(&nested_children(99, &[0xfb, 0x01, 0xfc, 0x01])));
    // A map entry is no level, but prost's skip_field inside it needs budget.
    let entry_unknown = ld(3, &[0x0a, 0x01, b'k', 0x18, 0x01]);
    assert!(!check(&nested_children(100, &entry_unknown)));
    assert!(check(&nested_children(99, &entry_unknown)));
    let violations = plan.violations(&nested_children(101, &[]));
    let path = vec!["child"; 101].join(".");
    assert_eq!(violations.len(), 1);
    assert_eq!(violations[0].path(), path);
    assert_eq!(violations[0].message(), "nesting deeper than 100");
}

#[test]
fn random_deep_chains_match_reference() {
    let name = "scan.recursive.Node";
    let plan = plan(name);
    let d = desc(name);
    let mut rng = support::Rng::new(42);
    let (mut valid, mut invalid) = (0, 0);
    for _ in 0..3000 {
        let levels = 50 + rng.below(55) as u32;
        let payload = support::deep_node(pool(), levels, &mut rng);
        let reference = reference_is_valid(&d, &payload, ScanOptions::default());
        assert_eq!(plan.is_valid(&payload), reference);
        assert_eq!(plan.violations(&payload).is_empty(), reference);
        if reference {
            valid += 1;
        } else {
            invalid += 1;
        }
    }
    assert!(
        valid > 100 && invalid > 100,
        "{valid} valid, {invalid} invalid"
    );
}

#[test]
fn more_than_64_required_fields() {
    use prost_reflect::prost_types::{
        field_descriptor_proto::{Label, Type},
        DescriptorProto, FieldDescriptorProto, FileDescriptorProto, FileDescriptorSet,
    };
    let fields = (1..=150)
        .map(|n| FieldDescriptorProto {
            name: Some(format!("f{n}")),
            number: Some(n),
            label: Some(Label::Required as i32),
            r#type: Some(Type::Int32 as i32),
            ..Default::default()
        })
        .collect();
    let file = FileDescriptorProto {
        name: Some("wide.proto".into()),
        package: Some("wide".into()),
        syntax: Some("proto2".into()),
        message_type: vec![DescriptorProto {
            name: Some("Wide".into()),
            field: fields,
            ..Default::default()
        }],
        ..Default::default()
    };
    let pool = DescriptorPool::from_file_descriptor_set(FileDescriptorSet { file: vec![file] })
        .expect("valid descriptor");
    let wide = pool.get_message_by_name("wide.Wide").expect("Wide");
    let plan = Plan::compile(&wide, ScanOptions::default()).expect("a usable descriptor");
    let all: Vec<u32> = (1..=150).collect();
    let encode = |numbers: &[u32]| {
        let mut out = Vec::new();
        for &n in numbers {
            varint(&mut out, u64::from(n) << 3);
            out.push(0x01);
        }
        out
    };
    assert!(plan.is_valid(&encode(&all)));
    for missing in [1u32, 64, 65, 100, 128, 129, 150] {
        let some: Vec<u32> = all.iter().copied().filter(|&n| n != missing).collect();
        let payload = encode(&some);
        assert!(!plan.is_valid(&payload), "missing f{missing}");
        let violations = plan.violations(&payload);
        assert_eq!(violations.len(), 1);
        assert_eq!(violations[0].path(), format!("f{missing}"));
    }
}

#[test]
fn plans_are_shareable() {
    fn assert_send_sync<T: Send + Sync + 'static>() {}
    assert_send_sync::<Plan>();
    let plan = std::sync::Arc::new(plan("shop.orders.Order"));
    let payload = support::order_payloads(pool(), 1, 1).remove(0);
    std::thread::scope(|s| {
        for _ in 0..2 {
            let plan = plan.clone();
            let payload = &payload;
            s.spawn(move || assert!(plan.is_valid(payload)));
        }
    });
}
