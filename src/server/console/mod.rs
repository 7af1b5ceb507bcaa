//! The web console at `/ui/`: HTML pages rendered here, from the same
//! state and lookups as the APIs, for people browsing the registry.
//!
//! | route | page |
//! |---|---|
//! | `GET /ui/` | the names held (subjects of the server's namespace, and names of others): search, language, latest version, compatibility and mode in effect; paged |
//! | `GET /ui/subject?ns&name` | one name: its settings and its versions, paged, newest first |
//! | `GET /ui/version?ns&name&v` | one version: its text as registered and canonical, id, URN, guid, references, referrers, metadata, rules |
//! | `GET /ui/diff?ns&name&from&to` | every change between two versions, each marked breaking or safe under the name's compatibility mode |
//! | `GET`, `POST /ui/check` | "would this break anyone?": a candidate, with its references, metadata and rule set, checked as `POST /compatibility/subjects/{s}/versions` checks it (the same code, under the same compile budget), nothing stored (`check`) |
//! | `GET /ui/lookup?q&kind` | an id, a URN, a guid or a frame's first bytes (hex), looked up |
//! | `GET /ui/server` | readiness, uptime, the store and what it holds, the requests answered by route and status, the refusals (the compile budget's `429`s among them), the cache, the limits |
//! | `GET /ui/console.css` | the style sheet |
//!
//! Nothing here writes, and nothing loads from elsewhere: no script, one
//! style sheet served from the binary, a `Content-Security-Policy` that
//! allows this server only. Every text from the store is escaped
//! (`html`). Lists are paged ([`PAGE`] rows), so a page of a registry of
//! 10,000 versions stays small.

mod check;
mod escape;
mod highlight;
mod html;
mod view;

use axum::body::{Body, Bytes};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::Response;
use axum::routing::get;
use axum::Router;

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
        .route("/ui/check", get(check::form).post(check::check))
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
