//! `dataschema publish`: every schema of a folder to a registry's native
//! API, in an order it accepts, recording each URN's id in the lock.

use super::shown;
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::time::Duration;

use dataschema::build::{self, Source};
use dataschema::compat::Compatibility;
use dataschema::protocol::{
    self, content_type, header, BaseUrl, BaseUrlProblem, Credentials, TransportError,
};
use dataschema::{subject, Language, Reference, Schema, Urn};

/// Exit code: a schema was refused (by the registry, or by the folder's
/// own check), or the registry contradicts the lock.
pub const EXIT_REFUSED: u8 = 1;
/// Exit code: nothing could be tried (not a schemas folder, a bad URL, an
/// unreadable token file).
pub const EXIT_BAD_INPUT: u8 = 2;
/// Exit code: the registry could not be reached, or did not answer as
/// dataschema's native API (worth retrying later).
pub const EXIT_UNREACHABLE: u8 = 3;

/// Connect timeout of a publish request.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// Total timeout of a publish request: the registry compiles and checks.
const TIMEOUT: Duration = Duration::from_secs(60);
/// The largest token file read.
const MAX_TOKEN_FILE_BYTES: u64 = 16 * 1024;
/// The largest answer read.
const MAX_ANSWER_BYTES: u64 = 16 * 1024 * 1024;

/// What `dataschema publish` was given.
pub struct Args {
    pub registry: String,
    pub token_file: Option<PathBuf>,
    pub mode: Option<Compatibility>,
    pub dir: PathBuf,
}

/// Why one schema was not published.
enum Unpublished {
    /// The registry (or the lock) refused it: exit 1.
    Refused(String),
    /// The registry could not be asked, or answered nonsense: exit 3.
    Unreachable(String),
}

/// Runs the command; answers the exit code.
pub fn run(args: &Args) -> u8 {
    let dir = &args.dir;
    if !dir.join(build::MANIFEST_FILE).is_file() {
        eprintln!(
            "{}: no {} here: not a schemas folder",
            dir.display(),
            build::MANIFEST_FILE
        );
        return EXIT_BAD_INPUT;
    }
    let base = match registry_url(&args.registry) {
        Ok(base) => base,
        Err(message) => {
            eprintln!("{message}");
            return EXIT_BAD_INPUT;
        }
    };
    let token = match &args.token_file {
        Some(path) => match read_token(path) {
            Ok(token) => Some(token),
            Err(message) => {
                eprintln!("{message}");
                return EXIT_BAD_INPUT;
            }
        },
        None => None,
    };
    let checked = match build::check(dir) {
        Ok(checked) => checked,
        Err(err) => {
            eprintln!("{err}");
            eprintln!(
                "nothing published: fix the folder first (`dataschema check` shows the same)"
            );
            return EXIT_REFUSED;
        }
    };
    let order = match order(&checked.sources) {
        Ok(order) => order,
        Err(message) => {
            eprintln!("{message}");
            return EXIT_REFUSED;
        }
    };
    let client = Client::new(base, token, args.mode).with_folder(&checked.sources);
    let namespaces: std::collections::BTreeSet<&str> = checked
        .sources
        .iter()
        .map(|source| source.schema.urn().namespace())
        .collect();
    for namespace in namespaces {
        if let Some(note) = client.namespace_note(namespace) {
            eprintln!("{note}");
        }
    }
    let mut published = Vec::new();
    let (mut created, mut held) = (0usize, 0usize);
    let mut failed = None;
    // The folder's imported `.proto` files registered so far, by
    // namespace and import path: several schemas may import one file, and
    // each namespace registers its own.
    let mut imports: HashMap<String, HashMap<String, Urn>> = HashMap::new();
    for source in order {
        let urn = source.schema.urn();
        let namespace = source.schema.urn().namespace().to_owned();
        let registered = imports.entry(namespace).or_default();
        let sent = match client.register_imports(dir, source, registered) {
            Ok(sent) => sent,
            Err(failure) => {
                failed = Some(failure);
                break;
            }
        };
        match client.publish(source, &sent) {
            Ok((id, true)) => {
                println!("published {urn} (id {id})");
                created += 1;
                published.push((urn.clone(), id));
            }
            Ok((id, false)) => {
                println!("already published {urn} (id {id})");
                held += 1;
                published.push((urn.clone(), id));
            }
            Err(failure) => {
                failed = Some(failure);
                break;
            }
        }
    }
    // What the registry took is recorded even when a later schema failed:
    // those URNs are published now, whatever happens next.
    let lock_path = dir.join(build::LOCK_FILE);
    let recorded = match build::record_published(dir, &checked, &published) {
        Ok(added) => added.len(),
        Err(err) => {
            eprintln!("{err}");
            eprintln!("the lock is left as it was");
            return EXIT_REFUSED;
        }
    };
    let summary = format!(
        "{created} published, {held} already published; {recorded} id(s) newly recorded in {}",
        lock_path.display()
    );
    match failed {
        None => {
            println!("{summary}");
            0
        }
        Some(Unpublished::Refused(message)) => {
            eprintln!("{message}");
            eprintln!("{summary}; stopped there");
            EXIT_REFUSED
        }
        Some(Unpublished::Unreachable(message)) => {
            eprintln!("{message}");
            eprintln!("{summary}; stopped there (run again once the registry answers)");
            EXIT_UNREACHABLE
        }
    }
}

/// The base URL, checked as every client of the native API checks it
/// ([`BaseUrl`]: a credential in it is refused first, and no message
/// repeats it).
fn registry_url(url: &str) -> Result<BaseUrl, String> {
    BaseUrl::parse(url).map_err(|err| match err.problem() {
        BaseUrlProblem::Credential => {
            "--registry: the URL holds a credential (user:password@): give it with \
             --token-file instead"
                .to_owned()
        }
        problem => format!("--registry {:?}: {problem}", err.url()),
    })
}

/// The publish credential: the file's content without the whitespace that
/// begins or ends it.
pub(crate) fn read_token(path: &Path) -> Result<String, String> {
    use std::io::Read as _;
    let cannot =
        |err: std::io::Error| format!("--token-file {}: cannot read: {err}", path.display());
    // Bounded: `--token-file /dev/zero` (or a log file given by mistake)
    // must not read until memory runs out.
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|file| file.take(MAX_TOKEN_FILE_BYTES + 1).read_to_end(&mut bytes))
        .map_err(cannot)?;
    if bytes.len() as u64 > MAX_TOKEN_FILE_BYTES {
        return Err(format!(
            "--token-file {}: over {MAX_TOKEN_FILE_BYTES} bytes: not a token file",
            path.display()
        ));
    }
    let text = String::from_utf8(bytes).map_err(|_| {
        cannot(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "stream did not contain valid UTF-8",
        ))
    })?;
    // Trimmed at both ends, as `serve --token-file` reads it.
    let token = text.trim_matches(|c: char| c.is_ascii_whitespace());
    if token.is_empty() {
        return Err(format!(
            "--token-file {}: the file is empty",
            path.display()
        ));
    }
    if !token.bytes().all(|b| (0x20..0x7f).contains(&b)) {
        // Not shown: it is the credential.
        return Err(format!(
            "--token-file {}: the credential is one line of printable ASCII (what an HTTP \
             header can carry)",
            path.display()
        ));
    }
    Ok(token.to_owned())
}

/// The sources in an order a registry takes them: each name's versions
/// ascending (a checked mode refuses a version below one held), and a
/// schema after every schema of the folder it `$ref`s by URN or references
/// (the registry compiles it against what it holds). Among the schemas ready, the least
/// URN goes first, so the order is the URN order wherever it can be.
fn order(sources: &[Source]) -> Result<Vec<&Source>, String> {
    let index: HashMap<&Urn, usize> = sources
        .iter()
        .enumerate()
        .map(|(i, source)| (source.schema.urn(), i))
        .collect();
    let mut needs: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); sources.len()];
    for (i, source) in sources.iter().enumerate() {
        let urn = source.schema.urn();
        // The version just below, in the folder.
        if let Some(prior) = sources[..i].iter().rposition(|p| {
            p.schema.urn().namespace() == urn.namespace() && p.schema.urn().name() == urn.name()
        }) {
            needs[i].insert(prior);
        }
        // Its references' URNs too (the manifest's `[references]`, the
        // `.avsc` files defining the types an Avro schema uses).
        let mut targets: Vec<Urn> = source
            .schema
            .references()
            .iter()
            .map(|r| r.urn().clone())
            .collect();
        if source.schema.language() == Language::JsonSchema {
            targets.extend(urn_refs(source.schema.bytes()));
        }
        for target in targets {
            if let Some(&j) = index.get(&target) {
                if j != i {
                    needs[i].insert(j);
                }
            }
        }
    }
    let mut done = vec![false; sources.len()];
    let mut out = Vec::with_capacity(sources.len());
    while out.len() < sources.len() {
        // Sources are sorted by URN: the first ready one is the least.
        let next = (0..sources.len()).find(|&i| !done[i] && needs[i].iter().all(|&j| done[j]));
        match next {
            Some(i) => {
                done[i] = true;
                out.push(&sources[i]);
            }
            None => {
                let stuck: Vec<String> = (0..sources.len())
                    .filter(|&i| !done[i])
                    .map(|i| sources[i].schema.urn().to_string())
                    .collect();
                return Err(format!(
                    "nothing published: these schemas `$ref` each other in a cycle (through \
                     their versions too), and a registry takes one schema at a time, each \
                     compiled against what it already holds: {}",
                    stuck.join(", ")
                ));
            }
        }
    }
    Ok(out)
}

/// The URNs a JSON Schema `$ref`s (the part before any `#`).
fn urn_refs(bytes: &[u8]) -> Vec<Urn> {
    fn walk(value: &serde_json::Value, out: &mut Vec<Urn>) {
        match value {
            serde_json::Value::Object(map) => {
                for (key, value) in map {
                    if key == "$ref" {
                        if let Some(text) = value.as_str() {
                            let base = text.split('#').next().unwrap_or_default();
                            if let Ok(urn) = base.parse::<Urn>() {
                                out.push(urn);
                            }
                        }
                    }
                    walk(value, out);
                }
            }
            serde_json::Value::Array(items) => items.iter().for_each(|item| walk(item, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    // The check already read it as JSON; a failure here just finds no refs.
    if let Ok(value) = serde_json::from_slice::<serde_json::Value>(bytes) {
        walk(&value, &mut out);
    }
    out
}

/// A client of the registry's native API.
struct Client {
    http: protocol::Client,
    mode: Option<Compatibility>,
    /// The latest version of each URN name in the folder.
    folder_latest: HashMap<(String, String), u32>,
}

impl Client {
    fn new(base: BaseUrl, token: Option<String>, mode: Option<Compatibility>) -> Client {
        let credentials = token.map(Credentials::Bearer);
        Client {
            http: protocol::Client::new(base, CONNECT_TIMEOUT, TIMEOUT, credentials.as_ref()),
            mode,
            folder_latest: HashMap::new(),
        }
    }

    /// The folder's versions, for [`next_version`](Client::next_version).
    fn with_folder(mut self, sources: &[Source]) -> Client {
        for source in sources {
            let urn = source.schema.urn();
            let key = (urn.namespace().to_owned(), urn.name().to_owned());
            let latest = self.folder_latest.entry(key).or_default();
            *latest = (*latest).max(urn.version());
        }
        self
    }

    /// The version a change of `urn` can be published as: after every
    /// version of its name the registry or the folder holds.
    fn next_version(&self, urn: &Urn) -> u32 {
        let key = (urn.namespace().to_owned(), urn.name().to_owned());
        let in_folder = self.folder_latest.get(&key).copied().unwrap_or(0);
        let held = self
            .versions(urn.namespace(), urn.name())
            .ok()
            .and_then(|versions| versions.last().copied())
            .unwrap_or(0);
        in_folder.max(held).max(urn.version()).saturating_add(1)
    }

    /// A note when the registry serves Confluent subjects from another
    /// namespace than `namespace` (its `--namespace`, which
    /// `GET /v1/metadata/id` names): the schemas are held and served by
    /// URN, but no Confluent client sees them as subjects.
    fn namespace_note(&self, namespace: &str) -> Option<String> {
        let answer = self
            .http
            .get("/v1/metadata/id", content_type::JSON, MAX_ANSWER_BYTES)
            .ok()?;
        if answer.status() != 200 {
            return None;
        }
        let value: serde_json::Value = serde_json::from_slice(answer.body()).ok()?;
        let served = value["scope"]["clusters"]["schema-registry-cluster"].as_str()?;
        (served != namespace).then(|| {
            format!(
                "note: the registry at {} serves Confluent subjects from namespace {} (its \
                 --namespace), this folder's namespace is {namespace}: its schemas are held \
                 and served by URN, but Confluent clients (subjects, /schemas/ids/N/subjects) \
                 do not see them; serve with --namespace {namespace} for them to",
                self.base(),
                shown::remote(served)
            )
        })
    }

    fn base(&self) -> &str {
        self.http.base().as_str()
    }

    /// The schema to send for `source`: for a `.proto` schema not yet
    /// locked, the folder's files its root's file imports are registered
    /// first (each under its import path as a protobuf schema without a
    /// root, as Confluent's clients register an import:
    /// [`register_import`](Client::register_import)), and the schema
    /// carries them as its references, so Confluent's API answers its
    /// root's file with the references its clients follow. Any other
    /// schema as it is.
    fn register_imports(
        &self,
        dir: &Path,
        source: &Source,
        registered: &mut HashMap<String, Urn>,
    ) -> Result<Schema, Unpublished> {
        let schema = &source.schema;
        if source.id.is_some() || schema.language() != Language::Protobuf {
            return Ok(schema.clone());
        }
        let imports = build::proto_imports(dir, source).map_err(Unpublished::Refused)?;
        for file in &imports.files {
            if registered.contains_key(&file.name) {
                continue;
            }
            let urn = self.register_import(schema.urn().namespace(), file, registered)?;
            registered.insert(file.name.clone(), urn);
        }
        let references = imports.root_imports.iter().filter_map(|name| {
            registered
                .get(name)
                .map(|urn| Reference::new(name.clone(), urn.clone()))
        });
        Ok(schema.with_references(references))
    }

    /// Registers `file`, a `.proto` file of the folder that a schema
    /// imports, under the name its import path writes as a subject
    /// ([`subject::name_of`]) in `namespace`: at the highest version held
    /// that holds the same files (the registry takes a re-publish of a
    /// version whose files are the same, whatever their form), else as
    /// the next version. Its own imports are its references (registered
    /// before it). Answers the URN.
    fn register_import(
        &self,
        namespace: &str,
        file: &build::ProtoImport,
        registered: &HashMap<String, Urn>,
    ) -> Result<Urn, Unpublished> {
        let name = subject::name_of(&file.name).map_err(|err| {
            Unpublished::Refused(format!(
                "import {:?}: it cannot be registered under its path: {err}",
                file.name
            ))
        })?;
        let urn_at = |version: u32| {
            Urn::new(namespace, &name, version).map_err(|err| {
                Unpublished::Refused(format!("import {:?}: {}", file.name, err.chain()))
            })
        };
        let references: Vec<Reference> = file
            .imports
            .iter()
            .filter_map(|import| {
                registered
                    .get(import)
                    .map(|urn| Reference::new(import.clone(), urn.clone()))
            })
            .collect();
        let schema_at = |urn: Urn| {
            Schema::new(urn, Language::Protobuf, file.text.clone(), None)
                .with_references(references.iter().cloned())
        };
        let held = self.versions(namespace, &name)?;
        for &version in held.iter().rev() {
            let schema = schema_at(urn_at(version)?);
            match self.put(&schema)? {
                Ok((id, _)) => {
                    println!(
                        "import {} already registered as {} (id {id})",
                        file.name,
                        schema.urn()
                    );
                    return Ok(schema.urn().clone());
                }
                // Other files under that version: try the one below.
                Err(answer) if is_immutable(&answer) => {}
                Err(answer) => {
                    let what = format!("PUT {}", protocol::publish_path(schema.urn()));
                    return Err(self.refusal(schema.urn(), &what, &answer));
                }
            }
        }
        let next = held.last().map_or(Some(1), |last| last.checked_add(1));
        let next = next.ok_or_else(|| {
            Unpublished::Refused(format!(
                "import {:?}: {name} has no next version",
                file.name
            ))
        })?;
        let schema = schema_at(urn_at(next)?);
        match self.put(&schema)? {
            Ok((id, _)) => {
                println!(
                    "registered import {} as {} (id {id})",
                    file.name,
                    schema.urn()
                );
                Ok(schema.urn().clone())
            }
            Err(answer) => {
                let what = format!("PUT {}", protocol::publish_path(schema.urn()));
                Err(self.refusal(schema.urn(), &what, &answer))
            }
        }
    }

    /// The versions the registry holds of `name` in `namespace` (none:
    /// empty), ascending.
    fn versions(&self, namespace: &str, name: &str) -> Result<Vec<u32>, Unpublished> {
        let path = format!("/names/{namespace}/{name}/versions");
        let what = format!("GET {path}");
        let answer = self
            .http
            .get(&path, content_type::JSON, MAX_ANSWER_BYTES)
            .map_err(|err| self.unreachable(&what, &err))?;
        match answer.status() {
            200 => {
                let mut versions: Vec<u32> =
                    serde_json::from_slice(answer.body()).map_err(|_| {
                        self.nonsense(&what, 200, "the answer is not a list of versions")
                    })?;
                versions.sort_unstable();
                Ok(versions)
            }
            404 => Ok(Vec::new()),
            status => Err(self.nonsense(&what, status, "not an answer of dataschema's native API")),
        }
    }

    /// Publishes `source` (or finds it published), sent as `schema` (its
    /// schema, with the references [`register_imports`] gave it): its id,
    /// and whether it was created now.
    ///
    /// [`register_imports`]: Client::register_imports
    fn publish(&self, source: &Source, schema: &Schema) -> Result<(u32, bool), Unpublished> {
        let urn = schema.urn();
        if let Some(locked) = source.id {
            // The lock says it is published with this id: the registry
            // must agree before anything is sent to it.
            return self.confirm(source, locked);
        }
        let what = format!("PUT {}", protocol::publish_path(urn));
        self.put(schema)?
            .map_err(|answer| self.refusal(urn, &what, &answer))
    }

    /// `PUT /publish/schemas/{urn}` of `schema`: its id and whether it was
    /// created now, or the registry's answer when it is not a success.
    fn put(&self, schema: &Schema) -> Result<Result<(u32, bool), protocol::Answer>, Unpublished> {
        let urn = schema.urn();
        let path = protocol::publish_path(urn);
        let what = format!("PUT {path}");
        let mut headers = vec![
            ("Content-Type", content_type::of(schema.language())),
            (header::LANGUAGE, schema.language().as_str()),
        ];
        if let Some(root) = schema.root() {
            headers.push((header::ROOT, root));
        }
        if let Some(mode) = self.mode {
            headers.push((header::MODE, mode.as_str()));
        }
        let references = protocol::references_header(schema.references());
        if let Some(references) = &references {
            headers.push((header::REFERENCES, references.as_str()));
        }
        let answer = self
            .http
            .put(&path, &headers, schema.bytes(), MAX_ANSWER_BYTES)
            .map_err(|err| self.unreachable(&what, &err))?;
        let (status, body) = (answer.status(), answer.body());
        match status {
            200 | 201 => {
                let value: serde_json::Value = serde_json::from_slice(body)
                    .map_err(|_| self.nonsense(&what, status, "the answer is not JSON"))?;
                if value["urn"].as_str() != Some(urn.as_str()) {
                    return Err(self.nonsense(&what, status, "the answer names another URN"));
                }
                let id = value["id"]
                    .as_u64()
                    .and_then(|id| u32::try_from(id).ok())
                    .filter(|id| *id > 0)
                    .ok_or_else(|| self.nonsense(&what, status, "the answer has no id"))?;
                Ok(Ok((id, value["created"].as_bool() == Some(true))))
            }
            _ => Ok(Err(answer)),
        }
    }

    /// `GET /schemas/{urn}` of a URN the lock records with `locked`: the
    /// registry must hold it, with the folder's bytes and that id.
    fn confirm(&self, source: &Source, locked: u32) -> Result<(u32, bool), Unpublished> {
        let schema = &source.schema;
        let urn = schema.urn();
        let path = protocol::schema_path(urn);
        let what = format!("GET {path}");
        // Reads need no credential from `dataschema serve`; a registry
        // behind a gateway may ask for it, so it goes along.
        let answer = self
            .http
            .get(&path, "*/*", MAX_ANSWER_BYTES)
            .map_err(|err| self.unreachable(&what, &err))?;
        let status = answer.status();
        match status {
            200 => {
                // Checked as every client of the native API checks a
                // schema read: the headers well-formed, the digest the
                // body's, the URN the one asked for.
                let (held, answered) = answer
                    .into_schema()
                    .and_then(|held| held.check_urn(urn))
                    .map_err(|err| self.nonsense(&what, status, &err.to_string()))?
                    .into_parts();
                let Some(answered) = answered else {
                    return Err(self.nonsense(&what, status, "no Dataschema-Id header"));
                };
                let digest = held.digest();
                if digest != schema.digest() && schema.language() == Language::Protobuf {
                    // Other bytes may be the same files (a Confluent
                    // client registered them first): the registry says,
                    // taking the folder's as that version or refusing.
                    let what = format!("PUT {}", protocol::publish_path(urn));
                    return match self.put(schema)? {
                        Ok((id, _)) if id == answered && id == locked => Ok((id, false)),
                        Ok((id, _)) => Err(Unpublished::Refused(format!(
                            "{urn}: the registry at {} holds it under id {id}, but the lock \
                             records id {locked}: the lock's ids come from another registry \
                             (or this one lost its data); the lock is left as it was",
                            self.base()
                        ))),
                        Err(answer) if is_immutable(&answer) => Err(Unpublished::Refused(format!(
                            "{urn}: refused (immutable): the registry at {} holds other files \
                             under it (digest {digest}): a published URN never changes; \
                             publish the change as version {} instead",
                            self.base(),
                            self.next_version(urn)
                        ))),
                        Err(answer) => Err(self.refusal(urn, &what, &answer)),
                    };
                }
                if digest != schema.digest() {
                    return Err(Unpublished::Refused(format!(
                        "{urn}: refused (immutable): the registry at {} holds other bytes under \
                         it (digest {digest}, the folder's is {}): a published URN never \
                         changes; publish the change as version {} instead",
                        self.base(),
                        schema.digest(),
                        self.next_version(urn)
                    )));
                }
                if answered != locked {
                    return Err(Unpublished::Refused(format!(
                        "{urn}: the registry at {} holds it under id {answered}, but the lock \
                         records id {locked}: the lock's ids come from another registry (or \
                         this one lost its data); the lock is left as it was",
                        self.base()
                    )));
                }
                Ok((answered, false))
            }
            404 => Err(Unpublished::Refused(format!(
                "{urn}: the lock records id {locked} for it, but the registry at {} does not \
                 hold it: the lock's ids come from another registry, and publishing it here \
                 would give it another id. To move the folder to this registry, remove the \
                 [ids] table from {} first",
                self.base(),
                source.path.with_file_name(build::LOCK_FILE).display()
            ))),
            _ => Err(self.refusal(urn, &what, &answer)),
        }
    }

    /// An answer that is not a success: a refusal with the registry's
    /// reason, or (a `5xx`, an answer that is not the native API's) a
    /// registry that cannot be used now.
    fn refusal(&self, urn: &Urn, what: &str, answer: &protocol::Answer) -> Unpublished {
        let status = answer.status();
        let value: Option<serde_json::Value> = serde_json::from_slice(answer.body()).ok();
        // The registry's words, shown without its control characters (an
        // escape sequence reaches the terminal or the CI log as it is);
        // a reason clipped as every remote's words, a message (the report
        // of an incompatible publish, one change a line) escaped.
        let reason = value
            .as_ref()
            .and_then(|v| v["error"].as_str())
            .map(shown::remote);
        let message = value
            .as_ref()
            .and_then(|v| v["message"].as_str())
            .map(shown::printable);
        match (status, reason, message) {
            (401, _, _) => Unpublished::Refused(format!(
                "{urn}: the registry at {} refused the credential (HTTP 401): {}",
                self.base(),
                if self.http.has_credentials() {
                    "the token in --token-file is not its publish token"
                } else {
                    "publishing needs its publish token: give --token-file FILE"
                }
            )),
            (500..=599, reason, _) => Unpublished::Unreachable(format!(
                "{what}: the registry at {} failed (HTTP {status}{}): {}",
                self.base(),
                reason.map(|r| format!(", {r}")).unwrap_or_default(),
                value
                    .as_ref()
                    .and_then(|v| v["message"].as_str())
                    .map_or_else(|| shown::body(answer.body()), shown::remote)
            )),
            // The message of an incompatible publish holds its report,
            // one change a line.
            (_, Some(reason), Some(message)) => Unpublished::Refused(format!(
                "{urn}: refused by the registry (HTTP {status}, {reason}): {message}"
            )),
            _ => self.nonsense(what, status, "not an answer of dataschema's native API"),
        }
    }

    fn unreachable(&self, what: &str, err: &TransportError) -> Unpublished {
        Unpublished::Unreachable(match err {
            TransportError::Read(err) => format!(
                "{what}: reading the answer of the registry at {}: {err}",
                self.base()
            ),
            err => format!(
                "{what}: the registry at {} cannot be reached: {err}",
                self.base()
            ),
        })
    }

    fn nonsense(&self, what: &str, status: u16, why: &str) -> Unpublished {
        Unpublished::Unreachable(format!(
            "{what}: the registry at {} answered HTTP {status}, {why} (is the URL a \
             `dataschema serve`?)",
            self.base()
        ))
    }
}

/// Whether the native API refused a publish as `immutable` (the URN
/// holds other files).
fn is_immutable(answer: &protocol::Answer) -> bool {
    answer.status() == 409
        && serde_json::from_slice::<serde_json::Value>(answer.body())
            .is_ok_and(|value| value["error"] == "immutable")
}
