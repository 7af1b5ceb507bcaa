//! Arbitrary bytes through the protobuf scanner, against a fixed descriptor
//! set (the test fixtures, compiled into `scan_descriptors.binpb`).
//!
//! The first byte picks the message type and whether unknown fields are
//! refused; the rest is the payload. Checks: no panic, no out-of-bounds read
//! (the scanner has no `unsafe`; run under ASan by `cargo fuzz` anyway),
//! `violations()` empty exactly when `is_valid()`, and the verdict equal to
//! the reference (`DynamicMessage::decode` plus the required-field check).
//!
//! `cargo +nightly fuzz run scan` (from `fuzz/`)

use std::sync::OnceLock;

use dataschema::validate::protobuf_scan::{reference_is_valid, Plan, ScanOptions};
use prost_reflect::{DescriptorPool, MessageDescriptor};

const MESSAGES: &[&str] = &[
    "scan.scalars.Scalars",
    "scan.legacy.Holder",
    "scan.recursive.Node",
    "shop.orders.Order",
];

struct Target {
    desc: MessageDescriptor,
    plans: [Plan; 2],
}

fn targets() -> &'static [Target] {
    static TARGETS: OnceLock<Vec<Target>> = OnceLock::new();
    TARGETS.get_or_init(|| {
        let pool = DescriptorPool::decode(&include_bytes!("../scan_descriptors.binpb")[..])
            .expect("embedded descriptor set");
        MESSAGES
            .iter()
            .map(|name| {
                let desc = pool.get_message_by_name(name).expect("fixture message");
                let plans = [
                    Plan::compile(&desc, ScanOptions::default()).expect("a usable descriptor"),
                    Plan::compile(
                        &desc,
                        ScanOptions::default().with_reject_unknown_fields(true),
                    )
                    .expect("a usable descriptor"),
                ];
                Target { desc, plans }
            })
            .collect()
    })
}

pub fn run(data: &[u8]) {
    let Some((&selector, payload)) = data.split_first() else {
        return;
    };
    let targets = targets();
    let target = &targets[usize::from(selector >> 1) % targets.len()];
    let plan = &target.plans[usize::from(selector & 1)];
    let valid = plan.is_valid(payload);
    assert_eq!(valid, plan.violations(payload).is_empty());
    assert_eq!(
        valid,
        reference_is_valid(&target.desc, payload, plan.options()),
        "verdict differs from the reference"
    );
}
