//! `Plan::is_valid` allocates nothing on valid messages: a counting global
//! allocator watches the calls.

use crate::support;

use crate::counting_alloc;

use counting_alloc::allocations_during;
use dataschema::validate::protobuf_scan::{Plan, ScanOptions};
use prost::Message as _;

#[test]
fn is_valid_allocates_nothing_on_valid_messages() {
    let pool = support::pool();

    // The benchmark workload: realistic orders.
    let order = support::message(&pool, "shop.orders.Order");
    let orders = support::order_payloads(&pool, 1_000, 7);
    for options in [
        ScanOptions::default(),
        ScanOptions::default().with_reject_unknown_fields(true),
    ] {
        let plan = Plan::compile(&order, options).expect("a usable descriptor");
        let mut valid = 0;
        let count = allocations_during(|| {
            for payload in &orders {
                valid += usize::from(plan.is_valid(payload));
            }
        });
        assert_eq!(valid, orders.len());
        assert_eq!(count, 0, "allocations over {} orders", orders.len());
    }

    // Random valid messages of every fixture whose occurrences are all
    // complete (proto3, and proto2 with every required field set).
    let mut rng = support::Rng::new(99);
    for name in [
        "scan.scalars.Scalars",
        "scan.legacy.Holder",
        "scan.recursive.Node",
    ] {
        let desc = support::message(&pool, name);
        let plan = Plan::compile(&desc, ScanOptions::default()).expect("a usable descriptor");
        let mut checked = 0;
        for _ in 0..2_000 {
            let payload = support::random_message(&desc, &mut rng, 0).encode_to_vec();
            let complete = dataschema::validate::protobuf_scan::reference_is_valid(
                &desc,
                &payload,
                ScanOptions::default(),
            );
            if !complete {
                continue;
            }
            checked += 1;
            let count = allocations_during(|| assert!(plan.is_valid(&payload)));
            assert_eq!(count, 0, "{name}: allocations on {payload:02x?}");
        }
        assert!(checked > 100, "{name}: only {checked} valid messages");
    }

    // Deep nesting right at the limit.
    let node = support::message(&pool, "scan.recursive.Node");
    let plan = Plan::compile(&node, ScanOptions::default()).expect("a usable descriptor");
    let mut deep = vec![0x20, 0x01];
    for _ in 0..100 {
        let mut outer = vec![0x0a];
        let mut len = deep.len();
        while len >= 0x80 {
            outer.push((len as u8) | 0x80);
            len >>= 7;
        }
        outer.push(len as u8);
        outer.extend_from_slice(&deep);
        deep = outer;
    }
    assert_eq!(allocations_during(|| assert!(plan.is_valid(&deep))), 0);
}
