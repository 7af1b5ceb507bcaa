//! The shipped Prometheus rules (`deploy/prometheus/`): `promtool check
//! rules` and `promtool test rules` pass, and every metric name and label
//! the rules and their unit tests use is one a guard really exports (a
//! real `metrics-exporter-prometheus` recorder, rendered).
//!
//! promtool missing: under `CI` the promtool test fails saying so
//! (`.ci/setup` installs Debian's `prometheus` package); elsewhere it
//! prints that it skips.
#![cfg(feature = "json")]

use crate::common;

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Command;

use dataschema::{Guard, Reason, Registry, Schema};
use metrics_exporter_prometheus::PrometheusBuilder;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("deploy/prometheus")
}

const RULES: &str = "dataschema.rules.yml";
const TESTS: &str = "dataschema.rules.test.yml";

fn promtool() -> Option<&'static str> {
    match Command::new("promtool").arg("--version").output() {
        Ok(out) if out.status.success() => Some("promtool"),
        other => {
            let why = match other {
                Ok(out) => format!("promtool --version exited {}", out.status),
                Err(err) => format!("promtool does not run: {err}"),
            };
            if std::env::var_os("CI").is_some() {
                panic!("{why}: install Debian's prometheus package (.ci/setup does, as root)");
            }
            eprintln!("SKIPPED: {why} (install Debian's prometheus package)");
            None
        }
    }
}

fn run(args: &[&str]) {
    let out = Command::new("promtool")
        .args(args)
        .current_dir(dir())
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    println!("promtool {}:\n{text}", args.join(" "));
    assert!(out.status.success(), "promtool {}: {text}", args.join(" "));
    assert!(text.contains("SUCCESS"), "{text}");
}

#[test]
fn promtool_checks_and_tests_the_rules() {
    if promtool().is_none() {
        return;
    }
    run(&["check", "rules", RULES]);
    run(&["test", "rules", TESTS]);
    // The server's rules (their names are checked against a running
    // server's export in tests/server/operate.rs).
    run(&["check", "rules", "dataschema-server.rules.yml"]);
    run(&["test", "rules", "dataschema-server.rules.test.yml"]);
}

/// The series a guard exports, rendered by the real exporter: each metric
/// name with the label names it carries, and each `reason` value.
fn exported() -> (BTreeSet<String>, BTreeSet<String>, BTreeSet<String>) {
    let recorder = PrometheusBuilder::new().build_recorder();
    let handle = recorder.handle();
    let urn = common::urn("urn:acme:schema:greeting:1");
    metrics::with_local_recorder(&recorder, || {
        let guard = Guard::new(
            Registry::embed([Schema::json(urn.clone(), r#"{"type": "string"}"#)]).unwrap(),
        );
        assert!(guard.validate(urn.as_str(), br#""hi""#).is_ok());
        assert!(guard.validate(urn.as_str(), b"1").is_err());
        assert!(guard
            .validate("urn:acme:schema:nowhere:1", b"1")
            .is_ok_and(|o| !o.is_validated()));
    });
    let text = handle.render();
    let mut names = BTreeSet::new();
    let mut labelled = BTreeSet::new();
    let mut reasons = BTreeSet::new();
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let (series, _value) = line.rsplit_once(' ').unwrap();
        let (name, labels) = match series.split_once('{') {
            Some((name, labels)) => (name, labels.trim_end_matches('}')),
            None => (series, ""),
        };
        names.insert(name.to_owned());
        for pair in labels.split(',').filter(|p| !p.is_empty()) {
            let (label, value) = pair.split_once('=').unwrap();
            labelled.insert(format!("{name}/{label}"));
            if label == "reason" {
                reasons.insert(value.trim_matches('"').to_owned());
            }
        }
    }
    (names, labelled, reasons)
}

/// Every `dataschema_..._total` token in a text.
fn metric_names(text: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut rest = text;
    while let Some(start) = rest.find("dataschema_") {
        let tail = &rest[start..];
        let end = tail
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(tail.len());
        // `dataschema:...` record names are ours; only raw metrics count.
        if start == 0 || !rest[..start].ends_with(':') {
            found.insert(tail[..end].to_owned());
        }
        rest = &tail[end..];
    }
    found
}

#[test]
fn the_rules_name_what_a_guard_exports() {
    let (names, labelled, reasons) = exported();
    assert_eq!(
        names,
        BTreeSet::from([
            dataschema::guard::metrics::VALIDATED.to_owned(),
            dataschema::guard::metrics::INVALID.to_owned(),
            dataschema::guard::metrics::UNVALIDATED.to_owned(),
            dataschema::guard::metrics::CACHE_EVICTIONS.to_owned(),
        ]),
        "the exporter renders the guard's three counters and its cache's evictions"
    );
    let every_reason: BTreeSet<String> =
        Reason::ALL.iter().map(|r| r.as_str().to_owned()).collect();
    assert_eq!(
        reasons, every_reason,
        "every reason is exported, from the start"
    );
    assert!(labelled.contains("dataschema_unvalidated_total/reason"));
    assert!(labelled.contains("dataschema_validated_total/schema"));
    assert!(labelled.contains("dataschema_invalid_total/schema"));

    for file in [RULES, TESTS] {
        let text = std::fs::read_to_string(dir().join(file)).unwrap();
        let used = metric_names(&text);
        assert!(used.len() >= 3, "{file} names the three counters: {used:?}");
        for name in &used {
            assert!(
                names.contains(name),
                "{file} uses {name}, which a guard does not export ({names:?})"
            );
        }
        // Every reason the file mentions is a real one.
        for piece in text.split("reason=\"").skip(1) {
            let value = piece.split('"').next().unwrap();
            if value.starts_with("{{") {
                continue; // a template in an annotation
            }
            assert!(
                every_reason.contains(value),
                "{file}: reason {value:?} is not a Reason"
            );
        }
        for piece in text.split("reason: ").skip(1) {
            let value = piece.split_whitespace().next().unwrap();
            assert!(
                every_reason.contains(value),
                "{file}: reason {value:?} is not a Reason"
            );
        }
    }
}
