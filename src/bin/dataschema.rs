//! The `dataschema` command-line tool (feature `cli`).
//!
//! ```text
//! dataschema check DIR                      what `cargo build` checks, per name
//!     exit 0 no problem, 1 problems (each printed), 2 not a schemas folder
//! dataschema lock DIR                       record each URN's digest in DIR/dataschema.lock
//!     exit 0 locked, 1 refused (a locked URN changed), 2 not a schemas folder
//! dataschema publish --registry URL [--token-file FILE] [--mode MODE] DIR
//!     publish every schema (versions in order, $ref'd schemas first; a .proto's
//!     folder imports under their import paths), record ids in the lock
//!     exit 0 published or already published, 1 refused (by the registry, the folder's
//!     check, or a lock contradiction), 2 bad input (not a schemas folder, bad URL or
//!     token file), 3 registry unreachable or not answering as dataschema's native API
//! dataschema validate [--schemas DIR] [--registry URL] DATASCHEMA FILE
//! dataschema validate --framed [--schemas DIR] [--registry URL] FILE
//!     (FILE `-` = standard input; at least one of --schemas and --registry)
//!     exit 0 valid, 1 invalid, 2 unvalidated (the reason printed), 66 (EX_NOINPUT)
//!     could not run: the schemas folder does not load or the payload cannot be read
//! dataschema frame [--schemas DIR] [--registry URL] [--message NAME] URN FILE
//!     validate the payload and write its Confluent frame (id from the folder's lock,
//!     else the registry) to standard output (FILE `-` = standard input)
//!     exit 0 framed, 1 invalid (each violation printed), 2 not framed (the reason
//!     printed: not_found, no_id, unusable, no_message, ...), 3 the registry could not
//!     be asked (retry later), 66 could not run, 64 a usage error
//! dataschema resolve [--schemas DIR] [--registry URL] [--write-back] WRITER READER FILE
//! dataschema resolve --framed [--schemas DIR] [--registry URL] READER FILE
//!     the payload WRITER wrote, read as READER (the writer from the frame's id with
//!     --framed), or with --write-back a READER payload written back as WRITER, to
//!     standard output; exit 0 resolved, 1 invalid (the violations printed), 2 not
//!     resolved (the reason printed: unresolvable, not_found, ...), 66 could not run,
//!     64 a usage error
//! dataschema diff OLD NEW                   every change, breaking ones marked (every language)
//!     exit 0 compatible, 1 breaking, 2 bad input
//! dataschema compat [--mode MODE] DIR NAME  newest version of NAME against the earlier ones
//!     (the manifest's mode for NAME without --mode)
//!     exit 0 compatible, 1 incompatible, 2 bad input
//! dataschema import --from URL [--from-token-file FILE | --from-user-info-file FILE]
//!     --to URL --token-file FILE
//!     [--subject-prefix PREFIX] [--copy-settings]
//!     copy a Confluent-compatible registry (every subject, version, id; its levels
//!     with --copy-settings) into another through Confluent's REST API, in IMPORT
//!     mode, each subject's own mode restored, idempotently
//!     exit 0 imported, 1 refused by the target (an id held by other bytes, a
//!     read-only subject), 2 bad input, 3 a registry unreachable or not answering
//!     as Confluent's API
//! dataschema serve [--store memory|sqlite:PATH|postgres://...] [--listen ADDR] [--namespace NID]
//!     (--token-file FILE | --read-only) [--max-schema-bytes N] [--max-body-bytes N]
//!     [--request-timeout SECS] [--header-read-timeout SECS] [--concurrency N]
//!     [--body-read-timeout SECS] [--body-buffer-bytes N] [--check-concurrency N]
//!     [--compile-budget-bytes N] [--compile-wait SECS] [--ready-timeout SECS]
//!     [--metrics ADDR] [--no-ui]
//!     exit 0 stopped (SIGTERM, ctrl-c), 1 failed while serving, 2 bad configuration
//!
//! dataschema completions bash|zsh|fish      the shell's completion script
//! dataschema man [--out-dir DIR]            the man page (one per command with DIR)
//!
//! check, compat, diff, validate, resolve and import take --format json: one
//! JSON document on standard output (docs/guide/cli-json.md), same exit codes
//!
//! every command: exit 64 (EX_USAGE) on a usage error (an unknown flag, a
//! missing or extra argument); --help and --version exit 0
//! ```

use std::ffi::OsString;
use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};
use dataschema::compat::Compatibility;
use dataschema::{build, FrameReason, Framer, Guard, Outcome, Registry, Schema};
use report::Format;
use serde_json::json;

// Not under src/bin/ itself, where cargo would take it for a binary.
#[path = "dataschema/import.rs"]
mod import;
#[path = "dataschema/publish.rs"]
mod publish;
#[path = "dataschema/report.rs"]
mod report;
#[path = "dataschema/rules.rs"]
mod rules;
#[path = "dataschema/shown.rs"]
mod shown;

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
        /// text (the default) or json (docs/guide/cli-json.md).
        #[arg(long, value_enum, default_value_t)]
        format: Format,
        /// The schemas folder.
        dir: PathBuf,
    },
    /// Record the digest of every schema of a folder in its dataschema.lock
    /// (refused when a locked URN changed).
    Lock {
        /// The schemas folder.
        dir: PathBuf,
    },
    /// Publish every schema of a folder to a registry (`dataschema serve`'s
    /// native API), each name's versions in order and `$ref`'d schemas
    /// first, and record each URN's registry id in the folder's
    /// dataschema.lock. A `.proto` schema's imports from the folder are
    /// registered first, each under its import path (Confluent's default
    /// subject for an import), and become its references. Idempotent: what
    /// is published already is left as it is. Exit code: 0 published (or already), 1 refused (by the
    /// registry: immutable, incompatible, unusable, credential; by the
    /// folder's check; or the registry contradicts the lock), 2 bad input
    /// (not a schemas folder, a bad URL or token file), 3 the registry
    /// cannot be reached or does not answer as dataschema's native API.
    Publish {
        /// The registry's base URL (`http://` or `https://`).
        #[arg(long, value_name = "URL")]
        registry: String,
        /// A file holding the registry's publish token (sent as a bearer
        /// token, never printed).
        #[arg(long, value_name = "FILE")]
        token_file: Option<PathBuf>,
        /// A compatibility mode the registry checks each schema under too,
        /// beside the level it has for the name (which always holds: a
        /// publish asks for more checking, never less): none, backward,
        /// backward_transitive, forward, forward_transitive, full or
        /// full_transitive.
        #[arg(long)]
        mode: Option<Compatibility>,
        /// The schemas folder.
        dir: PathBuf,
    },
    /// Validate one payload against the schema its dataschema URN names
    /// (or, with --framed, a Confluent-framed payload against the schema
    /// its id names), from a schemas folder, a registry, or both (the
    /// folder first). Exit code: 0 valid, 1 invalid, 2 unvalidated (with
    /// the reason), 66 the folder does not load or the payload cannot be
    /// read, 64 a usage error (a --registry that is not an http(s) URL too).
    #[command(
        group(
            clap::ArgGroup::new("source")
                .args(["schemas", "registry"])
                .multiple(true)
                .required(true)
        ),
        override_usage = "dataschema validate [--schemas DIR] [--registry URL] DATASCHEMA FILE\n       \
                          dataschema validate --framed [--schemas DIR] [--registry URL] FILE"
    )]
    Validate {
        /// The schemas folder to resolve URNs (and, with --framed, the ids
        /// its lock records) from.
        #[arg(long, value_name = "DIR")]
        schemas: Option<PathBuf>,
        /// A registry (`dataschema serve`'s native API) asked for what the
        /// folder does not hold.
        #[arg(long, value_name = "URL")]
        registry: Option<String>,
        /// The payload is Confluent-framed (magic byte 0, a 4-byte schema
        /// id, for protobuf the message indexes): give FILE alone.
        #[arg(long)]
        framed: bool,
        /// text (the default) or json (docs/guide/cli-json.md).
        #[arg(long, value_enum, default_value_t)]
        format: Format,
        /// DATASCHEMA FILE: the message's dataschema (a schema URN) and the
        /// payload file (`-` for standard input); with --framed, FILE alone.
        #[arg(value_name = "ARGS", num_args = 1..=2, required = true)]
        args: Vec<OsString>,
    },
    /// Read a payload written with WRITER as READER (the version a
    /// consumer codes against), or with --write-back a READER payload
    /// back in WRITER's layout, and write it to standard output: fields by
    /// name and aliases, defaults, widening (docs/resolution.md). Exit
    /// code: 0 resolved, 1 invalid (the payload fails its schema, or holds
    /// a value the other version cannot), 2 not resolved (the reason
    /// printed: unresolvable, not_found, ...), 66 the folder does not load
    /// or the payload cannot be read, 64 a usage error.
    #[command(
        group(
            clap::ArgGroup::new("source")
                .args(["schemas", "registry"])
                .multiple(true)
                .required(true)
        ),
        override_usage = "dataschema resolve [--schemas DIR] [--registry URL] [--write-back] WRITER READER FILE\n       \
                          dataschema resolve --framed [--schemas DIR] [--registry URL] READER FILE"
    )]
    Resolve {
        /// The schemas folder (its lock's ids name a frame's writer).
        #[arg(long, value_name = "DIR")]
        schemas: Option<PathBuf>,
        /// A registry (`dataschema serve`'s native API) asked for what the
        /// folder does not hold.
        #[arg(long, value_name = "URL")]
        registry: Option<String>,
        /// The payload is a Confluent frame whose id names the writer: give
        /// READER FILE.
        #[arg(long, conflicts_with = "write_back")]
        framed: bool,
        /// FILE holds a READER payload: write it back as WRITER.
        #[arg(long)]
        write_back: bool,
        /// text (the default: the payload itself) or json
        /// (docs/guide/cli-json.md: the payload in base64).
        #[arg(long, value_enum, default_value_t)]
        format: Format,
        /// WRITER READER FILE (URNs, then the payload file, `-` for
        /// standard input); with --framed, READER FILE.
        #[arg(value_name = "ARGS", num_args = 2..=3, required = true)]
        args: Vec<OsString>,
    },
    /// Validate a payload against the schema URN names and write its
    /// Confluent frame to standard output: magic byte 0, the schema id
    /// (from the folder's lock, else the registry), for protobuf the
    /// message indexes, then the payload. Exit code: 0 framed, 1 invalid
    /// (each violation printed), 2 not framed (the reason printed:
    /// not_found, no_id, unusable, no_message, ...), 3 the registry could
    /// not be asked (retry later), 66 the folder does not load or the
    /// payload cannot be read, 64 a usage error.
    #[command(group(
        clap::ArgGroup::new("source")
            .args(["schemas", "registry"])
            .multiple(true)
            .required(true)
    ))]
    Frame {
        /// The schemas folder (its lock's `[ids]` give the ids, offline).
        #[arg(long, value_name = "DIR")]
        schemas: Option<PathBuf>,
        /// A registry (`dataschema serve`'s native API) asked for what the
        /// folder does not hold, and for ids its lock lacks.
        #[arg(long, value_name = "URL")]
        registry: Option<String>,
        /// Protobuf: the full name of the message the payload is (default:
        /// the schema's root).
        #[arg(long, value_name = "NAME")]
        message: Option<String>,
        /// The schema's URN.
        urn: dataschema::Urn,
        /// The payload file (`-` for standard input).
        file: PathBuf,
    },
    /// Print every change between two versions of a schema, breaking ones
    /// marked. Files: `.json` (JSON Schema), `.avsc` (Avro), `.proto`
    /// (compiled with its folder as the include path) or `.binpb`/`.pb` (a
    /// FileDescriptorSet).
    /// Exit code: 0 backward compatible, 1 breaking, 2 bad input.
    Diff {
        /// text (the default) or json (docs/guide/cli-json.md).
        #[arg(long, value_enum, default_value_t)]
        format: Format,
        /// The old version.
        old: PathBuf,
        /// The new version.
        new: PathBuf,
    },
    /// Check the newest version of NAME in DIR against the earlier ones,
    /// under --mode, else the mode the folder's manifest gives NAME.
    /// Exit code: 0 compatible, 1 incompatible, 2 bad input.
    Compat {
        /// none, backward, backward_transitive, forward, forward_transitive,
        /// full or full_transitive (default: the manifest's mode for NAME,
        /// `compatibility_overrides` then `compatibility`).
        #[arg(long)]
        mode: Option<Compatibility>,
        /// text (the default) or json (docs/guide/cli-json.md).
        #[arg(long, value_enum, default_value_t)]
        format: Format,
        /// The schemas folder.
        dir: PathBuf,
        /// The schema name (`orders.created`).
        name: String,
    },
    /// Copy a running Confluent-compatible registry (every subject, its
    /// versions soft-deleted ones included, their ids; the compatibility
    /// levels with --copy-settings) into another (`dataschema serve`)
    /// through Confluent's REST API, each subject in IMPORT mode while it
    /// is copied, then in its own mode again: ids and versions are kept.
    /// A subject read-only on the target is refused, nothing written to
    /// it. Idempotent. Exit code: 0 imported, 1 refused by the target (an
    /// id it holds with other bytes, a schema it does not take, a
    /// read-only subject), 2 bad input, 3 a registry cannot be reached or
    /// does not answer as Confluent's API.
    Import {
        /// The source registry's base URL.
        #[arg(long, value_name = "URL")]
        from: String,
        /// A file holding a bearer token for the source, if it needs one.
        #[arg(long, value_name = "FILE")]
        from_token_file: Option<PathBuf>,
        /// A file holding USER:PASSWORD for the source's HTTP Basic auth
        /// (Confluent's `basic.auth.user.info`: Confluent Cloud's API key
        /// and secret).
        #[arg(long, value_name = "FILE", conflicts_with = "from_token_file")]
        from_user_info_file: Option<PathBuf>,
        /// The target registry's base URL (a `dataschema serve`).
        #[arg(long, value_name = "URL")]
        to: String,
        /// A file holding the target's publish token.
        #[arg(long, value_name = "FILE")]
        token_file: PathBuf,
        /// Only the subjects starting with this.
        #[arg(long, value_name = "PREFIX")]
        subject_prefix: Option<String>,
        /// Also copy the source's compatibility levels (each subject's,
        /// and without --subject-prefix the global one) over the
        /// target's. Without it the target's settings are left as they
        /// are. Modes are never copied: each subject gets its own back.
        #[arg(long)]
        copy_settings: bool,
        /// text (the default) or json (docs/guide/cli-json.md).
        #[arg(long, value_enum, default_value_t)]
        format: Format,
    },
    /// Print a shell's completion script for dataschema to standard
    /// output: `dataschema completions bash > /etc/bash_completion.d/dataschema`
    /// (zsh: a file `_dataschema` in a folder of `$fpath`; fish:
    /// `~/.config/fish/completions/dataschema.fish`).
    Completions {
        /// bash, zsh or fish.
        shell: Shell,
    },
    /// Write dataschema's man page (roff) to standard output, or with
    /// --out-dir the page of every command (`dataschema.1`,
    /// `dataschema-check.1`, ...) into DIR: `dataschema man | man -l -`.
    Man {
        /// Write one page per command into this folder.
        #[arg(long, value_name = "DIR")]
        out_dir: Option<PathBuf>,
    },
    /// Run the registry server: the native API and the Confluent Schema
    /// Registry API (see `dataschema::server`). Stops on SIGTERM or
    /// ctrl-c after finishing the requests in flight. Logs one line per
    /// request to standard error (`RUST_LOG` filters, default `info`).
    Serve(Box<Serve>),
}

#[derive(clap::Args)]
struct Serve {
    /// Where schemas are kept: `sqlite:PATH` (one file, created on first
    /// start; the default is `dataschema.db` in the working directory),
    /// `postgres://...` (several replicas over one database), or `memory`
    /// (this process only, lost at exit: for trying the server out).
    #[arg(long, default_value = "sqlite:dataschema.db")]
    store: String,
    /// The address to listen on (8081 is Confluent Schema Registry's port).
    #[arg(long, default_value = "127.0.0.1:8081")]
    listen: std::net::SocketAddr,
    /// The namespace (URN NID) of Confluent subjects: subject S version V is
    /// urn:NAMESPACE:schema:S:V.
    #[arg(long, default_value = "default")]
    namespace: String,
    /// A file holding the publish credential (a bearer token, or the
    /// password of HTTP Basic auth). Required unless --read-only.
    #[arg(long)]
    token_file: Option<PathBuf>,
    /// Serve reads only: every write is refused, no credential needed.
    #[arg(long)]
    read_only: bool,
    /// The largest schema published, in bytes (default 1 MiB).
    #[arg(long)]
    max_schema_bytes: Option<usize>,
    /// The largest request body, in bytes (default 2 MiB + 64 KiB).
    #[arg(long)]
    max_body_bytes: Option<usize>,
    /// How long one request may take, in seconds (default 30).
    #[arg(long)]
    request_timeout: Option<f64>,
    /// How long a connection may take to send its headers, in seconds
    /// (default 10).
    #[arg(long)]
    header_read_timeout: Option<f64>,
    /// How many requests are handled at once (default 256).
    #[arg(long)]
    concurrency: Option<usize>,
    /// How long a client may take to send a request's body, in seconds
    /// (default 10). Bodies are read before a request takes a slot.
    #[arg(long)]
    body_read_timeout: Option<f64>,
    /// How many bytes of request bodies are held at once (default 256
    /// MiB); the rest wait for room, within the body read timeout.
    #[arg(long)]
    body_buffer_bytes: Option<usize>,
    /// How many anonymous requests compiling the schema they send
    /// (compatibility tests, lookups, reads in another format) run at
    /// once, apart from the other requests (default 4): each costs tens
    /// of times its schema's size in memory while it runs.
    #[arg(long)]
    check_concurrency: Option<usize>,
    /// How many bytes of request bodies those requests compile at once
    /// (default: the schema cap): each takes its body's bytes, at least a
    /// --check-concurrency-th, so a schema at the cap compiles alone.
    #[arg(long)]
    compile_budget_bytes: Option<usize>,
    /// How long such a request waits for its share of the compile budget,
    /// in seconds (default 10), before it is answered 429.
    #[arg(long)]
    compile_wait: Option<f64>,
    /// How long /readyz waits for the store, in seconds (default 2).
    #[arg(long)]
    ready_timeout: Option<f64>,
    /// Serve the server's metrics in Prometheus's text format at
    /// http://ADDR/metrics (its second line on standard output names the
    /// address: `metrics on http://ADDR/metrics`).
    #[arg(long, value_name = "ADDR")]
    metrics: Option<std::net::SocketAddr>,
    /// Do not serve the web console (served by default at /ui/: browse
    /// subjects, versions and diffs, test a candidate's compatibility;
    /// it only reads).
    #[arg(long)]
    no_ui: bool,
}

/// The shells `dataschema completions` writes a script for.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum Shell {
    Bash,
    Zsh,
    Fish,
}

/// Exit code for bad input and unvalidated payloads.
const EXIT_UNVALIDATED: u8 = 2;

/// Exit code of a usage error (sysexits' `EX_USAGE`), for every command:
/// never 2, which `validate` answers for an unvalidated payload.
const EXIT_USAGE: u8 = 64;

/// A usage error of `validate`, with its usage line.
fn validate_usage_error(kind: clap::error::ErrorKind, message: &str) -> clap::Error {
    let mut command = Cli::command();
    command.build();
    match command.find_subcommand_mut("validate") {
        Some(validate) => validate.error(kind, message),
        None => command.error(kind, message),
    }
}

/// Prints a usage error (or the help or version asked for) and answers
/// its exit code: 64 for an error, 0 for `--help` and `--version`.
fn usage(err: &clap::Error) -> ExitCode {
    let _ = err.print();
    if err.use_stderr() {
        ExitCode::from(EXIT_USAGE)
    } else {
        ExitCode::SUCCESS
    }
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => return usage(&err),
    };
    match cli.command {
        Command::Check { dir, format } => check(&dir, format),
        Command::Lock { dir } if !dir.join(build::MANIFEST_FILE).is_file() => {
            eprintln!("{}", not_a_folder(&dir));
            ExitCode::from(EXIT_UNVALIDATED)
        }
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
        Command::Publish {
            registry,
            token_file,
            mode,
            dir,
        } => ExitCode::from(publish::run(&publish::Args {
            registry,
            token_file,
            mode,
            dir,
        })),
        Command::Validate {
            schemas,
            registry,
            framed,
            format,
            args,
        } => {
            let (dataschema, file) = match (framed, &args[..]) {
                (false, [dataschema, file]) => (Some(dataschema), file),
                (true, [file]) => (None, file),
                (false, _) => {
                    return usage(&validate_usage_error(
                        clap::error::ErrorKind::MissingRequiredArgument,
                        "validate needs DATASCHEMA FILE (or --framed FILE)",
                    ))
                }
                (true, _) => {
                    return usage(&validate_usage_error(
                        clap::error::ErrorKind::TooManyValues,
                        "validate --framed takes FILE alone: the schema id is in the frame",
                    ))
                }
            };
            let dataschema = match dataschema.map(|d| d.to_str()) {
                Some(Some(text)) => Some(text),
                Some(None) => {
                    return usage(&validate_usage_error(
                        clap::error::ErrorKind::InvalidUtf8,
                        "the DATASCHEMA argument is not UTF-8",
                    ))
                }
                None => None,
            };
            validate(
                schemas.as_deref(),
                registry.as_deref(),
                dataschema,
                std::path::Path::new(file),
                format,
            )
        }
        Command::Resolve {
            schemas,
            registry,
            framed,
            write_back,
            format,
            args,
        } => {
            let text: Option<Vec<&str>> = args.iter().map(|a| a.to_str()).collect();
            let Some(text) = text else {
                eprintln!("resolve: the arguments are not UTF-8");
                return ExitCode::from(EXIT_USAGE);
            };
            let (writer, reader, file) = match (framed, &text[..]) {
                (false, [w, r, f]) => (Some(*w), *r, *f),
                (true, [r, f]) => (None, *r, *f),
                _ => {
                    eprintln!("resolve needs WRITER READER FILE (or --framed READER FILE)");
                    return ExitCode::from(EXIT_USAGE);
                }
            };
            resolve(
                &Resolve {
                    schemas: schemas.as_deref(),
                    registry: registry.as_deref(),
                    writer,
                    reader,
                    write_back,
                    format,
                },
                std::path::Path::new(file),
            )
        }
        Command::Frame {
            schemas,
            registry,
            message,
            urn,
            file,
        } => frame(
            schemas.as_deref(),
            registry.as_deref(),
            message.as_deref(),
            &urn,
            &file,
        ),
        Command::Diff { old, new, format } => diff(&old, &new, format),
        Command::Compat {
            mode,
            dir,
            name,
            format,
        } => compat(mode, &dir, &name, format),
        Command::Import {
            from,
            from_token_file,
            from_user_info_file,
            to,
            token_file,
            subject_prefix,
            copy_settings,
            format,
        } => ExitCode::from(import::run(&import::Args {
            from,
            from_token_file,
            from_user_info_file,
            to,
            token_file,
            subject_prefix,
            copy_settings,
            format,
        })),
        Command::Completions { shell } => completions(shell),
        Command::Man { out_dir } => man(out_dir.as_deref()),
        Command::Serve(args) => serve(*args),
    }
}

/// `DIR: no dataschema.toml here: not a schemas folder`.
fn not_a_folder(dir: &std::path::Path) -> String {
    format!(
        "{}: no {} here: not a schemas folder",
        dir.display(),
        build::MANIFEST_FILE
    )
}

fn check(dir: &std::path::Path, format: Format) -> ExitCode {
    if !dir.join(build::MANIFEST_FILE).is_file() {
        report::error(format, "check", &not_a_folder(dir));
        return ExitCode::from(EXIT_UNVALIDATED);
    }
    let checked = match build::check(dir) {
        Ok(checked) => checked,
        Err(err) if format.json() => {
            let problems: Vec<serde_json::Value> = err
                .diagnostics()
                .iter()
                .map(|d| {
                    json!({
                        "kind": report::snake(&format!("{:?}", d.kind())),
                        "path": d.path().display().to_string(),
                        "message": d.message(),
                        "report": d.report().map(report::compat_report),
                    })
                })
                .collect();
            report::emit("check", json!({ "ok": false, "problems": problems }));
            return ExitCode::FAILURE;
        }
        Err(err) => {
            eprintln!("{err}");
            return ExitCode::FAILURE;
        }
    };
    let versions = |name: &str| -> Vec<u32> {
        checked
            .sources
            .iter()
            .filter(|source| source.schema.urn().name() == name)
            .map(|source| source.schema.urn().version())
            .collect()
    };
    if format.json() {
        let names: Vec<serde_json::Value> = checked
            .modes
            .iter()
            .map(|(name, mode)| json!({"name": name, "mode": mode.as_str(), "versions": versions(name)}))
            .collect();
        let unlocked: Vec<String> = checked.unlocked.iter().map(ToString::to_string).collect();
        report::emit(
            "check",
            json!({
                "ok": true,
                "schemas": checked.sources.len(),
                "names": names,
                "has_lock": checked.has_lock,
                "unlocked": unlocked,
                "problems": [],
            }),
        );
        return ExitCode::SUCCESS;
    }
    for (name, mode) in &checked.modes {
        let versions: Vec<String> = versions(name).iter().map(|v| format!("v{v}")).collect();
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

/// `dataschema completions SHELL`: the script, from clap's definitions.
fn completions(shell: Shell) -> ExitCode {
    let shell = match shell {
        Shell::Bash => clap_complete::Shell::Bash,
        Shell::Zsh => clap_complete::Shell::Zsh,
        Shell::Fish => clap_complete::Shell::Fish,
    };
    let mut command = Cli::command();
    clap_complete::generate(
        shell,
        &mut command,
        "dataschema",
        &mut std::io::stdout().lock(),
    );
    ExitCode::SUCCESS
}

/// `dataschema man`: the man page (roff) from clap's definitions, or one
/// page per command into `out_dir`.
fn man(out_dir: Option<&std::path::Path>) -> ExitCode {
    let mut command = Cli::command();
    command.build();
    let written = match out_dir {
        None => clap_mangen::Man::new(command).render(&mut std::io::stdout().lock()),
        Some(dir) => (|| {
            std::fs::create_dir_all(dir)?;
            clap_mangen::Man::new(command.clone()).generate_to(dir)?;
            // Built, each subcommand is `dataschema check` by its bin name;
            // its page is `dataschema-check.1`.
            for sub in command.get_subcommands().filter(|s| s.get_name() != "help") {
                let page = sub
                    .clone()
                    .display_name(format!("dataschema-{}", sub.get_name()));
                clap_mangen::Man::new(page).generate_to(dir)?;
            }
            Ok(())
        })(),
    };
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("cannot write the man page: {err}");
            ExitCode::FAILURE
        }
    }
}

/// Opens the store `--store` names (read-only with `--read-only`: no
/// migration, nothing written).
fn open_store(spec: &str, read_only: bool) -> Result<Box<dyn dataschema::Store>, String> {
    let options = dataschema::store::Options::default().read_only(read_only);
    match spec {
        "memory" => Ok(Box::new(dataschema::MemoryStore::new())),
        _ if spec.starts_with("sqlite:") => {
            let path = &spec["sqlite:".len()..];
            if path.is_empty() {
                return Err("--store sqlite:PATH: the path is empty".into());
            }
            dataschema::store::SqliteStore::open_with(path, &options)
                .map(|store| Box::new(store) as Box<dyn dataschema::Store>)
                .map_err(|err| format!("--store {spec}: {}", err.chain()))
        }
        _ if spec.starts_with("postgres://") || spec.starts_with("postgresql://") => {
            dataschema::store::PostgresStore::connect_with(spec, &options)
                .map(|store| Box::new(store) as Box<dyn dataschema::Store>)
                // The URL may hold a password: not repeated here.
                .map_err(|err| format!("--store postgres://...: {}", err.chain()))
        }
        _ => Err(format!(
            "--store {spec:?}: expected memory, sqlite:PATH or postgres://..."
        )),
    }
}

fn seconds(value: f64, flag: &str) -> Result<std::time::Duration, String> {
    std::time::Duration::try_from_secs_f64(value)
        .ok()
        .filter(|d| !d.is_zero())
        .ok_or_else(|| format!("{flag} {value}: expected a positive number of seconds"))
}

fn serve(args: Serve) -> ExitCode {
    use dataschema::server::{self, Access, Auth, Config, CredentialError};

    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    let setup = || -> Result<(Config, Access, Registry), String> {
        let access = match (&args.token_file, args.read_only) {
            (Some(path), read_only) => {
                // Read (and checked) even when --read-only leaves it unused.
                // Bounded, and white space trimmed at both ends, as
                // `publish --token-file` reads it.
                let auth = Auth::from_file(path).map_err(|err| match err {
                    CredentialError::Unreadable(err) => {
                        format!("--token-file {}: cannot read: {err}", path.display())
                    }
                    err => format!("--token-file {}: {err}", path.display()),
                })?;
                if read_only {
                    Access::ReadOnly
                } else {
                    Access::Publish(auth)
                }
            }
            (None, true) => Access::ReadOnly,
            (None, false) => {
                return Err("refusing to start: publishing needs a credential: give \
                     --token-file FILE, or serve with --read-only"
                    .to_owned())
            }
        };
        let mut config =
            Config::new(&args.namespace).map_err(|err| format!("--namespace: {}", err.chain()))?;
        if let Some(bytes) = args.max_schema_bytes {
            config = config.with_max_schema_bytes(bytes);
        }
        if let Some(bytes) = args.max_body_bytes {
            config = config.with_max_body_bytes(bytes);
        }
        if let Some(secs) = args.request_timeout {
            config = config.with_request_timeout(seconds(secs, "--request-timeout")?);
        }
        if let Some(secs) = args.header_read_timeout {
            config = config.with_header_read_timeout(seconds(secs, "--header-read-timeout")?);
        }
        if let Some(limit) = args.concurrency {
            config = config.with_concurrency_limit(limit);
        }
        if let Some(secs) = args.body_read_timeout {
            config = config.with_body_read_timeout(seconds(secs, "--body-read-timeout")?);
        }
        if let Some(bytes) = args.body_buffer_bytes {
            config = config.with_body_buffer_bytes(bytes);
        }
        if let Some(limit) = args.check_concurrency {
            config = config.with_check_concurrency(limit);
        }
        if let Some(bytes) = args.compile_budget_bytes {
            config = config.with_compile_budget_bytes(bytes);
        }
        if let Some(secs) = args.compile_wait {
            config = config.with_compile_wait(seconds(secs, "--compile-wait")?);
        }
        if let Some(secs) = args.ready_timeout {
            config = config.with_ready_timeout(seconds(secs, "--ready-timeout")?);
        }
        config = config
            .with_metrics(args.metrics.is_some())
            .with_ui(!args.no_ui)
            .with_store_label(dataschema::store::redact(&args.store));
        let registry = Registry::new(open_store(&args.store, args.read_only)?);
        Ok((config, access, registry))
    };
    let (config, access, registry) = match setup() {
        Ok(setup) => setup,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(EXIT_UNVALIDATED);
        }
    };
    // The recorder first: the server binds its metric handles in it when
    // the router is built.
    let exporter = match args.metrics {
        Some(_) => match metrics_recorder() {
            Ok(handle) => Some(handle),
            Err(message) => {
                eprintln!("{message}");
                return ExitCode::FAILURE;
            }
        },
        None => None,
    };
    let app = server::router(registry, &config, access);
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("cannot start the runtime: {err}");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(args.listen)
            .await
            .map_err(|err| format!("cannot listen on {}: {err}", args.listen))?;
        let local = listener
            .local_addr()
            .map_err(|err| format!("cannot listen on {}: {err}", args.listen))?;
        let metrics = match (args.metrics, exporter) {
            (Some(addr), Some(handle)) => Some(metrics_listener(addr, handle).await?),
            _ => None,
        };
        // Signals are caught from here on: a SIGTERM sent as soon as the
        // line below is read stops the server cleanly.
        let shutdown = server::shutdown_signal();
        // The first line on standard output: tests and scripts read the
        // port from it (with --listen 127.0.0.1:0).
        println!("listening on http://{local}");
        if let Some(metrics) = metrics {
            println!("metrics on http://{metrics}/metrics");
        }
        tracing::info!(
            address = %local,
            namespace = config.namespace(),
            store = %dataschema::store::redact(&args.store),
            read_only = args.read_only,
            "dataschema serve started"
        );
        server::serve(listener, app, &config, shutdown)
            .await
            .map_err(|err| format!("server failed: {err}"))
    });
    match result {
        Ok(()) => {
            tracing::info!("dataschema serve stopped");
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("{message}");
            ExitCode::FAILURE
        }
    }
}

/// The bucket bounds of the request latency histogram, in seconds.
const LATENCY_BUCKETS: [f64; 12] = [
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0, 5.0, 30.0,
];

/// The Prometheus recorder, installed as the global one.
fn metrics_recorder() -> Result<metrics_exporter_prometheus::PrometheusHandle, String> {
    use metrics_exporter_prometheus::{Matcher, PrometheusBuilder};
    PrometheusBuilder::new()
        .set_buckets_for_metric(
            Matcher::Full(dataschema::server::metrics::DURATION.to_owned()),
            &LATENCY_BUCKETS,
        )
        .and_then(PrometheusBuilder::install_recorder)
        .map_err(|err| format!("--metrics: cannot install the recorder: {err}"))
}

/// Serves `GET /metrics` on `addr` (a listener of its own, apart from the
/// APIs and their limits), with the recorder's upkeep every 5 s; answers
/// the address bound.
async fn metrics_listener(
    addr: std::net::SocketAddr,
    handle: metrics_exporter_prometheus::PrometheusHandle,
) -> Result<std::net::SocketAddr, String> {
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|err| format!("--metrics: cannot listen on {addr}: {err}"))?;
    let local = listener
        .local_addr()
        .map_err(|err| format!("--metrics: cannot listen on {addr}: {err}"))?;
    let upkeep = handle.clone();
    tokio::spawn(async move {
        let mut every = tokio::time::interval(std::time::Duration::from_secs(5));
        loop {
            every.tick().await;
            upkeep.run_upkeep();
        }
    });
    let app = axum::Router::new().route(
        "/metrics",
        axum::routing::get(move || {
            let handle = handle.clone();
            async move {
                (
                    [(
                        axum::http::header::CONTENT_TYPE,
                        "text/plain; version=0.0.4; charset=utf-8",
                    )],
                    handle.render(),
                )
            }
        }),
    );
    tokio::spawn(async move {
        if let Err(err) = axum::serve(listener, app).await {
            tracing::error!(error = %err, "the metrics listener failed");
        }
    });
    Ok(local)
}

/// Exit code for an incompatible or breaking change.
const EXIT_INCOMPATIBLE: u8 = 1;

fn diff(old: &std::path::Path, new: &std::path::Path, format: Format) -> ExitCode {
    let fail = |message: &str| {
        report::error(format, "diff", message);
        ExitCode::from(EXIT_UNVALIDATED)
    };
    let (old, new) = match (read_schema(old), read_schema(new)) {
        (Ok(old), Ok(new)) => (old, new),
        (Err(err), _) | (_, Err(err)) => return fail(&err),
    };
    if old.language() != new.language() {
        return fail(&format!(
            "cannot diff a {} schema against a {} schema",
            old.language(),
            new.language()
        ));
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
            return fail(&dataschema::Chain::of(cause).to_string());
        }
    };
    let compatible = diff.is_backward_compatible();
    if format.json() {
        let changes: Vec<serde_json::Value> = diff.changes().iter().map(report::change).collect();
        report::emit(
            "diff",
            json!({
                "language": new.language().to_string(),
                "compatible": compatible,
                "changes": changes,
            }),
        );
    } else {
        println!("{diff}");
    }
    if compatible {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_INCOMPATIBLE)
    }
}

/// A schema file on its own: `.json`, `.avsc`, `.proto` or a descriptor set.
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
        "avsc" => std::fs::read(path)
            .map(|bytes| Schema::avro(placeholder, bytes))
            .map_err(|err| format!("cannot read {}: {err}", path.display())),
        "proto" => build::compile_proto(path).map(|bytes| Schema::protobuf(placeholder, bytes, "")),
        "binpb" | "pb" | "desc" => std::fs::read(path)
            .map(|bytes| Schema::protobuf(placeholder, bytes, ""))
            .map_err(|err| format!("cannot read {}: {err}", path.display())),
        _ => Err(format!(
            "{}: expected a .json, .avsc, .proto or .binpb file",
            path.display()
        )),
    }
}

/// A folder's schemas, as a resolver of the references between them.
struct Folder(Vec<Schema>);

impl dataschema::Resolver for Folder {
    fn resolve(&self, urn: &dataschema::Urn) -> Result<Schema, dataschema::Error> {
        self.0
            .iter()
            .find(|schema| schema.urn() == urn)
            .cloned()
            .ok_or_else(|| dataschema::Error::NotFound { urn: urn.clone() })
    }
}

fn compat(
    mode: Option<Compatibility>,
    dir: &std::path::Path,
    name: &str,
    format: Format,
) -> ExitCode {
    let fail = |message: &str| {
        report::error(format, "compat", message);
        ExitCode::from(EXIT_UNVALIDATED)
    };
    let checked = match build::read(dir) {
        Ok(checked) => checked,
        Err(err) => return fail(&err.to_string()),
    };
    let mut versions: Vec<Schema> = checked
        .schemas()
        .into_iter()
        .filter(|schema| schema.urn().name() == name)
        .collect();
    let Some(newest) = versions.pop() else {
        return fail(&format!("no schema named {name:?} in {}", dir.display()));
    };
    // The manifest's mode for the name when --mode is not given.
    let (mode, from) = match mode {
        Some(mode) => (mode, "flag"),
        None => (
            checked.modes.get(name).copied().unwrap_or_default(),
            "manifest",
        ),
    };
    // Each version read over its references in the folder (an `.avsc`
    // using a type another defines), as the build reads it.
    let folder = Folder(checked.schemas());
    let checked = dataschema::compat::check_readings(mode, &newest, &versions, &mut |schema| {
        dataschema::compat::Reading::read_with(schema, &folder).map(std::sync::Arc::new)
    });
    match checked {
        Ok(report) => {
            if format.json() {
                let mut doc = report::compat_report(&report);
                doc["urn"] = newest.urn().to_string().into();
                doc["mode_from"] = from.into();
                report::emit("compat", doc);
            } else {
                println!("{}: {report}", newest.urn());
                if from == "manifest" {
                    println!("(the mode is the manifest's for {name}; --mode overrides it)");
                }
            }
            if report.is_compatible() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(EXIT_INCOMPATIBLE)
            }
        }
        Err(err) => fail(&dataschema::Chain::of(&err).to_string()),
    }
}

/// Where `validate` and `frame` read schemas and ids: the folder (with the
/// ids its lock records) and, behind it, the registry pinned to the lock.
fn sources(
    schemas: Option<&std::path::Path>,
    registry: Option<&str>,
    format: Format,
    command: &str,
) -> Result<(Registry, Option<dataschema::http::HttpResolver>), ExitCode> {
    let cannot_run = |err: &(dyn std::error::Error + 'static)| {
        report::error(format, command, &dataschema::Chain::of(err).to_string());
        ExitCode::from(EXIT_NO_INPUT)
    };
    let checked = match schemas.map(build::check) {
        Some(Ok(checked)) => Some(checked),
        Some(Err(err)) => return Err(cannot_run(&err)),
        None => None,
    };
    let primary = match &checked {
        Some(checked) => {
            let ids: Vec<(dataschema::Urn, u32)> = checked
                .sources
                .iter()
                .filter_map(|source| source.id.map(|id| (source.schema.urn().clone(), id)))
                .collect();
            // The manifest's aliases, honoured when a version is read as.
            Registry::embed_with_ids(checked.schemas(), ids)
                .and_then(|registry| registry.with_aliases(checked.aliases.iter().cloned()))
        }
        None => Registry::embed(Vec::new()),
    };
    let primary = primary.map_err(|err| cannot_run(&err))?;
    let fallback = match registry {
        Some(url) => match pinned_fallback(url, checked.as_ref()) {
            Ok(fallback) => Some(fallback),
            Err(err) => {
                eprintln!("--registry: {}", shown::printable(&err.chain().to_string()));
                return Err(ExitCode::from(EXIT_USAGE));
            }
        },
        None => None,
    };
    Ok((primary, fallback))
}

/// The payload of `validate` and `frame`: FILE, or standard input for `-`.
fn read_payload(
    file: &std::path::Path,
    format: Format,
    command: &str,
) -> Result<Vec<u8>, ExitCode> {
    let payload = if file.as_os_str() == "-" {
        let mut buf = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut buf).map(|_| buf)
    } else {
        std::fs::read(file)
    };
    payload.map_err(|err| {
        report::error(
            format,
            command,
            &format!("cannot read {}: {err}", file.display()),
        );
        ExitCode::from(EXIT_NO_INPUT)
    })
}

fn validate(
    schemas: Option<&std::path::Path>,
    registry: Option<&str>,
    dataschema: Option<&str>,
    file: &std::path::Path,
    format: Format,
) -> ExitCode {
    let (primary, fallback) = match sources(schemas, registry, format, "validate") {
        Ok(sources) => sources,
        Err(code) => return code,
    };
    let guard = match fallback.clone() {
        Some(fallback) => Guard::builder(primary.clone()).fallback(fallback).build(),
        None => Guard::new(primary.clone()),
    };
    let payload = match read_payload(file, format, "validate") {
        Ok(payload) => payload,
        Err(code) => return code,
    };
    let schema_id = match dataschema {
        Some(_) => None,
        None => payload
            .get(1..5)
            .map(|id| u32::from_be_bytes([id[0], id[1], id[2], id[3]])),
    };
    let (outcome, what) = match dataschema {
        Some(dataschema) => (guard.validate(dataschema, &payload), dataschema.to_owned()),
        None => {
            let what = match schema_id {
                Some(id) => format!("schema id {id}"),
                None => "the frame".to_owned(),
            };
            (guard.validate_framed(&payload), what)
        }
    };
    // The data-contract rules the version ran on read, for a payload the
    // guard judged (the version is held then: the folder, or the
    // fallback's cache).
    let judged = matches!(&outcome, Ok(Outcome::Validated) | Err(_));
    let sources = rules::Sources {
        primary: &primary,
        fallback: fallback.as_ref(),
    };
    let version = match (judged, dataschema, schema_id) {
        (false, _, _) => None,
        (true, Some(dataschema), _) => dataschema.parse().ok().and_then(|urn| sources.by_urn(&urn)),
        (true, None, Some(id)) => sources.by_id(id),
        (true, None, None) => None,
    };
    let read_rules = version.as_ref().map(rules::on_read).unwrap_or_default();
    let read = dataschema_core::rules::RuleMode::Read;
    // What a registry answered may be in the outcome (a reason, a
    // schema's words in a violation): shown escaped as text; JSON escapes
    // every control character itself.
    let (code, mut line, doc) = match &outcome {
        Ok(Outcome::Validated) => (
            ExitCode::SUCCESS,
            format!("valid: {what}"),
            json!({"outcome": "valid"}),
        ),
        Ok(Outcome::NoSchema) => (
            ExitCode::from(EXIT_UNVALIDATED),
            "unvalidated: no dataschema given".to_owned(),
            json!({"outcome": "unvalidated", "reason": "no_schema",
                   "message": "no dataschema given"}),
        ),
        Ok(Outcome::Unvalidated(unvalidated)) => (
            ExitCode::from(EXIT_UNVALIDATED),
            shown::printable(&unvalidated.to_string()),
            json!({"outcome": "unvalidated", "reason": unvalidated.reason().as_str(),
                   "urn": unvalidated.urn().map(ToString::to_string),
                   "message": unvalidated.error().chain().to_string()}),
        ),
        Ok(other) => (
            ExitCode::from(EXIT_UNVALIDATED),
            format!("unvalidated: {}", shown::printable(&format!("{other:?}"))),
            json!({"outcome": "unvalidated", "reason": "other",
                   "message": format!("{other:?}")}),
        ),
        Err(invalid) => (
            ExitCode::FAILURE,
            shown::printable(&invalid.to_string()),
            json!({"outcome": "invalid", "urn": invalid.urn().to_string(),
                   "dead_letter": invalid.dead_letter(),
                   "rule": invalid.rule().map(rules::refusal_json),
                   "violations": report::violations(invalid.violations())}),
        ),
    };
    if let Err(invalid) = &outcome {
        if let Some(rule) = invalid.rule() {
            line.push('\n');
            line.push_str(&shown::printable(&rules::refusal_text(
                rule,
                invalid.dead_letter(),
            )));
        }
    }
    if matches!(outcome, Ok(Outcome::Validated)) && !read_rules.is_empty() {
        let names: Vec<String> = read_rules
            .iter()
            .map(|rule| rules::rule_text(rule, read))
            .collect();
        line.push_str("\nrules run on read: ");
        line.push_str(&shown::printable(&names.join(", ")));
    }
    if format.json() {
        let mut doc = doc;
        doc["dataschema"] = dataschema.into();
        doc["schema_id"] = schema_id.into();
        if judged {
            doc["rules"] = read_rules
                .iter()
                .map(|rule| rules::rule_json(rule, read))
                .collect();
        }
        report::emit("validate", doc);
    } else {
        println!("{line}");
    }
    code
}

/// What `resolve` was asked.
struct Resolve<'a> {
    schemas: Option<&'a std::path::Path>,
    registry: Option<&'a str>,
    writer: Option<&'a str>,
    reader: &'a str,
    write_back: bool,
    format: Format,
}

fn resolve(args: &Resolve<'_>, file: &std::path::Path) -> ExitCode {
    use base64::Engine as _;
    let format = args.format;
    let direction = if args.write_back {
        "write_back"
    } else {
        "read"
    };
    // The result, as text (the payload on standard output, anything else
    // on standard error) or as one JSON document.
    let finish = |code: u8,
                  outcome: &str,
                  bytes: Option<&[u8]>,
                  message: Option<String>,
                  violations: Option<&[dataschema::Violation]>,
                  shown_rules: Option<&ShownRules>| {
        if format.json() {
            let mut doc = json!({
                "outcome": outcome,
                "direction": direction,
                "writer": args.writer,
                "reader": args.reader,
                "payload_base64": bytes.map(|b| base64::engine::general_purpose::STANDARD.encode(b)),
                "message": message,
                "violations": violations.map(report::violations),
            });
            if let Some(shown) = shown_rules {
                doc["rule"] = shown.refusal.clone();
                doc["rules"] = shown.on_read.clone();
                doc["migration_rules"] = shown.migrations.clone();
            }
            report::emit("resolve", doc);
            return ExitCode::from(code);
        }
        if let Some(message) = message {
            eprintln!("{}", shown::printable(&message));
        }
        if let Some(shown) = shown_rules {
            for line in &shown.text {
                eprintln!("{}", shown::printable(line));
            }
        }
        match bytes {
            Some(bytes) => {
                let mut out = std::io::stdout().lock();
                match out.write_all(bytes).and_then(|()| out.flush()) {
                    Ok(()) => ExitCode::from(code),
                    Err(err) => {
                        eprintln!("cannot write to standard output: {err}");
                        ExitCode::FAILURE
                    }
                }
            }
            None => ExitCode::from(code),
        }
    };
    let parse = |text: &str| -> Result<dataschema::Urn, ExitCode> {
        text.parse().map_err(|err| {
            eprintln!("resolve: {}: {err}", shown::printable(text));
            ExitCode::from(EXIT_USAGE)
        })
    };
    let reader = match parse(args.reader) {
        Ok(urn) => urn,
        Err(code) => return code,
    };
    let (primary, fallback) = match sources(args.schemas, args.registry, format, "resolve") {
        Ok(sources) => sources,
        Err(code) => return code,
    };
    let payload = match read_payload(file, format, "resolve") {
        Ok(payload) => payload,
        Err(code) => return code,
    };
    if args.write_back {
        let Some(writer) = args.writer else {
            return ExitCode::from(EXIT_USAGE);
        };
        let writer = match parse(writer) {
            Ok(urn) => urn,
            Err(code) => return code,
        };
        let fetch = |urn: &dataschema::Urn| {
            use dataschema::Resolver as _;
            match (primary.resolve(urn), &fallback) {
                (Err(dataschema::Error::NotFound { .. }), Some(fallback)) => fallback.resolve(urn),
                (found, _) => found,
            }
        };
        let resolution = fetch(&writer).and_then(|w| {
            let r = fetch(&reader)?;
            dataschema::Resolution::between(&w, &r, std::sync::Arc::new(primary.clone()))
        });
        return match resolution.map(|res| res.write_back(&payload)) {
            Ok(Ok(bytes)) => finish(0, "resolved", Some(&bytes), None, None, None),
            Ok(Err(invalid)) => finish(
                1,
                "invalid",
                None,
                Some(invalid.to_string()),
                Some(invalid.violations()),
                None,
            ),
            Err(err) => finish(
                EXIT_UNVALIDATED,
                "not_resolved",
                None,
                Some(format!("not resolved: {}", err.chain())),
                None,
                None,
            ),
        };
    }
    let guard = match fallback.clone() {
        Some(fallback) => Guard::builder(primary.clone()).fallback(fallback).build(),
        None => Guard::new(primary.clone()),
    };
    let read = match args.writer {
        Some(writer) => guard.read_as(writer, &payload, &reader),
        None => guard.read_framed_as(&payload, &reader),
    };
    let sources = rules::Sources {
        primary: &primary,
        fallback: fallback.as_ref(),
    };
    let judged = match &read {
        Ok(read) => matches!(read.outcome(), Outcome::Validated),
        Err(_) => true,
    };
    let shown_rules = judged.then(|| {
        let writer = match args.writer {
            Some(writer) => writer.parse().ok().and_then(|urn| sources.by_urn(&urn)),
            None => payload
                .get(1..5)
                .and_then(|id| sources.by_id(u32::from_be_bytes([id[0], id[1], id[2], id[3]]))),
        };
        ShownRules::of(&sources, writer.as_ref(), &reader, read.as_ref().err())
    });
    match read {
        Ok(read) => match read.outcome() {
            Outcome::Validated => finish(
                0,
                "resolved",
                Some(read.bytes()),
                None,
                None,
                shown_rules.as_ref(),
            ),
            Outcome::Unvalidated(unvalidated) => finish(
                EXIT_UNVALIDATED,
                "not_resolved",
                None,
                Some(format!("not resolved: {unvalidated}")),
                None,
                None,
            ),
            other => finish(
                EXIT_UNVALIDATED,
                "not_resolved",
                None,
                Some(format!("not resolved: {other:?}")),
                None,
                None,
            ),
        },
        Err(invalid) => finish(
            1,
            "invalid",
            None,
            Some(invalid.to_string()),
            Some(invalid.violations()),
            shown_rules.as_ref(),
        ),
    }
}

/// The data-contract rules `resolve` shows: the writer's rules run on
/// read, the migration rules between writer and reader, and the rule
/// that refused the payload (JSON, and the lines text writes to standard
/// error).
struct ShownRules {
    on_read: serde_json::Value,
    migrations: serde_json::Value,
    refusal: serde_json::Value,
    text: Vec<String>,
}

impl ShownRules {
    fn of(
        sources: &rules::Sources<'_>,
        writer: Option<&Schema>,
        reader: &dataschema::Urn,
        invalid: Option<&dataschema::Invalid>,
    ) -> ShownRules {
        use dataschema_core::rules::RuleMode;
        let on_read = writer.map(rules::on_read).unwrap_or_default();
        // The versions from the writer to the reader (of one name, as
        // `read_as` walks them, at most as many as it looks at).
        let mut versions = Vec::new();
        if let Some(writer) = writer.filter(|w| {
            w.urn().namespace() == reader.namespace()
                && w.urn().name() == reader.name()
                && w.urn().version().abs_diff(reader.version()) <= 1024
        }) {
            let (w, r) = (writer.urn().version(), reader.version());
            let between: Vec<u32> = if w <= r {
                (w..=r).collect()
            } else {
                (r..=w).rev().collect()
            };
            versions = between
                .into_iter()
                .filter_map(|v| reader.with_version(v).ok())
                .filter_map(|urn| sources.by_urn(&urn))
                .collect();
        }
        let migrations = rules::migrations(&versions);
        let direction = match (writer, versions.len() > 1) {
            (Some(w), true) if w.urn().version() > reader.version() => RuleMode::Downgrade,
            _ => RuleMode::Upgrade,
        };
        let mut text = Vec::new();
        if !on_read.is_empty() {
            let names: Vec<String> = on_read
                .iter()
                .map(|rule| rules::rule_text(rule, RuleMode::Read))
                .collect();
            text.push(format!("rules run on read: {}", names.join(", ")));
        }
        if !migrations.is_empty() {
            let names: Vec<&str> = migrations.iter().map(|rule| rule.name()).collect();
            text.push(format!("migration rules: {}", names.join(", ")));
        }
        let refusal = invalid.and_then(dataschema::Invalid::rule);
        if let (Some(rule), Some(invalid)) = (refusal, invalid) {
            text.push(rules::refusal_text(rule, invalid.dead_letter()));
        }
        ShownRules {
            on_read: on_read
                .iter()
                .map(|rule| rules::rule_json(rule, RuleMode::Read))
                .collect(),
            migrations: migrations
                .iter()
                .map(|rule| rules::rule_json(rule, direction))
                .collect(),
            refusal: refusal.map_or(serde_json::Value::Null, rules::refusal_json),
            text,
        }
    }
}

/// `frame` could not ask the registry: retry later (as `publish`).
const EXIT_UNREACHABLE: u8 = 3;

fn frame(
    schemas: Option<&std::path::Path>,
    registry: Option<&str>,
    message: Option<&str>,
    urn: &dataschema::Urn,
    file: &std::path::Path,
) -> ExitCode {
    let framer = match sources(schemas, registry, Format::Text, "frame") {
        Ok((primary, Some(fallback))) => Framer::builder(primary).fallback(fallback).build(),
        Ok((primary, None)) => Framer::new(primary),
        Err(code) => return code,
    };
    let payload = match read_payload(file, Format::Text, "frame") {
        Ok(payload) => payload,
        Err(code) => return code,
    };
    let framed = match message {
        Some(message) => framer.frame_message(urn, message, &payload),
        None => framer.frame(urn, &payload),
    };
    match framed {
        Ok(frame) => {
            let mut out = std::io::stdout().lock();
            match std::io::Write::write_all(&mut out, &frame).and_then(|()| out.flush()) {
                Ok(()) => ExitCode::SUCCESS,
                Err(err) => {
                    eprintln!("cannot write the frame to standard output: {err}");
                    ExitCode::FAILURE
                }
            }
        }
        Err(err) => {
            eprintln!("{}", shown::printable(&err.to_string()));
            ExitCode::from(match err.reason() {
                FrameReason::Invalid => 1,
                FrameReason::Unreachable => EXIT_UNREACHABLE,
                _ => EXIT_UNVALIDATED,
            })
        }
    }
}

/// The registry at `url` as the fallback of a folder's schemas, pinned to
/// the folder's lock: each locked URN to its digest (where the lock's
/// digest is the bytes' own, as for a JSON Schema file; a `.proto`'s lock
/// digest is of its source, not of the compiled bytes a registry holds)
/// and to the id its `[ids]` record. A registry that contradicts the lock
/// (other bytes for a locked URN, a locked URN under another id, an id
/// the lock lacks claimed to be a URN it records under another) is
/// refused: the payload is unvalidated, `unreachable`, never valid.
fn pinned_fallback(
    url: &str,
    checked: Option<&build::Checked>,
) -> Result<dataschema::http::HttpResolver, dataschema::Error> {
    let mut fallback = dataschema::http::HttpResolver::builder(url);
    let sources = checked.map_or(&[][..], |checked| &checked.sources[..]);
    let unlocked = checked.map_or(&[][..], |checked| &checked.unlocked[..]);
    for source in sources
        .iter()
        .filter(|s| !unlocked.contains(s.schema.urn()))
    {
        let urn = source.schema.urn();
        if source.digest == source.schema.digest() {
            fallback = fallback.expect(urn.clone(), source.digest.clone());
        }
        if let Some(id) = source.id {
            fallback = fallback.expect_id(urn.clone(), id);
        }
    }
    fallback.build()
}

/// `validate` could not run: its schemas folder does not load, or its
/// payload cannot be read. Not 2: a script that lets "unvalidated" through
/// (failing open, as the guard does) must not let a broken invocation through.
const EXIT_NO_INPUT: u8 = 66;
