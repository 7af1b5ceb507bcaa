//! "Would this break anyone?": the form that checks a candidate schema,
//! with its references, metadata and rule set, as
//! `POST /compatibility/subjects/{s}/versions` checks it (the same code,
//! `confluent::compatibility::report`), nothing stored.
//!
//! The form is read and checked here first, so that each mistake is
//! named beside its field (and listed at the top, each a link to its
//! field): a reference row missing its name or subject, a version that
//! is not one, metadata or a rule set that is not JSON or not of
//! Confluent's shape (read by `Metadata::from_json` and
//! `RuleSet::from_json`, the API's own readers). What only the registry
//! can tell (a reference to a version nobody holds, a schema that does
//! not compile) is the API's refusal, shown as it answers it.

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{RawQuery, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde_json::Value;

use super::html::Page;
use super::view;
use crate::server::confluent::compatibility;
use crate::server::confluent::request::checked_subject;
use crate::server::query::Query;
use crate::server::state::AppState;
use dataschema_core::{clip, Metadata, RuleSet};

/// The schema types the form offers: (Confluent's `schemaType`, label).
const SCHEMA_TYPES: [(&str, &str); 3] = [
    ("AVRO", "Avro"),
    ("JSON", "JSON Schema"),
    ("PROTOBUF", "Protobuf (.proto text)"),
];

/// The most reference rows a form holds.
const MAX_REFERENCES: usize = 100;

/// Empty reference rows shown below the last filled one (at least this
/// many rows in all).
const SPARE_ROWS: usize = 2;
const MIN_ROWS: usize = 3;

/// One reference row, as typed.
#[derive(Default, Clone)]
struct Row {
    name: String,
    subject: String,
    version: String,
}

impl Row {
    fn is_empty(&self) -> bool {
        self.name.trim().is_empty()
            && self.subject.trim().is_empty()
            && self.version.trim().is_empty()
    }
}

/// A mistake in the form: the id of the field it is about, and what is
/// wrong, in words.
struct Mistake {
    field: String,
    message: String,
}

/// What the form holds, and what is wrong with it.
#[derive(Default)]
struct CheckForm {
    subject: String,
    schema_type: String,
    schema: String,
    /// Row `i` is reference `i + 1`.
    rows: Vec<Row>,
    metadata: String,
    rule_set: String,
    mistakes: Vec<Mistake>,
}

/// A reference row's field: its form name and element id, `refName3`.
fn row_field(kind: &str, row: usize) -> String {
    format!("ref{kind}{}", row + 1)
}

impl CheckForm {
    /// The form as a `POST` sends it (`application/x-www-form-urlencoded`).
    fn read(body: &[u8]) -> CheckForm {
        let mut form = CheckForm::default();
        let mut beyond = false;
        for (key, value) in form_urlencoded::parse(body) {
            match &*key {
                "subject" => form.subject = value.into_owned(),
                "schemaType" => form.schema_type = value.into_owned(),
                "schema" => form.schema = value.into_owned(),
                "metadata" => form.metadata = value.into_owned(),
                "ruleSet" => form.rule_set = value.into_owned(),
                key => {
                    let Some((kind, index)) =
                        ["Name", "Subject", "Version"].iter().find_map(|kind| {
                            key.strip_prefix("ref")
                                .and_then(|rest| rest.strip_prefix(kind))
                                .and_then(|n| n.parse::<usize>().ok())
                                .map(|n| (*kind, n))
                        })
                    else {
                        continue;
                    };
                    if index == 0 || index > MAX_REFERENCES {
                        beyond |= !value.trim().is_empty();
                        continue;
                    }
                    if form.rows.len() < index {
                        form.rows.resize(index, Row::default());
                    }
                    let row = &mut form.rows[index - 1];
                    match kind {
                        "Name" => row.name = value.into_owned(),
                        "Subject" => row.subject = value.into_owned(),
                        _ => row.version = value.into_owned(),
                    }
                }
            }
        }
        if beyond {
            form.mistake(
                "references",
                format!("This form takes at most {MAX_REFERENCES} references."),
            );
        }
        form
    }

    fn mistake(&mut self, field: impl Into<String>, message: impl Into<String>) {
        self.mistakes.push(Mistake {
            field: field.into(),
            message: message.into(),
        });
    }

    /// The body of a compatibility test (Confluent's shape), or the
    /// form's mistakes (kept in `self.mistakes`).
    fn request(&mut self) -> Option<Value> {
        let mut references = Vec::new();
        for (i, row) in self.rows.clone().iter().enumerate() {
            if row.is_empty() {
                continue;
            }
            let n = i + 1;
            let name = row.name.trim();
            let subject = row.subject.trim();
            if name.is_empty() {
                self.mistake(
                    row_field("Name", i),
                    format!(
                        "Reference {n}: give the name the schema uses for it (the import path \
                         for protobuf, the $ref for JSON Schema, the type's full name for Avro)."
                    ),
                );
            }
            if subject.is_empty() {
                self.mistake(
                    row_field("Subject", i),
                    format!("Reference {n}: give the subject it names."),
                );
            }
            let version = match row.version.trim() {
                "" | "latest" | "-1" => Some(-1),
                text => match text.parse::<i64>() {
                    Ok(v) if (1..=i64::from(i32::MAX)).contains(&v) => Some(v),
                    _ => {
                        self.mistake(
                            row_field("Version", i),
                            format!(
                                "Reference {n}: {:?} is not a version: a number from 1, or \
                                 latest (or empty) for the subject's latest version.",
                                clip(text, 40)
                            ),
                        );
                        None
                    }
                },
            };
            if let Some(version) = version {
                references.push(serde_json::json!({
                    "name": name,
                    "subject": subject,
                    "version": version,
                }));
            }
        }
        let metadata = self.json_field("metadata", "Metadata", Metadata::from_json);
        let rule_set = self.json_field("ruleSet", "Rule set", RuleSet::from_json);
        if !self.mistakes.is_empty() {
            return None;
        }
        let mut request = serde_json::json!({
            "schema": self.schema,
            "schemaType": if self.schema_type.is_empty() { "AVRO" } else { self.schema_type.as_str() },
        });
        if !references.is_empty() {
            request["references"] = Value::Array(references);
        }
        if let Some(metadata) = metadata {
            request["metadata"] = metadata;
        }
        if let Some(rule_set) = rule_set {
            request["ruleSet"] = rule_set;
        }
        Some(request)
    }

    /// The JSON of the field `id` (labelled `label`), read by `check` (the
    /// API's reader of that member): `None` when empty or wrong (the
    /// mistake kept).
    fn json_field<T>(
        &mut self,
        id: &str,
        label: &str,
        check: impl Fn(&Value) -> Result<T, String>,
    ) -> Option<Value> {
        let text = if id == "metadata" {
            &self.metadata
        } else {
            &self.rule_set
        };
        if text.trim().is_empty() {
            return None;
        }
        let value = match serde_json::from_str::<Value>(text) {
            Ok(value) => value,
            Err(err) => {
                self.mistake(id, format!("{label} is not JSON: {err}."));
                return None;
            }
        };
        match check(&value) {
            Ok(_) => Some(value),
            Err(why) => {
                self.mistake(id, format!("{label}: {}.", clip(&why, 300)));
                None
            }
        }
    }

    /// The mistake about field `id`, if any.
    fn mistake_of(&self, id: &str) -> Option<&Mistake> {
        self.mistakes.iter().find(|m| m.field == id)
    }

    /// An input's attributes after its `id`: `aria-invalid` and
    /// `aria-describedby` naming its mistake and `help` (an id, or empty).
    fn described(&self, page: &mut Page, id: &str, help: &str) {
        let invalid = self.mistake_of(id).is_some();
        if invalid {
            page.raw(" aria-invalid=\"true\"");
        }
        if invalid || !help.is_empty() {
            page.raw(" aria-describedby=\"");
            if invalid {
                page.attr(id).raw("-error");
                if !help.is_empty() {
                    page.raw(" ");
                }
            }
            page.attr(help).raw("\"");
        }
    }

    /// The mistake about field `id`, written below it.
    fn inline_mistake(&self, page: &mut Page, id: &str) {
        if let Some(mistake) = self.mistake_of(id) {
            page.raw("<p class=\"error field-error\" id=\"")
                .attr(id)
                .raw("-error\">")
                .text(&mistake.message)
                .raw("</p>");
        }
    }

    /// The list of the form's mistakes, each a link to its field,
    /// announced.
    fn summary(&self, page: &mut Page) {
        if self.mistakes.is_empty() {
            return;
        }
        page.raw("<div class=\"error\" role=\"alert\" id=\"form-errors\"><p>")
            .raw(if self.mistakes.len() == 1 {
                "Not checked: one field needs a change."
            } else {
                "Not checked: some fields need a change."
            })
            .raw("</p><ul>");
        for mistake in &self.mistakes {
            page.raw("<li><a href=\"#")
                .attr(&mistake.field)
                .raw("\">")
                .text(&mistake.message)
                .raw("</a></li>");
        }
        page.raw("</ul></div>\n");
    }

    fn write(&self, page: &mut Page) {
        page.raw("<form method=\"post\" action=\"/ui/check\">")
            .raw("<div><label for=\"subject\">Subject</label>")
            .raw("<input id=\"subject\" name=\"subject\" required size=\"50\" value=\"")
            .attr(&self.subject)
            .raw("\"></div>")
            .raw("<div><label for=\"schemaType\">Schema type</label>")
            .raw("<select id=\"schemaType\" name=\"schemaType\">");
        for (value, label) in SCHEMA_TYPES {
            page.raw("<option value=\"").attr(value).raw("\"");
            if self.schema_type.eq_ignore_ascii_case(value) {
                page.raw(" selected");
            }
            page.raw(">").text(label).raw("</option>");
        }
        page.raw("</select></div>")
            .raw("<div><label for=\"schema\">Candidate schema</label>")
            .raw("<textarea id=\"schema\" name=\"schema\" required spellcheck=\"false\" aria-describedby=\"schema-help\">")
            .text(&self.schema)
            .raw("</textarea><p id=\"schema-help\" class=\"note\">Checked against the versions the subject's compatibility mode covers, as a registration would be. Nothing is stored.</p></div>\n");
        // References, metadata and rules: folded unless one is filled in
        // or wrong.
        let open = self.rows.iter().any(|row| !row.is_empty())
            || !self.metadata.trim().is_empty()
            || !self.rule_set.trim().is_empty()
            || !self.mistakes.is_empty();
        page.raw(if open {
            "<details open>"
        } else {
            "<details>"
        })
        .raw("<summary>References, metadata and rules (optional)</summary>\n")
        .raw("<fieldset class=\"references\" id=\"references\" aria-describedby=\"references-help\"><legend>References</legend>")
        .raw("<p id=\"references-help\" class=\"note\">Each names a version of another subject the candidate uses, by the name the candidate gives it: the import path for protobuf (<code>acme/money.proto</code>), the <code>$ref</code> for JSON Schema, the type's full name for Avro. An empty version is the subject's latest. Leave a row empty to skip it; a check brings back more empty rows.</p>\n");
        let filled = self
            .rows
            .iter()
            .rposition(|row| !row.is_empty())
            .map_or(0, |last| last + 1);
        let shown = (filled + SPARE_ROWS).clamp(MIN_ROWS, MAX_REFERENCES);
        let empty = Row::default();
        for i in 0..shown {
            let row = self.rows.get(i).unwrap_or(&empty);
            page.raw("<fieldset class=\"reference\"><legend>Reference ")
                .num(i + 1)
                .raw("</legend>");
            for (kind, label, value, size) in [
                ("Name", "Name", &row.name, "30"),
                ("Subject", "Subject", &row.subject, "30"),
                ("Version", "Version", &row.version, "8"),
            ] {
                let id = row_field(kind, i);
                // Named "Reference 2 Subject" for assistive technology
                // (the row's legend shows the number).
                page.raw("<div><label for=\"")
                    .attr(&id)
                    .raw("\"><span class=\"vh\">Reference ")
                    .num(i + 1)
                    .raw(" </span>")
                    .text(label)
                    .raw("</label><input id=\"")
                    .attr(&id)
                    .raw("\" name=\"")
                    .attr(&id)
                    .raw("\" size=\"")
                    .attr(size)
                    .raw("\"");
                if kind == "Version" {
                    page.raw(" placeholder=\"latest\" inputmode=\"numeric\"");
                }
                self.described(page, &id, "");
                page.raw(" value=\"").attr(value).raw("\">");
                self.inline_mistake(page, &id);
                page.raw("</div>");
            }
            page.raw("</fieldset>\n");
        }
        page.raw("</fieldset>\n");
        for (id, label, value, help, example) in [
            (
                "metadata",
                "Metadata (JSON)",
                &self.metadata,
                "metadata-help",
                "Confluent's metadata object, for example {\"properties\": {\"owner\": \"team-a\"}}; empty: none sent (the subject's is inherited).",
            ),
            (
                "ruleSet",
                "Rule set (JSON)",
                &self.rule_set,
                "ruleSet-help",
                "Confluent's ruleSet object, for example {\"domainRules\": [{\"name\": \"positive\", \"kind\": \"CONDITION\", \"type\": \"CEL\", \"mode\": \"WRITE\", \"expr\": \"message.total > 0\"}]}; empty: none sent.",
            ),
        ] {
            page.raw("<div><label for=\"")
                .attr(id)
                .raw("\">")
                .text(label)
                .raw("</label><textarea class=\"short\" id=\"")
                .attr(id)
                .raw("\" name=\"")
                .attr(id)
                .raw("\" spellcheck=\"false\"");
            self.described(page, id, help);
            page.raw(">").text(value).raw("</textarea>");
            self.inline_mistake(page, id);
            page.raw("<p class=\"note\" id=\"")
                .attr(help)
                .raw("\">")
                .text(example)
                .raw("</p></div>\n");
        }
        page.raw("</details>\n")
            .raw("<div><button type=\"submit\">Check compatibility</button></div></form>\n");
    }
}

/// `GET /ui/check`: the form (`?subject=` and `?schemaType=` prefill it).
pub(super) async fn form(RawQuery(raw): RawQuery) -> Response {
    let query = Query::parse(raw.as_deref());
    let form = CheckForm {
        subject: query.get("subject").unwrap_or("").to_owned(),
        schema_type: query.get("schemaType").unwrap_or("AVRO").to_owned(),
        ..CheckForm::default()
    };
    let mut page = Page::new("Would this break anyone?", "/ui/check");
    page.para("Paste a candidate schema: the report lists each change against every version the subject's compatibility mode covers, marked breaking or safe.");
    form.write(&mut page);
    page.finish()
}

/// `POST /ui/check`: the form's candidate checked by the compatibility
/// test's own code (`confluent::compatibility::report`): read as that
/// route reads a body, under the same body cap and compile budget
/// (`limits::compiles` names this route), nothing stored. A form with
/// mistakes is answered `422` with each named, and checks nothing.
pub(super) async fn check(
    State(state): State<AppState>,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let mut page = Page::new("Would this break anyone?", "/ui/check");
    let body = match body {
        Ok(body) => body,
        Err(rejection) => {
            page.status(rejection.status()).error(&format!(
                "The form could not be read: {}",
                rejection.body_text()
            ));
            CheckForm::default().write(&mut page);
            return page.finish();
        }
    };
    let mut form = CheckForm::read(&body);
    let Some(request) = form.request() else {
        page.status(StatusCode::UNPROCESSABLE_ENTITY);
        form.summary(&mut page);
        form.write(&mut page);
        return page.finish();
    };
    let outcome = async {
        let subject = checked_subject(form.subject.clone())?;
        let report =
            compatibility::report(&state, &subject, None, Ok(Bytes::from(request.to_string())))
                .await?;
        Ok::<_, crate::server::wire::confluent::ApiError>((subject, report))
    }
    .await;
    match outcome {
        Ok((subject, report)) => {
            view::report_section(&mut page, &state, &subject.name, &report, false);
        }
        Err(err) => {
            page.status(err.code.status()).error(&format!(
                "Not checked (error {}): {}",
                err.code.number(),
                err.message
            ));
        }
    }
    page.raw("<h2>Check another candidate</h2>\n");
    form.write(&mut page);
    page.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(body: &str) -> CheckForm {
        CheckForm::read(body.as_bytes())
    }

    #[test]
    fn references_metadata_and_rules_make_the_request() {
        let mut form = read(
            "subject=s&schemaType=PROTOBUF&schema=x&refName1=a.proto&refSubject1=a&refVersion1=2\
             &refName2=&refSubject2=&refVersion2=&refName3=b.proto&refSubject3=b&refVersion3=latest\
             &metadata=%7B%22properties%22%3A%7B%22owner%22%3A%22t%22%7D%7D&ruleSet=",
        );
        let request = form.request().expect("no mistake");
        assert_eq!(
            request["references"],
            serde_json::json!([
                {"name": "a.proto", "subject": "a", "version": 2},
                {"name": "b.proto", "subject": "b", "version": -1},
            ])
        );
        assert_eq!(request["metadata"]["properties"]["owner"], "t");
        assert!(request.get("ruleSet").is_none());
        assert_eq!(request["schemaType"], "PROTOBUF");
    }

    #[test]
    fn each_mistake_names_its_field() {
        let mut form = read(
            "subject=s&schema=x&refSubject1=a&refName2=b&refVersion2=two\
             &metadata=%7B&ruleSet=%5B%5D&refName500=z",
        );
        assert!(form.request().is_none());
        let fields: Vec<&str> = form.mistakes.iter().map(|m| m.field.as_str()).collect();
        assert_eq!(
            fields,
            [
                "references",
                "refName1",
                "refSubject2",
                "refVersion2",
                "metadata",
                "ruleSet"
            ]
        );
        let messages: Vec<&str> = form.mistakes.iter().map(|m| m.message.as_str()).collect();
        assert!(
            messages[0].contains("at most 100 references"),
            "{messages:?}"
        );
        assert!(messages[1].starts_with("Reference 1: give the name"));
        assert!(messages[3].contains("\"two\" is not a version"));
        assert!(messages[4].starts_with("Metadata is not JSON: EOF"));
        assert!(messages[5].contains("not a JSON object"), "{messages:?}");
    }

    #[test]
    fn rows_grow_past_the_last_filled_one() {
        let form = read("refName4=a&refSubject4=b");
        let mut page = Page::new("t", "/ui/check");
        form.write(&mut page);
        let html = page.into_string();
        assert!(html.contains("id=\"refName6\""));
        assert!(!html.contains("id=\"refName7\""));
        assert!(html.contains("<details open>"));
    }
}
