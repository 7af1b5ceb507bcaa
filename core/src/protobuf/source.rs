//! A protobuf schema as Confluent's clients register it: no root message,
//! the `schema` string exactly as registered (`.proto` text, which Java and
//! Go send, or base64 of one `FileDescriptorProto`, which Python sends),
//! and its references ([`Schema::references`]: each an import path naming
//! another such schema by its URN).
//!
//! # The bytes
//!
//! A protobuf [`Schema`] without a root is one of these. Its bytes are the
//! `schema` string as registered, byte for byte, so the same registration
//! again is the same content (the same URN, the same id); its references
//! are the version's (stored with it, as every version's); the compiled
//! descriptors are derived from them, never stored. Bytes that are not
//! text (a serialized `FileDescriptorSet`) are no such schema: a descriptor
//! set names its root, or is taken without one when exactly one of its
//! files is imported by no other ([`is_rootless_set`]; else
//! [`Error::MissingRoot`]).
//!
//! # Compiling
//!
//! [`compile()`] (feature `proto-text`) resolves the references, recursively,
//! through the caller's [`Resolver`] (by URN: nothing is fetched from a
//! file or the network), and compiles the files from memory with `protox`:
//! a file resolver keyed on import paths, then the well-known files, which
//! resolve without references as Confluent's do: `google/protobuf/*`
//! (`protox`'s own), `google/type/*` (bundled, from
//! `googleapis-common-protos`, Apache-2.0), `confluent/meta.proto` and
//! `confluent/type/decimal.proto` (bundled, from `confluent-kafka-go`,
//! Apache-2.0); `core/proto/README.md` says where each comes from.
//!
//! [`Schema`]: crate::schema::Schema
//! [`Schema::references`]: crate::schema::Schema::references
//! [`Error::MissingRoot`]: crate::error::Error::MissingRoot
//! [`Resolver`]: crate::resolver::Resolver

/// What the `schema` string of a rootless protobuf schema holds.
#[derive(Clone, Debug)]
pub enum Form {
    /// `.proto` text.
    Text(String),
    /// A serialized `FileDescriptorProto` (the base64 decoded).
    Descriptor(Vec<u8>),
}

/// Whether `bytes` can be a rootless protobuf schema (text, not a
/// serialized descriptor set): UTF-8 with no control character but tab,
/// line feed, form feed and carriage return. A serialized
/// `FileDescriptorSet` always has one (its length prefixes and tags).
pub fn looks_like_source(bytes: &[u8]) -> bool {
    !bytes.is_empty()
        && std::str::from_utf8(bytes).is_ok()
        && !bytes
            .iter()
            .any(|&b| b < 0x20 && !matches!(b, b'\t' | b'\n' | 0x0c | b'\r'))
}

/// The text of a rootless protobuf schema's bytes.
#[cfg_attr(not(feature = "proto-text"), allow(dead_code))]
fn text_of(bytes: &[u8]) -> Result<&str, String> {
    if !looks_like_source(bytes) {
        return Err(
            "the bytes are not text: a protobuf schema without a root is .proto text or \
             base64 of a FileDescriptorProto (a descriptor set names its root message)"
                .into(),
        );
    }
    std::str::from_utf8(bytes).map_err(|_| "the schema's text is not UTF-8".to_owned())
}

pub use crate::well_known::{is_well_known, PROTOBUF_WELL_KNOWN, WELL_KNOWN};

/// Whether `schema` is a protobuf descriptor set without a root (a
/// `rootless` schema of a bundle, or one published natively without
/// `Dataschema-Root`): its own file is the one no other file of the set
/// imports (`main_file`); a frame's message indexes name its message,
/// and a payload addressed by URN names none (`unusable`).
pub fn is_rootless_set(schema: &crate::schema::Schema) -> bool {
    schema.language() == crate::schema::Language::Protobuf
        && schema.root().is_none()
        && !looks_like_source(schema.bytes())
}

/// The files of a descriptor set that no other file of it imports, in
/// the set's order: a schema's own file and its siblings, above what they
/// import.
pub fn top_files(
    pool: &prost_reflect::DescriptorPool,
) -> impl Iterator<Item = prost_reflect::FileDescriptor> + '_ {
    let imported: std::collections::HashSet<String> = pool
        .files()
        .flat_map(|file| {
            file.dependencies()
                .map(|dependency| dependency.name().to_owned())
                .collect::<Vec<_>>()
        })
        .collect();
    pool.files()
        .filter(move |file| !imported.contains(file.name()))
}

/// The own file of a descriptor set without a root: the one file that no
/// other file of the set imports ([`top_files`]). `Err` says why there is
/// not exactly one.
pub(crate) fn main_file(pool: &prost_reflect::DescriptorPool) -> Result<String, String> {
    let mut top = top_files(pool).map(|file| file.name().to_owned());
    match (top.next(), top.next()) {
        (Some(main), None) => Ok(main),
        (None, _) => Err("the descriptor set has no file that no other imports".into()),
        (Some(a), Some(b)) => Err(format!(
            "the descriptor set has no root message and several files that no other imports \
             ({}, {}, ...): a descriptor set without a root holds one own file and what it \
             imports; give its root",
            crate::text::clip(&a, 100),
            crate::text::clip(&b, 100)
        )),
    }
}

#[cfg(feature = "proto-text")]
pub use self::compile::{
    check_references, file_descriptor, is_descriptor, message_by_urn, normalize, same_files,
    same_version, text,
};
#[cfg(feature = "proto-text")]
pub(crate) use self::compile::{compile, SourceError};

#[cfg(feature = "proto-text")]
mod compile {
    use std::collections::HashMap;
    use std::panic::{catch_unwind, AssertUnwindSafe};

    use prost::Message as _;
    use prost_reflect::prost_types::{FileDescriptorProto, FileDescriptorSet};
    use prost_reflect::DescriptorPool;
    use protox::file::{File, FileResolver, GoogleFileResolver};

    use super::{text_of, Form};
    use crate::error::Error;
    use crate::resolver::Resolver;
    use crate::schema::{Language, Schema};
    use crate::text::clip;
    use crate::urn::Urn;

    /// The bytes of the `FileDescriptorProto` of `schema`'s own file, as
    /// Confluent's `?format=serialized` answers it (base64 aside): for a
    /// rootless schema, its file compiled (its references resolved through
    /// `refs`); for a descriptor set, the file declaring its root.
    pub fn file_descriptor(schema: &Schema, refs: &dyn Resolver) -> Result<Vec<u8>, Error> {
        Ok(own_file(schema, refs)?.encode_to_vec())
    }

    /// The `.proto` text of `schema`'s own file, as Confluent's default
    /// format answers it: the text registered, byte for byte, when it was
    /// registered as text; else printed from its descriptor
    /// ([`print_file`](crate::protobuf::print::print_file)).
    pub fn text(schema: &Schema, refs: &dyn Resolver) -> Result<String, Error> {
        if schema.root().is_none() && !super::is_rootless_set(schema) {
            let unusable = |message: String| Error::SchemaUnusable {
                urn: schema.urn().clone(),
                source: message.into(),
            };
            let source = text_of(schema.bytes()).map_err(unusable)?;
            if let Form::Text(text) = form_of(MAIN, source).map_err(unusable)? {
                return Ok(text);
            }
        }
        Ok(crate::protobuf::print::print_file(&own_file(schema, refs)?))
    }

    /// A rootless protobuf schema normalized as Confluent's `normalize=true`
    /// does ([`print_file_normalized`](crate::protobuf::print::print_file_normalized)):
    /// the same schema (URN, references) whose `schema` string is the
    /// normalized `.proto` text. When reordering fields would move a
    /// nested message's index (a map entry or group body declared between
    /// nested messages), fields keep their order (the text printed
    /// otherwise normalized). Other schemas are answered as they are.
    pub fn normalize(schema: &Schema, refs: &dyn Resolver) -> Result<Schema, Error> {
        if schema.language() != Language::Protobuf
            || schema.root().is_some()
            || super::is_rootless_set(schema)
        {
            return Ok(schema.clone());
        }
        let unusable = |message: String| Error::SchemaUnusable {
            urn: schema.urn().clone(),
            source: message.into(),
        };
        text_of(schema.bytes()).map_err(unusable)?;
        let main = own_file(schema, refs)?;
        let with_text = |text: String| {
            Schema::new(schema.urn().clone(), Language::Protobuf, text, None)
                .with_references(schema.references().iter().cloned())
                .with_metadata(schema.metadata().cloned())
                .with_rule_set(schema.rule_set().cloned())
        };
        let normalized = with_text(crate::protobuf::print::print_file_normalized(&main));
        let keeps_indexes = own_file(&normalized, refs)
            .map(|file| message_tree(&file) == message_tree(&main))
            .unwrap_or(false);
        if keeps_indexes {
            Ok(normalized)
        } else {
            Ok(with_text(crate::protobuf::print::print_file(&main)))
        }
    }

    /// Whether two protobuf schemas are one schema as Confluent's clients
    /// see it: their own files, and every file they import but the
    /// well-known ones, compile to the same descriptors, whatever form each
    /// was registered in (`.proto` text as Java or Go print it, base64 of a
    /// `FileDescriptorProto` as Python sends it, a descriptor set with a
    /// root as `dataschema publish` sends it). Source info, the own file's
    /// name, and `json_name`s equal to the default one are left out of the
    /// comparison; everything else (declaration order, options, imports by
    /// path) counts. References resolve through `refs`; a schema that does
    /// not compile is `Err`.
    pub fn same_files(a: &Schema, b: &Schema, refs: &dyn Resolver) -> Result<bool, Error> {
        if a.language() != Language::Protobuf || b.language() != Language::Protobuf {
            return Ok(false);
        }
        Ok(closure(&own_file(a, refs)?) == closure(&own_file(b, refs)?))
    }

    /// The full name of the message a payload addressed by URN is, for a
    /// protobuf schema: its root, or, for `.proto` text or a descriptor
    /// registered without one, its file's first message (`None` when its
    /// file declares none, and for a descriptor set without a root, by
    /// which no payload is addressed: [`is_rootless_set`](crate::proto::is_rootless_set)),
    /// as the validator picks it. References resolve through `refs`.
    pub fn message_by_urn(schema: &Schema, refs: &dyn Resolver) -> Result<Option<String>, Error> {
        if let Some(root) = schema.root() {
            return Ok(Some(root.to_owned()));
        }
        if super::is_rootless_set(schema) {
            return Ok(None);
        }
        Ok(own_file(schema, refs)?
            .messages()
            .next()
            .map(|message| message.full_name().to_owned()))
    }

    /// Whether `sent`, published under the URN of `held` with other
    /// bytes, is that version in another form, as a publish takes it
    /// (idempotent, the stored bytes unchanged): both protobuf, compiling
    /// to the same files ([`same_files`]), and naming the same message for
    /// a payload addressed by URN ([`message_by_urn`]: a root sent must be
    /// the held version's root, or its file's first message when it has
    /// none). Metadata and rule set are the caller's to compare. A schema
    /// that does not compile is `Err`.
    pub fn same_version(held: &Schema, sent: &Schema, refs: &dyn Resolver) -> Result<bool, Error> {
        Ok(same_files(held, sent, refs)?
            && message_by_urn(held, refs)? == message_by_urn(sent, refs)?)
    }

    /// Checks the references of a descriptor set (with a root, what
    /// `dataschema publish` sends for a `.proto` folder, or without one),
    /// which Confluent's API answers as its own file's imports: each reference names a
    /// file that the root's file imports, and the schema it names (a
    /// protobuf schema without a root, resolved through `refs`) compiles
    /// to that very file, as the set holds it (and to the same files below
    /// it; [`same_files`]'s comparison). Any other schema passes.
    ///
    /// [`Error::SchemaUnusable`] when a reference names no import of the
    /// root's file, names a schema that is not held or not such a schema,
    /// or names one whose file differs from the set's.
    pub fn check_references(schema: &Schema, refs: &dyn Resolver) -> Result<(), Error> {
        let descriptor_set = schema.root().is_some() || super::is_rootless_set(schema);
        if schema.language() != Language::Protobuf
            || !descriptor_set
            || schema.references().is_empty()
        {
            return Ok(());
        }
        let unusable = |message: String| Error::SchemaUnusable {
            urn: schema.urn().clone(),
            source: message.into(),
        };
        let main = own_file(schema, refs)?;
        for reference in schema.references() {
            let name = clip(reference.name(), 100);
            let target = reference.urn();
            let Some(imported) = main
                .dependencies()
                .find(|file| file.name() == reference.name())
            else {
                return Err(unusable(format!(
                    "reference {name:?} names no file that {} (the root's file) imports",
                    clip(main.name(), 100)
                )));
            };
            let held = match refs.resolve(target) {
                Ok(held) => held,
                Err(Error::NotFound { .. }) => {
                    return Err(unusable(format!(
                        "reference {name:?} names {target}, which is not held"
                    )))
                }
                Err(err) => return Err(err),
            };
            if held.language() != Language::Protobuf || held.root().is_some() {
                return Err(unusable(format!(
                    "reference {name:?} names {target}, which is not a protobuf schema \
                     registered as text or a FileDescriptorProto"
                )));
            }
            if closure(&own_file(&held, refs)?) != closure(&imported) {
                return Err(unusable(format!(
                    "reference {name:?} names {target}, whose file is not the {name:?} the \
                     descriptor set holds"
                )));
            }
        }
        Ok(())
    }

    /// A file and what it imports (well-known files aside), by import path
    /// (the file itself under the empty name), as [`same_files`] compares
    /// them.
    fn closure(
        main: &prost_reflect::FileDescriptor,
    ) -> std::collections::BTreeMap<String, FileDescriptorProto> {
        let mut files = std::collections::BTreeMap::new();
        let mut stack = vec![(String::new(), main.clone())];
        while let Some((key, file)) = stack.pop() {
            if files.contains_key(&key) {
                continue;
            }
            for dependency in file.dependencies() {
                let name = dependency.name().to_owned();
                if !super::is_well_known(&name) && !files.contains_key(&name) {
                    stack.push((name, dependency));
                }
            }
            let mut proto = file.file_descriptor_proto().clone();
            proto.source_code_info = None;
            if key.is_empty() {
                proto.name = None;
            }
            for message in &mut proto.message_type {
                default_json_names(message);
            }
            for field in &mut proto.extension {
                default_json_name(field);
            }
            files.insert(key, proto);
        }
        files
    }

    fn default_json_names(message: &mut prost_reflect::prost_types::DescriptorProto) {
        for field in message.field.iter_mut().chain(message.extension.iter_mut()) {
            default_json_name(field);
        }
        for nested in &mut message.nested_type {
            default_json_names(nested);
        }
    }

    /// Clears a field's `json_name` when it is the one protobuf derives
    /// from the field's name (some compilers write it, some do not).
    fn default_json_name(field: &mut prost_reflect::prost_types::FieldDescriptorProto) {
        let derived = {
            let mut out = String::new();
            let mut upper = false;
            for c in field.name().chars() {
                if c == '_' {
                    upper = true;
                } else if upper {
                    out.extend(c.to_uppercase());
                    upper = false;
                } else {
                    out.push(c);
                }
            }
            out
        };
        if field
            .json_name
            .as_deref()
            .is_none_or(|name| name == derived)
        {
            field.json_name = None;
        }
    }

    /// The names of a file's messages and of their nested messages, in
    /// index order.
    fn message_tree(file: &prost_reflect::FileDescriptor) -> Vec<String> {
        fn walk(message: prost_reflect::MessageDescriptor, out: &mut Vec<String>) {
            out.push(message.full_name().to_owned());
            for child in message.child_messages() {
                walk(child, out);
            }
            out.push(String::new());
        }
        let mut out = Vec::new();
        for message in file.messages() {
            walk(message, &mut out);
        }
        out
    }

    fn own_file(
        schema: &Schema,
        refs: &dyn Resolver,
    ) -> Result<prost_reflect::FileDescriptor, Error> {
        let unusable = |message: String| Error::SchemaUnusable {
            urn: schema.urn().clone(),
            source: message.into(),
        };
        let (pool, main) = match schema.root() {
            None if super::is_rootless_set(schema) => {
                let pool = crate::protobuf::model::decode(schema.bytes())
                    .map_err(|_| unusable("not a usable descriptor set".into()))?;
                let main = super::main_file(&pool).map_err(unusable)?;
                (pool, main)
            }
            None => {
                let compiled = compile(schema, refs).map_err(|err| match err {
                    SourceError::Unusable(message) => unusable(message),
                    SourceError::MissingRef(target) => {
                        unusable(format!("its reference {target} is not held"))
                    }
                    SourceError::Unreachable(err) => err,
                })?;
                (compiled.pool, compiled.main)
            }
            Some(root) => {
                let pool = crate::protobuf::model::decode(schema.bytes())
                    .map_err(|_| unusable("not a usable descriptor set".into()))?;
                let main = pool
                    .get_message_by_name(root)
                    .map(|m| m.parent_file().name().to_owned())
                    .ok_or_else(|| unusable(format!("no root message {root:?}")))?;
                (pool, main)
            }
        };
        pool.get_file_by_name(&main)
            .ok_or_else(|| unusable(format!("no file {main:?}")))
    }

    /// At most this many files (the schema and everything it imports,
    /// well-known files aside).
    const MAX_FILES: usize = 1_000;

    /// Why a rootless protobuf schema does not compile.
    #[derive(Debug)]
    pub(crate) enum SourceError {
        /// It is not a schema (its text, a reference, an import).
        Unusable(String),
        /// A reference names a URN nobody holds yet.
        MissingRef(Urn),
        /// A reference's schema could not be fetched just now.
        Unreachable(Error),
    }

    /// A rootless protobuf schema compiled: the checked pool (the schema's
    /// file and everything it imports) and the name of the schema's file.
    pub(crate) struct Compiled {
        pub(crate) pool: DescriptorPool,
        pub(crate) main: String,
    }

    /// What a `schema` string holds, as Confluent reads it: `.proto` text
    /// when it parses as such, else base64 of a `FileDescriptorProto`.
    /// `Err` is the text's parse error when it is neither.
    pub(crate) fn form_of(name: &str, schema: &str) -> Result<Form, String> {
        // The parser recurses as deep as the text nests: bounded before it
        // reads, and run on a stack sized for that bound.
        crate::limits::check_proto_nesting(schema)?;
        let parsed = crate::limits::on_compile_stack(|| File::from_source(name, schema).map(drop))
            .map_err(|err| err.to_string())?;
        match parsed {
            Ok(()) => Ok(Form::Text(schema.to_owned())),
            Err(err) => {
                if let Some(bytes) = base64_descriptor(schema) {
                    return Ok(Form::Descriptor(bytes));
                }
                Err(format!(
                    "neither .proto text nor base64 of a FileDescriptorProto: {}",
                    clip(&err.to_string(), 300)
                ))
            }
        }
    }

    fn base64_descriptor(schema: &str) -> Option<Vec<u8>> {
        use base64::Engine as _;
        let trimmed = schema.trim();
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(trimmed)
            .ok()?;
        FileDescriptorProto::decode(bytes.as_slice()).ok()?;
        Some(bytes)
    }

    /// Whether a rootless protobuf schema's bytes are base64 of a
    /// `FileDescriptorProto` (what Python registers), not `.proto` text.
    pub fn is_descriptor(bytes: &[u8]) -> bool {
        text_of(bytes).is_ok_and(|text| matches!(form_of(MAIN, text), Ok(Form::Descriptor(_))))
    }

    /// The name the schema's own file gets when its text carries none.
    pub(crate) const MAIN: &str = "default.proto";

    /// The files of a schema and its references, by import path.
    struct Sources {
        files: HashMap<String, Form>,
        google: GoogleFileResolver,
    }

    impl FileResolver for Sources {
        fn open_file(&self, name: &str) -> Result<File, protox::Error> {
            if let Some(form) = self.files.get(name) {
                return match form {
                    Form::Text(text) => File::from_source(name, text),
                    Form::Descriptor(bytes) => {
                        // The file is named by its import path, as Python's
                        // deserializer names it: a `name` field appended
                        // (the last occurrence wins), so that nothing else
                        // of the encoded file (extension options) is lost.
                        let mut named = bytes.clone();
                        named.push(0x0a);
                        prost::encoding::encode_varint(name.len() as u64, &mut named);
                        named.extend_from_slice(name.as_bytes());
                        File::decode_file_descriptor_proto(named.as_slice())
                            .map_err(protox::Error::new)
                    }
                };
            }
            if let Some((_, text)) = super::WELL_KNOWN.iter().find(|(path, _)| *path == name) {
                return File::from_source(name, text);
            }
            self.google.open_file(name)
        }
    }

    /// Compiles a rootless protobuf schema, its references resolved
    /// through `refs`.
    pub(crate) fn compile(schema: &Schema, refs: &dyn Resolver) -> Result<Compiled, SourceError> {
        // On a stack sized for the nesting the text may have (inline when
        // the caller runs on one already, as `validate::compile` does).
        crate::limits::on_compile_stack(|| compile_here(schema, refs)).unwrap_or_else(|err| {
            Err(match err {
                crate::limits::StackError::Spawn(_) => {
                    SourceError::Unreachable(Error::Other(Box::new(err)))
                }
                crate::limits::StackError::Panicked => SourceError::Unusable(err.to_string()),
            })
        })
    }

    /// [`compile`] on the calling thread.
    fn compile_here(schema: &Schema, refs: &dyn Resolver) -> Result<Compiled, SourceError> {
        let source = text_of(schema.bytes()).map_err(SourceError::Unusable)?;
        let main_form = form_of(MAIN, source).map_err(SourceError::Unusable)?;
        let main = match &main_form {
            Form::Text(_) => MAIN.to_owned(),
            Form::Descriptor(bytes) => FileDescriptorProto::decode(bytes.as_slice())
                .ok()
                .and_then(|file| file.name)
                .filter(|name| !name.is_empty())
                .unwrap_or_else(|| MAIN.to_owned()),
        };
        let mut files = HashMap::new();
        files.insert(main.clone(), main_form);
        let mut pending: Vec<(String, Urn)> = schema
            .references()
            .iter()
            .rev()
            .map(|r| (r.name().to_owned(), r.urn().clone()))
            .collect();
        while let Some((name, urn)) = pending.pop() {
            if files.contains_key(&name) {
                continue;
            }
            if files.len() >= MAX_FILES {
                return Err(SourceError::Unusable(format!(
                    "the schema imports more than {MAX_FILES} files"
                )));
            }
            let referenced = match refs.resolve(&urn) {
                Ok(schema) => schema,
                Err(Error::NotFound { .. }) => return Err(SourceError::MissingRef(urn)),
                Err(err) => return Err(SourceError::Unreachable(err)),
            };
            if referenced.language() != Language::Protobuf || referenced.root().is_some() {
                return Err(SourceError::Unusable(format!(
                    "reference {:?} names {urn}, which is not a protobuf schema registered as \
                     text or a FileDescriptorProto",
                    clip(&name, 100)
                )));
            }
            let text = text_of(referenced.bytes()).map_err(|err| {
                SourceError::Unusable(format!("reference {:?} ({urn}): {err}", clip(&name, 100)))
            })?;
            let form = form_of(&name, text).map_err(|err| {
                SourceError::Unusable(format!("reference {:?} ({urn}): {err}", clip(&name, 100)))
            })?;
            files.insert(name, form);
            for reference in referenced.references().iter().rev() {
                pending.push((reference.name().to_owned(), reference.urn().clone()));
            }
        }
        // `prost-reflect`'s linker (inside protox too) panics on some
        // descriptor shapes; a descriptor-form file is checked first.
        for form in files.values() {
            if let Form::Descriptor(bytes) = form {
                let file = FileDescriptorProto::decode(bytes.as_slice())
                    .map_err(|err| SourceError::Unusable(err.to_string()))?;
                let set = FileDescriptorSet { file: vec![file] }.encode_to_vec();
                crate::protobuf::model::check_descriptor_set(&set)
                    .map_err(|err| SourceError::Unusable(err.to_string()))?;
            }
        }
        let sources = Sources {
            files,
            google: GoogleFileResolver::new(),
        };
        let compiled = catch_unwind(AssertUnwindSafe(|| {
            let mut compiler = protox::Compiler::with_file_resolver(sources);
            compiler.include_imports(true).include_source_info(false);
            compiler
                .open_file(&main)
                .map(|compiler| compiler.encode_file_descriptor_set())
        }));
        let set = match compiled {
            Ok(Ok(set)) => set,
            Ok(Err(err)) => {
                return Err(SourceError::Unusable(format!(
                    "the schema does not compile: {}",
                    clip(&err.to_string(), 500)
                )))
            }
            Err(_) => {
                return Err(SourceError::Unusable(
                    "the schema does not compile (the compiler failed on it)".into(),
                ))
            }
        };
        let pool = crate::protobuf::model::decode(&set).map_err(|err| {
            SourceError::Unusable(match err {
                crate::protobuf::model::DecodeError::Unusable(err) => err.to_string(),
                crate::protobuf::model::DecodeError::NotADescriptorSet(err) => err.to_string(),
            })
        })?;
        Ok(Compiled { pool, main })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_told_from_a_descriptor_set() {
        assert_eq!(
            text_of(b"syntax = \"proto3\";\nmessage A {}\n").unwrap(),
            "syntax = \"proto3\";\nmessage A {}\n"
        );
        assert!(text_of(b"\x0a\x07a.proto").is_err());
        assert!(!looks_like_source(b""));
    }
}
