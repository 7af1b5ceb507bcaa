//! Schemas bundled into the binary at `cargo build`.
//!
//! A user's `build.rs` calls `dataschema::build::bundle`
//! (feature `build`), which checks every schema in `schemas/` and writes a
//! small Rust file into `OUT_DIR`; [`include_bundle!`](crate::include_bundle)
//! includes it, and [`Registry::from_bundle`](crate::Registry::from_bundle)
//! loads it. The schema bytes are embedded with `include_bytes!`, so a
//! bundled registry resolves without touching the filesystem or network.
//!
//! When the folder's lock records registry ids (`[ids]`, written by
//! `dataschema publish`), each entry carries its URN's id, and the
//! registry loaded from the bundle answers those ids (and only those) for
//! Confluent-framed payloads, offline.

use dataschema_core::resolve::Aliases;
use dataschema_core::{Bytes, Error, Language, Schema, Urn};

/// One bundled schema, as the generated code spells it.
#[derive(Clone, Copy)]
pub struct Entry {
    urn: &'static str,
    language: Language,
    root: Option<&'static str>,
    bytes: &'static [u8],
    id: Option<u32>,
    /// `(name, URN)`: the version's references (see `Schema::references`).
    references: &'static [(&'static str, &'static str)],
    /// The version's rule set, Confluent's JSON (the manifest's `[rules]`).
    rules: Option<&'static str>,
    /// The version's metadata, Confluent's JSON (the manifest's `[tags]`).
    metadata: Option<&'static str>,
    /// `(reader path, writer names)`: the aliases the manifest gives the
    /// version read as (`[aliases."<name>.v<version>"]`).
    aliases: &'static [(&'static str, &'static [&'static str])],
    /// The validator generated for the version at `cargo build` (a JSON
    /// Schema's, with `codegen = true` in the manifest).
    generated: Option<&'static dataschema_core::GeneratedValidator>,
}

impl std::fmt::Debug for Entry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Entry")
            .field("urn", &self.urn)
            .field("language", &self.language)
            .field("root", &self.root)
            .field("bytes", &self.bytes)
            .field("id", &self.id)
            .field("references", &self.references)
            .field("rules", &self.rules)
            .field("metadata", &self.metadata)
            .field("aliases", &self.aliases)
            .field("generated", &self.generated.is_some())
            .finish()
    }
}

impl Entry {
    /// Used by the code `build::bundle` generates.
    #[doc(hidden)]
    pub const fn new(
        urn: &'static str,
        language: Language,
        root: Option<&'static str>,
        bytes: &'static [u8],
    ) -> Entry {
        Entry {
            urn,
            language,
            root,
            bytes,
            id: None,
            references: &[],
            rules: None,
            metadata: None,
            aliases: &[],
            generated: None,
        }
    }

    /// The same entry with its references, `(name, URN)` each: the
    /// manifest's `[references."<name>.v<version>"]`. Used by the code
    /// `build::bundle` generates.
    #[doc(hidden)]
    pub const fn with_references(
        self,
        references: &'static [(&'static str, &'static str)],
    ) -> Entry {
        Entry { references, ..self }
    }

    /// The same entry with its rule set, Confluent's JSON form: the
    /// manifest's `[rules."<name>.v<version>"]`. Used by the code
    /// `build::bundle` generates.
    #[doc(hidden)]
    pub const fn with_rules(self, rules: &'static str) -> Entry {
        Entry {
            rules: Some(rules),
            ..self
        }
    }

    /// The same entry with its metadata, Confluent's JSON form: the
    /// manifest's `[tags."<name>.v<version>"]` (`metadata.tags`). Used by
    /// the code `build::bundle` generates.
    #[doc(hidden)]
    pub const fn with_metadata(self, metadata: &'static str) -> Entry {
        Entry {
            metadata: Some(metadata),
            ..self
        }
    }

    /// The same entry with the aliases the manifest gives it read as,
    /// `(reader path, writer names)` each: the manifest's
    /// `[aliases."<name>.v<version>"]`. Used by the code `build::bundle`
    /// generates.
    #[doc(hidden)]
    pub const fn with_aliases(
        self,
        aliases: &'static [(&'static str, &'static [&'static str])],
    ) -> Entry {
        Entry { aliases, ..self }
    }

    /// The same entry with the registry id the lock records for its URN.
    /// Used by the code `build::bundle` generates.
    #[doc(hidden)]
    pub const fn with_id(self, id: u32) -> Entry {
        Entry {
            id: Some(id),
            ..self
        }
    }

    /// The same entry with the validator `build::bundle` generated for it
    /// (`codegen = true` in the manifest). Used by the code
    /// `build::bundle` generates.
    #[doc(hidden)]
    pub const fn with_generated(
        self,
        generated: &'static dataschema_core::GeneratedValidator,
    ) -> Entry {
        Entry {
            generated: Some(generated),
            ..self
        }
    }

    fn schema(&self) -> Result<Schema, Error> {
        let schema = self.schema_alone()?;
        Ok(match self.generated {
            Some(generated) => schema.with_generated(generated),
            None => schema,
        })
    }

    fn schema_alone(&self) -> Result<Schema, Error> {
        // The bytes point at the binary's static data: nothing is copied.
        let schema = Schema::new(
            self.urn.parse::<Urn>()?,
            self.language,
            Bytes::from_static(self.bytes),
            self.root,
        );
        let schema = match self.rules {
            None => schema,
            Some(text) => {
                // Checked when bundled; a failure here is a hand-edited
                // bundle, said as the schema's.
                let set = serde_json::from_str(text)
                    .map_err(|err| err.to_string())
                    .and_then(|json| dataschema_core::RuleSet::from_json(&json))
                    .map_err(|err| Error::SchemaUnusable {
                        urn: schema.urn().clone(),
                        source: err.into(),
                    })?;
                schema.with_rule_set(Some(set))
            }
        };
        let schema = match self.metadata {
            None => schema,
            Some(text) => {
                let metadata = serde_json::from_str(text)
                    .map_err(|err| err.to_string())
                    .and_then(|json| dataschema_core::Metadata::from_json(&json))
                    .map_err(|err| Error::SchemaUnusable {
                        urn: schema.urn().clone(),
                        source: err.into(),
                    })?;
                schema.with_metadata(Some(metadata))
            }
        };
        if self.references.is_empty() {
            return Ok(schema);
        }
        let references = self
            .references
            .iter()
            .map(|(name, urn)| Ok(dataschema_core::Reference::new(*name, urn.parse::<Urn>()?)))
            .collect::<Result<Vec<_>, Error>>()?;
        Ok(schema.with_references(references))
    }
}

/// The schemas `build::bundle` packed, as [`include_bundle!`](crate::include_bundle)
/// gives them.
#[derive(Debug, Clone, Copy)]
pub struct Bundle {
    entries: &'static [Entry],
}

impl Bundle {
    /// Used by the code `build::bundle` generates.
    #[doc(hidden)]
    pub const fn new(entries: &'static [Entry]) -> Bundle {
        Bundle { entries }
    }

    /// How many schemas the bundle holds.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the bundle holds no schema.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The bundled schemas.
    pub fn schemas(&self) -> impl Iterator<Item = Result<Schema, Error>> + '_ {
        self.entries.iter().map(Entry::schema)
    }

    /// The aliases the folder's manifest gives versions read as
    /// (`[aliases."<name>.v<version>"]`), by URN as written in the bundle;
    /// a version given none is not listed.
    pub fn aliases(&self) -> impl Iterator<Item = (&'static str, Aliases)> + '_ {
        self.entries
            .iter()
            .filter(|entry| !entry.aliases.is_empty())
            .map(|entry| {
                let aliases =
                    entry
                        .aliases
                        .iter()
                        .fold(Aliases::new(), |aliases, (path, names)| {
                            aliases.with(*path, names.iter().map(|n| (*n).to_owned()).collect())
                        });
                (entry.urn, aliases)
            })
    }

    /// The registry ids the folder's lock recorded, by URN (as written in
    /// the lock; a URN without an id is not listed).
    pub fn ids(&self) -> impl Iterator<Item = (&'static str, u32)> + '_ {
        self.entries
            .iter()
            .filter_map(|entry| entry.id.map(|id| (entry.urn, id)))
    }
}

/// The file name `build::bundle` writes into `OUT_DIR`.
pub const BUNDLE_FILE: &str = "dataschema_bundle.rs";

/// The schemas `dataschema::build::bundle` packed into this crate at
/// `cargo build`, as a [`Bundle`].
///
/// ```ignore
/// let registry = dataschema::Registry::from_bundle(dataschema::include_bundle!())?;
/// ```
#[macro_export]
macro_rules! include_bundle {
    () => {
        include!(concat!(env!("OUT_DIR"), "/dataschema_bundle.rs"))
    };
}
