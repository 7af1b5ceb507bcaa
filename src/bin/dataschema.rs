//! The `dataschema` command-line tool (feature `cli`).
//!
//! ```text
//! dataschema check DIR                                   what `cargo build` checks, readably
//! dataschema lock DIR                                    record each URN's digest in DIR/dataschema.lock
//! dataschema validate --schemas DIR DATASCHEMA FILE      exit 0 valid, 1 invalid, 2 unvalidated
//! ```

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use dataschema::{build, Guard, Outcome, Registry};

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
    /// compilation, lock.
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
}

/// Exit code for bad input and unvalidated payloads.
const EXIT_UNVALIDATED: u8 = 2;

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Check { dir } => match build::check(&dir) {
            Ok(checked) => {
                for source in &checked.sources {
                    println!("ok  {}  {}", source.schema.urn, source.path.display());
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
            println!(
                "unvalidated ({}): {}",
                unvalidated.reason(),
                unvalidated.error()
            );
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

fn bad_input(err: &dyn std::error::Error) -> ExitCode {
    eprintln!("{err}");
    ExitCode::from(EXIT_UNVALIDATED)
}
