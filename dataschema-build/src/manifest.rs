//! `schemas/dataschema.toml`.

use std::collections::BTreeMap;
use std::path::Path;

use crate::diagnostic::{BundleError, Diagnostic, DiagnosticKind};
use crate::source::Source;
use dataschema_core::{Compatibility, Language};

/// The manifest's file name.
pub const MANIFEST_FILE: &str = "dataschema.toml";

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Manifest {
    /// The URN namespace (NID) of every schema in the folder.
    pub(super) namespace: String,
    /// `"<name>.v<version>" = "<fully.qualified.Message>"`, one a protobuf schema.
    #[serde(default)]
    pub(super) roots: BTreeMap<String, String>,
    /// `["<name>.v<version>", ...]`: protobuf schemas without a root
    /// message (as Confluent allows): bundled as their descriptor set
    /// alone, a frame's message indexes name each payload's message, and a
    /// payload addressed by URN names none (the guard fails open on it,
    /// `unusable`).
    #[serde(default)]
    pub(super) rootless: Vec<String>,
    /// The compatibility mode of every name (default `backward`).
    #[serde(default)]
    compatibility: Option<String>,
    /// `"<name>" = "<mode>"`: a mode for one name.
    #[serde(default)]
    compatibility_overrides: BTreeMap<String, String>,
    /// The metadata property whose value groups a name's versions for
    /// compatibility checks (Confluent's `compatibilityGroup`): a version
    /// is checked only against the versions before it with the same value
    /// (a version without the property is in the group of those without).
    #[serde(default)]
    compatibility_group: Option<String>,
    /// `strict` (the default) or `lenient` (Confluent's
    /// `compatibilityPolicy`, for JSON Schema's open content models).
    #[serde(default)]
    compatibility_policy: Option<String>,
    /// `[metadata."<name>.v<version>"]`: a version's metadata properties,
    /// `property = "value"` (what `compatibility_group` reads).
    #[serde(default)]
    metadata: BTreeMap<String, BTreeMap<String, String>>,
    /// `[references."<name>.v<version>"]`: `"<name used in $ref>" =
    /// "<URN>"`, the version's references (a `$ref` to the name resolves
    /// to the URN, in the build's compile and in the bundle).
    #[serde(default)]
    references: BTreeMap<String, BTreeMap<String, String>>,
    /// `[rules."<name>.v<version>"]`: the version's rule set in
    /// Confluent's form (`domainRules = [{ name = .., kind = .., type =
    /// "CEL", expr = .. }]`, `migrationRules`, `enableAt`), bundled with
    /// it; every CEL rule is compiled at `cargo build`.
    #[serde(default)]
    rules: BTreeMap<String, toml::Value>,
    /// `[tags."<name>.v<version>"]`: `"<path>" = ["TAG", ..]`, the
    /// version's `metadata.tags` as Confluent's registry holds them (a
    /// field's full name, or a `WildcardMatcher` pattern, to its tags):
    /// what a `CEL_FIELD` rule's `tags` select beside the tags written in
    /// the schema. Bundled with the version, checked with its rules.
    #[serde(default)]
    tags: BTreeMap<String, BTreeMap<String, Vec<String>>>,
    /// `[samples]`: `"<name>.v<version>" = ["samples/order.json", ..]`,
    /// payloads of the version (files beside the manifest; an Avro or
    /// protobuf payload in its JSON form) that the build validates and
    /// runs through every rule and migration of the version.
    #[serde(default)]
    samples: BTreeMap<String, Vec<String>>,
    /// `resolve = "latest"`: every version of every name must be readable
    /// as its name's latest (checked at build, as compatibility is); or
    /// `[resolve]` `"<name>" = "latest"` for some names.
    #[serde(default)]
    resolve: Option<ResolveSetting>,
    /// `codegen = true`: the bundle carries, for each JSON Schema version
    /// that has a scanner plan, a validator generated as Rust code from
    /// the plan, which the guard runs in place of the plan (payloads
    /// faster; verdicts and reports unchanged).
    #[serde(default)]
    pub(super) codegen: bool,
    /// `[aliases."<name>.v<version>"]`: `"/reader/path" = ["writerName"]`,
    /// the names a reader field answers to beyond its own (for schemas one
    /// cannot edit); an entry naming no field of the reader is a problem.
    #[serde(default)]
    aliases: BTreeMap<String, BTreeMap<String, Vec<String>>>,
}

/// `resolve`: for every name, or per name.
#[derive(Debug, serde::Deserialize)]
#[serde(untagged)]
enum ResolveSetting {
    All(String),
    Names(BTreeMap<String, String>),
}

impl Manifest {
    pub(super) fn read(dir: &Path) -> Result<Manifest, BundleError> {
        let path = dir.join(MANIFEST_FILE);
        let text = std::fs::read_to_string(&path).map_err(|err| {
            BundleError::one(
                DiagnosticKind::Manifest,
                &path,
                format!("cannot read the manifest ({err}); it must give at least `namespace = \"acme\"`"),
            )
        })?;
        let manifest: Manifest = toml::from_str(&text)
            .map_err(|err| BundleError::one(DiagnosticKind::Manifest, &path, err.to_string()))?;
        let probe = format!("urn:{}:schema:x:1", manifest.namespace);
        if let Err(err) = probe.parse::<dataschema_core::Urn>() {
            return Err(BundleError::one(
                DiagnosticKind::Manifest,
                &path,
                format!(
                    "namespace {:?} is not a URN namespace identifier ({})",
                    manifest.namespace,
                    err.chain()
                ),
            ));
        }
        Ok(manifest)
    }

    /// `[samples]`, by version.
    pub(super) fn samples(&self) -> &BTreeMap<String, Vec<String>> {
        &self.samples
    }

    /// The names whose versions must read as their latest; an unknown
    /// value, or a name the folder does not hold, is a problem.
    pub(super) fn resolve_latest(
        &self,
        dir: &Path,
        sources: &[Source],
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Vec<String> {
        let path = dir.join(MANIFEST_FILE);
        let mut names: Vec<String> = Vec::new();
        let mut bad = |what: String| {
            diagnostics.push(Diagnostic::new(DiagnosticKind::Manifest, &path, what));
        };
        match &self.resolve {
            None => {}
            Some(ResolveSetting::All(value)) if value == "latest" => {
                names = sources
                    .iter()
                    .map(|s| s.schema.urn().name().to_owned())
                    .collect();
            }
            Some(ResolveSetting::All(value)) => {
                bad(format!("resolve = {value:?}: the one value is \"latest\""))
            }
            Some(ResolveSetting::Names(map)) => {
                for (name, value) in map {
                    if value != "latest" {
                        bad(format!(
                            "[resolve] {name:?} = {value:?}: the one value is \"latest\""
                        ));
                    } else if !sources.iter().any(|s| s.schema.urn().name() == name) {
                        bad(format!(
                            "[resolve] names {name:?}, but no schema in the folder has that name"
                        ));
                    } else {
                        names.push(name.clone());
                    }
                }
            }
        }
        names.sort();
        names.dedup();
        names
    }

    /// The aliases the manifest gives the reader `stem` (`<name>.v<version>`).
    pub(super) fn aliases_of(&self, stem: &str) -> dataschema_core::resolve::Aliases {
        let mut aliases = dataschema_core::resolve::Aliases::new();
        for (path, names) in self.aliases.get(stem).into_iter().flatten() {
            aliases = aliases.with(path.clone(), names.clone());
        }
        aliases
    }

    /// Each `[aliases."<stem>"]` entry checked: the version is in the
    /// folder and the path names a field of its schema (JSON Schema
    /// `properties`, `*` for an array's items or a map's values).
    pub(super) fn check_aliases(
        &self,
        dir: &Path,
        sources: &[Source],
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let path = dir.join(MANIFEST_FILE);
        for (stem_name, entries) in &self.aliases {
            let Some(source) = sources.iter().find(|s| stem(s) == *stem_name) else {
                diagnostics.push(Diagnostic::new(
                    DiagnosticKind::Manifest,
                    &path,
                    format!("[aliases.{stem_name:?}] names no version in the folder"),
                ));
                continue;
            };
            let document: Option<serde_json::Value> =
                serde_json::from_slice(source.schema.bytes()).ok();
            for field in entries.keys() {
                let found = document
                    .as_ref()
                    .is_some_and(|doc| names_a_field(doc, doc, field));
                if !found {
                    diagnostics.push(Diagnostic::new(
                        DiagnosticKind::Manifest,
                        &path,
                        format!(
                            "[aliases.{stem_name:?}] {field:?} names no field of {} \
                             (an alias there would drop a value without a word)",
                            source.schema.urn()
                        ),
                    ));
                }
            }
        }
    }

    /// The mode of each name in the folder; unknown mode strings, and
    /// overrides for names the folder does not hold, are problems.
    pub(super) fn modes(
        &self,
        dir: &Path,
        sources: &[Source],
        diagnostics: &mut Vec<Diagnostic>,
    ) -> BTreeMap<String, Compatibility> {
        let path = dir.join(MANIFEST_FILE);
        let parse = |key: &str, text: &str, diagnostics: &mut Vec<Diagnostic>| match text
            .parse::<Compatibility>(
        ) {
            Ok(mode) => Some(mode),
            Err(err) => {
                diagnostics.push(Diagnostic::new(
                    DiagnosticKind::Manifest,
                    &path,
                    format!("{key}: {err}"),
                ));
                None
            }
        };
        let default = self
            .compatibility
            .as_deref()
            .and_then(|text| parse("compatibility", text, diagnostics))
            .unwrap_or_default();
        let mut modes: BTreeMap<String, Compatibility> = sources
            .iter()
            .map(|source| (source.schema.urn().name().to_owned(), default))
            .collect();
        for (name, text) in &self.compatibility_overrides {
            let Some(mode) = parse(
                &format!("[compatibility_overrides] {name:?}"),
                text,
                diagnostics,
            ) else {
                continue;
            };
            match modes.get_mut(name) {
                Some(slot) => *slot = mode,
                None => diagnostics.push(Diagnostic::new(
                    DiagnosticKind::Manifest,
                    &path,
                    format!("[compatibility_overrides] names {name:?}, but no schema in the folder has that name"),
                )),
            }
        }
        modes
    }

    /// The policy the compatibility checks read changes under (an unknown
    /// name is a problem, and the default applies).
    pub(super) fn policy(
        &self,
        dir: &Path,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> dataschema_core::compat::Policy {
        match self.compatibility_policy.as_deref().map(str::parse) {
            None => dataschema_core::compat::Policy::default(),
            Some(Ok(policy)) => policy,
            Some(Err(err)) => {
                diagnostics.push(Diagnostic::new(
                    DiagnosticKind::Manifest,
                    dir.join(MANIFEST_FILE),
                    format!("compatibility_policy: {err}"),
                ));
                dataschema_core::compat::Policy::default()
            }
        }
    }

    /// The compatibility group of each version of the folder, when the
    /// manifest sets `compatibility_group`: the value of that property in
    /// the version's `[metadata."<name>.v<version>"]` (`None` without
    /// one). `None` when no group is set. A `[metadata]` table for a
    /// version the folder does not hold is a problem.
    pub(super) fn groups(
        &self,
        dir: &Path,
        sources: &[Source],
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Option<BTreeMap<String, Option<String>>> {
        let path = dir.join(MANIFEST_FILE);
        let stems: std::collections::BTreeSet<String> = sources.iter().map(stem).collect();
        for key in self.metadata.keys() {
            if !stems.contains(key) {
                diagnostics.push(Diagnostic::new(
                    DiagnosticKind::Manifest,
                    &path,
                    format!(
                        "[metadata] names {key:?}, but no schema in the folder is that \
                         version (expected \"<name>.v<version>\")"
                    ),
                ));
            }
        }
        let group = self.compatibility_group.as_deref()?;
        Some(
            sources
                .iter()
                .map(|source| {
                    let key = stem(source);
                    let value = self
                        .metadata
                        .get(&key)
                        .and_then(|properties| properties.get(group))
                        .cloned();
                    (key, value)
                })
                .collect(),
        )
    }

    /// Gives each version the references `[references."<name>.v<version>"]`
    /// lists; a table for a version the folder does not hold, or a value
    /// that is no URN, is a problem.
    pub(super) fn apply_references(
        &self,
        dir: &Path,
        sources: &mut [Source],
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let path = dir.join(MANIFEST_FILE);
        let stems: std::collections::BTreeSet<String> = sources.iter().map(stem).collect();
        for key in self.references.keys() {
            if !stems.contains(key) {
                diagnostics.push(Diagnostic::new(
                    DiagnosticKind::Manifest,
                    &path,
                    format!(
                        "[references] names {key:?}, but no schema in the folder is that \
                         version (expected \"<name>.v<version>\")"
                    ),
                ));
            }
        }
        for source in sources {
            let Some(table) = self.references.get(&stem(source)) else {
                continue;
            };
            let mut references = Vec::with_capacity(table.len());
            for (name, urn) in table {
                match urn.parse::<dataschema_core::Urn>() {
                    Ok(urn) => references.push(dataschema_core::Reference::new(name.as_str(), urn)),
                    Err(err) => diagnostics.push(Diagnostic::new(
                        DiagnosticKind::Manifest,
                        &path,
                        format!(
                            "[references.{:?}] {name:?} = {urn:?} is not a schema URN ({})",
                            stem(source),
                            err.chain()
                        ),
                    )),
                }
            }
            source.schema = source.schema.with_references(references);
        }
    }

    /// Each `[rules."<name>.v<version>"]` table read as Confluent's rule
    /// set and set on its version; then every rule of every version
    /// checked (each parses as Confluent's `Rule.validate` reads it, each
    /// CEL expression compiles within the guard's bounds), each problem
    /// naming the version and the rule.
    pub(super) fn apply_rules(
        &self,
        dir: &Path,
        sources: &mut [Source],
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let path = dir.join(MANIFEST_FILE);
        let stems: std::collections::BTreeSet<String> = sources.iter().map(stem).collect();
        for key in self.tags.keys() {
            if !stems.contains(key) {
                diagnostics.push(Diagnostic::new(
                    DiagnosticKind::Manifest,
                    &path,
                    format!(
                        "[tags] names {key:?}, but no schema in the folder is that \
                         version (expected \"<name>.v<version>\")"
                    ),
                ));
            }
        }
        for source in sources.iter_mut() {
            if let Some(paths) = self.tags.get(&stem(source)) {
                let metadata = dataschema_core::Metadata {
                    tags: paths
                        .iter()
                        .map(|(path, tags)| (path.clone(), tags.iter().cloned().collect()))
                        .collect(),
                    ..Default::default()
                };
                source.schema = source.schema.with_metadata(Some(metadata));
            }
        }
        for key in self.rules.keys() {
            if !stems.contains(key) {
                diagnostics.push(Diagnostic::new(
                    DiagnosticKind::Manifest,
                    &path,
                    format!(
                        "[rules] names {key:?}, but no schema in the folder is that \
                         version (expected \"<name>.v<version>\")"
                    ),
                ));
            }
        }
        for source in sources {
            if let Some(table) = self.rules.get(&stem(source)) {
                let set = serde_json::to_value(table)
                    .map_err(|err| err.to_string())
                    .and_then(|json| dataschema_core::RuleSet::from_json(&json));
                match set {
                    Ok(set) => source.schema = source.schema.with_rule_set(Some(set)),
                    Err(err) => {
                        diagnostics.push(Diagnostic::new(
                            DiagnosticKind::Rule,
                            &path,
                            format!("[rules.{:?}]: {err}", stem(source)),
                        ));
                        continue;
                    }
                }
            }
            for problem in dataschema_core::rules::check(&source.schema) {
                diagnostics.push(Diagnostic::new(
                    DiagnosticKind::Rule,
                    &path,
                    format!("{}: {problem}", source.schema.urn()),
                ));
            }
        }
    }

    /// Every protobuf schema has a root or is listed `rootless`, not both;
    /// every root and every `rootless` entry names a protobuf schema.
    pub(super) fn check_roots(
        &self,
        dir: &Path,
        sources: &[Source],
        proto_stems: &std::collections::BTreeSet<String>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let path = dir.join(MANIFEST_FILE);
        for source in sources {
            let stem = format!(
                "{}.v{}",
                source.schema.urn().name(),
                source.schema.urn().version()
            );
            let rootless = self.rootless.contains(&stem);
            if source.schema.language() == Language::Protobuf
                && !self.roots.contains_key(&stem)
                && !rootless
            {
                diagnostics.push(Diagnostic::new(
                    DiagnosticKind::MissingRoot,
                    &source.path,
                    format!(
                        "no root message: add `\"{stem}\" = \"<package>.<Message>\"` under [roots] in {} \
                         (or list {stem:?} in `rootless` for a schema whose frames name their message)",
                        path.display()
                    ),
                ));
            }
            if rootless && self.roots.contains_key(&stem) {
                diagnostics.push(Diagnostic::new(
                    DiagnosticKind::Manifest,
                    &path,
                    format!(
                        "{stem:?} is under [roots] and in `rootless`: give it one or the other"
                    ),
                ));
            }
        }
        for key in &self.rootless {
            if !proto_stems.contains(key) {
                diagnostics.push(Diagnostic::new(
                    DiagnosticKind::Manifest,
                    &path,
                    format!("`rootless` names {key:?}, but there is no {key}.proto in the folder"),
                ));
            }
        }
        // Against the `.proto` files present, read or not: one that failed
        // to compile has its own diagnostic already.
        for key in self.roots.keys() {
            if !proto_stems.contains(key) {
                diagnostics.push(Diagnostic::new(
                    DiagnosticKind::Manifest,
                    &path,
                    format!("[roots] names {key:?}, but there is no {key}.proto in the folder"),
                ));
            }
        }
    }
}

/// `"<name>.v<version>"`: how the manifest names a version.
pub(super) fn stem(source: &Source) -> String {
    format!(
        "{}.v{}",
        source.schema.urn().name(),
        source.schema.urn().version()
    )
}

/// Whether the JSON pointer `path` names a field of the JSON Schema `node`
/// (through `properties`, `$ref`s to the same document, and `*` for
/// `items` or `additionalProperties`).
fn names_a_field(doc: &serde_json::Value, node: &serde_json::Value, path: &str) -> bool {
    let mut node = node;
    let segments: Vec<String> = path
        .split('/')
        .skip(1)
        .map(|s| s.replace("~1", "/").replace("~0", "~"))
        .collect();
    if segments.is_empty() {
        return false;
    }
    for segment in &segments {
        for _ in 0..32 {
            match node
                .get("$ref")
                .and_then(|r| r.as_str())
                .and_then(|r| r.strip_prefix('#'))
            {
                Some(pointer) => match doc.pointer(pointer) {
                    Some(target) => node = target,
                    None => return false,
                },
                None => break,
            }
        }
        let next = if segment == "*" {
            node.get("items")
                .or_else(|| node.get("additionalProperties"))
        } else {
            node.get("properties").and_then(|p| p.get(segment.as_str()))
        };
        match next {
            Some(next) => node = next,
            None => return false,
        }
    }
    true
}
