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

#[allow(dead_code)] // the criterion rows of the shared module are unused here
mod support;

use std::process::Command;

const ROWS: [&str; 6] = [
    "json/bare",
    "json/guard",
    "json/guard+prometheus",
    "protobuf/bare",
    "protobuf/guard",
    "protobuf/guard+prometheus",
];

/// Runs `row` `n` times (the child under callgrind).
fn child(row: &str, n: usize) {
    // Installed before the guard is built: its counters bind to it.
    let _handle = row.ends_with("+prometheus").then(|| {
        metrics_exporter_prometheus::PrometheusBuilder::new()
            .install_recorder()
            .expect("the Prometheus recorder installs")
    });
    let row = row.trim_end_matches("+prometheus");
    let mut ok = 0;
    match row {
        "json/bare" | "json/guard" => {
            let (bare, guard, payload) = support::json_parts();
            for _ in 0..n {
                ok += usize::from(if row == "json/bare" {
                    support::json_bare(&bare, &payload)
                } else {
                    support::json_guard(&guard, &payload)
                });
            }
        }
        _ => {
            let (descriptor, guard, payload) = support::protobuf_parts();
            for _ in 0..n {
                ok += usize::from(if row == "protobuf/bare" {
                    support::protobuf_bare(&descriptor, &payload)
                } else {
                    support::protobuf_guard(&guard, &payload)
                });
            }
        }
    }
    assert_eq!(ok, n, "{row}: every validation passes");
}

/// Instructions callgrind counted for `row` run `n` times.
fn instructions(row: &str, n: usize) -> Option<u64> {
    let exe = std::env::current_exe().ok()?;
    let out = Command::new("valgrind")
        .args(["--tool=callgrind", "--callgrind-out-file=/dev/null"])
        .arg(exe)
        .env("DATASCHEMA_INSTRUCTIONS_ROW", row)
        .env("DATASCHEMA_INSTRUCTIONS_N", n.to_string())
        .output()
        .ok()?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    stderr
        .lines()
        .find_map(|line| line.split("Collected : ").nth(1))
        .and_then(|count| count.trim().parse().ok())
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
    if Command::new("valgrind").arg("--version").output().is_err() {
        println!("instructions: valgrind is not installed; nothing measured");
        return;
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
