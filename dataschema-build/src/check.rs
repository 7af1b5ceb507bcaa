//! Checking a folder: every schema read, compiled (a `$ref` by URN
//! resolving inside the folder), held against the lock and, version after
//! version, against the compatibility mode of its name.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;
use std::sync::Arc;

use dataschema_core::resolve::{Aliases, PlanOptions};
use dataschema_core::validate::{compile, Options};
use dataschema_core::{compat, Chain, Compatibility, Error, Resolver, Schema, Urn};

use crate::diagnostic::{BundleError, Diagnostic, DiagnosticKind};
use crate::discover::discover;
use crate::lock::Lock;
use crate::manifest::Manifest;
use crate::manifest::MANIFEST_FILE;
use crate::source::Source;

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
    /// The aliases the manifest gives versions read as (`[aliases."<name>.v<version>"]`),
    /// by URN, ordered as `sources`; a version given none is not listed.
    pub aliases: Vec<(Urn, Aliases)>,
    /// With `codegen = true` in the manifest: the Rust code generated
    /// from each JSON Schema version's scanner plan, by URN, for the
    /// versions the generator covers (feature `json`).
    pub generated: Vec<(Urn, GeneratedCode)>,
}

/// A validator generated from a version's scanner plan: Rust items for a
/// module of their own, and the hash the plan compiled at run time must
/// give again for them to be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GeneratedCode {
    /// The module's items (`check`, the entry point, and a function per
    /// subschema).
    pub code: String,
    /// The hash of `code`.
    pub hash: u64,
}

impl Checked {
    /// The schemas alone.
    pub fn schemas(&self) -> Vec<Schema> {
        self.sources.iter().map(|s| s.schema.clone()).collect()
    }

    /// The aliases the manifest gives `urn` when it is read as (none when
    /// it gives none).
    pub fn aliases_of(&self, urn: &Urn) -> Aliases {
        self.aliases
            .iter()
            .find(|(u, _)| u == urn)
            .map(|(_, aliases)| aliases.clone())
            .unwrap_or_default()
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
    manifest.apply_references(dir, &mut sources, &mut diagnostics);
    manifest.apply_rules(dir, &mut sources, &mut diagnostics);
    // An `.avsc` using a type another defines: that schema is a reference.
    #[cfg(feature = "avro")]
    {
        crate::avro::find_references(&mut sources, &mut diagnostics);
        crate::avro::check_cycles(&sources, &mut diagnostics);
    }
    let modes = manifest.modes(dir, &sources, &mut diagnostics);
    let groups = manifest.groups(dir, &sources, &mut diagnostics);
    let policy = manifest.policy(dir, &mut diagnostics);
    let group_of = |source: &Source| {
        groups.as_ref().map(|groups| {
            groups
                .get(&crate::manifest::stem(source))
                .cloned()
                .flatten()
        })
    };

    // Compile each schema against all of them (a JSON Schema may `$ref`
    // another by URN), with the code the registry runs at publish.
    manifest.check_aliases(dir, &sources, &mut diagnostics);
    let aliases: Vec<(Urn, Aliases)> = sources
        .iter()
        .map(|s| {
            (
                s.schema.urn().clone(),
                manifest.aliases_of(&crate::manifest::stem(s)),
            )
        })
        .filter(|(_, aliases)| !aliases.is_empty())
        .collect();
    let folder = Arc::new(Folder(
        sources
            .iter()
            .map(|s| (s.schema.urn().clone(), s.schema.clone()))
            .collect(),
        aliases.iter().cloned().collect(),
    ));
    let mut compiled = Vec::with_capacity(sources.len());
    let mut validators = Vec::with_capacity(sources.len());
    for source in &sources {
        match compile(&source.schema, folder.clone(), Options::default()) {
            Ok(validator) => {
                compiled.push(true);
                validators.push(Some(validator));
            }
            // The internal `unchecked` feature: a schema whose validator is
            // not compiled in is bundled unchecked (the binary fails open
            // on it with `no_validator`).
            #[cfg(feature = "unchecked")]
            Err(dataschema_core::validate::CompileError::NoValidator(_)) => {
                compiled.push(true);
                validators.push(None);
            }
            Err(err) => {
                compiled.push(false);
                validators.push(None);
                let err = Error::from(err);
                diagnostics.push(Diagnostic::new(
                    DiagnosticKind::Unusable,
                    &source.path,
                    err.chain().to_string(),
                ));
            }
        }
    }

    // Data contracts: each rule against its schema, each change of
    // compatibility group crossed by migration rules, `[samples]` run.
    crate::rules::check(
        dir,
        manifest.samples(),
        &sources,
        &validators,
        groups.as_ref(),
        &mut diagnostics,
    );

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
            // With `compatibility_group`, only the versions of the
            // candidate's group.
            let group = group_of(source);
            let priors: Vec<Schema> = sources[..index]
                .iter()
                .filter(|prior| prior.schema.urn().name() == urn.name())
                .filter(|prior| group.is_none() || group_of(prior) == group)
                .map(|prior| prior.schema.clone())
                .collect();
            if priors.is_empty() {
                continue;
            }
            // Each schema read over its references (an Avro schema's
            // types defined in another file), as the registry reads it.
            let checked = compat::check_readings(mode, &source.schema, &priors, &mut |schema| {
                compat::Reading::read_with(schema, folder.as_ref()).map(Arc::new)
            });
            match checked.map(|r| r.under(policy)) {
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
    // `resolve = "latest"`: each earlier version read as its name's latest
    // (the manifest's aliases of the reader given by the folder).
    let latest = manifest.resolve_latest(dir, &sources, &mut diagnostics);
    if compiled.iter().all(|ok| *ok) {
        for name in &latest {
            let versions: Vec<&Source> = sources
                .iter()
                .filter(|s| s.schema.urn().name() == name)
                .collect();
            let Some(reader) = versions.iter().max_by_key(|s| s.schema.urn().version()) else {
                continue;
            };
            let options = PlanOptions::new();
            for writer in &versions {
                if writer.schema.urn() == reader.schema.urn() {
                    continue;
                }
                if let Err(err) = dataschema_core::resolve::plan(
                    &writer.schema,
                    &reader.schema,
                    folder.clone(),
                    &options,
                ) {
                    diagnostics.push(Diagnostic::new(
                        DiagnosticKind::Unresolvable,
                        &writer.path,
                        format!(
                            "{err}\n    (the manifest asks that every version of {name} read \
                             as its latest: `resolve = \"latest\"`)"
                        ),
                    ));
                }
            }
        }
    }
    let generated = if manifest.codegen {
        generated(&sources, &validators)
    } else {
        Vec::new()
    };
    if diagnostics.is_empty() {
        Ok(Checked {
            sources,
            unlocked,
            has_lock: lock.is_some(),
            modes,
            aliases,
            generated,
        })
    } else {
        Err(BundleError { diagnostics })
    }
}

/// The folder's schemas, by URN: what a `$ref` by URN resolves to while
/// the folder is checked (first wins; duplicates are reported apart); and
/// the aliases the manifest gives versions read as.
struct Folder(HashMap<Urn, Schema>, HashMap<Urn, Aliases>);

impl Resolver for Folder {
    fn resolve(&self, urn: &Urn) -> Result<Schema, Error> {
        self.0
            .get(urn)
            .cloned()
            .ok_or_else(|| Error::NotFound { urn: urn.clone() })
    }

    fn aliases(&self, urn: &Urn) -> Aliases {
        self.1.get(urn).cloned().unwrap_or_default()
    }
}

/// The code generated from each compiled JSON Schema version's plan, when
/// the generator covers it.
#[cfg(feature = "json")]
fn generated(
    sources: &[Source],
    validators: &[Option<dataschema_core::validate::Compiled>],
) -> Vec<(Urn, GeneratedCode)> {
    sources
        .iter()
        .zip(validators)
        .filter_map(|(source, validator)| {
            let generated = validator.as_ref()?.generate()?;
            Some((
                source.schema.urn().clone(),
                GeneratedCode {
                    code: generated.code,
                    hash: generated.hash,
                },
            ))
        })
        .collect()
}

/// Without the JSON validator there is no plan to generate code from.
#[cfg(not(feature = "json"))]
fn generated(
    _sources: &[Source],
    _validators: &[Option<dataschema_core::validate::Compiled>],
) -> Vec<(Urn, GeneratedCode)> {
    Vec::new()
}
