//! The `dataschema` command-line tool (feature `cli`).
//!
//! ```text
//! dataschema check DIR                                   what `cargo build` checks, per name
//! dataschema lock DIR                                    record each URN's digest in DIR/dataschema.lock
//! dataschema validate --schemas DIR DATASCHEMA FILE      exit 0 valid, 1 invalid, 2 unvalidated
//! dataschema diff OLD NEW                                every change; exit 0 compatible, 1 breaking, 2 bad input
//! dataschema compat --mode MODE DIR NAME                 newest version of NAME against the earlier ones
//! ```

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use dataschema::compat::Compatibility;
use dataschema::{build, Guard, Outcome, Registry, Schema};

#[derive(Parser)]
#[command(
    name = "dataschema",
    version,
    about = "An offline-first schema registry"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check a schemas folder as `cargo build` does: names, manifest,
    /// compilation, lock, compatibility. Exit code: 0 no problem, 1
    /// problems (each printed), 2 not a schemas folder.
    Check {
        /// The schemas folder.
        dir: PathBuf,
    },
    /// Record the digest of every schema of a folder in its dataschema.lock
    /// (refused when a locked URN changed).
    Lock {
        /// The schemas folder.
        dir: PathBuf,
    },
    /// Validate one payload against the schema its dataschema URN names.
    /// Exit code: 0 valid, 1 invalid, 2 unvalidated (with the reason).
    Validate {
        /// The schemas folder to resolve URNs from.
        #[arg(long)]
        schemas: PathBuf,
        /// The message's dataschema (a schema URN).
        dataschema: String,
        /// The payload file (`-` for standard input).
        file: PathBuf,
    },
    /// Print every change between two versions of a schema, breaking ones
    /// marked. Files: `.json` (JSON Schema), `.proto` (compiled with its
    /// folder as the include path) or `.binpb`/`.pb` (a FileDescriptorSet).
    /// Exit code: 0 backward compatible, 1 breaking, 2 bad input.
    Diff {
        /// The old version.
        old: PathBuf,
        /// The new version.
        new: PathBuf,
    },
    /// Check the newest version of NAME in DIR against the earlier ones.
    /// Exit code: 0 compatible, 1 incompatible, 2 bad input.
    Compat {
        /// none, backward, backward_transitive, forward, forward_transitive,
        /// full or full_transitive.
        #[arg(long)]
        mode: Compatibility,
        /// The schemas folder.
        dir: PathBuf,
        /// The schema name (`orders.created`).
        name: String,
    },
}

/// Exit code for bad input and unvalidated payloads.
const EXIT_UNVALIDATED: u8 = 2;

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Check { dir } | Command::Lock { dir }
            if !dir.join(build::MANIFEST_FILE).is_file() =>
        {
            eprintln!(
                "{}: no {} here: not a schemas folder",
                dir.display(),
                build::MANIFEST_FILE
            );
            ExitCode::from(EXIT_UNVALIDATED)
        }
        Command::Check { dir } => match build::check(&dir) {
            Ok(checked) => {
                for (name, mode) in &checked.modes {
                    let versions: Vec<String> = checked
                        .sources
                        .iter()
                        .filter(|source| source.schema.urn().name() == name)
                        .map(|source| format!("v{}", source.schema.urn().version()))
                        .collect();
                    println!("ok  {name}  {}  ({mode}: compatible)", versions.join(", "));
                }
                for urn in &checked.unlocked {
                    println!(
                        "note: {urn} is not in the lock yet (run `dataschema lock {}`)",
                        dir.display()
                    );
                }
                if !checked.has_lock {
                    println!("note: no lock: run `dataschema lock {}`", dir.display());
                }
                println!("{} schema(s) checked, no problems", checked.sources.len());
                ExitCode::SUCCESS
            }
            Err(err) => {
                eprintln!("{err}");
                ExitCode::FAILURE
            }
        },
        Command::Lock { dir } => match build::lock(&dir) {
            Ok(added) => {
                for urn in &added {
                    println!("locked {urn}");
                }
                println!(
                    "{} URN(s) newly locked in {}",
                    added.len(),
                    dir.join(build::LOCK_FILE).display()
                );
                ExitCode::SUCCESS
            }
            Err(err) => {
                eprintln!("{err}");
                ExitCode::FAILURE
            }
        },
        Command::Validate {
            schemas,
            dataschema,
            file,
        } => validate(&schemas, &dataschema, &file),
        Command::Diff { old, new } => diff(&old, &new),
        Command::Compat { mode, dir, name } => compat(mode, &dir, &name),
    }
}

/// Exit code for an incompatible or breaking change.
const EXIT_INCOMPATIBLE: u8 = 1;

fn diff(old: &std::path::Path, new: &std::path::Path) -> ExitCode {
    let (old, new) = match (read_schema(old), read_schema(new)) {
        (Ok(old), Ok(new)) => (old, new),
        (Err(err), _) | (_, Err(err)) => {
            eprintln!("{err}");
            return ExitCode::from(EXIT_UNVALIDATED);
        }
    };
    if old.language() != new.language() {
        eprintln!(
            "cannot diff a {} schema against a {} schema",
            old.language(),
            new.language()
        );
        return ExitCode::from(EXIT_UNVALIDATED);
    }
    let diff = match dataschema::compat::diff(&old, &new) {
        Ok(diff) => diff,
        Err(err) => {
            // The files have a placeholder URN: name the file's role
            // (`the old schema ...`) and the cause, not the URN.
            let cause: &(dyn std::error::Error + 'static) = match &err {
                dataschema::compat::CompatError::Unusable { source, .. } => source.as_ref(),
                other => other,
            };
            eprintln!("{}", dataschema::Chain::of(cause));
            return ExitCode::from(EXIT_UNVALIDATED);
        }
    };
    let (report, compatible) = (diff.to_string(), diff.is_backward_compatible());
    println!("{report}");
    if compatible {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_INCOMPATIBLE)
    }
}

/// A schema file on its own: `.json`, `.proto` or a descriptor set.
fn read_schema(path: &std::path::Path) -> Result<Schema, String> {
    let placeholder: dataschema::Urn = "urn:cli:schema:file:1"
        .parse()
        .map_err(|e| format!("{e}"))?;
    if !path.exists() {
        return Err(format!("{}: no such file", path.display()));
    }
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or_default();
    match extension {
        "json" => std::fs::read(path)
            .map(|bytes| Schema::json(placeholder, bytes))
            .map_err(|err| format!("cannot read {}: {err}", path.display())),
        "proto" => build::compile_proto(path).map(|bytes| Schema::protobuf(placeholder, bytes, "")),
        "binpb" | "pb" | "desc" => std::fs::read(path)
            .map(|bytes| Schema::protobuf(placeholder, bytes, ""))
            .map_err(|err| format!("cannot read {}: {err}", path.display())),
        _ => Err(format!(
            "{}: expected a .json, .proto or .binpb file",
            path.display()
        )),
    }
}

fn compat(mode: Compatibility, dir: &std::path::Path, name: &str) -> ExitCode {
    let checked = match build::read(dir) {
        Ok(checked) => checked,
        Err(err) => {
            eprintln!("{err}");
            return ExitCode::from(EXIT_UNVALIDATED);
        }
    };
    let mut versions: Vec<Schema> = checked
        .schemas()
        .into_iter()
        .filter(|schema| schema.urn().name() == name)
        .collect();
    let Some(newest) = versions.pop() else {
        eprintln!("no schema named {name:?} in {}", dir.display());
        return ExitCode::from(EXIT_UNVALIDATED);
    };
    match dataschema::compat::check(mode, &newest, &versions) {
        Ok(report) => {
            println!("{}: {report}", newest.urn());
            if report.is_compatible() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(EXIT_INCOMPATIBLE)
            }
        }
        Err(err) => {
            eprintln!("{}", dataschema::Chain::of(&err));
            ExitCode::from(EXIT_UNVALIDATED)
        }
    }
}

fn validate(schemas: &std::path::Path, dataschema: &str, file: &std::path::Path) -> ExitCode {
    let registry = match build::load(schemas).map(Registry::embed) {
        Ok(Ok(registry)) => registry,
        Ok(Err(err)) => return bad_input(&err),
        Err(err) => return bad_input(&err),
    };
    let payload = if file.as_os_str() == "-" {
        let mut buf = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut buf).map(|_| buf)
    } else {
        std::fs::read(file)
    };
    let payload = match payload {
        Ok(payload) => payload,
        Err(err) => {
            eprintln!("cannot read {}: {err}", file.display());
            return ExitCode::from(EXIT_UNVALIDATED);
        }
    };
    match Guard::new(registry).validate(dataschema, &payload) {
        Ok(Outcome::Validated) => {
            println!("valid: {dataschema}");
            ExitCode::SUCCESS
        }
        Ok(Outcome::NoSchema) => {
            println!("unvalidated: no dataschema given");
            ExitCode::from(EXIT_UNVALIDATED)
        }
        Ok(Outcome::Unvalidated(unvalidated)) => {
            println!("{unvalidated}");
            ExitCode::from(EXIT_UNVALIDATED)
        }
        Ok(other) => {
            println!("unvalidated: {other:?}");
            ExitCode::from(EXIT_UNVALIDATED)
        }
        Err(invalid) => {
            println!("{invalid}");
            ExitCode::FAILURE
        }
    }
}

fn bad_input(err: &(dyn std::error::Error + 'static)) -> ExitCode {
    eprintln!("{}", dataschema::Chain::of(err));
    ExitCode::from(EXIT_UNVALIDATED)
}
