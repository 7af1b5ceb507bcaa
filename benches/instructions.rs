//! The guard's overhead over the bare validators in instructions, counted
//! by callgrind: deterministic on a busy machine, where wall-clock rows of
//! `benches/guard.rs` move by more than the 5% they are meant to show.
//!
//! ```sh
//! cargo bench --bench instructions
//! ```
//!
//! Run by cargo, it runs itself under `valgrind --tool=callgrind` for each
//! row at two iteration counts and prints the instructions per validation
//! (the difference over the difference, so set-up cancels out) and the
//! guard/bare ratios, without and with a Prometheus recorder installed. Without valgrind it says so and exits.
//!
//! ```sh
//! cargo bench --bench instructions -- scan
//! ```
//!
//! counts the rows of `benches/json_scan.rs` instead (a filter picks the
//! rows whose name holds it): an iteration checks each payload of the group
//! once, and the count is given per payload.

#[allow(dead_code)] // the criterion rows of the shared module are unused here
mod support;

#[path = "support/events.rs"]
mod events;

#[path = "support/callgrind.rs"]
mod callgrind;

const ROWS: [&str; 6] = [
    "json/bare",
    "json/guard",
    "json/guard+prometheus",
    "protobuf/bare",
    "protobuf/guard",
    "protobuf/guard+prometheus",
];

/// The rows of `benches/json_scan.rs` counted here (`scan:` then the
/// criterion name).
const SCAN_ROWS: [&str; 8] = [
    "scan:order_1k/bare",
    "scan:order_1k/guard",
    "scan:events/bare",
    "scan:events/guard",
    "scan:events/guard+report",
    "scan:events_valid/bare",
    "scan:events_valid/guard",
    "scan:events_valid/guard+report",
];

/// The payloads of a `benches/json_scan.rs` group, and its URN.
fn scan_group(group: &str) -> (Vec<Vec<u8>>, &'static str) {
    match group {
        "order_1k" => (vec![events::order_1k()], events::V1),
        "events" => (events::events(), events::V2),
        "events_valid" => (events::valid_events(), events::V2),
        _ => panic!("no group {group}"),
    }
}

/// Runs a `scan:` row `n` times over its group (the child under callgrind).
fn scan_child(row: &str, n: usize) {
    use std::hint::black_box;
    let (group, kind) = row["scan:".len()..].split_once('/').expect("group/row");
    let (payloads, urn) = scan_group(group);
    let registry = dataschema::Registry::from_bundle(dataschema::include_bundle!()).unwrap();
    let bare = events::bare(&registry, urn);
    let guard = dataschema::Guard::new(registry);
    let ok = measured(n, || {
        let mut valid = 0;
        for payload in &payloads {
            valid += usize::from(match kind {
                "bare" => {
                    let value: serde_json::Value =
                        serde_json::from_slice(black_box(payload)).unwrap();
                    bare.is_valid(&value)
                }
                "guard" => guard.validate(black_box(urn), black_box(payload)).is_ok(),
                "guard+report" => match guard.validate(black_box(urn), black_box(payload)) {
                    Ok(_) => true,
                    Err(invalid) => black_box(invalid.violations()).is_empty(),
                },
                _ => panic!("no row {kind}"),
            });
        }
        black_box(valid) > 0
    });
    black_box(ok);
}

/// Runs `row` `n` times (the child under callgrind).
fn child(row: &str, n: usize) {
    if row.starts_with("scan:") {
        return scan_child(row, n);
    }
    // Installed before the guard is built: its counters bind to it.
    let _handle = row.ends_with("+prometheus").then(|| {
        metrics_exporter_prometheus::PrometheusBuilder::new()
            .install_recorder()
            .expect("the Prometheus recorder installs")
    });
    let row = row.trim_end_matches("+prometheus");
    let ok = match row {
        "json/bare" | "json/guard" => {
            let (bare, guard, payload) = support::json_parts();
            measured(n, || {
                if row == "json/bare" {
                    support::json_bare(&bare, &payload)
                } else {
                    support::json_guard(&guard, &payload)
                }
            })
        }
        _ => {
            let (descriptor, guard, payload) = support::protobuf_parts();
            measured(n, || {
                if row == "protobuf/bare" {
                    support::protobuf_bare(&descriptor, &payload)
                } else {
                    support::protobuf_guard(&guard, &payload)
                }
            })
        }
    };
    assert_eq!(ok, n, "{row}: every validation passes");
}

/// Instructions callgrind counted in [`measured`] for `row` run `n` times.
fn instructions(row: &str, n: usize) -> Option<u64> {
    callgrind::instructions(
        "DATASCHEMA_INSTRUCTIONS_ROW",
        row,
        "DATASCHEMA_INSTRUCTIONS_N",
        n,
        Some("*measured*"),
    )
}

/// The loop callgrind counts (`--toggle-collect`): the set-up around it
/// is not counted at all. That matters for the `+prometheus` rows: the
/// exporter's clock calibrates itself for a stretch of wall time at
/// install, a count that differs from one run to the next and so does
/// not cancel out in the difference of two runs. `n` iterations of `one`;
/// how many it passed.
#[inline(never)]
fn measured(n: usize, mut one: impl FnMut() -> bool) -> usize {
    (0..n).map(|_| usize::from(one())).sum()
}

fn main() {
    if let (Ok(row), Ok(n)) = (
        std::env::var("DATASCHEMA_INSTRUCTIONS_ROW"),
        std::env::var("DATASCHEMA_INSTRUCTIONS_N"),
    ) {
        child(&row, n.parse().expect("an iteration count"));
        return;
    }
    if std::env::args().any(|arg| arg == "--list") {
        return;
    }
    if !callgrind::available() {
        println!("instructions: valgrind is not installed; nothing measured");
        return;
    }
    let filter = std::env::args().skip(1).find(|arg| !arg.starts_with("--"));
    if let Some(filter) = filter {
        return scan_rows(&filter);
    }
    let (few, many) = (200, 1_200);
    let mut per = std::collections::HashMap::new();
    for row in ROWS {
        let (Some(a), Some(b)) = (instructions(row, few), instructions(row, many)) else {
            println!("{row}: callgrind gave no count");
            return;
        };
        let each = (b.saturating_sub(a)) as f64 / (many - few) as f64;
        println!("{row:26} {each:>8.0} instructions per validation");
        per.insert(row, each);
    }
    for lang in ["json", "protobuf"] {
        let bare = per[format!("{lang}/bare").as_str()];
        for guard in ["guard", "guard+prometheus"] {
            let ratio = per[format!("{lang}/{guard}").as_str()] / bare;
            println!("{lang:8} {guard:>17}/bare = {ratio:.3} (instructions)");
        }
    }
}

/// The `scan:` rows whose name holds `filter`: instructions per payload,
/// and each group's bare/row ratio.
fn scan_rows(filter: &str) {
    let mut per = std::collections::BTreeMap::new();
    for row in SCAN_ROWS.iter().filter(|row| row.contains(filter)) {
        let group = row["scan:".len()..].split_once('/').unwrap().0;
        let payloads = scan_group(group).0.len();
        // Passes over the whole group: fewer for the larger groups.
        let (few, many) = if payloads > 1 { (1, 4) } else { (200, 1_200) };
        let (Some(a), Some(b)) = (instructions(row, few), instructions(row, many)) else {
            println!("{row}: callgrind gave no count");
            return;
        };
        let each = b.saturating_sub(a) as f64 / ((many - few) * payloads) as f64;
        println!("{row:32} {each:>8.0} instructions per payload");
        per.insert(*row, each);
    }
    for (row, each) in &per {
        let (group, kind) = row["scan:".len()..].split_once('/').unwrap();
        if kind == "bare" {
            continue;
        }
        if let Some(bare) = per.get(format!("scan:{group}/bare").as_str()) {
            println!(
                "{group:14} bare/{kind:<13} = {:.2}x (instructions)",
                bare / each
            );
        }
    }
}
