//! A message with more than 64 required fields, nested in itself to the
//! depth limit: the scanner's extra passes for the required-field mask stay
//! within the body they count (a regression: they once descended again at
//! every level, doubling the work per level).

use crate::support;

use std::sync::mpsc;
use std::time::Duration;

use dataschema::validate::protobuf_scan::{reference_is_valid, Plan, ScanOptions};
use prost::Message as _;
use prost_reflect::{DescriptorPool, DynamicMessage, Value};

fn pool() -> DescriptorPool {
    protox::Compiler::new([support::fixture_dir()])
        .unwrap()
        .open_files(["wide.proto"])
        .unwrap()
        .descriptor_pool()
}

fn chain(pool: &DescriptorPool, depth: usize, skip_at: Option<usize>) -> Vec<u8> {
    let wide = pool.get_message_by_name("scan.wide.Wide").unwrap();
    let mut inner: Option<DynamicMessage> = None;
    for level in 0..depth {
        let mut message = DynamicMessage::new(wide.clone());
        for i in 1..=65 {
            if skip_at == Some(level) && i == 65 {
                continue;
            }
            message.set_field_by_name(&format!("f{i}"), Value::I32(i));
        }
        if let Some(child) = inner.take() {
            message.set_field_by_name("child", Value::Message(child));
        }
        inner = Some(message);
    }
    inner.unwrap().encode_to_vec()
}

#[test]
fn wide_required_masks_nested_to_the_depth_limit() {
    // Run on a thread with a generous deadline: this test guards against a
    // hang (exponential work), it does not measure speed.
    let (done, verdicts) = mpsc::channel();
    std::thread::spawn(move || {
        let pool = pool();
        let wide = pool.get_message_by_name("scan.wide.Wide").unwrap();
        let plan = Plan::compile(&wide, ScanOptions::default()).expect("a usable descriptor");
        for (depth, skip_at) in [(100, None), (100, Some(0)), (100, Some(99)), (102, None)] {
            let payload = chain(&pool, depth, skip_at);
            let expected = reference_is_valid(&wide, &payload, ScanOptions::default());
            done.send((depth, skip_at, plan.is_valid(&payload), expected))
                .unwrap();
        }
    });
    for _ in 0..4 {
        let (depth, skip_at, verdict, expected) = verdicts
            .recv_timeout(Duration::from_secs(120))
            .expect("the scan finishes (no exponential work)");
        assert_eq!(
            verdict, expected,
            "depth {depth}, missing field at level {skip_at:?}"
        );
        // 102 messages are 101 nested levels below the root: past prost's 100.
        assert_eq!(
            verdict,
            depth <= 100 && skip_at.is_none(),
            "depth {depth}, {skip_at:?}"
        );
    }
}

#[test]
fn the_report_is_bounded_whatever_the_payload() {
    let pool = pool();
    let wide = pool.get_message_by_name("scan.wide.Wide").unwrap();
    let plan = Plan::compile(&wide, ScanOptions::default()).expect("a usable descriptor");
    // 100,000 length-delimited values for the int32 field 1: each one a
    // wire-type mismatch.
    let payload: Vec<u8> = [0x0a, 0x00].repeat(100_000);
    assert!(!plan.is_valid(&payload));
    let violations = plan.violations(&payload);
    assert_eq!(
        violations.len(),
        dataschema::validate::protobuf_scan::MAX_VIOLATIONS
    );
    assert!(
        violations.iter().all(|v| v.path() == "f1"),
        "{:?}",
        violations.first()
    );
}
