//! `schemas/dataschema.lock`: the digest of every published URN.

use std::collections::BTreeMap;
use std::path::Path;

use crate::{BundleError, Diagnostic, DiagnosticKind, Source};
use dataschema_core::Urn;

/// The lock's file name.
pub const LOCK_FILE: &str = "dataschema.lock";

const HEADER: &str = "# Written by `dataschema lock`: the sha256 of every published schema.\n\
# A published URN never changes: to change a schema, publish a new version.\n";

#[derive(Debug, Default, serde::Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Lock {
    #[serde(default)]
    schemas: BTreeMap<Urn, String>,
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
                        source.schema.urn().version().saturating_add(1),
                    ),
                )),
                None => unlocked.push(source.schema.urn().clone()),
            }
        }
        for urn in self.schemas.keys() {
            // A file that is there but has a problem of its own is not gone.
            let stem = format!("{}.v{}", urn.name(), urn.version());
            if !sources.iter().any(|source| source.schema.urn() == urn) && !present.contains(&stem)
            {
                diagnostics.push(Diagnostic::new(
                    DiagnosticKind::Removed,
                    dir.join(LOCK_FILE),
                    format!(
                        "{urn} is published but its file ({}.v{}.json or .proto) is gone: every \
                         version is kept forever; restore it",
                        urn.name(),
                        urn.version()
                    ),
                ));
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
        std::fs::write(&path, format!("{HEADER}{body}")).map_err(|err| {
            BundleError::one(DiagnosticKind::Io, &path, format!("cannot write: {err}"))
        })
    }
}
