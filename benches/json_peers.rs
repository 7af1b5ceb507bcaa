//! The peer table of issue 19: the guard, `jsonschema` (at run time, and
//! its compile-time `#[jsonschema::validator]` macro), `boon`, `ajv` and
//! Blaze on the real-schema corpus (`tests/data/json_corpus`), in one run.
//!
//! ```text
//! benches/peers/run.sh
//! ```
//!
//! installs `ajv` and Blaze (npm, into a cache directory outside the
//! repository), builds and runs `benches/peers/macro` (the macro's
//! validators, a crate of its own: the macro's newest release needs
//! `jsonschema` 0.60, the guard is on 0.61) into that directory's
//! `macro.jsonl`, and runs this bench with `DATASCHEMA_PEERS` pointing at
//! it; without it the table has the Rust peers of this crate only:
//!
//! ```text
//! cargo bench --features peer-bench --bench json_peers
//! ```
//!
//! Per schema and peer, the time to check all of the schema's instances
//! (valid and invalid), the fastest of several interleaved rounds, in two
//! columns where the peer allows: evaluation only (on the parsed value,
//! `eval`) and parse plus evaluation (from the payload bytes, `full`). The
//! guard has only `full` (it checks the bytes). Blaze's CLI times its
//! evaluation only (`--benchmark`, mean per instance). Every peer's
//! verdicts are compared with the labels of the instances (which
//! `tests/validate/json_corpus.rs` holds equal to `jsonschema`'s): a
//! disagreement is listed, and a schema a peer cannot compile is `n/a`.
//! `JSON_PEERS_ROUNDS` (default 9) sets the rounds.

use std::collections::BTreeMap;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::Command;

use dataschema::{Guard, Registry, Schema};
use serde_json::Value;

#[path = "support/corpus.rs"]
mod corpus;
#[path = "support/timing.rs"]
mod timing;

/// One peer's figures on one schema: µs over the schema's instances.
#[derive(Default, Clone)]
struct Figures {
    eval: Option<f64>,
    full: Option<f64>,
    /// Instances (by index, valid ones first) whose verdict differs
    /// from their label.
    disagree: Vec<usize>,
    /// Why there are no figures.
    missing: Option<String>,
    /// How the peer had to be set up for this schema, when not as usual.
    note: Option<String>,
}

const PEERS: [&str; 6] = [
    "guard",
    "jsonschema",
    "jsonschema macro",
    "boon",
    "ajv",
    "blaze",
];

fn rounds() -> usize {
    std::env::var("JSON_PEERS_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(9)
}

fn disagreements(entry: &corpus::Entry, verdicts: impl Iterator<Item = bool>) -> Vec<usize> {
    let labels = entry
        .valid
        .iter()
        .map(|_| true)
        .chain(entry.invalid.iter().map(|_| false));
    labels
        .zip(verdicts)
        .enumerate()
        .filter(|(_, (label, verdict))| label != verdict)
        .map(|(i, _)| i)
        .collect()
}

fn rust_peers(entry: &corpus::Entry, rounds: usize) -> [Figures; 3] {
    let payloads: Vec<&Vec<u8>> = entry.payloads().collect();
    let values: Vec<Value> = payloads
        .iter()
        .map(|p| serde_json::from_slice(p).expect("corpus instances are JSON"))
        .collect();

    let urn = entry.urn.clone();
    let guard = Guard::new(
        Registry::embed([Schema::json(
            urn.parse().unwrap(),
            entry.schema_bytes.clone(),
        )])
        .unwrap(),
    );
    let bare = corpus::bare(&entry.schema);

    // boon: formats asserted, as the guard asserts them. Its regex engine
    // is the linear `regex` crate: a lookaround pattern does not compile.
    let boon = {
        let mut schemas = boon::Schemas::new();
        let mut compiler = boon::Compiler::new();
        compiler.enable_format_assertions();
        let location = format!("urn:corpus:{}", entry.name);
        compiler
            .add_resource(&location, entry.schema.clone())
            .map_err(|err| err.to_string())
            .and_then(|()| {
                compiler
                    .compile(&location, &mut schemas)
                    .map_err(|err| err.to_string())
            })
            .map(|index| (schemas, index))
    };

    let mut guard_row = Figures {
        disagree: disagreements(
            entry,
            payloads.iter().map(|p| guard.validate(&urn, p).is_ok()),
        ),
        ..Figures::default()
    };
    let mut bare_row = Figures {
        disagree: disagreements(entry, values.iter().map(|v| bare.is_valid(v))),
        ..Figures::default()
    };
    let mut boon_row = match &boon {
        Ok((schemas, index)) => Figures {
            disagree: disagreements(
                entry,
                values.iter().map(|v| schemas.validate(v, *index).is_ok()),
            ),
            ..Figures::default()
        },
        Err(err) => Figures {
            missing: Some(format!("does not compile: {}", first_line(err))),
            ..Figures::default()
        },
    };

    // Interleaved: a round of each peer in turn, three times, so that
    // drift on a loaded machine hits them all.
    let per = rounds.div_ceil(3);
    let best = |slot: &mut Option<f64>, t: f64| *slot = Some(slot.map_or(t, |s: f64| s.min(t)));
    for _ in 0..3 {
        let t = timing::fastest_us(per, || {
            payloads
                .iter()
                .filter(|p| guard.validate(black_box(&urn), black_box(p)).is_ok())
                .count()
        });
        best(&mut guard_row.full, t);
        let t = timing::fastest_us(per, || {
            values
                .iter()
                .filter(|v| bare.is_valid(black_box(v)))
                .count()
        });
        best(&mut bare_row.eval, t);
        let t = timing::fastest_us(per, || {
            payloads
                .iter()
                .filter(|p| {
                    let v: Value = serde_json::from_slice(black_box(p)).unwrap();
                    bare.is_valid(&v)
                })
                .count()
        });
        best(&mut bare_row.full, t);
        if let Ok((schemas, index)) = &boon {
            let t = timing::fastest_us(per, || {
                values
                    .iter()
                    .filter(|v| schemas.validate(black_box(v), *index).is_ok())
                    .count()
            });
            best(&mut boon_row.eval, t);
            let t = timing::fastest_us(per, || {
                payloads
                    .iter()
                    .filter(|p| {
                        let v: Value = serde_json::from_slice(black_box(p)).unwrap();
                        schemas.validate(&v, *index).is_ok()
                    })
                    .count()
            });
            best(&mut boon_row.full, t);
        }
    }
    [guard_row, bare_row, boon_row]
}

fn first_line(text: &str) -> String {
    let line = text.lines().next().unwrap_or_default();
    line.chars().take(80).collect()
}

/// `ajv`'s figures for every schema, from `benches/peers/ajv.mjs` run by
/// Node with the modules installed under `peers`.
fn ajv(peers: &Path, rounds: usize) -> BTreeMap<String, Figures> {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("benches/peers/ajv.mjs");
    let output = Command::new("node")
        .arg(&script)
        .arg(corpus::dir())
        .arg(rounds.to_string())
        .env("NODE_PATH", peers.join("node_modules"))
        .current_dir(peers)
        .output();
    let mut figures = BTreeMap::new();
    let output = match output {
        Ok(output) if output.status.success() => output,
        Ok(output) => {
            eprintln!("ajv: {}", String::from_utf8_lossy(&output.stderr));
            return figures;
        }
        Err(err) => {
            eprintln!("ajv: node: {err}");
            return figures;
        }
    };
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        let Ok(row) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let name = row["name"].as_str().unwrap_or_default().to_owned();
        let row = match row["error"].as_str() {
            Some(err) => Figures {
                missing: Some(format!("does not compile: {}", first_line(err))),
                ..Figures::default()
            },
            None => Figures {
                eval: row["eval_us"].as_f64(),
                full: row["full_us"].as_f64(),
                disagree: row["disagree"]
                    .as_array()
                    .map(|d| {
                        d.iter()
                            .filter_map(Value::as_u64)
                            .map(|i| i as usize)
                            .collect()
                    })
                    .unwrap_or_default(),
                missing: None,
                note: row["note"].as_str().map(first_line),
            },
        };
        figures.insert(name, row);
    }
    figures
}

/// The compile-time macro's figures for every schema (`jsonschema`
/// 0.60.2), from the JSON lines `benches/peers/macro` wrote into
/// `macro.jsonl` under `peers`, and per schema that version's run-time
/// validator's eval and full figures beside them.
fn macro_peer(peers: &Path) -> BTreeMap<String, (Figures, Option<(f64, f64)>)> {
    let path = peers.join("macro.jsonl");
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(err) => {
            eprintln!("jsonschema macro: {}: {err}", path.display());
            return BTreeMap::new();
        }
    };
    let indexes = |v: &Value| -> Vec<usize> {
        v.as_array()
            .map(|d| {
                d.iter()
                    .filter_map(Value::as_u64)
                    .map(|i| i as usize)
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut figures = BTreeMap::new();
    for line in text.lines() {
        let Ok(row) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let name = row["name"].as_str().unwrap_or_default().to_owned();
        let runtime = row["runtime_eval_us"]
            .as_f64()
            .zip(row["runtime_full_us"].as_f64());
        let mut note = None;
        let runtime_disagree = indexes(&row["runtime_disagree"]);
        if !runtime_disagree.is_empty() {
            note = Some(format!(
                "its run-time validator (0.60.2) disagrees with the labels too, on {runtime_disagree:?}"
            ));
        }
        let peer = Figures {
            eval: row["eval_us"].as_f64(),
            full: row["full_us"].as_f64(),
            disagree: indexes(&row["disagree"]),
            missing: None,
            note,
        };
        figures.insert(name, (peer, runtime));
    }
    figures
}

/// Blaze's figures on one schema: its CLI (`validate --benchmark --fast
/// --format-assertion`) over the instances as JSON Lines, the mean
/// evaluation time of each instance summed.
fn blaze(binary: &Path, entry: &corpus::Entry, rounds: usize, scratch: &Path) -> Figures {
    let schema = corpus::dir()
        .join("schemas")
        .join(format!("{}.json", entry.name));
    let lines = scratch.join(format!("{}.jsonl", entry.name));
    let mut text = Vec::new();
    for payload in entry.payloads() {
        text.extend_from_slice(payload);
        text.push(b'\n');
    }
    std::fs::write(&lines, text).expect("scratch file");
    let output = Command::new(binary)
        .args([
            "validate",
            "--benchmark",
            "--fast",
            "--format-assertion",
            "--continue",
        ])
        .arg("--loop")
        .arg((rounds * 100).to_string())
        .arg(&schema)
        .arg(&lines)
        .output();
    let output = match output {
        Ok(output) => output,
        Err(err) => {
            return Figures {
                missing: Some(format!("blaze: {err}")),
                ..Figures::default()
            }
        }
    };
    let text = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    let mut total = 0.0;
    // By instance: the CLI does not print them in order.
    let mut verdicts = vec![None; entry.valid.len() + entry.invalid.len()];
    for line in text.lines() {
        // `<file>[<n>]: PASS 2.208 +- 3.721 us (0.025)`, `n` from 1.
        let Some((head, rest)) = line.split_once("]: ") else {
            continue;
        };
        let Some(Ok(n)) = head.rsplit_once('[').map(|(_, n)| n.parse::<usize>()) else {
            continue;
        };
        let mut words = rest.split_whitespace();
        let verdict = match words.next() {
            Some("PASS") => true,
            Some("FAIL") => false,
            _ => continue,
        };
        let Some(Ok(mean)) = words.next().map(str::parse::<f64>) else {
            continue;
        };
        if let Some(slot) = n.checked_sub(1).and_then(|i| verdicts.get_mut(i)) {
            *slot = Some(verdict);
            total += mean;
        }
    }
    let verdicts: Option<Vec<bool>> = verdicts.into_iter().collect();
    let Some(verdicts) = verdicts else {
        return Figures {
            missing: Some(format!("blaze: {}", first_line(text.trim()))),
            ..Figures::default()
        };
    };
    Figures {
        eval: Some(total),
        full: None,
        disagree: disagreements(entry, verdicts.into_iter()),
        missing: None,
        note: None,
    }
}

fn cell(value: Option<f64>, base: f64) -> String {
    match value {
        Some(v) => format!("{v:.2} ({:.2})", v / base),
        None => "n/a".into(),
    }
}

fn main() {
    // `cargo bench` passes `--bench`; a filter is not taken.
    let rounds = rounds();
    let entries = corpus::load();
    let peers = std::env::var_os("DATASCHEMA_PEERS").map(PathBuf::from);
    let scratch = std::env::temp_dir().join(format!("json-peers-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).expect("scratch directory");
    let ajv = peers.as_deref().map(|p| ajv(p, rounds)).unwrap_or_default();
    let macros = peers.as_deref().map(macro_peer).unwrap_or_default();
    let blaze_binary = peers.as_deref().map(|p| {
        p.join("node_modules/@sourcemeta/jsonschema/build/github-releases")
            .join(match std::env::consts::ARCH {
                "aarch64" => "jsonschema-linux-arm64",
                _ => "jsonschema-linux-x86_64",
            })
    });

    let mut table: Vec<(String, [Figures; 6])> = Vec::new();
    // The macro against its own version's run-time validator: (eval, full)
    // log ratios and how many.
    let mut same_version = (0.0f64, 0.0f64, 0usize);
    for entry in &entries {
        let [guard, bare, boon] = rust_peers(entry, rounds);
        let ajv_row = ajv.get(&entry.name).cloned().unwrap_or_else(|| Figures {
            missing: Some("not run (DATASCHEMA_PEERS unset, or node failed)".into()),
            ..Figures::default()
        });
        let blaze_row = match &blaze_binary {
            Some(binary) => blaze(binary, entry, rounds, &scratch),
            None => Figures {
                missing: Some("not run (DATASCHEMA_PEERS unset)".into()),
                ..Figures::default()
            },
        };
        let macro_row = match macros.get(&entry.name) {
            Some((figures, runtime)) => {
                if let (Some((eval, full)), Some(m_eval), Some(m_full)) =
                    (runtime, figures.eval, figures.full)
                {
                    same_version.0 += (m_eval / eval).ln();
                    same_version.1 += (m_full / full).ln();
                    same_version.2 += 1;
                }
                figures.clone()
            }
            None => Figures {
                missing: Some("not run (no macro.jsonl under DATASCHEMA_PEERS)".into()),
                ..Figures::default()
            },
        };
        table.push((
            entry.name.clone(),
            [guard, bare, macro_row, boon, ajv_row, blaze_row],
        ));
    }
    let _ = std::fs::remove_dir_all(&scratch);

    println!("µs over each schema's instances (in brackets: over jsonschema's parse + evaluation)");
    println!(
        "| schema | n | guard full | jsonschema eval | jsonschema full | macro eval | macro full | boon eval | boon full | ajv eval | ajv full | blaze eval |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
    // Geometric means of the ratios, per column, over the schemas where
    // the column has a figure (how many, beside each).
    let mut logs = [(0.0f64, 0usize); 10];
    for ((name, row), entry) in table.iter().zip(&entries) {
        let base = row[1].full.expect("jsonschema always runs");
        let columns = [
            row[0].full,
            row[1].eval,
            row[1].full,
            row[2].eval,
            row[2].full,
            row[3].eval,
            row[3].full,
            row[4].eval,
            row[4].full,
            row[5].eval,
        ];
        println!(
            "| {name} | {} | {} |",
            entry.valid.len() + entry.invalid.len(),
            columns
                .iter()
                .map(|c| cell(*c, base))
                .collect::<Vec<_>>()
                .join(" | ")
        );
        for (log, c) in logs.iter_mut().zip(columns) {
            if let Some(c) = c {
                log.0 += (c / base).ln();
                log.1 += 1;
            }
        }
    }
    println!(
        "| geometric mean of the ratios (schemas) | | {} |",
        logs.iter()
            .map(|&(sum, n)| match n {
                0 => "n/a".to_owned(),
                n => format!("{:.3} ({n})", (sum / n as f64).exp()),
            })
            .collect::<Vec<_>>()
            .join(" | ")
    );
    if same_version.2 > 0 {
        let n = same_version.2 as f64;
        println!();
        println!(
            "the macro (jsonschema 0.60.2) over that version's run-time validator, same options, \
             geometric mean over {} schemas: eval {:.3}, full {:.3}",
            same_version.2,
            (same_version.0 / n).exp(),
            (same_version.1 / n).exp()
        );
    }
    println!();
    println!(
        "verdicts that differ from the instance's label (valid ones first, by index), \
         peers without figures, and how a peer had to be set up:"
    );
    for ((name, row), entry) in table.iter().zip(&entries) {
        for (peer, figures) in PEERS.iter().zip(row) {
            if let Some(note) = &figures.note {
                println!("- {name}, {peer}: {note}");
            }
            if let Some(why) = &figures.missing {
                println!("- {name}, {peer}: {why}");
            } else if !figures.disagree.is_empty() {
                let which: Vec<String> = figures
                    .disagree
                    .iter()
                    .map(|&i| {
                        if i < entry.valid.len() {
                            format!("valid #{i} refused")
                        } else {
                            format!("invalid #{} accepted", i - entry.valid.len())
                        }
                    })
                    .collect();
                println!("- {name}, {peer}: {}", which.join(", "));
            }
        }
    }
}
