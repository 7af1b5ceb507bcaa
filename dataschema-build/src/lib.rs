//! Bundling at `cargo build` (feature `build`).
//!
//! A crate keeps its schemas in one folder:
//!
//! ```text
//! schemas/
//!   dataschema.toml             namespace = "acme", and the root of each protobuf schema
//!   dataschema.lock             each published URN's sha256 (written by `dataschema lock`),
//!                               and its registry id (written by `dataschema publish`)
//!   orders.created.v1.json      JSON Schema: urn:acme:schema:orders.created:1
//!   orders.shipped.v1.proto     protobuf:    urn:acme:schema:orders.shipped:1
//!   acme/common.proto           (sub-folders: files a .proto imports)
//! ```
//!
//! Its `build.rs` calls [`bundle`]; the code then loads the schemas with
//! `Registry::from_bundle(dataschema::include_bundle!())`. At build time
//! every schema is compiled (`.proto` in pure Rust, with `protox`), and
//! when a lock exists, a URN whose bytes no longer match its recorded digest
//! fails the build: a mis-published schema is caught by `cargo build`.
//! The build never writes into the source tree; [`lock`] (and the
//! `dataschema lock` command) does.

#![warn(missing_docs)]

mod lock;
mod manifest;
#[cfg(feature = "protox")]
mod proto;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};

use self::lock::Lock;
pub use self::lock::LOCK_FILE;
use self::manifest::Manifest;
pub use self::manifest::MANIFEST_FILE;
#[cfg(feature = "protox")]
pub use self::proto::compile_proto;
use std::collections::HashMap;
use std::sync::Arc;

use dataschema_core::sha256_hex;
use dataschema_core::validate::{compile, Options};
use dataschema_core::{compat, Chain, Compatibility, Error, Language, Resolver, Schema, Urn};

/// A schema found in the folder, with where it came from.
#[derive(Debug, Clone)]
pub struct Source {
    /// The schema, as the registry will hold it (a `.proto` compiled to a
    /// `FileDescriptorSet`).
    pub schema: Schema,
    /// The file it was read from.
    pub path: PathBuf,
    /// The digest the lock records: the sha256 of the JSON file, or of a
    /// `.proto` file, the sources it imports from the folder and its root
    /// message's name (so it does not move when the compiler's version
    /// does, and does when the root does).
    pub digest: String,
    /// The id the registry assigned to the URN, as the lock's `[ids]`
    /// records it (`None` when it records none).
    pub id: Option<u32>,
}

/// What kind of problem a [`Diagnostic`] reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DiagnosticKind {
    /// A file or the folder could not be read or written.
    Io,
    /// `bundle` was called outside a build script (no `OUT_DIR`).
    NotInBuildScript,
    /// The manifest is missing or invalid, or names a file or a name the
    /// folder does not hold.
    Manifest,
    /// A file name does not name a schema version
    /// (`<name>.v<version>.json` or `.proto`, in UTF-8, the extension in
    /// lower case).
    FileName,
    /// Not a regular file inside the folder: a symbolic link out of it or
    /// dangling, a directory, a device.
    NotAFile,
    /// Two files give the same URN.
    Duplicate,
    /// A `.json` file is not JSON.
    NotJson,
    /// A `.proto` file does not compile, or imports a file outside the
    /// folder.
    ProtoDoesNotCompile,
    /// A `.proto` file, and the `protobuf` feature is off.
    NoProtobuf,
    /// A protobuf schema has no root message in the manifest.
    MissingRoot,
    /// The schema does not compile with the validator its language has
    /// (or a `$ref` it needs is not in the folder).
    Unusable,
    /// The lock cannot be read.
    Lock,
    /// A locked URN's bytes changed.
    Changed,
    /// A locked URN's file is gone.
    Removed,
    /// The lock's `[ids]` contradict themselves: one content under two
    /// ids, or one id for two contents.
    IdConflict,
    /// A version breaks compatibility with the versions before it.
    Incompatible,
}

/// One problem found in a schemas folder: the file, the kind, and what is
/// wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    kind: DiagnosticKind,
    path: PathBuf,
    message: String,
    report: Option<Box<compat::CompatReport>>,
}

impl Diagnostic {
    fn new(
        kind: DiagnosticKind,
        path: impl Into<PathBuf>,
        message: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic {
            kind,
            path: path.into(),
            message: message.into(),
            report: None,
        }
    }

    /// The same diagnostic with the compatibility report that caused it.
    fn with_report(mut self, report: compat::CompatReport) -> Diagnostic {
        self.report = Some(Box::new(report));
        self
    }

    /// What kind of problem it is.
    pub fn kind(&self) -> DiagnosticKind {
        self.kind
    }

    /// The file concerned.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What is wrong with it.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// For [`DiagnosticKind::Incompatible`], the typed report: each
    /// version checked and each change found, with its kind, path and
    /// direction (the message prints it).
    pub fn report(&self) -> Option<&compat::CompatReport> {
        self.report.as_deref()
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.message)
    }
}

/// Every problem found in a schemas folder.
///
/// Its `Debug` is its `Display` (one problem a line), so
/// `bundle("schemas").unwrap()` in a build script prints readable errors.
#[derive(Clone, PartialEq, Eq)]
pub struct BundleError {
    diagnostics: Vec<Diagnostic>,
}

impl BundleError {
    fn one(
        kind: DiagnosticKind,
        path: impl Into<PathBuf>,
        message: impl Into<String>,
    ) -> BundleError {
        BundleError {
            diagnostics: vec![Diagnostic::new(kind, path, message)],
        }
    }

    /// The problems, in file order.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }
}

impl fmt::Display for BundleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.diagnostics.len();
        write!(
            f,
            "{n} problem{} in the schemas:",
            if n == 1 { "" } else { "s" }
        )?;
        for diagnostic in &self.diagnostics {
            write!(f, "\n  {diagnostic}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for BundleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for BundleError {}

/// What [`check`] found: every schema of the folder, compiled and checked.
#[derive(Debug, Clone)]
pub struct Checked {
    /// The schemas, ordered by URN.
    pub sources: Vec<Source>,
    /// URNs in the folder that the lock does not record yet.
    pub unlocked: Vec<Urn>,
    /// Whether the folder has a lock at all.
    pub has_lock: bool,
    /// The compatibility mode of each name in the folder.
    pub modes: BTreeMap<String, Compatibility>,
}

impl Checked {
    /// The schemas alone.
    pub fn schemas(&self) -> Vec<Schema> {
        self.sources.iter().map(|s| s.schema.clone()).collect()
    }
}

/// Reads and checks every schema in `dir`: names, manifest, compilation,
/// that no published URN's bytes changed or disappeared (when
/// `dataschema.lock` exists), and that each version of a name is compatible
/// with the versions before it under the manifest's mode. Reports every
/// problem at once.
pub fn check(dir: impl AsRef<Path>) -> Result<Checked, BundleError> {
    inspect(dir.as_ref(), true)
}

/// Like [`check`], without the compatibility checks: what
/// `dataschema compat` reads a folder with, to report on one name itself.
pub fn read(dir: impl AsRef<Path>) -> Result<Checked, BundleError> {
    inspect(dir.as_ref(), false)
}

fn inspect(dir: &Path, compatibility: bool) -> Result<Checked, BundleError> {
    let manifest = Manifest::read(dir)?;
    let mut diagnostics = Vec::new();
    let (mut sources, found) = discover(dir, &manifest, &mut diagnostics);
    sources.sort_by(|a, b| a.schema.urn().cmp(b.schema.urn()));
    // Names given twice for one URN (`x.v1.json` and `x.v1.proto`): one
    // diagnostic, and no compatibility check between the two.
    let mut duplicated = BTreeSet::new();
    for pair in sources.windows(2) {
        if pair[0].schema.urn() == pair[1].schema.urn() {
            duplicated.insert(pair[0].schema.urn().name().to_owned());
            diagnostics.push(Diagnostic::new(
                DiagnosticKind::Duplicate,
                &pair[1].path,
                format!(
                    "{} is also given by {}",
                    pair[1].schema.urn(),
                    pair[0].path.display()
                ),
            ));
        }
    }
    manifest.check_roots(dir, &sources, &found.proto, &mut diagnostics);
    let modes = manifest.modes(dir, &sources, &mut diagnostics);

    // Compile each schema against all of them (a JSON Schema may `$ref`
    // another by URN), with the code the registry runs at publish.
    let folder = Arc::new(Folder(
        sources
            .iter()
            .map(|s| (s.schema.urn().clone(), s.schema.clone()))
            .collect(),
    ));
    let mut compiled = Vec::with_capacity(sources.len());
    for source in &sources {
        match compile(&source.schema, folder.clone(), Options::default()) {
            Ok(_) => compiled.push(true),
            // The internal `unchecked` feature: a schema whose validator is
            // not compiled in is bundled unchecked (the binary fails open
            // on it with `no_validator`).
            #[cfg(feature = "unchecked")]
            Err(dataschema_core::validate::CompileError::NoValidator(_)) => compiled.push(true),
            Err(err) => {
                compiled.push(false);
                let err = Error::from(err);
                diagnostics.push(Diagnostic::new(
                    DiagnosticKind::Unusable,
                    &source.path,
                    err.chain().to_string(),
                ));
            }
        }
    }

    let lock = Lock::read(dir)?;
    let mut unlocked = Vec::new();
    if let Some(lock) = &lock {
        for source in &mut sources {
            source.id = lock.id(source.schema.urn());
        }
        lock.check(dir, &sources, &found.all, &mut unlocked, &mut diagnostics);
    }

    // Each version against the versions of its name before it, in order.
    if compatibility && compiled.iter().all(|ok| *ok) {
        for (index, source) in sources.iter().enumerate() {
            let urn = source.schema.urn();
            if duplicated.contains(urn.name()) {
                continue;
            }
            let mode = modes.get(urn.name()).copied().unwrap_or_default();
            let priors: Vec<Schema> = sources[..index]
                .iter()
                .filter(|prior| prior.schema.urn().name() == urn.name())
                .map(|prior| prior.schema.clone())
                .collect();
            if priors.is_empty() {
                continue;
            }
            match compat::check(mode, &source.schema, &priors) {
                Ok(report) if report.is_compatible() => {}
                Ok(report) => diagnostics.push(
                    Diagnostic::new(
                        DiagnosticKind::Incompatible,
                        &source.path,
                        format!(
                            "{urn} breaks compatibility with the versions before it: {report}\n    \
                             (the mode comes from {MANIFEST_FILE}: `compatibility`, or \
                             [compatibility_overrides] for one name)"
                        ),
                    )
                    .with_report(report),
                ),
                Err(err) => diagnostics.push(Diagnostic::new(
                    DiagnosticKind::Unusable,
                    &source.path,
                    Chain::of(&err).to_string(),
                )),
            }
        }
    }
    if diagnostics.is_empty() {
        Ok(Checked {
            sources,
            unlocked,
            has_lock: lock.is_some(),
            modes,
        })
    } else {
        Err(BundleError { diagnostics })
    }
}

/// The schemas of `dir`, checked as [`check`] checks them: what the
/// command-line tool validates against.
pub fn load(dir: impl AsRef<Path>) -> Result<Vec<Schema>, BundleError> {
    check(dir).map(|checked| checked.schemas())
}

/// Writes `dir/dataschema.lock`, recording the digest of every schema in
/// the folder. Refuses (and writes nothing) when the folder does not pass
/// [`check`], in particular when a URN already locked changed: a published
/// URN never changes. Returns the URNs newly recorded.
pub fn lock(dir: impl AsRef<Path>) -> Result<Vec<Urn>, BundleError> {
    let dir = dir.as_ref();
    let checked = check(dir)?;
    let mut lock = Lock::read(dir)?.unwrap_or_default();
    let added = lock.record(&checked.sources);
    lock.write(dir)?;
    Ok(added)
}

/// Records in `dir/dataschema.lock` that each `(urn, id)` of `published`
/// is published under the registry id `id`: its digest (as in [`lock`])
/// and its id, in the `[ids]` table. `checked` is what [`check`] answered
/// for `dir`; every URN must be one of its sources.
///
/// Refuses, writing nothing, when the lock already records another id (or
/// another digest) for one of them, or when the ids would contradict each
/// other (one content under two ids, one id for two contents): the lock's
/// ids then come from two registries. Writes nothing either when nothing
/// is new, so a second run leaves the file's bytes as they were. Returns
/// the URNs whose id was newly recorded.
pub fn record_published(
    dir: impl AsRef<Path>,
    checked: &Checked,
    published: &[(Urn, u32)],
) -> Result<Vec<Urn>, BundleError> {
    let dir = dir.as_ref();
    let lock_path = dir.join(LOCK_FILE);
    let mut lock = Lock::read(dir)?.unwrap_or_default();
    let mut added = Vec::new();
    let mut diagnostics = Vec::new();
    for (urn, id) in published {
        let Some(source) = checked.sources.iter().find(|s| s.schema.urn() == urn) else {
            diagnostics.push(Diagnostic::new(
                DiagnosticKind::Lock,
                &lock_path,
                format!("{urn} is not a schema of {}", dir.display()),
            ));
            continue;
        };
        match lock.record_published(source, *id) {
            Ok(true) => added.push(urn.clone()),
            Ok(false) => {}
            Err((kind, message)) => diagnostics.push(Diagnostic::new(kind, &source.path, message)),
        }
    }
    for conflict in lock::id_conflicts(&checked.sources, |urn| lock.id(urn)) {
        diagnostics.push(conflict.diagnostic(&lock_path));
    }
    if !diagnostics.is_empty() {
        return Err(BundleError { diagnostics });
    }
    if !added.is_empty() {
        lock.write(dir)?;
    }
    Ok(added)
}

/// Checks `dir` and bundles it into the crate being built: call it from
/// `build.rs`, then load the result with
/// `Registry::from_bundle(dataschema::include_bundle!())`.
///
/// ```no_run
/// // in build.rs, fn main(), with dataschema's `build` feature:
/// // dataschema::build::bundle("schemas").unwrap();
/// // which is this function:
/// dataschema_build::bundle("schemas").unwrap();
/// ```
///
/// A relative `dir` is taken from the crate's root (`CARGO_MANIFEST_DIR`).
/// Cargo re-runs the build script when anything in `dir` changes. Any
/// problem fails the build, naming the file.
pub fn bundle(dir: impl AsRef<Path>) -> Result<(), BundleError> {
    let mut dir = dir.as_ref().to_path_buf();
    if dir.is_relative() {
        if let Some(root) = std::env::var_os("CARGO_MANIFEST_DIR") {
            dir = PathBuf::from(root).join(dir);
        }
    }
    println!("cargo:rerun-if-changed={}", dir.display());
    let out_dir = std::env::var_os("OUT_DIR")
        .map(PathBuf::from)
        .ok_or_else(|| {
            BundleError::one(
                DiagnosticKind::NotInBuildScript,
                &dir,
                "OUT_DIR is not set: call bundle() from a build script",
            )
        })?;
    let checked = check(&dir)?;
    if !checked.has_lock {
        println!(
            "cargo:warning=dataschema: {} has no {LOCK_FILE}: run `dataschema lock {}` and commit it, \
             so a published schema cannot change unnoticed",
            dir.display(),
            dir.display()
        );
    } else if !checked.unlocked.is_empty() {
        let urns: Vec<String> = checked.unlocked.iter().map(Urn::to_string).collect();
        println!(
            "cargo:warning=dataschema: not in {LOCK_FILE} yet: {}: run `dataschema lock {}` when you publish them",
            urns.join(", "),
            dir.display()
        );
    }
    let code = generate(&checked, &out_dir)?;
    let target = out_dir.join(BUNDLE_FILE);
    fs::write(&target, code).map_err(|err| {
        BundleError::one(
            DiagnosticKind::Io,
            &target,
            format!("cannot write the bundle: {err}"),
        )
    })
}

/// Writes protobuf descriptor sets next to the generated code and returns
/// the code: a `Bundle` expression over `include_bytes!`.
fn generate(checked: &Checked, out_dir: &Path) -> Result<String, BundleError> {
    let blobs = out_dir.join("dataschema");
    fs::create_dir_all(&blobs).map_err(|err| {
        BundleError::one(DiagnosticKind::Io, &blobs, format!("cannot create: {err}"))
    })?;
    let mut code = String::from(
        "// Generated by dataschema::build::bundle. Do not edit.\n{\n    \
         static ENTRIES: &[::dataschema::bundle::Entry] = &[\n",
    );
    for source in &checked.sources {
        let schema = &source.schema;
        let bytes_path = match schema.language() {
            Language::Protobuf => {
                let file = blobs.join(format!(
                    "{}.v{}.binpb",
                    schema.urn().name(),
                    schema.urn().version()
                ));
                fs::write(&file, schema.bytes()).map_err(|err| {
                    BundleError::one(DiagnosticKind::Io, &file, format!("cannot write: {err}"))
                })?;
                file
            }
            _ => fs::canonicalize(&source.path).unwrap_or_else(|_| source.path.clone()),
        };
        // The variant's name, as the generated code spells it.
        let language = format!("{:?}", schema.language());
        let root = match &schema.root() {
            Some(root) => format!("Some({root:?})"),
            None => "None".to_owned(),
        };
        let path = bytes_path.to_string_lossy();
        // The registry id the lock records: `Registry::from_bundle` answers
        // it (and only it) for framed payloads.
        let id = match source.id {
            Some(id) => format!(".with_id({id})"),
            None => String::new(),
        };
        code.push_str(&format!(
            "        ::dataschema::bundle::Entry::new({:?}, ::dataschema::Language::{language}, {root}, include_bytes!({path:?})){id},\n",
            schema.urn().as_str()
        ));
    }
    code.push_str("    ];\n    ::dataschema::bundle::Bundle::new(ENTRIES)\n}\n");
    Ok(code)
}

/// The stems (`<name>.v<version>`) of the schema files a folder holds,
/// read or not.
#[derive(Default)]
struct Stems {
    /// Every schema file.
    all: BTreeSet<String>,
    /// The `.proto` files that are regular files.
    proto: BTreeSet<String>,
}

/// The folder's schemas, by URN: what a `$ref` by URN resolves to while
/// the folder is checked (first wins; duplicates are reported apart).
struct Folder(HashMap<Urn, Schema>);

impl Resolver for Folder {
    fn resolve(&self, urn: &Urn) -> Result<Schema, Error> {
        self.0
            .get(urn)
            .cloned()
            .ok_or_else(|| Error::NotFound { urn: urn.clone() })
    }
}

/// The file name [`bundle`] writes into `OUT_DIR`, which
/// `dataschema::include_bundle!` includes.
pub const BUNDLE_FILE: &str = "dataschema_bundle.rs";

/// Finds and reads the schema files of `dir`, with the stems of the
/// `.proto` files found (read or not).
///
/// Only regular files inside the folder are bundled: a symbolic link is
/// followed only when its target lies inside the folder too. Anything that
/// looks like a schema but cannot be one (a name that is not UTF-8, a
/// dangling link, a directory named `x.v1.json`, `x.v1.JSON`) is a
/// diagnostic, never skipped in silence.
fn discover(
    dir: &Path,
    manifest: &Manifest,
    diagnostics: &mut Vec<Diagnostic>,
) -> (Vec<Source>, Stems) {
    let mut found = Stems::default();
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(err) => {
            diagnostics.push(Diagnostic::new(
                DiagnosticKind::Io,
                dir,
                format!("cannot read the folder: {err}"),
            ));
            return (Vec::new(), found);
        }
    };
    let canonical_dir = fs::canonicalize(dir).ok();
    let mut paths = Vec::new();
    for entry in entries {
        match entry {
            Ok(entry) => paths.push(entry.path()),
            Err(err) => diagnostics.push(Diagnostic::new(
                DiagnosticKind::Io,
                dir,
                format!("cannot read an entry of the folder: {err}"),
            )),
        }
    }
    paths.sort();
    let mut sources = Vec::new();
    for path in paths {
        let Some(file_name) = path.file_name().and_then(|name| name.to_str()) else {
            diagnostics.push(Diagnostic::new(
                DiagnosticKind::FileName,
                &path,
                "the file name is not UTF-8: a schema file is named <name>.v<version>.json \
                 or .proto, in UTF-8",
            ));
            continue;
        };
        let lower = file_name.to_ascii_lowercase();
        let looks_like_schema = lower.ends_with(".json") || lower.ends_with(".proto");
        let (stem, language) = if let Some(stem) = file_name.strip_suffix(".json") {
            (stem, Language::JsonSchema)
        } else if let Some(stem) = file_name.strip_suffix(".proto") {
            (stem, Language::Protobuf)
        } else if looks_like_schema {
            diagnostics.push(Diagnostic::new(
                DiagnosticKind::FileName,
                &path,
                "the extension must be written in lower case: .json or .proto",
            ));
            continue;
        } else {
            continue; // the manifest, the lock, a README, a folder of imports...
        };
        // Present, whatever happens next: a file with its own problem is
        // not also reported as gone or unnamed.
        found.all.insert(stem.to_owned());
        if let Err(message) = regular_file_inside(&path, canonical_dir.as_deref()) {
            diagnostics.push(Diagnostic::new(DiagnosticKind::NotAFile, &path, message));
            continue;
        }
        if language == Language::Protobuf {
            found.proto.insert(stem.to_owned());
        }
        let urn = match parse_stem(&manifest.namespace, stem) {
            Ok(urn) => urn,
            Err(message) => {
                diagnostics.push(Diagnostic::new(DiagnosticKind::FileName, &path, message));
                continue;
            }
        };
        let read = if language == Language::Protobuf {
            read_proto(dir, &path, file_name, stem, urn, manifest)
        } else {
            read_json(&path, urn)
        };
        match read {
            Ok(source) => sources.push(source),
            Err((kind, message)) => diagnostics.push(Diagnostic::new(kind, &path, message)),
        }
    }
    (sources, found)
}

/// Whether `path` is a regular file, or a symbolic link to one inside
/// `dir` (canonical); otherwise why not.
fn regular_file_inside(path: &Path, dir: Option<&Path>) -> Result<(), String> {
    let meta = fs::symlink_metadata(path).map_err(|err| format!("cannot read: {err}"))?;
    if meta.file_type().is_symlink() {
        let target = fs::canonicalize(path).map_err(|err| {
            format!("a dangling symbolic link (its target cannot be read: {err})")
        })?;
        if !dir.is_some_and(|dir| target.starts_with(dir)) {
            return Err(format!(
                "a symbolic link to {}, outside the schemas folder: a bundle holds only files \
                 inside it (copy the schema in instead)",
                target.display()
            ));
        }
        return match fs::metadata(&target) {
            Ok(meta) if meta.is_file() => Ok(()),
            Ok(_) => Err(format!(
                "a symbolic link to {}, which is not a file",
                target.display()
            )),
            Err(err) => Err(format!("cannot read {}: {err}", target.display())),
        };
    }
    if meta.is_dir() {
        return Err("a directory, not a schema file".to_owned());
    }
    if !meta.is_file() {
        return Err("not a regular file".to_owned());
    }
    Ok(())
}

/// `orders.created.v3` in namespace `acme` is `urn:acme:schema:orders.created:3`.
fn parse_stem(namespace: &str, stem: &str) -> Result<Urn, String> {
    const EXPECTED: &str =
        "a schema file is named <name>.v<version>.json or <name>.v<version>.proto";
    let (name, version) = stem
        .rsplit_once(".v")
        .ok_or_else(|| format!("no version in the file name: {EXPECTED}"))?;
    let version: u32 = Some(version)
        .filter(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()) && !v.starts_with('0'))
        .and_then(|v| v.parse().ok())
        .ok_or_else(|| format!("the version {version:?} is not an integer from 1: {EXPECTED}"))?;
    Urn::new(namespace, name, version).map_err(|err| format!("{} ({EXPECTED})", err.chain()))
}

/// A problem reading one schema file: its kind and message.
type Problem = (DiagnosticKind, String);

fn read_json(path: &Path, urn: Urn) -> Result<Source, Problem> {
    let bytes =
        fs::read(path).map_err(|err| (DiagnosticKind::Io, format!("cannot read: {err}")))?;
    serde_json::from_slice::<serde_json::Value>(&bytes)
        .map_err(|err| (DiagnosticKind::NotJson, format!("not JSON: {err}")))?;
    Ok(Source {
        digest: sha256_hex(&bytes),
        schema: Schema::json(urn, bytes),
        path: path.to_path_buf(),
        id: None,
    })
}

/// Without the `protobuf` feature a `.proto` file cannot be compiled.
#[cfg(not(feature = "protox"))]
fn read_proto(
    _dir: &Path,
    _path: &Path,
    _file_name: &str,
    _stem: &str,
    _urn: Urn,
    _manifest: &Manifest,
) -> Result<Source, Problem> {
    Err((
        DiagnosticKind::NoProtobuf,
        "a .proto schema needs the `protobuf` feature of dataschema (or dataschema-build) \
         in [build-dependencies] to be compiled and checked"
            .to_owned(),
    ))
}

#[cfg(feature = "protox")]
fn read_proto(
    dir: &Path,
    path: &Path,
    file_name: &str,
    stem: &str,
    urn: Urn,
    manifest: &Manifest,
) -> Result<Source, Problem> {
    let mut compiler = proto::compiler(dir);
    compiler.open_file(file_name).map_err(|err| {
        (
            DiagnosticKind::ProtoDoesNotCompile,
            format!("does not compile: {}", proto::explain(dir, &err)),
        )
    })?;
    // The digest covers the file and what it imports from the folder, by
    // source text, so it does not move when protox's output does.
    let mut hashed = Vec::new();
    let mut files: Vec<_> = compiler.files().collect();
    files.sort_by(|a, b| a.name().cmp(b.name()));
    for file in files {
        hashed.extend_from_slice(file.name().as_bytes());
        hashed.push(0);
        if let Some(source_path) = file.path() {
            let source = fs::read(source_path).map_err(|err| {
                (
                    DiagnosticKind::Io,
                    format!("cannot read {}: {err}", source_path.display()),
                )
            })?;
            hashed.extend_from_slice(&source);
        }
        hashed.push(0);
    }
    let root = manifest.roots.get(stem).cloned().unwrap_or_default();
    // The root decides which message a payload must be: part of what the
    // URN means, so part of what the lock pins.
    hashed.extend_from_slice(b"root\0");
    hashed.extend_from_slice(root.as_bytes());
    let schema = Schema::protobuf(urn, compiler.encode_file_descriptor_set(), root);
    Ok(Source {
        digest: sha256_hex(&hashed),
        schema,
        path: path.to_path_buf(),
        id: None,
    })
}
