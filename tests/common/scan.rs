//! Shared by the scanner's tests and benchmark: the fixture descriptors, a
//! small deterministic RNG, random message generation, payload mutation, and
//! the realistic order workload.
#![allow(dead_code)]

use prost::Message as _;
use prost_reflect::{
    Cardinality, DescriptorPool, DynamicMessage, FieldDescriptor, Kind, MapKey, MessageDescriptor,
    Value,
};

/// The directory holding the `.proto` fixtures.
pub fn fixture_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/scan")
}

/// Every fixture compiled into one pool (with protox: no `protoc` needed).
pub fn pool() -> DescriptorPool {
    let dir = fixture_dir();
    protox::Compiler::new([&dir])
        .expect("include path")
        .open_files([
            "scalars.proto",
            "legacy.proto",
            "recursive.proto",
            "order.proto",
        ])
        .expect("fixtures compile")
        .descriptor_pool()
}

/// A message descriptor from the fixture pool.
pub fn message(pool: &DescriptorPool, name: &str) -> MessageDescriptor {
    pool.get_message_by_name(name)
        .unwrap_or_else(|| panic!("no message {name}"))
}

pub use crate::common::rng::Rng;

const STRINGS: &[&str] = &[
    "",
    "a",
    "hello",
    "héllo wörld",
    "日本語",
    "🦀 crab",
    "line\nbreak",
    "SKU-00017",
    "a somewhat longer string that spans more than a few bytes",
];

fn random_string(rng: &mut Rng) -> String {
    if rng.chance(70) {
        rng.pick(STRINGS).to_owned()
    } else {
        let len = rng.below(12);
        (0..len)
            .map(|_| char::from(b'a' + rng.below(26) as u8))
            .collect()
    }
}

fn random_bytes(rng: &mut Rng) -> Vec<u8> {
    let len = rng.below(10);
    (0..len).map(|_| rng.next_u64() as u8).collect()
}

fn random_i64(rng: &mut Rng) -> i64 {
    match rng.below(6) {
        0 => 0,
        1 => -1,
        2 => i64::MIN,
        3 => i64::MAX,
        4 => rng.below(300) as i64,
        _ => rng.next_u64() as i64,
    }
}

fn random_scalar(kind: &Kind, rng: &mut Rng, depth: u32) -> Value {
    match kind {
        Kind::Double => Value::F64(match rng.below(4) {
            0 => 0.0,
            1 => f64::NAN,
            2 => -2.5,
            _ => f64::from_bits(rng.next_u64()),
        }),
        Kind::Float => Value::F32(match rng.below(3) {
            0 => 0.0,
            1 => 1.5,
            _ => f32::from_bits(rng.next_u64() as u32),
        }),
        Kind::Int32 | Kind::Sint32 | Kind::Sfixed32 => Value::I32(random_i64(rng) as i32),
        Kind::Int64 | Kind::Sint64 | Kind::Sfixed64 => Value::I64(random_i64(rng)),
        Kind::Uint32 | Kind::Fixed32 => Value::U32(random_i64(rng) as u32),
        Kind::Uint64 | Kind::Fixed64 => Value::U64(random_i64(rng) as u64),
        Kind::Bool => Value::Bool(rng.chance(50)),
        Kind::String => Value::String(random_string(rng)),
        Kind::Bytes => Value::Bytes(random_bytes(rng).into()),
        Kind::Enum(e) => {
            if rng.chance(80) {
                let values: Vec<i32> = e.values().map(|v| v.number()).collect();
                Value::EnumNumber(rng.pick(&values))
            } else {
                Value::EnumNumber(random_i64(rng) as i32)
            }
        }
        Kind::Message(m) => Value::Message(random_message(m, rng, depth + 1)),
    }
}

fn random_key(kind: &Kind, rng: &mut Rng) -> MapKey {
    match kind {
        Kind::Int32 | Kind::Sint32 | Kind::Sfixed32 => MapKey::I32(rng.below(5) as i32 - 2),
        Kind::Int64 | Kind::Sint64 | Kind::Sfixed64 => MapKey::I64(random_i64(rng)),
        Kind::Uint32 | Kind::Fixed32 => MapKey::U32(rng.below(5) as u32),
        Kind::Uint64 | Kind::Fixed64 => MapKey::U64(random_i64(rng) as u64),
        Kind::Bool => MapKey::Bool(rng.chance(50)),
        Kind::String => MapKey::String(random_string(rng)),
        _ => unreachable!("not a map key kind"),
    }
}

fn random_field_value(field: &FieldDescriptor, rng: &mut Rng, depth: u32) -> Option<Value> {
    let nested = matches!(field.kind(), Kind::Message(_));
    if nested && depth >= 4 {
        return None;
    }
    if field.is_map() {
        let Kind::Message(entry) = field.kind() else {
            return None;
        };
        let key_kind = entry.map_entry_key_field().kind();
        let value_kind = entry.map_entry_value_field().kind();
        let mut map = std::collections::HashMap::new();
        for _ in 0..rng.below(4) {
            map.insert(
                random_key(&key_kind, rng),
                random_scalar(&value_kind, rng, depth),
            );
        }
        Some(Value::Map(map))
    } else if field.is_list() {
        let count = rng.below(if nested { 3 } else { 5 });
        Some(Value::List(
            (0..count)
                .map(|_| random_scalar(&field.kind(), rng, depth))
                .collect(),
        ))
    } else {
        Some(random_scalar(&field.kind(), rng, depth))
    }
}

/// A random message of type `desc`: required fields present nine times in
/// ten, other fields half the time, nesting bounded.
pub fn random_message(desc: &MessageDescriptor, rng: &mut Rng, depth: u32) -> DynamicMessage {
    let mut msg = DynamicMessage::new(desc.clone());
    for field in desc.fields() {
        let wanted = if field.cardinality() == Cardinality::Required {
            rng.chance(92)
        } else {
            rng.chance(if depth > 1 { 30 } else { 50 })
        };
        if wanted {
            if let Some(value) = random_field_value(&field, rng, depth) {
                msg.set_field(&field, value);
            }
        }
    }
    for ext in desc.extensions() {
        if rng.chance(30) {
            let value = if ext.is_list() {
                Value::List(
                    (0..rng.below(3))
                        .map(|_| random_scalar(&ext.kind(), rng, depth))
                        .collect(),
                )
            } else {
                random_scalar(&ext.kind(), rng, depth)
            };
            msg.set_extension(&ext, value);
        }
    }
    msg
}

/// A chain of `levels` nested `scan.recursive.Node`s, each level reached
/// through a random route (field, list element, map value, group), with a
/// random leaf payload at the bottom.
pub fn deep_node(pool: &DescriptorPool, levels: u32, rng: &mut Rng) -> Vec<u8> {
    // Encoded bottom-up by hand so each route's framing is exact.
    let mut body: Vec<u8> = Vec::new();
    if rng.chance(50) {
        body.extend_from_slice(&[0x20, 0x07]); // value = 7
    }
    if rng.chance(20) {
        // An unknown varint, an unknown group, or a known message at the bottom.
        match rng.below(5) {
            0 => body.extend_from_slice(&[0xf8, 0x01, 0x01]), // field 31 varint
            1 => body.extend_from_slice(&[0xfb, 0x01, 0x08, 0x01, 0xfc, 0x01]), // group 31 {1: 1}
            2 => body.extend_from_slice(&[0x4a, 0x02, 0x08, 0x01]), // leaf { id: 1 }
            // named { key "z", unknown varint 3 }: prost's skip_field needs depth
            3 => body.extend_from_slice(&[0x1a, 0x05, 0x0a, 0x01, b'z', 0x18, 0x01]),
            // named { key "z", unknown group 3 { 1: 1 } }
            _ => body.extend_from_slice(&[0x1a, 0x07, 0x0a, 0x01, b'z', 0x1b, 0x08, 0x01, 0x1c]),
        }
    }
    let _ = pool;
    for _ in 1..levels {
        let mut outer = Vec::new();
        match rng.below(4) {
            0 => length_delimited(&mut outer, 1, &body),
            1 => length_delimited(&mut outer, 2, &body),
            2 => {
                let mut entry = Vec::new();
                length_delimited(&mut entry, 1, b"k");
                length_delimited(&mut entry, 2, &body);
                length_delimited(&mut outer, 3, &entry);
            }
            _ => {
                // group Box (6) { inside (7): Node }: two levels in one step.
                outer.push(0x33);
                length_delimited(&mut outer, 7, &body);
                outer.push(0x34);
            }
        }
        body = outer;
    }
    body
}

fn varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

fn length_delimited(out: &mut Vec<u8>, number: u32, body: &[u8]) {
    varint(out, u64::from(number) << 3 | 2);
    varint(out, body.len() as u64);
    out.extend_from_slice(body);
}

/// Mutates a payload in place: bit flips, truncation, insertion, deletion,
/// tag rewrites, length changes, splices, duplication.
pub fn mutate(payload: &mut Vec<u8>, numbers: &[u32], rng: &mut Rng) {
    let len = payload.len();
    let at = if len == 0 { 0 } else { rng.below(len) };
    match rng.below(11) {
        0 if len > 0 => payload[at] ^= 1 << rng.below(8),
        1 if len > 0 => payload[at] = rng.next_u64() as u8,
        2 => payload.truncate(at),
        3 => {
            let byte = rng.next_u64() as u8;
            payload.insert(at, byte);
        }
        4 if len > 0 => {
            let end = (at + 1 + rng.below(4)).min(len);
            payload.drain(at..end);
        }
        5 => {
            // Rewrite (or insert) a tag: a known number (or 0, or huge) with any wire type.
            let number = match rng.below(10) {
                0 => 0,
                1 => (1 << 29) - 1,
                2 => rng.below(1 << 20) as u32,
                _ => rng.pick(numbers),
            };
            let mut tag = Vec::new();
            varint(&mut tag, u64::from(number) << 3 | rng.below(8) as u64);
            if rng.chance(50) && at < len {
                let end = (at + tag.len()).min(len);
                payload.splice(at..end, tag);
            } else {
                payload.splice(at..at, tag);
            }
        }
        6 if len > 0 => {
            // Nudge what may be a length.
            let delta = [1u8, 2, 0xff, 0xfe, 0x7f][rng.below(5)];
            payload[at] = payload[at].wrapping_add(delta);
        }
        7 if len > 1 => {
            // Splice a copy of one part of the payload somewhere else.
            let from = rng.below(len);
            let to = (from + 1 + rng.below(16)).min(len);
            let chunk = payload[from..to].to_vec();
            let into = rng.below(len + 1);
            payload.splice(into..into, chunk);
        }
        8 => {
            // Concatenation merges: the same message twice.
            let copy = payload.clone();
            payload.extend_from_slice(&copy);
        }
        9 => {
            // Append a field with a random value for its wire type.
            let number = rng.pick(numbers);
            let wire_type = rng.below(6) as u64;
            varint(payload, u64::from(number) << 3 | wire_type);
            match wire_type {
                0 => varint(payload, rng.next_u64() >> rng.below(64)),
                1 => payload.extend_from_slice(&rng.next_u64().to_le_bytes()),
                2 => {
                    let body = random_bytes(rng);
                    varint(payload, body.len() as u64);
                    payload.extend_from_slice(&body);
                }
                5 => payload.extend_from_slice(&(rng.next_u64() as u32).to_le_bytes()),
                _ => {}
            }
        }
        _ => {
            // Varint continuation bytes.
            let run = 1 + rng.below(11);
            for _ in 0..run {
                payload.insert(at.min(payload.len()), 0x80 | rng.next_u64() as u8);
            }
        }
    }
}

/// Every field number of `desc` and the message types below it.
pub fn field_numbers(desc: &MessageDescriptor) -> Vec<u32> {
    let mut numbers = vec![1, 2, 3];
    let mut seen = std::collections::HashSet::new();
    let mut stack = vec![desc.clone()];
    while let Some(m) = stack.pop() {
        if !seen.insert(m.full_name().to_owned()) {
            continue;
        }
        for field in m.fields() {
            numbers.push(field.number());
            if let Kind::Message(inner) = field.kind() {
                stack.push(inner);
            }
        }
        for ext in m.extensions() {
            numbers.push(ext.number());
        }
    }
    numbers.sort_unstable();
    numbers.dedup();
    numbers
}

/// A realistic order (mean size about 600 bytes): a customer with an address,
/// three to six line items with strings, tags, attributes and prices.
pub fn order(pool: &DescriptorPool, rng: &mut Rng) -> DynamicMessage {
    let text = |rng: &mut Rng, words: &[&str]| -> String {
        let n = 1 + rng.below(3);
        (0..n)
            .map(|_| rng.pick(words))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let names = [
        "Ada", "Grace", "Linus", "Barbara", "Ken", "Edsger", "Frances",
    ];
    let streets = [
        "Elm Street",
        "Rue de la Paix",
        "Hauptstraße",
        "Baker Street",
    ];
    let cities = ["Zürich", "Lyon", "Portland", "Kyoto", "Oslo"];
    let words = [
        "organic", "cotton", "shirt", "ceramic", "mug", "wireless", "charger", "blue", "large",
        "recycled", "notebook", "steel",
    ];

    let money = |rng: &mut Rng| {
        let mut m = DynamicMessage::new(message(pool, "shop.orders.Money"));
        m.set_field_by_name("currency", Value::String("EUR".into()));
        m.set_field_by_name("units", Value::I64(1 + rng.below(500) as i64));
        m.set_field_by_name("nanos", Value::I32(rng.below(1_000_000_000) as i32));
        m
    };
    let address = |rng: &mut Rng| {
        let mut a = DynamicMessage::new(message(pool, "shop.orders.Address"));
        a.set_field_by_name(
            "line1",
            Value::String(format!("{} {}", 1 + rng.below(200), rng.pick(&streets))),
        );
        if rng.chance(40) {
            a.set_field_by_name("line2", Value::String(format!("Apt {}", rng.below(90))));
        }
        a.set_field_by_name("city", Value::String(rng.pick(&cities).into()));
        a.set_field_by_name("region", Value::String("North".into()));
        a.set_field_by_name(
            "postal_code",
            Value::String(format!("{:05}", rng.below(99999))),
        );
        a.set_field_by_name("country", Value::String("CH".into()));
        a
    };

    let mut customer = DynamicMessage::new(message(pool, "shop.orders.Customer"));
    let name = rng.pick(&names);
    customer.set_field_by_name(
        "id",
        Value::String(format!("cus_{:012x}", rng.next_u64() >> 16)),
    );
    customer.set_field_by_name("name", Value::String(format!("{name} Example")));
    customer.set_field_by_name(
        "email",
        Value::String(format!("{}@example.com", name.to_lowercase())),
    );
    customer.set_field_by_name("address", Value::Message(address(rng)));
    customer.set_field_by_name(
        "segments",
        Value::List(vec![
            Value::String("retail".into()),
            Value::String("eu".into()),
        ]),
    );

    let mut items = Vec::new();
    for _ in 0..4 + rng.below(4) {
        let mut item = DynamicMessage::new(message(pool, "shop.orders.LineItem"));
        item.set_field_by_name(
            "sku",
            Value::String(format!("SKU-{:06}", rng.below(999_999))),
        );
        item.set_field_by_name("title", Value::String(text(rng, &words)));
        item.set_field_by_name("quantity", Value::U32(1 + rng.below(5) as u32));
        item.set_field_by_name("unit_price", Value::Message(money(rng)));
        item.set_field_by_name(
            "tags",
            Value::List(
                (0..rng.below(3))
                    .map(|_| Value::String(rng.pick(&words).into()))
                    .collect(),
            ),
        );
        if rng.chance(50) {
            let mut attributes = std::collections::HashMap::new();
            attributes.insert(MapKey::String("color".into()), Value::String("blue".into()));
            item.set_field_by_name("attributes", Value::Map(attributes));
        }
        items.push(Value::Message(item));
    }

    let mut order = DynamicMessage::new(message(pool, "shop.orders.Order"));
    order.set_field_by_name("id", Value::String(format!("ord_{:016x}", rng.next_u64())));
    order.set_field_by_name(
        "created_at",
        Value::I64(1_700_000_000 + rng.below(10_000_000) as i64),
    );
    order.set_field_by_name("customer", Value::Message(customer));
    order.set_field_by_name("items", Value::List(items));
    order.set_field_by_name("total", Value::Message(money(rng)));
    order.set_field_by_name("status", Value::EnumNumber(1 + rng.below(3) as i32));
    let mut labels = std::collections::HashMap::new();
    labels.insert(
        MapKey::String("channel".into()),
        Value::String("web".into()),
    );
    labels.insert(
        MapKey::String("region".into()),
        Value::String("eu-west".into()),
    );
    order.set_field_by_name("labels", Value::Map(labels));
    order.set_field_by_name(
        "coupon_ids",
        Value::List(
            (0..rng.below(3))
                .map(|_| Value::I64(rng.below(1 << 40) as i64))
                .collect(),
        ),
    );
    order.set_field_by_name("shipping", Value::Message(address(rng)));
    if rng.chance(30) {
        order.set_field_by_name("note", Value::String("Leave at the door, merci!".into()));
    }
    order
}

/// `count` encoded orders from a fixed seed.
pub fn order_payloads(pool: &DescriptorPool, count: usize, seed: u64) -> Vec<Vec<u8>> {
    let mut rng = Rng::new(seed);
    (0..count)
        .map(|_| order(pool, &mut rng).encode_to_vec())
        .collect()
}
