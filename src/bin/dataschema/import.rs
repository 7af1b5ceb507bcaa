//! `dataschema import`: a running Confluent-compatible registry copied,
//! through its REST API, into a `dataschema serve` (or any registry that
//! speaks Confluent's API and its import mode), with every id and version
//! kept.
//!
//! First, every subject to copy is looked up on the target: one whose
//! mode in effect there is READONLY (or READONLY_OVERRIDE) refuses the
//! import before anything is written (exit 1). Then, for each subject of
//! the source (those starting with `--subject-prefix` when given),
//! soft-deleted ones included: the target's subject is put in IMPORT mode
//! (`PUT /mode/{s}?force=true`), every version is registered with its id
//! and version, the versions the source has soft-deleted are
//! soft-deleted, and the subject's own mode on the target is set back (the
//! mode it had, else cleared), whatever happened. The source's modes are
//! never copied; its compatibility levels (each subject's, and without a
//! prefix the global one) only with `--copy-settings`. Idempotent: what
//! the target holds already with the same id and version is answered as
//! held; an id the target holds with other bytes stops the import (exit
//! 1), naming it.

use super::shown;
use std::path::PathBuf;
use std::time::Duration;

use dataschema::protocol::{BaseUrl, BaseUrlProblem, Client, Credentials, TransportError};
use serde_json::{json, Value};

/// Exit code: the target refused a registration (an id held by other
/// bytes, a schema it does not take).
pub const EXIT_REFUSED: u8 = 1;
/// Exit code: bad input (a URL, a token file).
pub const EXIT_BAD_INPUT: u8 = 2;
/// Exit code: a registry could not be reached or answered nonsense.
pub const EXIT_UNREACHABLE: u8 = 3;

const CONTENT_TYPE: &str = "application/vnd.schemaregistry.v1+json";
const MAX_ANSWER_BYTES: u64 = 64 * 1024 * 1024;

/// What `dataschema import` was given.
pub struct Args {
    pub from: String,
    pub from_token_file: Option<PathBuf>,
    pub to: String,
    pub token_file: PathBuf,
    pub subject_prefix: Option<String>,
    /// Copy the source's compatibility levels over the target's.
    pub copy_settings: bool,
}

/// Why the import stopped.
enum Stop {
    Refused(String),
    Unreachable(String),
}

type Step<T> = Result<T, Stop>;

/// One registry's Confluent API.
struct Api {
    name: &'static str,
    client: Client,
}

/// A subject as a path segment.
fn segment(subject: &str) -> String {
    dataschema::subject::path_segment(subject)
}

impl Api {
    fn answer(
        &self,
        what: &str,
        sent: Result<dataschema::protocol::Answer, TransportError>,
    ) -> Step<(u16, Value)> {
        let answer = sent.map_err(|err| {
            Stop::Unreachable(format!(
                "{} registry: {what}: {}",
                self.name,
                shown::remote(&err.to_string())
            ))
        })?;
        let status = answer.status();
        let value = serde_json::from_slice(answer.body()).map_err(|err| {
            Stop::Unreachable(format!(
                "{} registry: {what}: answered {status} with no JSON ({err}): {}",
                self.name,
                shown::body(answer.body())
            ))
        })?;
        Ok((status, value))
    }

    fn get(&self, path: &str) -> Step<(u16, Value)> {
        self.answer(
            &format!("GET {path}"),
            self.client.get(path, CONTENT_TYPE, MAX_ANSWER_BYTES),
        )
    }

    fn send(&self, method: &str, path: &str, body: &Value) -> Step<(u16, Value)> {
        let bytes = body.to_string().into_bytes();
        let headers = [("Content-Type", CONTENT_TYPE), ("Accept", CONTENT_TYPE)];
        let sent = match method {
            "PUT" => self.client.put(path, &headers, &bytes, MAX_ANSWER_BYTES),
            "POST" => self.client.post(path, &headers, &bytes, MAX_ANSWER_BYTES),
            _ => self.client.delete(path, MAX_ANSWER_BYTES),
        };
        self.answer(&format!("{method} {path}"), sent)
    }

    /// A `200`'s body, else the stop its refusal is: the registry's
    /// message (or, from a `5xx`, its body) escaped and clipped
    /// (`shown::remote`), as every remote's words are shown.
    fn expect(&self, what: &str, (status, value): (u16, Value)) -> Step<Value> {
        let message = || match value.get("message").and_then(Value::as_str) {
            Some(message) => shown::remote(message),
            None => shown::remote(&value.to_string()),
        };
        match status {
            200 => Ok(value),
            401 | 403 => Err(Stop::Refused(format!(
                "{} registry: {what}: {status}: the credential was refused",
                self.name
            ))),
            500..=599 => Err(Stop::Unreachable(format!(
                "{} registry: {what}: {status}: {}",
                self.name,
                message()
            ))),
            _ => Err(Stop::Refused(format!(
                "{} registry: {what}: {status}: {}",
                self.name,
                message()
            ))),
        }
    }
}

fn url(flag: &str, url: &str) -> Result<BaseUrl, String> {
    BaseUrl::parse(url).map_err(|err| match err.problem() {
        BaseUrlProblem::Credential => format!(
            "{flag}: the URL holds a credential (user:password@): give it in a token file instead"
        ),
        problem => format!("{flag} {:?}: {problem}", err.url()),
    })
}

/// Runs the command; answers the exit code.
pub fn run(args: &Args) -> u8 {
    let setup = || -> Result<(Api, Api), String> {
        let from = url("--from", &args.from)?;
        let to = url("--to", &args.to)?;
        let from_token = match &args.from_token_file {
            Some(path) => Some(
                super::publish::read_token(path)
                    .map_err(|m| m.replace("--token-file", "--from-token-file"))?,
            ),
            None => None,
        };
        let token = super::publish::read_token(&args.token_file)?;
        let connect = Duration::from_secs(5);
        let total = Duration::from_secs(60);
        Ok((
            Api {
                name: "source",
                client: Client::new(
                    from,
                    connect,
                    total,
                    from_token.map(Credentials::Bearer).as_ref(),
                ),
            },
            Api {
                name: "target",
                client: Client::new(to, connect, total, Some(&Credentials::Bearer(token))),
            },
        ))
    };
    let (source, target) = match setup() {
        Ok(apis) => apis,
        Err(message) => {
            eprintln!("{message}");
            return EXIT_BAD_INPUT;
        }
    };
    match import(
        &source,
        &target,
        args.subject_prefix.as_deref().unwrap_or(""),
        args.copy_settings,
    ) {
        Ok(summary) => {
            println!("{summary}");
            0
        }
        Err(Stop::Refused(message)) => {
            eprintln!("{message}");
            EXIT_REFUSED
        }
        Err(Stop::Unreachable(message)) => {
            eprintln!("{message}");
            EXIT_UNREACHABLE
        }
    }
}

fn strings(value: &Value, what: &str) -> Step<Vec<String>> {
    serde_json::from_value(value.clone()).map_err(|_| {
        Stop::Unreachable(format!(
            "source registry: {what}: not a list of strings: {}",
            shown::remote(&value.to_string())
        ))
    })
}

fn numbers(value: &Value, what: &str) -> Step<Vec<u32>> {
    serde_json::from_value(value.clone()).map_err(|_| {
        Stop::Unreachable(format!(
            "source registry: {what}: not a list of versions: {}",
            shown::remote(&value.to_string())
        ))
    })
}

/// The mode of `subject` on the target: its own (`None` when it has
/// none), and the one in effect (its own, else the global one).
fn target_modes(target: &Api, subject: &str) -> Step<(Option<Value>, String)> {
    let path = segment(subject);
    let name = shown::remote(subject);
    let (status, own) = target.get(&format!("/mode/{path}"))?;
    let own = match status {
        200 => own.get("mode").cloned(),
        // 40409: no mode of its own.
        404 => None,
        _ => {
            target.expect(&format!("the mode of {name}"), (status, own))?;
            None
        }
    };
    let in_effect = target.get(&format!("/mode/{path}?defaultToGlobal=true"))?;
    let in_effect = target.expect(&format!("the mode of {name}"), in_effect)?;
    let in_effect = in_effect
        .get("mode")
        .and_then(Value::as_str)
        .unwrap_or("READWRITE")
        .to_ascii_uppercase();
    Ok((own, in_effect))
}

fn import(source: &Api, target: &Api, prefix: &str, copy_settings: bool) -> Step<String> {
    let query = format!("/subjects?deleted=true&subjectPrefix={}", segment(prefix));
    let all = source.get(&query)?;
    let mut subjects = strings(&source.expect("listing subjects", all)?, "GET /subjects")?;
    subjects.retain(|subject| subject.starts_with(prefix));
    subjects.sort();
    subjects.dedup();
    // A read-only subject on the target is refused before anything is
    // written anywhere: its owner froze it.
    let mut own_modes = Vec::with_capacity(subjects.len());
    for subject in &subjects {
        let (own, in_effect) = target_modes(target, subject)?;
        if in_effect.starts_with("READONLY") {
            let (name, in_effect) = (shown::remote(subject), shown::remote(&in_effect));
            return Err(Stop::Refused(format!(
                "target registry: subject {name} is {in_effect} there: nothing was written; \
                 set its mode to READWRITE to import into it"
            )));
        }
        own_modes.push(own);
    }
    let (mut versions_seen, mut created) = (0usize, 0usize);
    for (subject, own_mode) in subjects.iter().zip(own_modes) {
        let (seen, new) = import_subject(source, target, subject, own_mode, copy_settings)?;
        versions_seen += seen;
        created += new;
    }
    if prefix.is_empty() && copy_settings {
        let (status, config) = source.get("/config")?;
        if status == 200 {
            if let Some(level) = config.get("compatibilityLevel") {
                let answer = target.send("PUT", "/config", &json!({"compatibility": level}))?;
                target.expect("PUT /config", answer)?;
            }
        }
    }
    Ok(format!(
        "imported {} subject(s), {versions_seen} version(s) ({created} new, {} held already), \
         every id and version kept",
        subjects.len(),
        versions_seen - created
    ))
}

/// One subject: every version (soft-deleted ones too) with its id, the
/// deletes, the config, the mode. Answers the versions seen and stored.
fn import_subject(
    source: &Api,
    target: &Api,
    subject: &str,
    own_mode: Option<Value>,
    copy_settings: bool,
) -> Step<(usize, usize)> {
    let path = segment(subject);
    let name = shown::remote(subject);
    let all = source.get(&format!("/subjects/{path}/versions?deleted=true"))?;
    let all = numbers(
        &source.expect(&format!("versions of {name}"), all)?,
        "versions",
    )?;
    let (status, live) = source.get(&format!("/subjects/{path}/versions"))?;
    let live = if status == 200 {
        numbers(&live, "versions")?
    } else {
        Vec::new()
    };
    let set = target.send(
        "PUT",
        &format!("/mode/{path}?force=true"),
        &json!({"mode": "IMPORT"}),
    )?;
    target.expect(&format!("IMPORT mode for {name}"), set)?;
    let mut created = 0;
    let result = (|| -> Step<()> {
        for version in &all {
            let read = source.get(&format!("/subjects/{path}/versions/{version}?deleted=true"))?;
            let read = source.expect(&format!("{name} version {version}"), read)?;
            let mut body = json!({
                "schema": read.get("schema").cloned().unwrap_or(Value::Null),
                "schemaType": read.get("schemaType").cloned().unwrap_or_else(|| json!("AVRO")),
                "id": read.get("id").cloned().unwrap_or(Value::Null),
                "version": version,
            });
            if let Some(references) = read
                .get("references")
                .filter(|r| r.as_array().is_some_and(|r| !r.is_empty()))
            {
                body["references"] = references.clone();
            }
            let before =
                target.get(&format!("/subjects/{path}/versions/{version}?deleted=true"))?;
            let answer = target.send("POST", &format!("/subjects/{path}/versions"), &body)?;
            let answer = target.expect(&format!("registering {name} version {version}"), answer)?;
            if answer.get("id") != body.get("id") {
                return Err(Stop::Refused(format!(
                    "target registry: {name} version {version}: registered under id {} instead of {}",
                    shown::remote(&answer.get("id").unwrap_or(&Value::Null).to_string()),
                    shown::remote(&body["id"].to_string())
                )));
            }
            if before.0 != 200 {
                created += 1;
            }
        }
        for version in all.iter().filter(|v| !live.contains(v)) {
            let answer = target.send(
                "DELETE",
                &format!("/subjects/{path}/versions/{version}"),
                &Value::Null,
            )?;
            // Deleted already (a second run): 40406.
            if answer.0 != 200 && answer.1.get("error_code") != Some(&json!(40406)) {
                target.expect(&format!("soft-deleting {name} version {version}"), answer)?;
            }
        }
        if copy_settings {
            let (status, config) = source.get(&format!("/config/{path}"))?;
            if let Some(level) = config.get("compatibilityLevel").filter(|_| status == 200) {
                let answer = target.send(
                    "PUT",
                    &format!("/config/{path}"),
                    &json!({"compatibility": level}),
                )?;
                target.expect(&format!("config of {name}"), answer)?;
            }
        }
        Ok(())
    })();
    // The subject's own mode on the target is set back, whatever
    // happened.
    let restored = match own_mode {
        Some(mode) => target.send(
            "PUT",
            &format!("/mode/{path}?force=true"),
            &json!({"mode": mode}),
        ),
        None => target.send("DELETE", &format!("/mode/{path}"), &Value::Null),
    };
    result?;
    target.expect(&format!("restoring the mode of {name}"), restored?)?;
    Ok((all.len(), created))
}
