//! The web console at `/ui/`: HTML pages rendered here, from the same
//! state and lookups as the APIs, for people browsing the registry.
//!
//! | route | page |
//! |---|---|
//! | `GET /ui/` | the names held (subjects of the server's namespace, and names of others): search, language, latest version, compatibility and mode in effect; paged |
//! | `GET /ui/subject?ns&name` | one name: its settings and its versions, paged, newest first |
//! | `GET /ui/version?ns&name&v` | one version: its text as registered and canonical, id, URN, guid, references, referrers, metadata, rules |
//! | `GET /ui/diff?ns&name&from&to` | every change between two versions, each marked breaking or safe under the name's compatibility mode |
//! | `GET`, `POST /ui/check` | "would this break anyone?": a candidate checked as `POST /compatibility/subjects/{s}/versions` checks it (the same code, under the same compile budget), nothing stored |
//! | `GET /ui/lookup?q&kind` | an id, a URN, a guid or a frame's first bytes (hex), looked up |
//! | `GET /ui/server` | readiness, the store, what it holds, the cache, the limits |
//! | `GET /ui/console.css` | the style sheet |
//!
//! Nothing here writes, and nothing loads from elsewhere: no script, one
//! style sheet served from the binary, a `Content-Security-Policy` that
//! allows this server only. Every text from the store is escaped
//! (`html`). Lists are paged ([`PAGE`] rows), so a page of a registry of
//! 10,000 versions stays small.

mod escape;
mod highlight;
mod html;
mod view;

use axum::body::{Body, Bytes};
use axum::extract::rejection::BytesRejection;
use axum::extract::{RawQuery, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::Response;
use axum::routing::get;
use axum::Router;

use super::confluent::compatibility;
use super::confluent::request::checked_subject;
use super::query::Query;
use super::state::AppState;

/// Rows on one page of a list.
pub(crate) const PAGE: usize = 50;

/// The console's routes (the read router merges them unless
/// [`Config::with_ui`](super::Config::with_ui) turned it off).
pub(crate) fn routes(state: AppState) -> Router {
    Router::new()
        .route("/ui", get(to_index))
        .route("/ui/", get(view::names))
        .route("/ui/subject", get(view::subject))
        .route("/ui/version", get(view::version))
        .route("/ui/diff", get(view::diff))
        .route("/ui/check", get(check_form).post(check))
        .route("/ui/lookup", get(view::lookup))
        .route("/ui/server", get(view::server))
        .route("/ui/console.css", get(css))
        .with_state(state)
}

async fn to_index() -> Response {
    let mut response = html::respond(StatusCode::PERMANENT_REDIRECT, "text/plain", Body::empty());
    response
        .headers_mut()
        .insert(header::LOCATION, HeaderValue::from_static("/ui/"));
    response
}

async fn css() -> Response {
    let mut response = html::respond(
        StatusCode::OK,
        "text/css; charset=utf-8",
        Body::from(Bytes::from_static(html::CSS.as_bytes())),
    );
    response.headers_mut().insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("max-age=300"),
    );
    response
}

/// The page number a query asks for (1 when absent or not a number).
fn page_of(query: &Query) -> usize {
    query
        .get("page")
        .and_then(|page| page.parse::<usize>().ok())
        .filter(|page| (1..=1_000_000).contains(page))
        .unwrap_or(1)
}

/// The schema types the check form offers: (Confluent's `schemaType`,
/// label).
const SCHEMA_TYPES: [(&str, &str); 3] = [
    ("AVRO", "Avro"),
    ("JSON", "JSON Schema"),
    ("PROTOBUF", "Protobuf (.proto text)"),
];

/// What the check form holds.
#[derive(Default)]
struct CheckForm {
    subject: String,
    schema_type: String,
    schema: String,
}

impl CheckForm {
    fn write(&self, page: &mut html::Page) {
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
            .raw("</textarea><p id=\"schema-help\" class=\"note\">Checked against the versions the subject's compatibility mode covers, as a registration would be. Nothing is stored.</p></div>")
            .raw("<div><button type=\"submit\">Check compatibility</button></div></form>\n");
    }
}

/// `GET /ui/check`: the form (`?subject=` and `?schemaType=` prefill it).
async fn check_form(RawQuery(raw): RawQuery) -> Response {
    let query = Query::parse(raw.as_deref());
    let form = CheckForm {
        subject: query.get("subject").unwrap_or("").to_owned(),
        schema_type: query.get("schemaType").unwrap_or("AVRO").to_owned(),
        schema: String::new(),
    };
    let mut page = html::Page::new("Would this break anyone?", "/ui/check");
    page.para("Paste a candidate schema: the report lists each change against every version the subject's compatibility mode covers, marked breaking or safe.");
    form.write(&mut page);
    page.finish()
}

/// `POST /ui/check`: the form's candidate checked by the compatibility
/// test's own code (`confluent::compatibility::report`): read as that
/// route reads a body, under the same body cap and compile budget
/// (`limits::compiles` names this route), nothing stored.
async fn check(State(state): State<AppState>, body: Result<Bytes, BytesRejection>) -> Response {
    let mut form = CheckForm::default();
    let mut page = html::Page::new("Would this break anyone?", "/ui/check");
    let body = match body {
        Ok(body) => body,
        Err(rejection) => {
            page.status(rejection.status()).error(&format!(
                "The form could not be read: {}",
                rejection.body_text()
            ));
            form.write(&mut page);
            return page.finish();
        }
    };
    for (key, value) in form_urlencoded::parse(&body) {
        match &*key {
            "subject" => form.subject = value.into_owned(),
            "schemaType" => form.schema_type = value.into_owned(),
            "schema" => form.schema = value.into_owned(),
            _ => {}
        }
    }
    let outcome = async {
        let subject = checked_subject(form.subject.clone())?;
        let request = serde_json::json!({
            "schema": form.schema,
            "schemaType": if form.schema_type.is_empty() { "AVRO" } else { form.schema_type.as_str() },
        });
        let report = compatibility::report(
            &state,
            &subject,
            None,
            Ok(Bytes::from(request.to_string())),
        )
        .await?;
        Ok::<_, super::wire::confluent::ApiError>((subject, report))
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
