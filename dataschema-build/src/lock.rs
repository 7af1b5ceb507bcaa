//! `schemas/dataschema.lock`: the digest of every published URN, and the
//! id the registry assigned to each.
//!
//! ```toml
//! [schemas]            # written by `dataschema lock` and `dataschema publish`
//! "urn:acme:schema:orders.created:1" = "sha256:bacf…"
//!
//! [ids]                # written by `dataschema publish`; absent in older locks
//! "urn:acme:schema:orders.created:1" = 3
//! ```
//!
//! The registry's URL is not recorded: a URL is not a registry's identity
//! (one registry has several, and a URL can carry an internal host name or
//! a credential that has no place in a committed file). What keeps the ids
//! honest is that `dataschema publish` compares, for every URN, the id and
//! the bytes the registry it talks to holds against the lock, and refuses a
//! contradiction.

use std::collections::BTreeMap;
use std::path::Path;

use crate::diagnostic::{BundleError, Diagnostic, DiagnosticKind};
use crate::source::Source;
use dataschema_core::Urn;
use std::collections::HashMap;

/// The lock's file name.
pub const LOCK_FILE: &str = "dataschema.lock";

const HEADER: &str = "# Written by `dataschema lock`: the sha256 of every published schema.\n\
# A published URN never changes: to change a schema, publish a new version.\n";

/// The header of a lock that records ids too.
const HEADER_WITH_IDS: &str =
    "# Written by `dataschema lock` and `dataschema publish`: the sha256 of every\n\
# published schema.\n\
# A published URN never changes: to change a schema, publish a new version.\n\
# [ids]: the id the registry assigned to each URN (written by `dataschema publish`;\n\
# one content has one id, and Confluent-framed payloads carry it).\n\
# The ids are those of the one registry the folder was published to: another\n\
# registry numbers its own, unless `dataschema import` copied this one into it\n\
# (`dataschema publish` refuses a registry that disagrees; to move to a new one,\n\
# delete this [ids] table and publish again).\n";

#[derive(Debug, Default, serde::Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Lock {
    #[serde(default)]
    schemas: BTreeMap<Urn, String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    ids: BTreeMap<Urn, u32>,
}

impl Lock {
    pub(super) fn read(dir: &Path) -> Result<Option<Lock>, BundleError> {
        let path = dir.join(LOCK_FILE);
        match std::fs::read_to_string(&path) {
            Ok(text) => toml::from_str(&text)
                .map(Some)
                .map_err(|err| BundleError::one(DiagnosticKind::Lock, &path, err.to_string())),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(err) => Err(BundleError::one(
                DiagnosticKind::Io,
                &path,
                format!("cannot read: {err}"),
            )),
        }
    }

    /// The version after every version of `name` the folder holds (its
    /// files, `present` stems included) or the lock records: the one a
    /// change can be published as.
    fn next_version(
        &self,
        name: &str,
        sources: &[Source],
        present: &std::collections::BTreeSet<String>,
    ) -> u32 {
        let in_files = present.iter().filter_map(|stem| {
            let (stem_name, version) = stem.rsplit_once(".v")?;
            (stem_name == name).then(|| version.parse::<u32>().ok())?
        });
        let in_sources = sources
            .iter()
            .map(|source| source.schema.urn())
            .filter(|urn| urn.name() == name)
            .map(Urn::version);
        let in_lock = self
            .schemas
            .keys()
            .filter(|urn| urn.name() == name)
            .map(Urn::version);
        in_files
            .chain(in_sources)
            .chain(in_lock)
            .max()
            .unwrap_or(0)
            .saturating_add(1)
    }

    /// Every locked URN still there with its digest; collects the URNs the
    /// lock does not record yet.
    pub(super) fn check(
        &self,
        dir: &Path,
        sources: &[Source],
        present: &std::collections::BTreeSet<String>,
        unlocked: &mut Vec<Urn>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        for source in sources {
            match self.schemas.get(source.schema.urn()) {
                Some(digest) if *digest == source.digest => {}
                Some(digest) => diagnostics.push(Diagnostic::new(
                    DiagnosticKind::Changed,
                    &source.path,
                    format!(
                        "{} changed since it was published (locked {digest}, now {}): a published URN \
                         never changes; restore the file and publish the change as version {} instead",
                        source.schema.urn(),
                        source.digest,
                        self.next_version(source.schema.urn().name(), sources, present),
                    ),
                )),
                None => unlocked.push(source.schema.urn().clone()),
            }
        }
        self.check_ids(dir, sources, diagnostics);
        for urn in self.schemas.keys() {
            // A file that is there but has a problem of its own is not gone.
            let stem = format!("{}.v{}", urn.name(), urn.version());
            if !sources.iter().any(|source| source.schema.urn() == urn) && !present.contains(&stem)
            {
                diagnostics.push(Diagnostic::new(
                    DiagnosticKind::Removed,
                    dir.join(LOCK_FILE),
                    format!(
                        "{urn} is published but its file ({}.v{}.json, .avsc or .proto) is gone: every \
                         version is kept forever; restore it",
                        urn.name(),
                        urn.version()
                    ),
                ));
            }
        }
    }

    /// The id the lock records for `urn`.
    pub(super) fn id(&self, urn: &Urn) -> Option<u32> {
        self.ids.get(urn).copied()
    }

    /// The `[ids]` table on its own: an id only for a URN with a digest,
    /// never 0, one id per content and one content per id (among the
    /// folder's sources).
    fn check_ids(&self, dir: &Path, sources: &[Source], diagnostics: &mut Vec<Diagnostic>) {
        let lock_path = dir.join(LOCK_FILE);
        for (urn, id) in &self.ids {
            if !self.schemas.contains_key(urn) {
                diagnostics.push(Diagnostic::new(
                    DiagnosticKind::Lock,
                    &lock_path,
                    format!(
                        "[ids] records id {id} for {urn}, which [schemas] does not lock: \
                         `dataschema publish` records both; publish it again to repair the lock"
                    ),
                ));
            }
            if *id == 0 {
                diagnostics.push(Diagnostic::new(
                    DiagnosticKind::Lock,
                    &lock_path,
                    format!("[ids] records id 0 for {urn}: a registry id is at least 1"),
                ));
            }
        }
        for conflict in id_conflicts(sources, |urn| self.id(urn)) {
            diagnostics.push(conflict.diagnostic(&lock_path));
        }
    }

    /// Records `id` for `source`, with its digest; an id or digest the
    /// lock records otherwise is an error (nothing changed).
    pub(super) fn record_published(
        &mut self,
        source: &Source,
        id: u32,
    ) -> Result<bool, (DiagnosticKind, String)> {
        let urn = source.schema.urn();
        if let Some(digest) = self.schemas.get(urn) {
            if *digest != source.digest {
                return Err((
                    DiagnosticKind::Changed,
                    format!(
                        "{urn} changed since it was locked (locked {digest}, now {})",
                        source.digest
                    ),
                ));
            }
        }
        if id == 0 {
            return Err((
                DiagnosticKind::IdConflict,
                format!("the registry answered id 0 for {urn}: a registry id is at least 1"),
            ));
        }
        match self.ids.get(urn) {
            Some(locked) if *locked != id => Err((
                DiagnosticKind::IdConflict,
                format!(
                    "the registry holds {urn} under id {id}, but the lock records id {locked}: \
                 the lock's ids come from another registry (or the registry lost its data)"
                ),
            )),
            Some(_) => Ok(false),
            None => {
                self.schemas.insert(urn.clone(), source.digest.clone());
                self.ids.insert(urn.clone(), id);
                Ok(true)
            }
        }
    }

    /// Records the sources not recorded yet; returns their URNs.
    pub(super) fn record(&mut self, sources: &[Source]) -> Vec<Urn> {
        let mut added = Vec::new();
        for source in sources {
            if !self.schemas.contains_key(source.schema.urn()) {
                self.schemas
                    .insert(source.schema.urn().clone(), source.digest.clone());
                added.push(source.schema.urn().clone());
            }
        }
        added
    }

    pub(super) fn write(&self, dir: &Path) -> Result<(), BundleError> {
        let path = dir.join(LOCK_FILE);
        let body = toml::to_string(self)
            .map_err(|err| BundleError::one(DiagnosticKind::Io, &path, err.to_string()))?;
        let header = if self.ids.is_empty() {
            HEADER
        } else {
            HEADER_WITH_IDS
        };
        // Written beside (a name of this process's own, so two runs on one
        // folder never rename each other's half-written file), flushed to
        // disk, then renamed over: a lock is never half written.
        let partial = dir.join(format!("{LOCK_FILE}.{}.partial", std::process::id()));
        let write = |partial: &Path| -> std::io::Result<()> {
            use std::io::Write as _;
            let mut file = std::fs::File::create(partial)?;
            file.write_all(format!("{header}{body}").as_bytes())?;
            file.sync_all()
        };
        write(&partial)
            .and_then(|()| std::fs::rename(&partial, &path))
            .map_err(|err| {
                let _ = std::fs::remove_file(&partial);
                BundleError::one(DiagnosticKind::Io, &path, format!("cannot write: {err}"))
            })
    }
}

/// Two ids that contradict each other among `sources`.
pub(super) struct IdConflict<'a> {
    source: &'a Source,
    id: u32,
    other: &'a Source,
    other_id: u32,
}

impl IdConflict<'_> {
    pub(super) fn diagnostic(&self, lock_path: &Path) -> Diagnostic {
        let (urn, other) = (self.source.schema.urn(), self.other.schema.urn());
        let message = if self.id == self.other_id {
            format!(
                "[ids] gives {urn} and {other} the same id {}, but their contents differ: \
                 a registry id names one content",
                self.id
            )
        } else {
            format!(
                "[ids] gives {urn} id {} and {other} id {}, but they hold the same content: \
                 a registry gives one content one id (the lock's ids come from two registries?)",
                self.id, self.other_id
            )
        };
        Diagnostic::new(DiagnosticKind::IdConflict, lock_path, message)
    }
}

/// Every pair of sources whose ids contradict: the same content (language,
/// root, bytes) under two ids, or one id for two contents. Each source is
/// compared with the first source of its content and of its id.
pub(super) fn id_conflicts<'a>(
    sources: &'a [Source],
    id_of: impl Fn(&Urn) -> Option<u32>,
) -> Vec<IdConflict<'a>> {
    type Content<'a> = (dataschema_core::Language, Option<&'a str>, &'a [u8]);
    let mut by_content: HashMap<Content<'a>, (&'a Source, u32)> = HashMap::new();
    let mut by_id: HashMap<u32, &'a Source> = HashMap::new();
    let mut conflicts = Vec::new();
    for source in sources {
        let Some(id) = id_of(source.schema.urn()) else {
            continue;
        };
        let schema = &source.schema;
        let content = (schema.language(), schema.root(), schema.bytes());
        match by_content.get(&content) {
            Some(&(first, first_id)) if first_id != id => conflicts.push(IdConflict {
                source,
                id,
                other: first,
                other_id: first_id,
            }),
            Some(_) => {}
            None => {
                by_content.insert(content, (source, id));
            }
        }
        match by_id.get(&id) {
            Some(&first) => {
                let held = &first.schema;
                if (held.language(), held.root(), held.bytes()) != content {
                    conflicts.push(IdConflict {
                        source,
                        id,
                        other: first,
                        other_id: id,
                    });
                }
            }
            None => {
                by_id.insert(id, source);
            }
        }
    }
    conflicts
}
