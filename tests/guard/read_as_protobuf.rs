//! `Guard::read_framed_as` for protobuf frames: the frame's message
//! indexes name the message read, which need not be the root; by URN
//! (`read_as`), the root.

use dataschema::{Compatibility, Guard, MemoryStore, Outcome, Reason, Registry, Schema, Urn};

/// A descriptor set of one `.proto` file, compiled from memory.
fn descriptor_set(text: &str) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("t.proto"), text).unwrap();
    let mut compiler = protox::Compiler::new([dir.path()]).unwrap();
    compiler.include_imports(true).include_source_info(false);
    compiler.open_file("t.proto").unwrap();
    compiler.encode_file_descriptor_set()
}

const V1: &str = "syntax = \"proto3\";\npackage t;\n\
    message Envelope { string id = 1; }\n\
    message Item { int32 qty = 1; string sku = 2; }\n\
    message Total { int64 cents = 1; }\n";
/// Item's `qty` widened to int64 (readable); Total's `cents` narrowed to
/// int32 (not readable).
const V2: &str = "syntax = \"proto3\";\npackage t;\n\
    message Envelope { string id = 1; }\n\
    message Item { int64 qty = 1; string sku = 2; }\n\
    message Total { int32 cents = 1; }\n";

/// A Confluent frame: magic byte, id, message indexes (zigzag count, then
/// each index zigzag), body.
fn frame(id: u32, indexes: &[u8], body: &[u8]) -> Vec<u8> {
    let mut out = vec![0];
    out.extend_from_slice(&id.to_be_bytes());
    out.extend_from_slice(indexes);
    out.extend_from_slice(body);
    out
}

#[test]
fn a_frames_message_indexes_name_the_message_read() {
    let registry = Registry::new(MemoryStore::new());
    let (v1, v2): (Urn, Urn) = (
        "urn:acme:schema:box:1".parse().unwrap(),
        "urn:acme:schema:box:2".parse().unwrap(),
    );
    let mut ids = Vec::new();
    for (urn, text) in [(&v1, V1), (&v2, V2)] {
        let published = registry
            .publish(
                Schema::protobuf(urn.clone(), descriptor_set(text), "t.Envelope"),
                Compatibility::None,
            )
            .unwrap();
        ids.push(published.id);
    }
    let guard = Guard::new(registry);
    // Item (indexes [1]: count 1 -> 2, index 1 -> 2): qty 5, sku "a".
    let item = [0x08, 5, 0x12, 1, b'a'];
    let framed = frame(ids[0], &[2, 2], &item);
    let read = guard.read_framed_as(&framed, &v2).unwrap();
    assert!(read.outcome().is_validated(), "{read:?}");
    assert!(read.crossed());
    assert_eq!(read.bytes(), item);
    // Total (indexes [2]): v2's int32 cannot read v1's int64: fails open,
    // the frame handed back whole, as written.
    let total = frame(ids[0], &[2, 4], &[0x08, 7]);
    let read = guard.read_framed_as(&total, &v2).unwrap();
    assert!(
        matches!(read.outcome(), Outcome::Unvalidated(u) if u.reason() == Reason::Unresolvable),
        "{read:?}"
    );
    assert_eq!(read.bytes(), &total[..]);
    assert!(!read.crossed());
    // The root, by frame ([0] written as one 0) and by URN.
    let envelope = [0x0a, 1, b'x'];
    let framed = frame(ids[0], &[0], &envelope);
    let read = guard.read_framed_as(&framed, &v2).unwrap();
    assert!(read.outcome().is_validated() && read.crossed(), "{read:?}");
    assert_eq!(read.bytes(), envelope);
    let read = guard.read_as(v1.as_str(), &envelope, &v2).unwrap();
    assert!(read.outcome().is_validated() && read.crossed(), "{read:?}");
    // Three pairs planned: (v1, v2) for Item, for Total, for the root.
    assert_eq!(guard.cached_plans(), 3);
}
