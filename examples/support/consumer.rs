//! What the streaming consumers (`nats_consumer`, `kafka_consumer`) and
//! the Kafka producer share: the guard over the bundle with the registry
//! as its pinned fallback, the verdict on a message and the headers a
//! dead letter carries, the Prometheus exporter, flags with environment
//! variables, and the stop signal. Each example includes this file as a
//! module (`#[path = "support/consumer.rs"]`); the broker's own types
//! (NATS or Kafka headers, acknowledgement, commits) stay in the example.
#![allow(dead_code)]

use std::fmt::Write as _;
use std::net::{SocketAddr, TcpListener};
use std::time::Duration;

use metrics_exporter_prometheus::{BuildError, PrometheusBuilder};

use dataschema::http::{Api, HttpResolver};
use dataschema::{Guard, Invalid, Language, Outcome, Reason, Registry};

/// At most this many `Dataschema-Violation-N` headers on a dead letter.
pub const MAX_VIOLATION_HEADERS: usize = 16;
/// At most this many bytes in one header value we write.
pub const MAX_HEADER_VALUE: usize = 300;
/// Exit code of a bad flag (sysexits' `EX_USAGE`).
pub const EXIT_USAGE: i32 = 64;

/// What the guard (or the envelope) said about one message.
pub enum Verdict {
    Validated,
    NoSchema,
    Unvalidated(Reason),
    Invalid(Invalid),
    Unreadable(String),
}

impl Verdict {
    pub fn of(result: Result<Outcome, Invalid>) -> Verdict {
        match result {
            Ok(Outcome::Validated) => Verdict::Validated,
            Ok(Outcome::Unvalidated(unvalidated)) => Verdict::Unvalidated(unvalidated.reason()),
            // NoSchema, and any outcome added later, is let through.
            Ok(_) => Verdict::NoSchema,
            Err(invalid) => Verdict::Invalid(invalid),
        }
    }

    /// Whether the message goes to the dead letters.
    pub fn is_dead_letter(&self) -> bool {
        matches!(self, Verdict::Invalid(_) | Verdict::Unreadable(_))
    }

    /// The verdict as a line of the consumer's output says it.
    pub fn line(&self) -> String {
        match self {
            Verdict::Validated => "validated".to_owned(),
            Verdict::NoSchema => "no schema".to_owned(),
            Verdict::Unvalidated(reason) => format!("unvalidated ({reason})"),
            // A data-contract rule that refused it: its name and action
            // (`DLQ`: Confluent's dead-letter action; every invalid
            // message is dead-lettered here, whatever the action).
            Verdict::Invalid(invalid) => match invalid.rule() {
                Some(rule) => format!(
                    "invalid ({}, {} violations, rule {} {}, action {})",
                    invalid.urn(),
                    invalid.violations().len(),
                    rule.name(),
                    rule.rule_type(),
                    rule.action().as_str()
                ),
                None => format!(
                    "invalid ({}, {} violations)",
                    invalid.urn(),
                    invalid.violations().len()
                ),
            },
            Verdict::Unreadable(_) => "unreadable".to_owned(),
        }
    }

    /// The `Dataschema-*` headers a dead letter of this verdict carries:
    /// `Dataschema-Verdict`, and for an invalid payload `Dataschema-Urn`,
    /// `Dataschema-Violation-Count` and `Dataschema-Violation-1`.. (at most
    /// [`MAX_VIOLATION_HEADERS`]), for an unreadable one
    /// `Dataschema-Error`. Each value printable ASCII, bounded.
    pub fn headers(&self) -> Vec<(String, String)> {
        let mut headers = Vec::new();
        match self {
            Verdict::Invalid(invalid) => {
                headers.push(("Dataschema-Verdict".into(), "invalid".into()));
                headers.push((
                    "Dataschema-Urn".into(),
                    header_value(invalid.urn().as_str()),
                ));
                headers.push((
                    "Dataschema-Violation-Count".into(),
                    invalid.violations().len().to_string(),
                ));
                if let Some(rule) = invalid.rule() {
                    headers.push(("Dataschema-Rule".into(), header_value(rule.name())));
                    headers.push((
                        "Dataschema-Rule-Action".into(),
                        header_value(rule.action().as_str()),
                    ));
                }
                for (number, violation) in invalid
                    .violations()
                    .iter()
                    .take(MAX_VIOLATION_HEADERS)
                    .enumerate()
                {
                    let path = if violation.path().is_empty() {
                        "(root)"
                    } else {
                        violation.path()
                    };
                    headers.push((
                        format!("Dataschema-Violation-{}", number + 1),
                        header_value(&format!(
                            "{path} ({:?}): {}",
                            violation.kind(),
                            violation.message()
                        )),
                    ));
                }
            }
            Verdict::Unreadable(why) => {
                headers.push(("Dataschema-Verdict".into(), "unreadable".into()));
                headers.push(("Dataschema-Error".into(), header_value(why)));
            }
            _ => {}
        }
        headers
    }
}

/// Whether a header of the original message is ours (`Dataschema-*`, in
/// any case): never copied to a dead letter, so a producer cannot forge a
/// verdict or a violation.
pub fn is_ours(name: &[u8]) -> bool {
    name.len() >= 11 && name[..11].eq_ignore_ascii_case(b"dataschema-")
}

/// A header value we write: printable ASCII only (anything else escaped as
/// `\u{..}`), at most [`MAX_HEADER_VALUE`] bytes.
pub fn header_value(text: &str) -> String {
    let mut out = String::with_capacity(text.len().min(MAX_HEADER_VALUE));
    for c in text.chars() {
        let before = out.len();
        if c == ' ' || c.is_ascii_graphic() {
            out.push(c);
        } else {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
        if out.len() > MAX_HEADER_VALUE - 3 {
            out.truncate(before);
            out.push_str("...");
            break;
        }
    }
    out
}

/// Installs the Prometheus exporter with its HTTP listener on `addr` and
/// returns the address it listens on. Port 0: a free port is found by
/// binding one and handing it to the exporter, which binds it again
/// (tried again with another port if someone took it in between). Call
/// inside a tokio runtime.
pub fn install_exporter(addr: SocketAddr) -> Result<SocketAddr, Box<dyn std::error::Error>> {
    let mut attempts = 0;
    loop {
        let chosen = if addr.port() == 0 {
            TcpListener::bind(addr)?.local_addr()?
        } else {
            addr
        };
        match PrometheusBuilder::new().with_http_listener(chosen).build() {
            Ok((recorder, exporter)) => {
                tokio::spawn(async move {
                    if let Err(err) = exporter.await {
                        eprintln!("the metrics listener stopped: {err:?}");
                    }
                });
                metrics::set_global_recorder(recorder)?;
                return Ok(chosen);
            }
            Err(BuildError::FailedToCreateHTTPListener(why))
                if addr.port() == 0 && attempts < 5 =>
            {
                eprintln!(
                    "metrics port {} was taken ({why}); trying another",
                    chosen.port()
                );
                attempts += 1;
            }
            Err(err) => return Err(format!("the metrics listener on {chosen}: {err}").into()),
        }
    }
}

/// Where a guard (or a framer) reads what the bundle lacks.
pub struct Fallback<'a> {
    /// The registry's base URL.
    pub url: &'a str,
    /// Its Confluent API, with this URN namespace (none: the native API).
    pub confluent_namespace: Option<&'a str>,
    /// How long a lookup waits for its fetch (none: the total timeout).
    pub wait: Option<Duration>,
}

/// The registry as the bundle's fallback, pinned to the bundle's lock:
/// each bundled URN to its bytes (those of a JSON Schema or Avro schema
/// are the registry's own; a protobuf schema's are compiled here, and may
/// differ from the registry's by the compiler's version) and to the id
/// the lock records, so a registry that contradicts the lock is refused.
pub fn pinned_fallback(
    bundle: dataschema::Bundle,
    fallback: &Fallback<'_>,
) -> Result<HttpResolver, Box<dyn std::error::Error>> {
    let mut resolver = HttpResolver::builder(fallback.url);
    if let Some(namespace) = fallback.confluent_namespace {
        resolver = resolver.api(Api::Confluent {
            namespace: namespace.to_owned(),
        });
    }
    if let Some(wait) = fallback.wait {
        resolver = resolver.blocking_wait(wait);
    }
    for schema in bundle.schemas() {
        let schema = schema?;
        if schema.language() != Language::Protobuf {
            resolver = resolver.expect(schema.urn().clone(), schema.digest());
        }
    }
    for (urn, id) in bundle.ids() {
        resolver = resolver.expect_id(urn.parse()?, id);
    }
    Ok(resolver.build()?)
}

/// The guard: the bundled schemas, plus the registry as its pinned
/// fallback. Every bundled schema is compiled now; one that cannot be
/// used is said at start.
pub fn guard(
    bundle: dataschema::Bundle,
    fallback: Option<&Fallback<'_>>,
) -> Result<Guard, Box<dyn std::error::Error>> {
    let registry = Registry::from_bundle(bundle)?;
    let mut builder = Guard::builder(registry).on_fail_open(|dataschema, cause| {
        eprintln!("fail open: {:?}: {cause}", clip(dataschema, 120));
    });
    if let Some(fallback) = fallback {
        builder = builder.fallback(pinned_fallback(bundle, fallback)?);
    }
    let guard = builder.build();
    for failed in guard.prepare()? {
        eprintln!("a bundled schema cannot be used: {failed}");
    }
    Ok(guard)
}

/// `text`, cut at a character boundary to at most `max` bytes.
pub fn clip(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// Completes on ctrl-c or SIGTERM.
pub async fn stop_signal() {
    let ctrl_c = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {}
        () = terminate => {}
    }
}

/// An example's `main`: `parse` reads the command line (`Err("")` for
/// `--help`: `help` is printed), then `run` runs on a two-worker tokio
/// runtime. A bad flag exits with 64, a failed run with 1, each saying why
/// after the example's `name`.
pub fn main<C, F>(
    name: &str,
    help: &str,
    parse: impl FnOnce(Vec<String>) -> Result<C, String>,
    run: impl FnOnce(C) -> F,
) where
    F: std::future::Future<Output = Result<(), Box<dyn std::error::Error>>>,
{
    let config = match parse(std::env::args().skip(1).collect()) {
        Ok(config) => config,
        Err(why) if why.is_empty() => {
            print!("{help}");
            return;
        }
        Err(why) => {
            eprintln!("{name}: {why}\n\n{help}");
            std::process::exit(EXIT_USAGE);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("{name}: no tokio runtime: {err}");
            std::process::exit(1);
        }
    };
    if let Err(err) = runtime.block_on(run(config)) {
        eprintln!("{name}: {err}");
        std::process::exit(1);
    }
}

/// Flags given on the command line, each also read from an environment
/// variable; the flag wins.
pub struct Flags {
    given: Vec<(&'static str, String)>,
}

impl Flags {
    /// Reads `args` (`--flag value` or `--flag=value`, each one of
    /// `known`). `Err("")` for `--help`; `Err(why)` for anything else
    /// that is not a known flag with a value.
    pub fn parse(
        args: impl IntoIterator<Item = String>,
        known: &[&'static str],
    ) -> Result<Flags, String> {
        let mut given = Vec::new();
        let mut args = args.into_iter();
        while let Some(arg) = args.next() {
            if arg == "--help" || arg == "-h" {
                return Err(String::new());
            }
            let (name, inline) = match arg.split_once('=') {
                Some((name, value)) => (name.to_owned(), Some(value.to_owned())),
                None => (arg.clone(), None),
            };
            let Some(flag) = known.iter().find(|flag| **flag == name) else {
                return Err(format!("unknown argument {arg:?}"));
            };
            let value = match inline {
                Some(value) => value,
                None => args.next().ok_or_else(|| format!("{flag} needs a value"))?,
            };
            given.push((*flag, value));
        }
        Ok(Flags { given })
    }

    /// The value of `flag`, else of the environment variable `env` (when
    /// not empty).
    pub fn get(&self, flag: &str, env: &str) -> Option<String> {
        self.given
            .iter()
            .rev()
            .find(|(name, _)| *name == flag)
            .map(|(_, value)| value.clone())
            .or_else(|| std::env::var(env).ok().filter(|v| !v.is_empty()))
    }

    /// [`get`](Flags::get) as a number.
    pub fn number(&self, flag: &str, env: &str) -> Result<Option<u64>, String> {
        self.get(flag, env)
            .map(|text| {
                text.parse::<u64>()
                    .map_err(|err| format!("{flag} {text:?}: not a number ({err})"))
            })
            .transpose()
    }

    /// [`get`](Flags::get) as a socket address, `default` when not given.
    pub fn addr(&self, flag: &str, env: &str, default: &str) -> Result<SocketAddr, String> {
        let text = self.get(flag, env).unwrap_or_else(|| default.to_owned());
        text.parse()
            .map_err(|err| format!("{flag} {text:?}: not a socket address ({err})"))
    }
}
