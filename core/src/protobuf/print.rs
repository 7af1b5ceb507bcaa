//! Descriptors back to `.proto` text: what the Confluent API answers for a
//! schema registered as a `FileDescriptorProto` (Confluent's default
//! format is text), and the text `normalize` compares.
//!
//! [`print_file`] writes a `FileDescriptorProto` as a `.proto` file that
//! compiles (with the same imports) to the same descriptor, source info
//! aside: the round-trip test (`tests/validate/proto_print.rs`) compiles
//! every `.proto` of the tests with `protox`, prints it, compiles the text
//! and compares. Declaration order is kept (message indexes depend on it):
//! fields in their order, nested messages, enums and extensions in theirs,
//! a group's body and a map's entry where its field is declared.
//!
//! Type names are printed fully qualified (`.acme.Order`), as the
//! descriptor holds them, which every compiler reads the same way.
//!
//! Options are printed from the descriptors' own decoding of them
//! (`prost-reflect` keeps extension options, so custom options such as
//! `confluent.field_meta` print as `(confluent.field_meta) = {...}`), every
//! field set, aggregates in the text format. An option whose extension is
//! not in the pool is lost (it cannot be named).

use std::fmt::Write as _;

use prost_reflect::prost_types::field_descriptor_proto::{Label, Type};
use prost_reflect::prost_types::{
    DescriptorProto, EnumDescriptorProto, FieldDescriptorProto, ServiceDescriptorProto,
};
use prost_reflect::{DescriptorPool, DynamicMessage, FileDescriptor, Kind, Value};

/// The largest field number (`max` in a range).
const MAX_FIELD: i32 = 536_870_911;

/// `file` as `.proto` text.
pub fn print_file(descriptor: &FileDescriptor) -> String {
    print(descriptor, false)
}

/// `file` as `.proto` text, normalized as Confluent's `normalize=true`
/// normalizes: imports sorted and deduplicated, fields in tag order (a
/// oneof at its first tag, its members in tag order), reserved and
/// extension ranges sorted; messages, enums and their values in their
/// order (message indexes depend on it); type names fully qualified (as
/// always).
///
/// Reordering fields moves the map entries and group bodies they declare
/// among a message's nested types; `proto::normalize` checks that the
/// nested messages keep their indexes, and prints unnormalized otherwise.
pub fn print_file_normalized(descriptor: &FileDescriptor) -> String {
    print(descriptor, true)
}

fn print(descriptor: &FileDescriptor, normalized: bool) -> String {
    let file = descriptor.file_descriptor_proto();
    let mut out = String::new();
    let syntax = file
        .syntax
        .as_deref()
        .filter(|s| !s.is_empty())
        .unwrap_or("proto2");
    let proto3 = syntax == "proto3";
    let _ = writeln!(out, "syntax = {};", quote(syntax));
    if let Some(package) = file.package.as_deref().filter(|p| !p.is_empty()) {
        let _ = writeln!(out, "package {package};");
    }
    let mut imports: Vec<(&str, &str)> = file
        .dependency
        .iter()
        .enumerate()
        .map(|(i, import)| {
            let i = i as i32;
            let modifier = if file.public_dependency.contains(&i) {
                "public "
            } else if file.weak_dependency.contains(&i) {
                "weak "
            } else {
                ""
            };
            (import.as_str(), modifier)
        })
        .collect();
    if normalized {
        imports.sort();
        imports.dedup_by(|a, b| a.0 == b.0);
    }
    for (import, modifier) in imports {
        let _ = writeln!(out, "import {modifier}{};", quote(import));
    }
    statement_options(&mut out, &descriptor.options(), &[], 0);
    let printer = Printer {
        proto3,
        normalized,
        pool: descriptor.parent_pool().clone(),
    };
    let package = file.package().to_owned();
    for message in &file.message_type {
        printer.message(&mut out, message, &join(&package, message.name()), 0);
    }
    for enumeration in &file.enum_type {
        printer.enumeration(
            &mut out,
            enumeration,
            &join(&package, enumeration.name()),
            0,
        );
    }
    printer.extensions(&mut out, &file.extension, &package, 0);
    for service in &file.service {
        printer.service(&mut out, service, &join(&package, service.name()));
    }
    out
}

fn join(scope: &str, name: &str) -> String {
    if scope.is_empty() {
        name.to_owned()
    } else {
        format!("{scope}.{name}")
    }
}

/// `option name = value;` for each option set in `options` (but `skip`).
fn statement_options(out: &mut String, options: &DynamicMessage, skip: &[&str], depth: usize) {
    for item in option_items(options, skip) {
        indent(out, depth);
        let _ = writeln!(out, "option {item};");
    }
}

/// `name = value` for each option set (a repeated one once per element),
/// extensions as `(full.name) = value`.
fn option_items(options: &DynamicMessage, skip: &[&str]) -> Vec<String> {
    let mut items = Vec::new();
    for (field, value) in options.fields() {
        if field.name() == "uninterpreted_option" || skip.contains(&field.name()) {
            continue;
        }
        for value in elements(value) {
            items.push(format!(
                "{} = {}",
                field.name(),
                value_text(&field.kind(), value)
            ));
        }
    }
    for (extension, value) in options.extensions() {
        for value in elements(value) {
            items.push(format!(
                "({}) = {}",
                extension.full_name(),
                value_text(&extension.kind(), value)
            ));
        }
    }
    items
}

fn elements(value: &Value) -> Vec<&Value> {
    match value {
        Value::List(values) => values.iter().collect(),
        value => vec![value],
    }
}

/// An option value as `.proto` writes it; a message in the text format.
fn value_text(kind: &Kind, value: &Value) -> String {
    match value {
        Value::Bool(b) => b.to_string(),
        Value::I32(n) => n.to_string(),
        Value::I64(n) => n.to_string(),
        Value::U32(n) => n.to_string(),
        Value::U64(n) => n.to_string(),
        Value::F32(f) => float_text(f64::from(*f)),
        Value::F64(f) => float_text(*f),
        Value::String(s) => quote(s),
        Value::Bytes(b) => quote_bytes(b),
        Value::EnumNumber(n) => match kind {
            Kind::Enum(e) => e
                .get_value(*n)
                .map_or_else(|| n.to_string(), |v| v.name().to_owned()),
            _ => n.to_string(),
        },
        Value::Message(m) => {
            let mut out = String::from("{");
            for (field, value) in m.fields() {
                for value in elements(value) {
                    let _ = write!(
                        out,
                        " {}: {}",
                        field.name(),
                        value_text(&field.kind(), value)
                    );
                }
            }
            for (extension, value) in m.extensions() {
                for value in elements(value) {
                    let _ = write!(
                        out,
                        " [{}]: {}",
                        extension.full_name(),
                        value_text(&extension.kind(), value)
                    );
                }
            }
            out.push_str(" }");
            out
        }
        Value::List(values) => {
            let parts: Vec<String> = values.iter().map(|v| value_text(kind, v)).collect();
            format!("[{}]", parts.join(", "))
        }
        Value::Map(_) => "{}".to_owned(),
    }
}

fn float_text(f: f64) -> String {
    if f.is_nan() {
        "nan".into()
    } else if f.is_infinite() {
        if f > 0.0 { "inf" } else { "-inf" }.into()
    } else {
        format!("{f:?}")
    }
}

/// A bytes literal: printable ASCII as is, the rest as octal escapes.
fn quote_bytes(bytes: &[u8]) -> String {
    let mut out = String::from("\"");
    for &b in bytes {
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            0x20..=0x7e => out.push(b as char),
            _ => {
                let _ = write!(out, "\\{b:03o}");
            }
        }
    }
    out.push('"');
    out
}

struct Printer {
    proto3: bool,
    normalized: bool,
    pool: DescriptorPool,
}

fn indent(out: &mut String, depth: usize) {
    for _ in 0..depth {
        out.push_str("  ");
    }
}

/// What a nested type of a message is to its printer.
enum Nested<'a> {
    /// Declared in its own right.
    Plain(&'a DescriptorProto),
    /// A group's body, printed at its field.
    Group,
    /// A map field's entry, implied by `map<K, V>`.
    MapEntry,
}

impl Printer {
    fn message(&self, out: &mut String, message: &DescriptorProto, full: &str, depth: usize) {
        indent(out, depth);
        let _ = writeln!(out, "message {} {{", message.name());
        self.message_body(out, message, full, depth + 1);
        indent(out, depth);
        out.push_str("}\n");
    }

    fn message_body(&self, out: &mut String, message: &DescriptorProto, full: &str, depth: usize) {
        let descriptor = self.pool.get_message_by_name(full);
        if let Some(descriptor) = &descriptor {
            statement_options(out, &descriptor.options(), &["map_entry"], depth);
        }
        // Which nested type each is, and the field that declares a group
        // or a map entry (by index).
        let nested: Vec<Nested<'_>> = message
            .nested_type
            .iter()
            .map(|ty| {
                if ty.options.as_ref().and_then(|o| o.map_entry) == Some(true) {
                    Nested::MapEntry
                } else if message.field.iter().any(|f| {
                    f.r#type() == Type::Group && local_name(f.type_name()) == Some(ty.name())
                }) {
                    Nested::Group
                } else {
                    Nested::Plain(ty)
                }
            })
            .collect();
        let nested_index = |field: &FieldDescriptorProto| {
            let local = local_name(field.type_name())?;
            message.nested_type.iter().position(|ty| ty.name() == local)
        };
        let mut next_nested = 0;
        let flush_nested = |out: &mut String, upto: usize, next: &mut usize| {
            while *next < upto {
                if let Nested::Plain(ty) = nested[*next] {
                    self.message(out, ty, &join(full, ty.name()), depth);
                }
                *next += 1;
            }
        };
        let real_oneof = |field: &FieldDescriptorProto| {
            field
                .oneof_index
                .filter(|_| !field.proto3_optional())
                .map(|i| i as usize)
        };
        let mut fields: Vec<&FieldDescriptorProto> = message.field.iter().collect();
        if self.normalized {
            // By tag; a oneof's members together, at its first tag.
            let key = |field: &FieldDescriptorProto| match real_oneof(field) {
                Some(oneof) => message
                    .field
                    .iter()
                    .filter(|f| real_oneof(f) == Some(oneof))
                    .map(|f| f.number())
                    .min()
                    .unwrap_or(field.number()),
                None => field.number(),
            };
            fields.sort_by_key(|field| (key(field), field.number()));
        }
        let mut i = 0;
        while i < fields.len() {
            let field = fields[i];
            if let Some(oneof) = real_oneof(field) {
                // A oneof's members are contiguous: print them together.
                let mut end = i;
                while end < fields.len() && real_oneof(fields[end]) == Some(oneof) {
                    end += 1;
                }
                for &member in &fields[i..end] {
                    if let Some(at) = self.declared_nested(member, &nested, nested_index(member)) {
                        flush_nested(out, at, &mut next_nested);
                    }
                }
                indent(out, depth);
                let name = message
                    .oneof_decl
                    .get(oneof)
                    .map(|o| o.name())
                    .unwrap_or("oneof_field");
                let _ = writeln!(out, "oneof {name} {{");
                if let Some(oneof) = descriptor.as_ref().and_then(|d| d.oneofs().nth(oneof)) {
                    statement_options(out, &oneof.options(), &[], depth + 1);
                }
                for &member in &fields[i..end] {
                    self.field(out, member, message, full, &nested, depth + 1, true);
                    if let Some(at) = self.declared_nested(member, &nested, nested_index(member)) {
                        next_nested = next_nested.max(at + 1);
                    }
                }
                indent(out, depth);
                out.push_str("}\n");
                i = end;
                continue;
            }
            if let Some(at) = self.declared_nested(field, &nested, nested_index(field)) {
                flush_nested(out, at, &mut next_nested);
                next_nested = next_nested.max(at + 1);
            }
            self.field(out, field, message, full, &nested, depth, false);
            i += 1;
        }
        flush_nested(out, nested.len(), &mut next_nested);
        for enumeration in &message.enum_type {
            self.enumeration(out, enumeration, &join(full, enumeration.name()), depth);
        }
        self.extensions(out, &message.extension, full, depth);
        let mut extension_ranges: Vec<_> = message.extension_range.iter().collect();
        if self.normalized {
            extension_ranges.sort_by_key(|r| (r.start(), r.end()));
        }
        for range in extension_ranges {
            indent(out, depth);
            // A range's own options (`declaration`, `verification`) are
            // not printed: descriptors this prints from do not keep them.
            let _ = write!(
                out,
                "extensions {}",
                range_text(range.start(), range.end() - 1)
            );
            out.push_str(";\n");
        }
        self.reserved(
            out,
            message
                .reserved_range
                .iter()
                .map(|r| (r.start(), r.end() - 1)),
            &message.reserved_name,
            depth,
        );
    }

    /// The nested type a group or map field declares, by index.
    fn declared_nested(
        &self,
        field: &FieldDescriptorProto,
        nested: &[Nested<'_>],
        index: Option<usize>,
    ) -> Option<usize> {
        let index = index?;
        match nested.get(index)? {
            Nested::Group if field.r#type() == Type::Group => Some(index),
            Nested::MapEntry if field.label() == Label::Repeated => Some(index),
            _ => None,
        }
    }

    fn reserved(
        &self,
        out: &mut String,
        ranges: impl Iterator<Item = (i32, i32)>,
        names: &[String],
        depth: usize,
    ) {
        let mut ranges: Vec<(i32, i32)> = ranges.collect();
        let mut names: Vec<&String> = names.iter().collect();
        if self.normalized {
            ranges.sort();
            names.sort();
        }
        let ranges: Vec<String> = ranges.into_iter().map(|(s, e)| range_text(s, e)).collect();
        if !ranges.is_empty() {
            indent(out, depth);
            let _ = writeln!(out, "reserved {};", ranges.join(", "));
        }
        if !names.is_empty() {
            indent(out, depth);
            let names: Vec<String> = names.iter().map(|n| quote(n)).collect();
            let _ = writeln!(out, "reserved {};", names.join(", "));
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn field(
        &self,
        out: &mut String,
        field: &FieldDescriptorProto,
        message: &DescriptorProto,
        full: &str,
        nested: &[Nested<'_>],
        depth: usize,
        in_oneof: bool,
    ) {
        let options = self
            .pool
            .get_message_by_name(full)
            .and_then(|m| {
                u32::try_from(field.number())
                    .ok()
                    .and_then(|n| m.get_field(n))
            })
            .map(|f| f.options());
        indent(out, depth);
        let entry = local_name(field.type_name()).and_then(|local| {
            message
                .nested_type
                .iter()
                .zip(nested)
                .find(|(ty, kind)| ty.name() == local && matches!(kind, Nested::MapEntry))
                .map(|(ty, _)| ty)
        });
        if let (Some(entry), Label::Repeated) = (entry, field.label()) {
            let key = entry.field.iter().find(|f| f.number() == 1);
            let value = entry.field.iter().find(|f| f.number() == 2);
            if let (Some(key), Some(value)) = (key, value) {
                let _ = write!(
                    out,
                    "map<{}, {}> {} = {}",
                    type_text(key),
                    type_text(value),
                    field.name(),
                    field.number()
                );
                field_options(out, field, options.as_ref());
                out.push_str(";\n");
                return;
            }
        }
        let label = match field.label() {
            _ if in_oneof => "",
            Label::Repeated => "repeated ",
            Label::Required => "required ",
            Label::Optional if field.proto3_optional() => "optional ",
            Label::Optional if !self.proto3 => "optional ",
            Label::Optional => "",
        };
        if field.r#type() == Type::Group {
            let body = local_name(field.type_name())
                .and_then(|local| message.nested_type.iter().find(|ty| ty.name() == local));
            if let Some(body) = body {
                let _ = write!(out, "{label}group {} = {}", body.name(), field.number());
                field_options(out, field, options.as_ref());
                out.push_str(" {\n");
                self.message_body(out, body, &join(full, body.name()), depth + 1);
                indent(out, depth);
                out.push_str("}\n");
                return;
            }
        }
        let _ = write!(
            out,
            "{label}{} {} = {}",
            type_text(field),
            field.name(),
            field.number()
        );
        field_options(out, field, options.as_ref());
        out.push_str(";\n");
    }

    fn extensions(
        &self,
        out: &mut String,
        extensions: &[FieldDescriptorProto],
        scope: &str,
        depth: usize,
    ) {
        // One `extend` block per run of the same extendee, in order.
        let mut i = 0;
        while i < extensions.len() {
            let extendee = extensions[i].extendee();
            let mut end = i;
            while end < extensions.len() && extensions[end].extendee() == extendee {
                end += 1;
            }
            indent(out, depth);
            let _ = writeln!(out, "extend {extendee} {{");
            for field in &extensions[i..end] {
                indent(out, depth + 1);
                let label = match field.label() {
                    Label::Repeated => "repeated ",
                    Label::Required => "required ",
                    Label::Optional if field.proto3_optional() || !self.proto3 => "optional ",
                    Label::Optional => "",
                };
                let _ = write!(
                    out,
                    "{label}{} {} = {}",
                    type_text(field),
                    field.name(),
                    field.number()
                );
                let options = self
                    .pool
                    .get_extension_by_name(&join(scope, field.name()))
                    .map(|e| e.options());
                field_options(out, field, options.as_ref());
                out.push_str(";\n");
            }
            indent(out, depth);
            out.push_str("}\n");
            i = end;
        }
    }

    fn enumeration(
        &self,
        out: &mut String,
        enumeration: &EnumDescriptorProto,
        full: &str,
        depth: usize,
    ) {
        indent(out, depth);
        let _ = writeln!(out, "enum {} {{", enumeration.name());
        let descriptor = self.pool.get_enum_by_name(full);
        if let Some(descriptor) = &descriptor {
            statement_options(out, &descriptor.options(), &[], depth + 1);
        }
        for value in &enumeration.value {
            indent(out, depth + 1);
            let _ = write!(out, "{} = {}", value.name(), value.number());
            let options = descriptor
                .as_ref()
                .and_then(|d| d.values().find(|v| v.name() == value.name()))
                .map(|v| option_items(&v.options(), &[]))
                .unwrap_or_default();
            if !options.is_empty() {
                let _ = write!(out, " [{}]", options.join(", "));
            }
            out.push_str(";\n");
        }
        self.reserved(
            out,
            enumeration
                .reserved_range
                .iter()
                .map(|r| (r.start(), r.end())),
            &enumeration.reserved_name,
            depth + 1,
        );
        indent(out, depth);
        out.push_str("}\n");
    }

    fn service(&self, out: &mut String, service: &ServiceDescriptorProto, full: &str) {
        let _ = writeln!(out, "service {} {{", service.name());
        let descriptor = self.pool.get_service_by_name(full);
        if let Some(descriptor) = &descriptor {
            statement_options(out, &descriptor.options(), &[], 1);
        }
        for method in &service.method {
            let stream = |yes: bool| if yes { "stream " } else { "" };
            let _ = write!(
                out,
                "  rpc {}({}{}) returns ({}{})",
                method.name(),
                stream(method.client_streaming()),
                method.input_type(),
                stream(method.server_streaming()),
                method.output_type()
            );
            let options = descriptor
                .as_ref()
                .and_then(|d| d.methods().find(|m| m.name() == method.name()))
                .map(|m| option_items(&m.options(), &[]))
                .unwrap_or_default();
            if options.is_empty() {
                out.push_str(";\n");
            } else {
                let _ = write!(out, " {{");
                for option in options {
                    let _ = write!(out, " option {option};");
                }
                out.push_str(" }\n");
            }
        }
        out.push_str("}\n");
    }
}

/// A field's `[...]`: its default, its JSON name when not the derived one,
/// and its options.
fn field_options(out: &mut String, field: &FieldDescriptorProto, options: Option<&DynamicMessage>) {
    let mut items = Vec::new();
    if let Some(default) = &field.default_value {
        let value = match field.r#type() {
            Type::String => quote(default),
            // Already C-escaped in the descriptor.
            Type::Bytes => format!("\"{default}\""),
            _ => default.clone(),
        };
        items.push(format!("default = {value}"));
    }
    if let Some(json) = &field.json_name {
        if *json != json_name(field.name()) {
            items.push(format!("json_name = {}", quote(json)));
        }
    }
    if let Some(options) = options {
        items.extend(option_items(options, &[]));
    }
    if !items.is_empty() {
        let _ = write!(out, " [{}]", items.join(", "));
    }
}

/// The last component of a fully-qualified type name.
fn local_name(type_name: &str) -> Option<&str> {
    type_name.rsplit('.').next().filter(|s| !s.is_empty())
}

fn type_text(field: &FieldDescriptorProto) -> String {
    let scalar = match field.r#type() {
        Type::Double => "double",
        Type::Float => "float",
        Type::Int64 => "int64",
        Type::Uint64 => "uint64",
        Type::Int32 => "int32",
        Type::Fixed64 => "fixed64",
        Type::Fixed32 => "fixed32",
        Type::Bool => "bool",
        Type::String => "string",
        Type::Bytes => "bytes",
        Type::Uint32 => "uint32",
        Type::Sfixed32 => "sfixed32",
        Type::Sfixed64 => "sfixed64",
        Type::Sint32 => "sint32",
        Type::Sint64 => "sint64",
        Type::Message | Type::Enum | Type::Group => return field.type_name().to_owned(),
    };
    if field.r#type.is_none() && field.type_name.is_some() {
        return field.type_name().to_owned();
    }
    scalar.to_owned()
}

fn range_text(start: i32, end_inclusive: i32) -> String {
    if start == end_inclusive {
        start.to_string()
    } else if end_inclusive >= MAX_FIELD {
        format!("{start} to max")
    } else {
        format!("{start} to {end_inclusive}")
    }
}

/// The JSON name protobuf derives from a field name (lowerCamelCase).
fn json_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut upper = false;
    for c in name.chars() {
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
}

/// A string literal: `"` and `\` escaped, control characters as octal.
fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                let _ = write!(out, "\\{:03o}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_ranges_and_strings() {
        assert_eq!(json_name("order_id"), "orderId");
        assert_eq!(json_name("a__b"), "aB");
        assert_eq!(range_text(5, 5), "5");
        assert_eq!(range_text(5, MAX_FIELD), "5 to max");
        assert_eq!(quote("a\"b\\\n\u{1}"), "\"a\\\"b\\\\\\n\\001\"");
    }
}
