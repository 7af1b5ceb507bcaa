//! `--format json`: what `check`, `compat`, `diff`, `validate`, `resolve`
//! and `import` print for programs (CI steps, editors) instead of text.
//!
//! One JSON object on one line of standard output per run, whatever the
//! outcome: `{"format_version": 1, "command": "<command>", ...}`. The
//! exit codes are the text format's. A run that cannot do its work (bad
//! input, a registry unreachable) says so in `"error"`. The shape of each
//! command is documented in `docs/guide/cli-json.md`; a change that
//! removes or retypes a member raises [`FORMAT_VERSION`], a new member
//! does not.

use dataschema::compat::{AnyChangeKind, Change, CompatReport};
use dataschema::Violation;
use serde_json::{json, Map, Value};

/// The version of the shapes below (`format_version` in every document).
pub const FORMAT_VERSION: u64 = 1;

/// How a command prints its result.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Lines for people (the default).
    #[default]
    Text,
    /// One JSON object (`docs/guide/cli-json.md`).
    Json,
}

impl Format {
    /// Whether the command prints JSON.
    pub fn json(self) -> bool {
        self == Format::Json
    }
}

/// Prints `members` as `command`'s document: `format_version` and
/// `command` first.
pub fn emit(command: &str, members: Value) {
    let mut doc = Map::new();
    doc.insert("format_version".into(), FORMAT_VERSION.into());
    doc.insert("command".into(), command.into());
    if let Value::Object(members) = members {
        doc.extend(members);
    }
    println!("{}", Value::Object(doc));
}

/// A run that could not do its work: the message on standard error as
/// text, or `{"error": message}` as JSON.
pub fn error(format: Format, command: &str, message: &str) {
    if format.json() {
        emit(command, json!({ "error": message }));
    } else {
        eprintln!("{message}");
    }
}

/// A change of a diff: `kind`, `path`, `label` (or null), `breaking`,
/// `hint` (or null).
pub fn change(change: &Change<AnyChangeKind>) -> Value {
    json!({
        "kind": change.kind().name(),
        "path": change.path(),
        "label": change.label(),
        "breaking": change.is_breaking(),
        "hint": change.is_breaking().then(|| change.kind().hint()).flatten(),
    })
}

/// A compatibility report: `mode`, `compatible`, and per prior version
/// checked its `version`, `directions`, `passed` and every `change`
/// (with its `direction`; `breaking` as the check reads it).
pub fn compat_report(report: &CompatReport) -> Value {
    let versions: Vec<Value> = report
        .versions()
        .iter()
        .map(|version| {
            let changes: Vec<Value> = version
                .changes()
                .iter()
                .map(|c| {
                    json!({
                        "direction": c.direction().as_str(),
                        "kind": c.kind().name(),
                        "path": c.path(),
                        "label": c.label(),
                        "breaking": c.is_breaking(),
                        "hint": c.is_breaking().then(|| c.kind().hint()).flatten(),
                    })
                })
                .collect();
            let directions: Vec<&str> = version.directions().iter().map(|d| d.as_str()).collect();
            json!({
                "version": version.version(),
                "directions": directions,
                "passed": version.passed(),
                "changes": changes,
            })
        })
        .collect();
    json!({
        "mode": report.level().to_string(),
        "compatible": report.is_compatible(),
        "versions": versions,
    })
}

/// Violations: `path`, `kind` (snake case), `message`.
pub fn violations(violations: &[Violation]) -> Value {
    violations
        .iter()
        .map(|v| {
            json!({
                "path": v.path(),
                "kind": snake(&format!("{:?}", v.kind())),
                "message": v.message(),
            })
        })
        .collect()
}

/// `NotJson` as `not_json`: a kind's `Debug` name in snake case.
pub fn snake(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::snake;

    #[test]
    fn snake_case_of_kind_names() {
        assert_eq!(snake("NotJson"), "not_json");
        assert_eq!(snake("Io"), "io");
        assert_eq!(snake("Other"), "other");
    }
}
