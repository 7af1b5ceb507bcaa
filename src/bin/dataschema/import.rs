//! `dataschema import`: a running Confluent-compatible registry copied,
//! through its REST API, into a `dataschema serve` (or any registry that
//! speaks Confluent's API and its import mode), with every id and version
//! kept.
//!
//! Every version of every subject of the source (those starting with
//! `--subject-prefix` when given; soft-deleted ones too) is read first.
//! Then every subject to copy is looked up on the target: one whose mode
//! in effect there is READONLY (or READONLY_OVERRIDE) stops the import
//! before anything is written (exit 1). Each target subject is put in
//! IMPORT mode (`PUT /mode/{s}?force=true`), and the versions are
//! registered with their ids and versions in dependency order: a
//! topological order over their references (ties in subject, then version
//! order), so `invoices-value` comes after the `shop.common.Money` it
//! refers to. Versions in a cycle of references are refused with the
//! cycle's path, and so is a version referring to a refused one; a
//! refusal of the target is told and the rest goes on. The source's soft
//! deletes follow, then (with `--copy-settings` only) its compatibility
//! levels, each subject's and without a prefix the global one; last, each
//! subject's own mode on the target is set back (the mode it had, else
//! cleared), whatever happened. The source's modes are never copied.
//!
//! Idempotent: what the target holds already with the same id and
//! version is skipped. The summary (copied, skipped, refused, not
//! reached) is printed whether the import ran to its end or stopped early
//! (a registry unreachable, failing, or answering nonsense: exit 3), each
//! refusal on its own line (exit 1). Every remote word printed goes
//! through [`shown`](super::shown).

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
    /// A file holding `USER:PASSWORD` for the source's HTTP Basic auth.
    pub from_user_info_file: Option<PathBuf>,
    pub to: String,
    pub token_file: PathBuf,
    pub subject_prefix: Option<String>,
    /// Copy the source's compatibility levels over the target's.
    pub copy_settings: bool,
    /// Text, or one JSON document (`docs/guide/cli-json.md`).
    pub format: super::report::Format,
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
        let from_token = match (&args.from_token_file, &args.from_user_info_file) {
            (Some(path), _) => Some(Credentials::Bearer(
                super::publish::read_token(path)
                    .map_err(|m| m.replace("--token-file", "--from-token-file"))?,
            )),
            // Confluent's `basic.auth.user.info` form, as Confluent Cloud's
            // API key and secret are given.
            (None, Some(path)) => {
                let text = super::publish::read_token(path)
                    .map_err(|m| m.replace("--token-file", "--from-user-info-file"))?;
                let (user, password) = text.split_once(':').ok_or_else(|| {
                    format!(
                        "--from-user-info-file {}: expected USER:PASSWORD",
                        path.display()
                    )
                })?;
                Some(Credentials::Basic {
                    user: user.to_owned(),
                    password: password.to_owned(),
                })
            }
            (None, None) => None,
        };
        let token = super::publish::read_token(&args.token_file)?;
        let connect = Duration::from_secs(5);
        let total = Duration::from_secs(60);
        Ok((
            Api {
                name: "source",
                client: Client::new(from, connect, total, from_token.as_ref()),
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
            super::report::error(args.format, "import", &message);
            return EXIT_BAD_INPUT;
        }
    };
    let (summary, stopped) = import(
        &source,
        &target,
        args.subject_prefix.as_deref().unwrap_or(""),
        args.copy_settings,
    );
    let (code, stop) = match &stopped {
        Ok(()) if summary.refused.is_empty() => (0, None),
        Ok(()) => (EXIT_REFUSED, None),
        Err(Stop::Refused(message)) => (EXIT_REFUSED, Some(message)),
        Err(Stop::Unreachable(message)) => (EXIT_UNREACHABLE, Some(message)),
    };
    if args.format.json() {
        let reached = summary.copied + summary.skipped + summary.refused.len();
        super::report::emit(
            "import",
            json!({
                "subjects": summary.subjects,
                "versions": summary.versions,
                "copied": summary.copied,
                "skipped": summary.skipped,
                "refused": summary.refused,
                "not_reached": summary.versions.saturating_sub(reached),
                "stopped": stop,
                "unreachable": matches!(stopped, Err(Stop::Unreachable(_))),
            }),
        );
        return code;
    }
    // The summary, whether the import ran to its end or stopped early.
    println!("{}", summary.line());
    for refusal in &summary.refused {
        eprintln!("refused: {refusal}");
    }
    if let Some(message) = stop {
        eprintln!("stopped: {message}");
    }
    code
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

/// One version of the source to copy: its subject and version, the body
/// a register sends (with its id), what it refers to.
struct Item {
    subject: String,
    version: u32,
    body: Value,
    /// The subject versions its references name (`None`: `-1`, the
    /// subject's latest).
    refers_to: Vec<(String, Option<u32>)>,
}

impl Item {
    fn key(&self) -> (String, u32) {
        (self.subject.clone(), self.version)
    }

    /// `subject version N (id I)`, shown.
    fn shown(&self) -> String {
        format!(
            "{} version {} (id {})",
            shown::remote(&self.subject),
            self.version,
            shown::remote(&self.body["id"].to_string())
        )
    }
}

/// What an import did, told whether it ran to its end or stopped early.
#[derive(Default)]
struct Summary {
    subjects: usize,
    versions: usize,
    copied: usize,
    /// Held already on the target with the same id and version.
    skipped: usize,
    /// Each refusal: what, and why.
    refused: Vec<String>,
}

impl Summary {
    fn line(&self) -> String {
        let reached = self.copied + self.skipped + self.refused.len();
        let rest = if reached < self.versions {
            format!(", {} not reached", self.versions - reached)
        } else {
            String::new()
        };
        format!(
            "imported {} subject(s), {} version(s): {} copied, {} skipped (held already), {} \
             refused{rest}; every id and version kept",
            self.subjects,
            self.versions,
            self.copied,
            self.skipped,
            self.refused.len()
        )
    }
}

/// The versions of `items` in an order where each comes after every
/// version of the copy its references name (a topological order over the
/// references, ties in subject then version order), and the versions
/// left out: each in a cycle of references (refused with the cycle's
/// path) or after one.
fn dependency_order(items: &[Item]) -> (Vec<usize>, Vec<(usize, String)>) {
    use std::collections::{BTreeMap, BTreeSet};
    let index: BTreeMap<(String, u32), usize> = items
        .iter()
        .enumerate()
        .map(|(i, item)| (item.key(), i))
        .collect();
    // Each item's dependencies among the items (a reference outside the
    // copy is the target's to hold).
    let depends: Vec<BTreeSet<usize>> = items
        .iter()
        .map(|item| {
            let mut on = BTreeSet::new();
            for (subject, version) in &item.refers_to {
                match version {
                    Some(version) => {
                        if let Some(&i) = index.get(&(subject.clone(), *version)) {
                            on.insert(i);
                        }
                    }
                    // The latest: after every version of that subject.
                    None => on.extend(
                        index
                            .range((subject.clone(), 0)..=(subject.clone(), u32::MAX))
                            .map(|(_, &i)| i),
                    ),
                }
            }
            on
        })
        .collect();
    let mut waiting: Vec<usize> = depends.iter().map(BTreeSet::len).collect();
    let mut dependents: Vec<Vec<usize>> = vec![Vec::new(); items.len()];
    for (i, on) in depends.iter().enumerate() {
        for &d in on {
            dependents[d].push(i);
        }
    }
    // Items are in subject, version order: indexes order ties so.
    let mut ready: BTreeSet<usize> = (0..items.len()).filter(|&i| waiting[i] == 0).collect();
    let mut order = Vec::with_capacity(items.len());
    while let Some(i) = ready.pop_first() {
        order.push(i);
        for &next in &dependents[i] {
            waiting[next] -= 1;
            if waiting[next] == 0 {
                ready.insert(next);
            }
        }
    }
    // What is left waits on a cycle: walk dependencies among the left
    // from each, until one repeats, for the cycle's path.
    let left: BTreeSet<usize> = (0..items.len()).filter(|&i| waiting[i] > 0).collect();
    let mut refused = Vec::new();
    let mut in_cycle: BTreeSet<usize> = BTreeSet::new();
    for &start in &left {
        if in_cycle.contains(&start) {
            continue;
        }
        let mut path = vec![start];
        let mut at = start;
        while let Some(&next) = depends[at].iter().find(|d| left.contains(d)) {
            if let Some(from) = path.iter().position(|&p| p == next) {
                let cycle = &path[from..];
                let mut words: Vec<String> = cycle
                    .iter()
                    .map(|&i| {
                        format!(
                            "{} version {}",
                            shown::remote(&items[i].subject),
                            items[i].version
                        )
                    })
                    .collect();
                words.push(words[0].clone());
                let text = words.join(" -> ");
                for &i in cycle {
                    if in_cycle.insert(i) {
                        refused.push((i, format!("its references form a cycle: {text}")));
                    }
                }
                break;
            }
            path.push(next);
            at = next;
        }
    }
    for &i in &left {
        if !in_cycle.contains(&i) {
            refused.push((
                i,
                "it refers to a version in a cycle of references (not copied)".to_owned(),
            ));
        }
    }
    (order, refused)
}

/// The versions of `subject` on the source: every one (soft-deleted ones
/// too), each as an [`Item`], and the live ones.
fn read_subject(source: &Api, subject: &str) -> Step<(Vec<Item>, Vec<u32>)> {
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
    let mut items = Vec::with_capacity(all.len());
    for &version in &all {
        let read = source.get(&format!("/subjects/{path}/versions/{version}?deleted=true"))?;
        let read = source.expect(&format!("{name} version {version}"), read)?;
        let mut body = json!({
            "schema": read.get("schema").cloned().unwrap_or(Value::Null),
            "schemaType": read.get("schemaType").cloned().unwrap_or_else(|| json!("AVRO")),
            "id": read.get("id").cloned().unwrap_or(Value::Null),
            "version": version,
        });
        let mut refers_to = Vec::new();
        if let Some(references) = read
            .get("references")
            .filter(|r| r.as_array().is_some_and(|r| !r.is_empty()))
        {
            for reference in references.as_array().into_iter().flatten() {
                let Some(subject) = reference.get("subject").and_then(Value::as_str) else {
                    continue;
                };
                let version = reference
                    .get("version")
                    .and_then(Value::as_i64)
                    .and_then(|v| u32::try_from(v).ok());
                refers_to.push((subject.to_owned(), version));
            }
            body["references"] = references.clone();
        }
        items.push(Item {
            subject: subject.to_owned(),
            version,
            body,
            refers_to,
        });
    }
    Ok((items, live))
}

/// The import: what it did, and why it stopped early, if it did.
fn import(
    source: &Api,
    target: &Api,
    prefix: &str,
    copy_settings: bool,
) -> (Summary, Result<(), Stop>) {
    let mut summary = Summary::default();
    let mut own_modes: Vec<(String, Option<Value>)> = Vec::new();
    let result = copy(
        source,
        target,
        prefix,
        copy_settings,
        &mut summary,
        &mut own_modes,
    );
    // Each subject's own mode on the target is set back, whatever
    // happened (the first stop is the one told).
    let mut restored = Ok(());
    for (subject, own) in own_modes {
        let path = segment(&subject);
        let answer = match own {
            Some(mode) => target.send(
                "PUT",
                &format!("/mode/{path}?force=true"),
                &json!({"mode": mode}),
            ),
            None => target.send("DELETE", &format!("/mode/{path}"), &Value::Null),
        };
        let done = answer.and_then(|answer| match answer.0 {
            // Cleared already (no mode of its own): 40409.
            404 => Ok(Value::Null),
            _ => target.expect(
                &format!("restoring the mode of {}", shown::remote(&subject)),
                answer,
            ),
        });
        if let (Err(err), Ok(())) = (done, &restored) {
            restored = Err(err);
        }
    }
    (summary, result.and(restored))
}

fn copy(
    source: &Api,
    target: &Api,
    prefix: &str,
    copy_settings: bool,
    summary: &mut Summary,
    own_modes: &mut Vec<(String, Option<Value>)>,
) -> Step<()> {
    let query = format!("/subjects?deleted=true&subjectPrefix={}", segment(prefix));
    let all = source.get(&query)?;
    let mut subjects = strings(&source.expect("listing subjects", all)?, "GET /subjects")?;
    subjects.retain(|subject| subject.starts_with(prefix));
    subjects.sort();
    subjects.dedup();
    summary.subjects = subjects.len();
    let mut items = Vec::new();
    let mut live = Vec::new();
    for subject in &subjects {
        let (versions, live_versions) = read_subject(source, subject)?;
        summary.versions += versions.len();
        items.extend(versions);
        live.push(live_versions);
    }
    // A read-only subject on the target is refused before anything is
    // written anywhere: its owner froze it.
    let mut modes = Vec::with_capacity(subjects.len());
    for subject in &subjects {
        let (own, in_effect) = target_modes(target, subject)?;
        if in_effect.starts_with("READONLY") {
            let (name, in_effect) = (shown::remote(subject), shown::remote(&in_effect));
            return Err(Stop::Refused(format!(
                "target registry: subject {name} is {in_effect} there: nothing was written; \
                 set its mode to READWRITE to import into it"
            )));
        }
        modes.push((subject.clone(), own));
    }
    let (order, in_cycles) = dependency_order(&items);
    let mut refused: std::collections::BTreeSet<(String, u32)> = Default::default();
    for (i, why) in in_cycles {
        refused.insert(items[i].key());
        summary.refused.push(format!("{}: {why}", items[i].shown()));
    }
    for (subject, own) in modes {
        let set = target.send(
            "PUT",
            &format!("/mode/{}?force=true", segment(&subject)),
            &json!({"mode": "IMPORT"}),
        )?;
        // Set back at the end, whatever happens from here on.
        own_modes.push((subject.clone(), own));
        target.expect(&format!("IMPORT mode for {}", shown::remote(&subject)), set)?;
    }
    for i in order {
        let item = &items[i];
        let path = segment(&item.subject);
        let version = item.version;
        // A version whose reference was refused is not sent: the target
        // would refuse it for want of it.
        if let Some((subject, version)) = item.refers_to.iter().find(|(subject, version)| {
            refused
                .iter()
                .any(|(s, v)| s == subject && version.is_none_or(|version| *v == version))
        }) {
            let to = version.map_or_else(|| "latest".to_owned(), |v| v.to_string());
            refused.insert(item.key());
            summary.refused.push(format!(
                "{}: it refers to {} version {to}, which was refused",
                item.shown(),
                shown::remote(subject)
            ));
            continue;
        }
        let before = target.get(&format!("/subjects/{path}/versions/{version}?deleted=true"))?;
        let answer = target.send("POST", &format!("/subjects/{path}/versions"), &item.body)?;
        let registered = match answer.0 {
            // A registry that fails, or cannot be read, stops the import.
            200 | 401 | 403 | 500..=599 => {
                target.expect(&format!("registering {}", item.shown()), answer)?
            }
            _ => {
                let why = target
                    .expect("", answer)
                    .err()
                    .map(|stop| match stop {
                        Stop::Refused(why) | Stop::Unreachable(why) => why,
                    })
                    .unwrap_or_default();
                refused.insert(item.key());
                summary.refused.push(format!(
                    "{}: {}",
                    item.shown(),
                    why.replacen("target registry: : ", "target registry: ", 1)
                ));
                continue;
            }
        };
        if registered.get("id") != item.body.get("id") {
            refused.insert(item.key());
            summary.refused.push(format!(
                "{}: registered under id {} instead",
                item.shown(),
                shown::remote(&registered.get("id").unwrap_or(&Value::Null).to_string())
            ));
            continue;
        }
        if before.0 == 200 {
            summary.skipped += 1;
        } else {
            summary.copied += 1;
        }
    }
    // The source's soft deletes, for the versions the target holds.
    for (subject, live) in subjects.iter().zip(&live) {
        let path = segment(subject);
        for item in items.iter().filter(|item| &item.subject == subject) {
            if live.contains(&item.version) || refused.contains(&item.key()) {
                continue;
            }
            let answer = target.send(
                "DELETE",
                &format!("/subjects/{path}/versions/{}", item.version),
                &Value::Null,
            )?;
            // Deleted already (a second run): 40406.
            if answer.0 != 200 && answer.1.get("error_code") != Some(&json!(40406)) {
                if let Err(Stop::Refused(why)) =
                    target.expect(&format!("soft-deleting {}", item.shown()), answer)
                {
                    summary.refused.push(why);
                }
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
                target.expect(&format!("config of {}", shown::remote(subject)), answer)?;
            }
        }
    }
    if prefix.is_empty() && copy_settings {
        let (status, config) = source.get("/config")?;
        if let Some(level) = config.get("compatibilityLevel").filter(|_| status == 200) {
            let answer = target.send("PUT", "/config", &json!({"compatibility": level}))?;
            target.expect("PUT /config", answer)?;
        }
    }
    Ok(())
}
