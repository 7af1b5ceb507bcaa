//! One subschema's keywords, read into its [`Node`].

use serde_json::{Map, Value};

use super::build::{uncovered, Builder};
use super::format::{Format, Quick};
use super::indexing::literal_pattern;
use super::strings::Strings;
use super::{Built, ARRAY, BOOLEAN, INTEGER, NULL, NUMBER, OBJECT, STRING};
use super::{Draft, Kind, Member, Node, PlanRefusal};

/// Keys a node tracks the presence of (`required`, dependencies): at most
/// this many per subschema, one bit each.
const MAX_TRACKED: usize = 64;

/// The most `patternProperties` one subschema may have (one bit each).
const MAX_PATTERNS: usize = 64;

impl Builder<'_> {
    pub(super) fn keywords(
        &mut self,
        doc: usize,
        pointer: &str,
        map: &Map<String, Value>,
    ) -> Built<Node> {
        let draft = self.draft;
        if !pointer.is_empty() {
            let id = if draft == Draft::D4 { "id" } else { "$id" };
            // A plain-name `$id` (`"#foo"`, drafts 4 to 7) only names an
            // anchor; any other one starts a resource, whose `$ref`s
            // resolve against it (`plan/resources.rs`), except in a
            // document with dynamic references, whose dynamic scope would
            // hold it.
            if self.dynamic
                && matches!(map.get(id), Some(Value::String(uri))
                    if draft >= Draft::D2019 || !uri.starts_with('#'))
            {
                return Err(PlanRefusal::new(format!("{pointer:?} has an `{id}`")));
            }
            // A `$schema` of the root's own draft changes nothing (the
            // vector tool schemas and Backstage's catalog-info repeat it
            // on their definitions); another draft is left to `jsonschema`.
            match map.get("$schema") {
                None => {}
                Some(Value::String(uri)) if super::draft_of(uri).ok() == Some(draft) => {}
                Some(_) => {
                    return Err(PlanRefusal::new(format!("{pointer:?} has a `$schema`")));
                }
            }
        }
        let mut node = Node::new(Kind::Check);
        node.draft4_integers = draft == Draft::D4;
        // Drafts 4 to 7 ignore every sibling of `$ref`.
        if draft <= Draft::D7 {
            if let Some(reference) = map.get("$ref") {
                node.all_of.push(self.reference(doc, pointer, reference)?);
                return Ok(node);
            }
        }
        let mut numeric = Map::new();
        let mut text = Map::new();
        let mut choice = Map::new();
        let mut extra = Map::new();
        for (key, value) in map {
            if uncovered(key) {
                return Err(PlanRefusal::new(format!("`{key}` is not covered")));
            }
            match key.as_str() {
                "$ref" => {
                    let target = self.reference(doc, pointer, value)?;
                    node.all_of.push(target);
                }
                // In a document that is one schema resource (no `$id` below
                // the root, no other document), the dynamic scope holds only
                // the root: `$recursiveRef: "#"` lands on the root whatever
                // `$recursiveAnchor` says, and a `$dynamicRef` on the anchor
                // (or pointer) it names, as a `$ref` would.
                "$recursiveRef" if draft == Draft::D2019 => {
                    if doc != 0 || value.as_str() != Some("#") {
                        return Err(PlanRefusal::new(format!(
                            "`$recursiveRef` {value} is not covered"
                        )));
                    }
                    let root = self.docs[0];
                    node.all_of.push(self.node(0, String::new(), root)?);
                }
                "$dynamicRef" if draft == Draft::D2020 => {
                    if doc != 0 || !value.as_str().is_some_and(|r| r.starts_with('#')) {
                        return Err(PlanRefusal::new(format!(
                            "`$dynamicRef` {value} is not covered"
                        )));
                    }
                    let target = self.reference(doc, pointer, value)?;
                    node.all_of.push(target);
                }
                // Either in a draft that does not define it: `jsonschema`
                // follows some anyway (a `$dynamicRef` in 2019-09), so its
                // verdict, not the draft's, is left to it.
                "$recursiveRef" | "$dynamicRef" => {
                    return Err(PlanRefusal::new(format!(
                        "`{key}` in a draft that does not define it"
                    )));
                }
                "unevaluatedProperties" if draft >= Draft::D2019 => {
                    node.unevaluated_properties = Some(self.child(doc, pointer, &[key], value)?);
                }
                "unevaluatedItems" if draft >= Draft::D2019 => {
                    node.unevaluated_items = Some(self.child(doc, pointer, &[key], value)?);
                }
                "type" => node.types = types(value)?,
                "properties" => {
                    let Value::Object(properties) = value else {
                        return Err(PlanRefusal::new("`properties` is not an object"));
                    };
                    for (name, schema) in properties {
                        let id = self.child(doc, pointer, &["properties", name], schema)?;
                        member(&mut node, name).schema = Some(id);
                    }
                }
                "patternProperties" => {
                    let Value::Object(patterns) = value else {
                        return Err(PlanRefusal::new("`patternProperties` is not an object"));
                    };
                    if patterns.len() > MAX_PATTERNS {
                        return Err(PlanRefusal::new("too many `patternProperties`"));
                    }
                    for (pattern, schema) in patterns {
                        let id =
                            self.child(doc, pointer, &["patternProperties", pattern], schema)?;
                        node.patterns.push((self.pattern(pattern, true)?, id));
                    }
                }
                "additionalProperties" => {
                    node.additional = Some(self.child(doc, pointer, &[key], value)?);
                }
                "propertyNames" if draft >= Draft::D6 => {
                    node.names = Some(self.child(doc, pointer, &[key], value)?);
                }
                "required" => {
                    let Value::Array(names) = value else {
                        return Err(PlanRefusal::new("`required` is not an array"));
                    };
                    for (i, name) in names.iter().enumerate() {
                        let Value::String(name) = name else {
                            return Err(PlanRefusal::new("`required` holds a non-string"));
                        };
                        // `jsonschema` counts a repeated name twice (an
                        // object then needs as many members): its verdict,
                        // not the scanner's, for such a schema.
                        if names[..i].iter().any(|other| other.as_str() == Some(name)) {
                            return Err(PlanRefusal::new("`required` repeats a name"));
                        }
                        node.required |= tracked(&mut node, name)?;
                    }
                }
                "dependentRequired" if draft >= Draft::D2019 => {
                    let Value::Object(deps) = value else {
                        return Err(PlanRefusal::new("`dependentRequired` is not an object"));
                    };
                    for (trigger, names) in deps {
                        dependent_required(&mut node, trigger, names)?;
                    }
                }
                "dependentSchemas" if draft >= Draft::D2019 => {
                    let Value::Object(deps) = value else {
                        return Err(PlanRefusal::new("`dependentSchemas` is not an object"));
                    };
                    for (trigger, schema) in deps {
                        let id = self.child(doc, pointer, &[key, trigger], schema)?;
                        let bit = tracked(&mut node, trigger)?;
                        node.dependent_schemas.push((bit, id));
                        if schema.is_object() {
                            node.evaluating_dependents.push((bit, id));
                        }
                    }
                }
                "dependencies" => {
                    let Value::Object(deps) = value else {
                        return Err(PlanRefusal::new("`dependencies` is not an object"));
                    };
                    for (trigger, dep) in deps {
                        if dep.is_array() {
                            dependent_required(&mut node, trigger, dep)?;
                        } else {
                            let id = self.child(doc, pointer, &[key, trigger], dep)?;
                            let bit = tracked(&mut node, trigger)?;
                            node.dependent_schemas.push((bit, id));
                        }
                    }
                }
                "contains" if draft >= Draft::D6 => {
                    node.contains = Some(self.child(doc, pointer, &[key], value)?);
                }
                // Read with `contains` (ignored without it).
                "minContains" if draft >= Draft::D2019 => {
                    node.min_contains = self.size(key, value)?;
                }
                "maxContains" if draft >= Draft::D2019 => {
                    node.max_contains = self.size(key, value)?;
                }
                "minItems" => node.min_items = self.size(key, value)?,
                "maxItems" => node.max_items = self.size(key, value)?,
                "minLength" => node.min_length = self.size(key, value)?,
                "maxLength" => node.max_length = self.size(key, value)?,
                "minimum" | "maximum" | "multipleOf" => {
                    numeric.insert(key.clone(), value.clone());
                }
                "exclusiveMinimum" | "exclusiveMaximum" => {
                    numeric.insert(key.clone(), value.clone());
                }
                "format" if self.assert_formats => {
                    match value.as_str().and_then(|name| Format::named(name, draft)) {
                        Some(format) => node.format = Some(format),
                        None => {
                            text.insert(key.clone(), value.clone());
                        }
                    }
                }
                // An annotation when formats are not asserted.
                "format" if value.is_string() => {}
                "pattern" if value.is_string() => {
                    let pattern = value.as_str().unwrap_or_default();
                    node.literal =
                        literal_pattern(pattern).map(|s| Box::new(Strings::new(vec![s])));
                    node.pattern = Some(Box::new(self.pattern(pattern, false)?));
                }
                // Not a string: `jsonschema` refuses the schema, and so
                // does the tiny validator.
                "pattern" | "format" => {
                    text.insert(key.clone(), value.clone());
                }
                // Asserted on strings by drafts 6 and 7 (`jsonschema`
                // reads them as annotations in the others).
                "contentMediaType" | "contentEncoding"
                    if matches!(draft, Draft::D6 | Draft::D7) =>
                {
                    text.insert(key.clone(), value.clone());
                }
                "uniqueItems" => {
                    if value == &Value::Bool(true) {
                        node.unique = true;
                    }
                    extra.insert(key.clone(), value.clone());
                }
                "minProperties" => {
                    node.min_properties = self.size(key, value)?;
                    extra.insert(key.clone(), value.clone());
                }
                "maxProperties" => {
                    node.max_properties = self.size(key, value)?;
                    extra.insert(key.clone(), value.clone());
                }
                "enum" => {
                    let Value::Array(options) = value else {
                        return Err(PlanRefusal::new("`enum` is not an array"));
                    };
                    if options.iter().any(|v| v.is_array() || v.is_object()) {
                        node.compound_choice = true;
                    }
                    choice.insert(key.clone(), value.clone());
                }
                "const" if draft >= Draft::D6 => {
                    if value.is_array() || value.is_object() {
                        node.compound_choice = true;
                    }
                    choice.insert(key.clone(), value.clone());
                }
                "allOf" | "anyOf" | "oneOf" => {
                    let Value::Array(schemas) = value else {
                        return Err(PlanRefusal::new(format!("`{key}` is not an array")));
                    };
                    let mut ids = Vec::with_capacity(schemas.len());
                    for (i, schema) in schemas.iter().enumerate() {
                        ids.push(self.child(doc, pointer, &[key, &i.to_string()], schema)?);
                    }
                    match key.as_str() {
                        "allOf" => node.all_of.extend(ids),
                        "anyOf" => node.any_of = ids,
                        _ => node.one_of = ids,
                    }
                }
                "not" => node.not = Some(self.child(doc, pointer, &[key], value)?),
                "if" if draft >= Draft::D7 => {
                    let condition = self.child(doc, pointer, &[key], value)?;
                    let then = match map.get("then") {
                        Some(schema) => Some(self.child(doc, pointer, &["then"], schema)?),
                        None => None,
                    };
                    let otherwise = match map.get("else") {
                        Some(schema) => Some(self.child(doc, pointer, &["else"], schema)?),
                        None => None,
                    };
                    if then.is_some() || otherwise.is_some() {
                        node.condition = Some((condition, then, otherwise));
                    } else if draft >= Draft::D2019 && (value.is_object() || value.is_boolean()) {
                        // Asserts nothing, but evaluates members and items
                        // for `unevaluated*` when it holds.
                        node.lone_if = Some(condition);
                    }
                }
                // Read with `items`, below.
                "items" | "prefixItems" | "additionalItems" => {}
                // Everything else `jsonschema` ignores: annotations,
                // `$defs`, unknown keywords, another draft's keywords.
                _ => {}
            }
        }
        self.items(doc, pointer, map, &mut node)?;
        node.evaluated_items = evaluated_items(draft, map);
        if !numeric.is_empty() {
            node.bounds = self.bounds(&numeric);
            node.numeric = Some(Box::new(self.mini(numeric)?));
        }
        if !text.is_empty() {
            if text.len() == 1 {
                node.quick = text
                    .get("format")
                    .and_then(Value::as_str)
                    .and_then(Quick::named);
            }
            node.text = Some(Box::new(self.mini(text)?));
        }
        if !choice.is_empty() {
            node.strings = strings_only(&choice);
            node.integers = integers_only(&choice);
            node.choice = Some(Box::new(self.mini(choice)?));
        }
        if node.unique || node.min_properties > 0 || node.max_properties < u64::MAX {
            node.extra = Some(Box::new(self.mini(extra)?));
        }
        if node.asserts_nothing() {
            node.kind = Kind::Any;
        } else if node.asserts_nothing_itself() {
            node.only_in_place = true;
        }
        Ok(node)
    }
}

/// How many leading items `items`/`prefixItems` evaluate for
/// `unevaluatedItems`, as `jsonschema` reads them: in 2020-12 any `items`
/// evaluates every item and `prefixItems` its length; before, `items` as a
/// schema (or as an array beside `additionalItems`) every item, `items` as
/// an array its length.
fn evaluated_items(draft: Draft, map: &Map<String, Value>) -> u64 {
    match (draft, map.get("items")) {
        (Draft::D2020, Some(_)) => u64::MAX,
        (Draft::D2020, None) => match map.get("prefixItems") {
            Some(Value::Array(prefix)) => prefix.len() as u64,
            _ => 0,
        },
        (_, Some(Value::Array(_))) if map.contains_key("additionalItems") => u64::MAX,
        (_, Some(Value::Array(tuple))) => tuple.len() as u64,
        (_, Some(Value::Object(_) | Value::Bool(_))) => u64::MAX,
        _ => 0,
    }
}

/// The member named `name`, added if new.
fn member<'n>(node: &'n mut Node, name: &str) -> &'n mut Member {
    let at = match node.members.iter().position(|m| &*m.name == name) {
        Some(at) => at,
        None => {
            node.members.push(Member::new(name));
            node.members.len() - 1
        }
    };
    &mut node.members[at]
}

/// The presence bit of `name`, assigned if new.
fn tracked(node: &mut Node, name: &str) -> Built<u64> {
    let used = node.members.iter().filter(|m| m.bit != 0).count();
    let entry = member(node, name);
    if entry.bit == 0 {
        if used >= MAX_TRACKED {
            return Err(PlanRefusal::new("more than 64 required or dependent keys"));
        }
        entry.bit = 1 << used;
    }
    Ok(entry.bit)
}

/// The string options of an `enum` or a `const` (the only keyword of
/// `choice`), sorted: a string equals no other JSON value, so a string
/// value is in the `enum` exactly when it is one of these.
fn strings_only(choice: &Map<String, Value>) -> Option<Strings> {
    if choice.len() != 1 {
        return None;
    }
    let options = match choice.iter().next()? {
        (key, Value::Array(options)) if key == "enum" => options.as_slice(),
        (key, value) if key == "const" => std::slice::from_ref(value),
        _ => return None,
    };
    let strings: Vec<Box<str>> = options
        .iter()
        .filter_map(|option| option.as_str().map(Box::from))
        .collect();
    Some(Strings::new(strings))
}

/// The integer values of an `enum` or a `const` (the only keyword of
/// `choice`), sorted: an integer token of magnitude at most 2^53 is in the
/// `enum` exactly when its value is one of these (`1` equals `1.0`: an
/// integral float option counts as its integer; a fractional one equals no
/// integer). `None` past 2^53, where how `jsonschema` compares an integer
/// with a float is not this exact comparison.
fn integers_only(choice: &Map<String, Value>) -> Option<Box<[i128]>> {
    const EXACT: f64 = 9_007_199_254_740_992.0;
    if choice.len() != 1 {
        return None;
    }
    let options = match choice.iter().next()? {
        (key, Value::Array(options)) if key == "enum" => options.as_slice(),
        (key, value) if key == "const" => std::slice::from_ref(value),
        _ => return None,
    };
    let mut integers = Vec::new();
    for option in options {
        let Value::Number(n) = option else { continue };
        let x = n.as_f64()?;
        if x.abs() > EXACT {
            return None;
        }
        if let Some(n) = n.as_i64() {
            integers.push(i128::from(n));
        } else if x.trunc() == x {
            integers.push(x as i128);
        }
    }
    integers.sort_unstable();
    integers.dedup();
    Some(integers.into_boxed_slice())
}

fn dependent_required(node: &mut Node, trigger: &str, names: &Value) -> Built<()> {
    let Value::Array(names) = names else {
        return Err(PlanRefusal::new("a dependency is not an array"));
    };
    let bit = tracked(node, trigger)?;
    let mut mask = 0;
    for (i, name) in names.iter().enumerate() {
        let Value::String(name) = name else {
            return Err(PlanRefusal::new("a dependency holds a non-string"));
        };
        if names[..i].iter().any(|other| other.as_str() == Some(name)) {
            return Err(PlanRefusal::new("a dependency repeats a name"));
        }
        mask |= tracked(node, name)?;
    }
    node.dependent_required.push((bit, mask));
    Ok(())
}

fn types(value: &Value) -> Built<u8> {
    fn one(name: &Value) -> Built<u8> {
        Ok(match name.as_str() {
            Some("null") => NULL,
            Some("boolean") => BOOLEAN,
            Some("integer") => INTEGER,
            Some("number") => NUMBER,
            Some("string") => STRING,
            Some("array") => ARRAY,
            Some("object") => OBJECT,
            _ => return Err(PlanRefusal::new("`type` names no JSON type")),
        })
    }
    match value {
        Value::Array(names) => names.iter().try_fold(0, |bits, name| Ok(bits | one(name)?)),
        name => one(name),
    }
}
