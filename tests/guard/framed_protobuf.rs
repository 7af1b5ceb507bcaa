//! Protobuf schemas as Confluent's clients register them (no root message,
//! `.proto` text with references): a frame's message indexes pick the
//! message its body is validated as; bad indexes are `Invalid`, never a
//! panic.

use crate::common;

use dataschema::{
    Compatibility, Error, Guard, Language, MemoryStore, Outcome, Reason, Reference, Registry,
    Schema,
};
use proptest::prelude::*;

const MONEY: &str = "urn:acme:schema:money:1";
const SHOP: &str = "urn:acme:schema:shop:1";

fn text(file: &str) -> String {
    String::from_utf8(common::read(&format!("proto/confluent/{file}"))).unwrap()
}

fn rootless(urn: &str, text: &str) -> Schema {
    Schema::new(common::urn(urn), Language::Protobuf, text.to_owned(), None)
}

/// `shop.proto`, its import `acme/common/v1/money.proto` by reference.
fn shop_schema() -> Schema {
    rootless(SHOP, &text("shop.proto")).with_references([Reference::new(
        "acme/common/v1/money.proto",
        common::urn(MONEY),
    )])
}

/// A registry holding `money.proto` and `shop.proto` (which imports it by
/// reference, and a well-known file of Google's and of Confluent's without),
/// and the shop's id.
fn shop() -> (Registry, u32) {
    let registry = Registry::new(MemoryStore::new());
    registry
        .publish(rootless(MONEY, &text("money.proto")), Compatibility::None)
        .unwrap();
    let stored = registry
        .publish(shop_schema(), Compatibility::None)
        .unwrap();
    (registry, stored.id)
}

fn frame(id: u32, indexes: &[u8], body: &[u8]) -> Vec<u8> {
    let mut out = vec![0];
    out.extend_from_slice(&id.to_be_bytes());
    out.extend_from_slice(indexes);
    out.extend_from_slice(body);
    out
}

/// `Order {id: "o1", lines: [{sku: "x"}]}`.
const ORDER: &[u8] = b"\x0a\x02o1\x12\x03\x0a\x01x";
/// `Refund {order_id: "o1", cents: 5}`.
const REFUND: &[u8] = b"\x0a\x02o1\x10\x05";
/// `Order.Line {sku: "x", quantity: 2}`.
const LINE: &[u8] = b"\x0a\x01x\x10\x02";

#[test]
fn the_message_indexes_pick_the_message() {
    let (registry, id) = shop();
    let guard = Guard::new(registry);
    for (indexes, body, what) in [
        (&b"\x00"[..], ORDER, "[0] as the single byte 0: Order"),
        (b"\x02\x00", ORDER, "[0] written out: Order"),
        (b"\x02\x02", REFUND, "[1]: Refund"),
        (b"\x04\x00\x00", LINE, "[0, 0]: Order.Line"),
    ] {
        assert!(
            matches!(
                guard.validate_framed(&frame(id, indexes, body)),
                Ok(Outcome::Validated)
            ),
            "{what}"
        );
    }
    // A Refund's body is no Order: its field 2 is a varint, Order's
    // `lines` a message.
    let invalid = guard
        .validate_framed(&frame(id, b"\x00", REFUND))
        .unwrap_err();
    assert_eq!(invalid.urn().as_str(), SHOP);
    assert!(
        invalid.violations()[0].message().contains("wire type"),
        "{invalid}"
    );
    // And a Line's field 2 is an int32, where a Refund's is an int64: the
    // same bytes are both.
    assert!(matches!(
        guard.validate_framed(&frame(id, b"\x02\x02", LINE)),
        Ok(Outcome::Validated)
    ));
    assert_eq!(guard.unvalidated(), 0);
}

#[test]
fn bad_message_indexes_are_invalid_and_say_why() {
    let (registry, id) = shop();
    let guard = Guard::new(registry);
    // zigzag(200_000) = 400_000, as a varint.
    let absurd = [0x80, 0xb5, 0x18];
    for (indexes, needle) in [
        (
            &b"\x02\x04"[..],
            "index 0 is 2, and there are 2 top-level messages",
        ),
        (
            b"\x04\x00\x06",
            "index 1 is 3, and there are 1 nested messages in acme.shop.v1.Order",
        ),
        (
            b"\x04\x02\x00",
            "index 1 is 0, and there are 0 nested messages in acme.shop.v1.Refund",
        ),
        (b"", "truncated"),
        (b"\x02", "truncated"),
        (b"\x06\x00\x00", "truncated"),
        (b"\x01", "count is -1"),
        (b"\x02\x01", "indexes are not negative"),
        (&absurd, "count is 200000"),
        (b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff", "truncated"),
    ] {
        let payload = frame(id, indexes, b"");
        let invalid = guard
            .validate_framed(&payload)
            .expect_err(&format!("{indexes:?} is not a message"));
        assert_eq!(invalid.urn().as_str(), SHOP);
        let message = invalid.violations()[0].message();
        assert!(message.contains(needle), "{indexes:x?}: {message}");
    }
}

#[test]
fn by_urn_a_rootless_schema_is_its_first_message() {
    let (registry, _) = shop();
    let guard = Guard::new(registry);
    assert!(matches!(
        guard.validate(SHOP, ORDER),
        Ok(Outcome::Validated)
    ));
    assert!(guard.validate(SHOP, REFUND).is_err());
}

#[test]
fn references_are_resolved_and_a_missing_one_refused() {
    let registry = Registry::new(MemoryStore::new());
    // The import has no reference: nothing names that file.
    let err = registry
        .publish(rootless(SHOP, &text("shop.proto")), Compatibility::None)
        .unwrap_err();
    assert!(matches!(err, Error::SchemaUnusable { .. }), "{err}");
    assert!(
        err.chain()
            .to_string()
            .contains("acme/common/v1/money.proto"),
        "{}",
        err.chain()
    );
    // The reference names a URN nobody holds.
    let err = registry
        .publish(shop_schema(), Compatibility::None)
        .unwrap_err();
    assert!(err.chain().to_string().contains(MONEY), "{}", err.chain());
    // Same bytes, same content: the same registration again is the same id.
    let (registry, id) = shop();
    let again = registry
        .publish(shop_schema(), Compatibility::None)
        .unwrap();
    assert_eq!(again.id, id);
}

/// `shop.proto` and what it imports, compiled into one descriptor set,
/// with no root: its own file is the one no other imports.
fn shop_set() -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write("acme/common/v1/money.proto", &text("money.proto"));
    write("shop.proto", &text("shop.proto"));
    for (name, text) in dataschema::proto::WELL_KNOWN {
        write(name, text);
    }
    let mut compiler = protox::Compiler::new([dir.path()]).unwrap();
    compiler.include_imports(true).include_source_info(false);
    compiler.open_file("shop.proto").unwrap();
    compiler.encode_file_descriptor_set()
}

#[test]
fn a_descriptor_set_without_a_root_validates_frames_and_fails_open_by_urn() {
    let schema = Schema::new(common::urn(SHOP), Language::Protobuf, shop_set(), None);
    let registry = Registry::new(MemoryStore::new());
    let id = registry.publish(schema, Compatibility::None).unwrap().id;
    let guard = Guard::new(registry);
    // Each message of the own file, by its indexes: [0], [1], [0, 0].
    for (what, indexes, body) in [
        ("Order", &b"\x00"[..], ORDER),
        ("Refund", b"\x02\x02", REFUND),
        ("Order.Line", b"\x04\x00\x00", LINE),
    ] {
        let outcome = guard.validate_framed(&frame(id, indexes, body));
        assert!(
            matches!(outcome, Ok(Outcome::Validated)),
            "{what}: {outcome:?}"
        );
    }
    // An Order's body read as a Refund (field 2 is an int64 there).
    let invalid = guard
        .validate_framed(&frame(id, b"\x02\x02", ORDER))
        .expect_err("not a Refund");
    assert_eq!(invalid.urn(), &common::urn(SHOP));
    // Indexes past the file's messages.
    assert!(guard
        .validate_framed(&frame(id, b"\x02\x0a", ORDER))
        .is_err());
    assert_eq!(guard.unvalidated(), 0);

    // By URN (no indexes): no message is named; fails open, counted.
    for outcome in [
        guard.validate(SHOP, ORDER),
        guard.validate_json(SHOP, &serde_json::json!({"id": "o1"})),
    ] {
        match outcome {
            Ok(Outcome::Unvalidated(unvalidated)) => {
                assert_eq!(unvalidated.reason(), Reason::Unusable);
                assert!(
                    unvalidated.to_string().contains("without a root message"),
                    "{unvalidated}"
                );
            }
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(guard.unvalidated(), 2);
}

#[test]
fn a_descriptor_set_without_a_root_and_several_own_files_is_refused() {
    // Two sets' bytes are one set of both (a repeated field): two files
    // that no other imports, so no own file and no root.
    let mut set = common::read("schemas/proto2.binpb");
    set.extend_from_slice(&shop_set());
    let schema = Schema::new(common::urn(SHOP), Language::Protobuf, set, None);
    let err = Registry::new(MemoryStore::new())
        .publish(schema, Compatibility::None)
        .unwrap_err();
    assert!(matches!(err, Error::MissingRoot { .. }), "{err}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn no_frame_panics(rest in proptest::collection::vec(any::<u8>(), 0..64)) {
        let (guard, id) = SHOP_GUARD.with(|r| r.clone());
        let _ = guard.validate_framed(&frame(id, &rest, b""));
    }

    #[test]
    fn no_index_list_panics(
        indexes in proptest::collection::vec(0u64..5, 0..6),
        body in proptest::collection::vec(any::<u8>(), 0..32),
    ) {
        let (guard, id) = SHOP_GUARD.with(|r| r.clone());
        let mut encoded = Vec::new();
        for value in std::iter::once(indexes.len() as u64).chain(indexes.iter().copied()) {
            let mut v = value << 1;
            loop {
                let byte = (v & 0x7f) as u8;
                v >>= 7;
                if v == 0 {
                    encoded.push(byte);
                    break;
                }
                encoded.push(byte | 0x80);
            }
        }
        let outcome = guard.validate_framed(&frame(id, &encoded, &body));
        // An index list naming no message is invalid, whatever the body.
        let names_a_message = matches!(indexes.as_slice(), [] | [0] | [1] | [0, 0]);
        if !names_a_message {
            prop_assert!(outcome.is_err());
        }
    }
}

thread_local! {
    static SHOP_GUARD: (Guard, u32) = {
        let (registry, id) = shop();
        (Guard::new(registry), id)
    };
}
