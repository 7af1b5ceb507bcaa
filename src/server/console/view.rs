//! The console's read-only pages: what each reads from the registry (on
//! the blocking pool, one call per page) and how it writes it.

use axum::extract::{RawQuery, State};
use axum::http::StatusCode;
use axum::response::Response;

use super::html::{url, Page};
use super::{page_of, PAGE};
use crate::registry::Registry;
use crate::server::confluent::canonical::canonical;
use crate::server::query::Query;
use crate::server::state::{proto_view, AppState};
use crate::server::wire::confluent::{guid, schema_string, schema_type};
use crate::store::{Mode, SchemaId};
use dataschema_core::compat::{CompatReport, Compatibility, VersionChange};
use dataschema_core::{clip, Error, Language, Schema, Urn};

/// How a name is shown: its Confluent subject in the server's namespace,
/// else the URN name.
fn shown(server_namespace: &str, namespace: &str, name: &str) -> String {
    if namespace == server_namespace {
        crate::subject::subject_of(name).unwrap_or_else(|| name.to_owned())
    } else {
        name.to_owned()
    }
}

fn subject_url(namespace: &str, name: &str) -> String {
    url("/ui/subject", &[("ns", namespace), ("name", name)])
}

fn version_url(urn: &Urn) -> String {
    url(
        "/ui/version",
        &[
            ("ns", urn.namespace()),
            ("name", urn.name()),
            ("v", &urn.version().to_string()),
        ],
    )
}

fn diff_url(namespace: &str, name: &str, from: u32, to: u32) -> String {
    url(
        "/ui/diff",
        &[
            ("ns", namespace),
            ("name", name),
            ("from", &from.to_string()),
            ("to", &to.to_string()),
        ],
    )
}

fn language_label(language: Language) -> &'static str {
    match language {
        Language::JsonSchema => "JSON Schema",
        Language::Protobuf => "Protobuf",
        Language::Avro => "Avro",
        #[allow(unreachable_patterns)]
        _ => "other",
    }
}

fn mode_label(mode: Compatibility) -> String {
    mode.as_str().to_ascii_uppercase()
}

/// A page saying what went wrong, with the status it means.
fn failed(title: &str, section: &str, status: StatusCode, message: &str) -> Response {
    let mut page = Page::new(title, section);
    page.status(status).error(message);
    page.finish()
}

/// A registry error as a page: not found is 404, a bad request 400, the
/// store's own failure 500 without its causes (the log has them).
fn error_page(title: &str, section: &str, err: &Error) -> Response {
    use dataschema_core::ErrorKind;
    let (status, message) = match err.kind() {
        ErrorKind::Lookup => (StatusCode::NOT_FOUND, err.to_string()),
        ErrorKind::Infrastructure => (
            StatusCode::INTERNAL_SERVER_ERROR,
            crate::server::wire::server_failure(err),
        ),
        _ => (StatusCode::BAD_REQUEST, err.chain().to_string()),
    };
    failed(title, section, status, &message)
}

/// The pager below a list: previous and next pages, keeping the query's
/// other pairs.
fn pager(page: &mut Page, path: &str, pairs: &[(&str, &str)], number: usize, more: bool) {
    if number <= 1 && !more {
        return;
    }
    page.raw("<nav class=\"pager\" aria-label=\"Pages\">");
    let link = |n: usize| {
        let n = n.to_string();
        let mut all: Vec<(&str, &str)> = pairs.to_vec();
        all.push(("page", &n));
        url(path, &all)
    };
    if number > 1 {
        page.raw("<a rel=\"prev\" href=\"")
            .attr(&link(number - 1))
            .raw("\">Previous page</a>");
    }
    page.raw("<span>Page ").num(number).raw("</span>");
    if more {
        page.raw("<a rel=\"next\" href=\"")
            .attr(&link(number + 1))
            .raw("\">Next page</a>");
    }
    page.raw("</nav>\n");
}

// ---------------------------------------------------------------- names

/// The language filter of the names list.
#[derive(Clone, Copy, PartialEq, Eq)]
enum LanguageFilter {
    Any,
    Only(Language),
}

impl LanguageFilter {
    fn of(value: Option<&str>) -> LanguageFilter {
        match value {
            Some("json") => LanguageFilter::Only(Language::JsonSchema),
            Some("avro") => LanguageFilter::Only(Language::Avro),
            Some("protobuf") => LanguageFilter::Only(Language::Protobuf),
            _ => LanguageFilter::Any,
        }
    }

    fn value(self) -> &'static str {
        match self {
            LanguageFilter::Any => "",
            LanguageFilter::Only(Language::JsonSchema) => "json",
            LanguageFilter::Only(Language::Avro) => "avro",
            LanguageFilter::Only(Language::Protobuf) => "protobuf",
            #[allow(unreachable_patterns)]
            LanguageFilter::Only(_) => "",
        }
    }
}

/// One name of the list.
struct NameRow {
    namespace: String,
    name: String,
    shown: String,
    latest: u32,
    versions: usize,
    language: Option<Language>,
    compatibility: Compatibility,
    mode: Mode,
}

/// One page of names, and whether another follows (`total`: how many
/// match, when known without reading every latest version).
struct Listing {
    rows: Vec<NameRow>,
    total: Option<usize>,
    more: bool,
}

/// The `page`th page of the names held matching `search` (in the shown
/// name, any case) and `language` (of the latest version). Every URN is
/// listed once (the store's one ordered list); only the page's rows, and
/// with a language filter the names read until the page is full, are
/// resolved.
fn names_page(
    registry: &Registry,
    server_namespace: &str,
    search: &str,
    language: LanguageFilter,
    page: usize,
) -> Result<Listing, Error> {
    let urns = registry.list()?;
    let mut names: Vec<(usize, usize)> = Vec::new(); // (first index, count)
    for (i, urn) in urns.iter().enumerate() {
        match names.last_mut() {
            Some((first, count))
                if urns[*first].namespace() == urn.namespace()
                    && urns[*first].name() == urn.name() =>
            {
                *count += 1
            }
            _ => names.push((i, 1)),
        }
    }
    let needle = search.to_lowercase();
    let row_of = |&(first, count): &(usize, usize)| {
        let urn = &urns[first];
        let last = &urns[first + count - 1];
        NameRow {
            namespace: urn.namespace().to_owned(),
            name: urn.name().to_owned(),
            shown: shown(server_namespace, urn.namespace(), urn.name()),
            latest: last.version(),
            versions: count,
            language: None,
            compatibility: Compatibility::default(),
            mode: Mode::default(),
        }
    };
    let matching = names
        .iter()
        .map(row_of)
        .filter(|row| needle.is_empty() || row.shown.to_lowercase().contains(&needle));
    let start = (page - 1).saturating_mul(PAGE);
    let (mut rows, total, more) = match language {
        LanguageFilter::Any => {
            let all: Vec<NameRow> = matching.collect();
            let total = all.len();
            let rows: Vec<NameRow> = all.into_iter().skip(start).take(PAGE).collect();
            (rows, Some(total), total > start.saturating_add(PAGE))
        }
        LanguageFilter::Only(wanted) => {
            let mut rows = Vec::with_capacity(PAGE);
            let mut seen = 0usize;
            let mut more = false;
            for mut row in matching {
                let latest = Urn::new(&row.namespace, &row.name, row.latest)?;
                let language = registry.resolve(&latest)?.language();
                if language != wanted {
                    continue;
                }
                if seen >= start.saturating_add(PAGE) {
                    more = true;
                    break;
                }
                if seen >= start {
                    row.language = Some(language);
                    rows.push(row);
                }
                seen += 1;
            }
            (rows, None, more)
        }
    };
    for row in &mut rows {
        if row.language.is_none() {
            let latest = Urn::new(&row.namespace, &row.name, row.latest)?;
            row.language = Some(registry.resolve(&latest)?.language());
        }
        row.compatibility = registry.config().compatibility_in_effect(&row.name)?;
        row.mode = registry.config().mode_in_effect(&row.name)?;
    }
    Ok(Listing { rows, total, more })
}

/// `GET /ui/`: the names held, paged.
pub(super) async fn names(State(state): State<AppState>, RawQuery(raw): RawQuery) -> Response {
    const TITLE: &str = "Subjects";
    let query = Query::parse(raw.as_deref());
    let search = query.get("q").unwrap_or("").trim().to_owned();
    let language = LanguageFilter::of(query.get("language"));
    let number = page_of(&query);
    let namespace = state.namespace().to_owned();
    let wanted = search.clone();
    let listing = state
        .blocking(move |registry| names_page(registry, &namespace, &wanted, language, number))
        .await;
    let listing = match listing {
        Ok(listing) => listing,
        Err(err) => return error_page(TITLE, "/ui/", &err),
    };
    let mut page = Page::new(TITLE, "/ui/");
    page.raw("<form class=\"inline\" method=\"get\" action=\"/ui/\" role=\"search\">")
        .raw("<div><label for=\"q\">Search names</label><input id=\"q\" name=\"q\" type=\"search\" value=\"")
        .attr(&search)
        .raw("\"></div><div><label for=\"language\">Language</label><select id=\"language\" name=\"language\">");
    for (value, label) in [
        ("", "Any"),
        ("avro", "Avro"),
        ("json", "JSON Schema"),
        ("protobuf", "Protobuf"),
    ] {
        page.raw("<option value=\"").attr(value).raw("\"");
        if value == language.value() {
            page.raw(" selected");
        }
        page.raw(">").text(label).raw("</option>");
    }
    page.raw("</select></div><div><button type=\"submit\">Filter</button></div></form>\n");
    match listing.total {
        Some(total) => page
            .raw("<p id=\"count\">")
            .num(total)
            .raw(if total == 1 {
                " name matches"
            } else {
                " names match"
            })
            .raw(".</p>\n"),
        None => page.raw("<p id=\"count\">Names whose latest version is in this language.</p>\n"),
    };
    if listing.rows.is_empty() {
        page.para("No name matches.");
    } else {
        page.raw("<table aria-describedby=\"count\"><thead><tr><th scope=\"col\">Subject or name</th><th scope=\"col\">Namespace</th><th scope=\"col\">Language</th><th scope=\"col\">Latest</th><th scope=\"col\">Versions</th><th scope=\"col\">Compatibility</th><th scope=\"col\">Mode</th></tr></thead><tbody>\n");
        for row in &listing.rows {
            page.raw("<tr><th scope=\"row\">")
                .link(&subject_url(&row.namespace, &row.name), &row.shown)
                .raw("</th><td>")
                .text(&row.namespace)
                .raw("</td><td>")
                .text(row.language.map_or("", language_label))
                .raw("</td><td>");
            match Urn::new(&row.namespace, &row.name, row.latest) {
                Ok(urn) => page.link(&version_url(&urn), &format!("v{}", row.latest)),
                Err(_) => page.num(row.latest),
            };
            page.raw("</td><td>")
                .num(row.versions)
                .raw("</td><td>")
                .text(&mode_label(row.compatibility))
                .raw("</td><td>")
                .text(row.mode.as_str())
                .raw("</td></tr>\n");
        }
        page.raw("</tbody></table>\n");
    }
    pager(
        &mut page,
        "/ui/",
        &[("q", &search), ("language", language.value())],
        number,
        listing.more,
    );
    page.finish()
}

// -------------------------------------------------------------- subject

/// One version of a name's list.
struct VersionRow {
    urn: Urn,
    id: Option<SchemaId>,
    language: Language,
    deleted: bool,
}

/// What a name's page shows.
struct NameView {
    versions: Vec<VersionRow>,
    count: usize,
    compatibility: Compatibility,
    own_compatibility: Option<Compatibility>,
    default_compatibility: Option<Compatibility>,
    mode: Mode,
    group: Option<String>,
    policy: Option<String>,
}

fn name_view(
    registry: &Registry,
    namespace: &str,
    name: &str,
    page: usize,
) -> Result<NameView, Error> {
    let all = registry.versions_in(namespace, name)?;
    if all.is_empty() {
        return Err(Error::NotFound {
            urn: Urn::new(namespace, name, 1)?,
        });
    }
    let deleted = registry.deleted_versions(namespace, name)?;
    let start = (page - 1).saturating_mul(PAGE);
    let mut versions = Vec::with_capacity(PAGE);
    for &version in all.iter().rev().skip(start).take(PAGE) {
        let urn = Urn::new(namespace, name, version)?;
        let schema = registry.resolve(&urn)?;
        versions.push(VersionRow {
            id: registry.id_of(&urn).ok(),
            language: schema.language(),
            deleted: deleted.contains(&version),
            urn,
        });
    }
    let settings = registry.config().settings_in_effect(name)?;
    Ok(NameView {
        versions,
        count: all.len(),
        compatibility: registry.config().compatibility_in_effect(name)?,
        own_compatibility: registry.config().compatibility(Some(name))?,
        default_compatibility: registry.config().compatibility(None)?,
        mode: registry.config().mode_in_effect(name)?,
        group: settings.compatibility_group,
        policy: settings
            .compatibility_policy
            .map(|policy| policy.as_str().to_owned()),
    })
}

/// The namespace, name and version a query names.
fn named(query: &Query, server_namespace: &str) -> (String, String) {
    (
        query
            .get("ns")
            .filter(|ns| !ns.is_empty())
            .unwrap_or(server_namespace)
            .to_owned(),
        query.get("name").unwrap_or("").to_owned(),
    )
}

/// `GET /ui/subject?ns=&name=`: a name's settings and versions, paged.
pub(super) async fn subject(State(state): State<AppState>, RawQuery(raw): RawQuery) -> Response {
    let query = Query::parse(raw.as_deref());
    let (namespace, name) = named(&query, state.namespace());
    let number = page_of(&query);
    let title = shown(state.namespace(), &namespace, &name);
    let (ns, nm) = (namespace.clone(), name.clone());
    let view = match state
        .blocking(move |registry| name_view(registry, &ns, &nm, number))
        .await
    {
        Ok(view) => view,
        Err(err) => return error_page(&title, "/ui/", &err),
    };
    let mut page = Page::new(&title, "/ui/");
    page.raw("<dl class=\"facts\"><dt>Namespace</dt><dd>")
        .text(&namespace)
        .raw("</dd><dt>URN name</dt><dd><code>")
        .text(&name)
        .raw("</code></dd><dt>Versions</dt><dd>")
        .num(view.count)
        .raw("</dd><dt>Compatibility in effect</dt><dd>")
        .text(&mode_label(view.compatibility))
        .raw(" <span class=\"note\">(");
    match (view.own_compatibility, view.default_compatibility) {
        (Some(_), _) => page.raw("set on this name"),
        (None, Some(_)) => page.raw("the registry's default, set"),
        (None, None) => page.raw("the registry's default, as Confluent's"),
    };
    page.raw(")</span></dd><dt>Mode</dt><dd>")
        .text(view.mode.as_str())
        .raw("</dd>");
    if let Some(group) = &view.group {
        page.raw("<dt>Compatibility group</dt><dd>")
            .text(group)
            .raw("</dd>");
    }
    if let Some(policy) = &view.policy {
        page.raw("<dt>Compatibility policy</dt><dd>")
            .text(policy)
            .raw("</dd>");
    }
    page.raw("</dl>\n");
    if namespace == state.namespace() {
        page.raw("<p>")
            .link(
                &url("/ui/check", &[("subject", &title)]),
                "Would a new version break anyone?",
            )
            .raw("</p>\n");
    }
    // Any two versions: numbers, not a list of every version.
    let latest = view.versions.first().map_or(1, |row| row.urn.version());
    page.raw("<h2 id=\"compare\">Compare two versions</h2>")
        .raw("<form class=\"inline\" method=\"get\" action=\"/ui/diff\" aria-labelledby=\"compare\">")
        .raw("<input type=\"hidden\" name=\"ns\" value=\"")
        .attr(&namespace)
        .raw("\"><input type=\"hidden\" name=\"name\" value=\"")
        .attr(&name)
        .raw("\"><div><label for=\"from\">From version</label><input id=\"from\" name=\"from\" type=\"number\" min=\"1\" required value=\"")
        .num(latest.saturating_sub(1).max(1))
        .raw("\"></div><div><label for=\"to\">To version</label><input id=\"to\" name=\"to\" type=\"number\" min=\"1\" required value=\"")
        .num(latest)
        .raw("\"></div><div><button type=\"submit\">Show the changes</button></div></form>\n");
    page.raw("<h2 id=\"versions\">Versions, newest first</h2>\n<table aria-labelledby=\"versions\"><thead><tr><th scope=\"col\">Version</th><th scope=\"col\">Id</th><th scope=\"col\">Language</th><th scope=\"col\">State</th><th scope=\"col\">Changes</th></tr></thead><tbody>\n");
    for row in &view.versions {
        let version = row.urn.version();
        page.raw("<tr><th scope=\"row\">")
            .link(&version_url(&row.urn), &format!("v{version}"))
            .raw("</th><td>");
        if let Some(id) = row.id {
            page.num(id);
        }
        page.raw("</td><td>")
            .text(language_label(row.language))
            .raw("</td><td>")
            .raw(if row.deleted { "soft-deleted" } else { "live" })
            .raw("</td><td>");
        if version > 1 {
            page.link(
                &diff_url(&namespace, &name, version - 1, version),
                &format!("v{} to v{version}", version - 1),
            );
        }
        page.raw("</td></tr>\n");
    }
    page.raw("</tbody></table>\n");
    let more = number.saturating_mul(PAGE) < view.count;
    pager(
        &mut page,
        "/ui/subject",
        &[("ns", &namespace), ("name", &name)],
        number,
        more,
    );
    page.finish()
}

// -------------------------------------------------------------- version

/// What a version's page shows.
struct VersionView {
    schema: Schema,
    id: Option<SchemaId>,
    deleted: bool,
    registered: String,
    canonical: Result<String, String>,
    referrers: Vec<Urn>,
    latest: u32,
}

/// A schema's canonical form, as the registry compares registrations:
/// JSON Schema with its keys sorted, Avro and protobuf normalized as
/// Confluent's `normalize=true` normalizes them.
fn canonical_form(registry: &Registry, schema: &Schema) -> Result<String, String> {
    match schema.language() {
        Language::JsonSchema => canonical(&String::from_utf8_lossy(schema.bytes()), true),
        #[cfg(feature = "avro")]
        Language::Avro => dataschema_core::avsc::normalize(schema, registry)
            .map(|normal| String::from_utf8_lossy(normal.bytes()).into_owned())
            .map_err(|err| err.chain().to_string()),
        #[cfg(feature = "proto-text")]
        Language::Protobuf => dataschema_core::proto::normalize(schema, registry)
            .and_then(|normal| dataschema_core::proto::text(&normal, registry))
            .map_err(|err| err.chain().to_string()),
        #[allow(unreachable_patterns)]
        _ => {
            let _ = registry;
            Err("this build does not read this language's canonical form".to_owned())
        }
    }
}

fn version_view(registry: &Registry, urn: &Urn, namespace: &str) -> Result<VersionView, Error> {
    let schema = registry.resolve(urn)?;
    let view = proto_view(registry, namespace, &schema);
    let registered = schema_string(&schema, view.as_ref()).into_owned();
    let canonical = canonical_form(registry, &schema);
    Ok(VersionView {
        id: registry.id_of(urn).ok(),
        deleted: registry
            .deleted_versions(urn.namespace(), urn.name())?
            .contains(&urn.version()),
        referrers: registry.referrers(urn)?,
        latest: registry
            .versions_in(urn.namespace(), urn.name())?
            .last()
            .copied()
            .unwrap_or(urn.version()),
        registered,
        canonical,
        schema,
    })
}

/// `GET /ui/version?ns=&name=&v=`: one version.
pub(super) async fn version(State(state): State<AppState>, RawQuery(raw): RawQuery) -> Response {
    let query = Query::parse(raw.as_deref());
    let (namespace, name) = named(&query, state.namespace());
    let title = format!(
        "{} v{}",
        shown(state.namespace(), &namespace, &name),
        clip(query.get("v").unwrap_or(""), 12)
    );
    let urn = query
        .get("v")
        .and_then(|v| v.parse::<u32>().ok())
        .ok_or_else(|| "the version is not a number".to_owned())
        .and_then(|v| Urn::new(&namespace, &name, v).map_err(|err| err.chain().to_string()));
    let urn = match urn {
        Ok(urn) => urn,
        Err(message) => return failed(&title, "/ui/", StatusCode::BAD_REQUEST, &message),
    };
    let server_namespace = state.namespace().to_owned();
    let held = urn.clone();
    let view = match state
        .blocking(move |registry| version_view(registry, &held, &server_namespace))
        .await
    {
        Ok(view) => view,
        Err(err) => return error_page(&title, "/ui/", &err),
    };
    let schema = &view.schema;
    let mut page = Page::new(&title, "/ui/");
    let version = urn.version();
    page.raw("<p>")
        .link(&subject_url(&namespace, &name), "All versions");
    if version > 1 {
        page.raw(" · ").link(
            &diff_url(&namespace, &name, version - 1, version),
            &format!("Changes from v{}", version - 1),
        );
    }
    if version < view.latest {
        page.raw(" · ").link(
            &diff_url(&namespace, &name, version, view.latest),
            &format!("Changes to v{} (latest)", view.latest),
        );
    }
    page.raw("</p>\n<dl class=\"facts\"><dt>URN</dt><dd><code>")
        .text(urn.as_ref())
        .raw("</code></dd><dt>Id</dt><dd>");
    match view.id {
        Some(id) => page.num(id),
        None => page.raw("none"),
    };
    page.raw("</dd><dt>Guid</dt><dd><code>")
        .text(&guid(schema))
        .raw("</code></dd><dt>Language</dt><dd>")
        .text(language_label(schema.language()))
        .raw(" (<code>")
        .text(schema_type(schema.language()))
        .raw("</code>)</dd>");
    if let Some(root) = schema.root() {
        page.raw("<dt>Root message</dt><dd><code>")
            .text(root)
            .raw("</code></dd>");
    }
    page.raw("<dt>Digest</dt><dd><code>")
        .text(schema.digest())
        .raw("</code></dd><dt>State</dt><dd>")
        .raw(if view.deleted {
            "soft-deleted (still resolvable by id and URN)"
        } else {
            "live"
        })
        .raw("</dd></dl>\n");
    page.raw("<h2>Schema as registered</h2>\n").schema(
        "Schema as registered",
        &view.registered,
        schema.language(),
    );
    page.raw("<h2>Canonical form</h2>\n");
    match &view.canonical {
        Ok(text) if *text == view.registered => {
            page.para("The same as registered.");
        }
        Ok(text) => {
            page.schema("Canonical form", text, schema.language());
        }
        Err(message) => {
            page.raw("<p class=\"note\">Not available: ")
                .text(message)
                .raw("</p>\n");
        }
    }
    page.raw("<h2 id=\"references\">References</h2>\n");
    if schema.references().is_empty() {
        page.para("None.");
    } else {
        page.raw("<ul aria-labelledby=\"references\">");
        for reference in schema.references() {
            page.raw("<li><code>")
                .text(reference.name())
                .raw("</code>: ")
                .link(&version_url(reference.urn()), reference.urn().as_ref())
                .raw("</li>");
        }
        page.raw("</ul>\n");
    }
    page.raw("<h2 id=\"referrers\">Referred to by</h2>\n");
    if view.referrers.is_empty() {
        page.para("No version refers to this one.");
    } else {
        page.raw("<ul aria-labelledby=\"referrers\">");
        for referrer in &view.referrers {
            page.raw("<li>")
                .link(&version_url(referrer), referrer.as_ref())
                .raw("</li>");
        }
        page.raw("</ul>\n");
    }
    page.raw("<h2>Metadata</h2>\n");
    match schema.metadata() {
        Some(metadata) if !metadata.is_empty() => {
            let json = serde_json::to_string_pretty(&metadata.to_json()).unwrap_or_default();
            page.code("Metadata", &json);
        }
        _ => {
            page.para("None.");
        }
    }
    page.raw("<h2>Rules</h2>\n");
    match schema.rule_set() {
        Some(rules) if !rules.is_empty() => {
            let json = serde_json::to_string_pretty(&rules.to_json()).unwrap_or_default();
            page.code("Rule set", &json);
        }
        _ => {
            page.para("None.");
        }
    }
    page.finish()
}

// ----------------------------------------------------------------- diff

/// The mode a diff between two versions is read under: the name's mode
/// against one prior version (a transitive mode's pairwise part).
fn pairwise(mode: Compatibility) -> Compatibility {
    match mode {
        Compatibility::BackwardTransitive => Compatibility::Backward,
        Compatibility::ForwardTransitive => Compatibility::Forward,
        Compatibility::FullTransitive => Compatibility::Full,
        other => other,
    }
}

/// The report of `to` against `from` under the name's mode (pairwise),
/// the mode in effect, and the mode the changes were listed under
/// (`NONE` checks nothing: its changes are listed as `BACKWARD` finds
/// them, each safe).
fn diff_report(
    registry: &Registry,
    from: &Urn,
    to: &Urn,
) -> Result<(CompatReport, Compatibility), Error> {
    let old = registry.resolve(from)?;
    let new = registry.resolve(to)?;
    let mode = registry.config().compatibility_in_effect(to.name())?;
    let listed = match pairwise(mode) {
        Compatibility::None => Compatibility::Backward,
        other => other,
    };
    let report = registry.check_compatibility(listed, &new, &[old])?;
    Ok((report, mode))
}

/// `GET /ui/diff?ns=&name=&from=&to=`: every change between two
/// versions, each marked breaking or safe under the name's mode.
pub(super) async fn diff(State(state): State<AppState>, RawQuery(raw): RawQuery) -> Response {
    let query = Query::parse(raw.as_deref());
    let (namespace, name) = named(&query, state.namespace());
    let shown_name = shown(state.namespace(), &namespace, &name);
    let number = |key: &str| query.get(key).and_then(|v| v.parse::<u32>().ok());
    let (from, to) = match (number("from"), number("to")) {
        (Some(a), Some(b)) => (a.min(b), a.max(b)),
        _ => {
            return failed(
                &format!("Changes of {shown_name}"),
                "/ui/",
                StatusCode::BAD_REQUEST,
                "Give two version numbers, from and to.",
            )
        }
    };
    let title = format!("{shown_name}: v{from} to v{to}");
    let urns =
        Urn::new(&namespace, &name, from).and_then(|a| Ok((a, Urn::new(&namespace, &name, to)?)));
    let (old, new) = match urns {
        Ok(urns) => urns,
        Err(err) => return error_page(&title, "/ui/", &err),
    };
    let (a, b) = (old.clone(), new.clone());
    let outcome = state
        .blocking(move |registry| diff_report(registry, &a, &b))
        .await;
    let (report, mode) = match outcome {
        Ok(outcome) => outcome,
        Err(err) => return error_page(&title, "/ui/", &err),
    };
    let mut page = Page::new(&title, "/ui/");
    page.raw("<p>")
        .link(&subject_url(&namespace, &name), "All versions")
        .raw(" · ")
        .link(&version_url(&old), &format!("v{from}"))
        .raw(" · ")
        .link(&version_url(&new), &format!("v{to}"))
        .raw("</p>\n<p>Compatibility in effect: <strong>")
        .text(&mode_label(mode))
        .raw("</strong>. ");
    if mode == Compatibility::None {
        page.raw("NONE checks nothing: every change below is safe under it (listed as BACKWARD finds them).</p>\n");
    } else if mode != pairwise(mode) {
        page.raw("Read pairwise here, as ")
            .text(&mode_label(pairwise(mode)))
            .raw(": a registration also checks every older version.</p>\n");
    } else {
        page.raw("</p>\n");
    }
    if from == to {
        page.para("The same version: no change.");
        return page.finish();
    }
    changes_table(&mut page, &report, mode == Compatibility::None);
    page.raw("<h2>As the command line prints it</h2>\n")
        .code("Report as text", &report.to_string());
    page.finish()
}

/// The changes of every version of `report`, each marked (`none`: the
/// mode checks nothing, every change is safe).
fn changes_table(page: &mut Page, report: &CompatReport, none: bool) {
    for version in report.versions() {
        let directions: Vec<&str> = version.directions().iter().map(|d| d.as_str()).collect();
        let passed = none || version.passed();
        page.raw("<h2>Against v")
            .num(version.version())
            .raw(": ")
            .raw(if passed { "passes" } else { "breaks" })
            .raw(" <span class=\"note\">(")
            .text(&directions.join(" and "))
            .raw(")</span></h2>\n");
        if version.changes().is_empty() {
            page.para("No change.");
            continue;
        }
        page.raw("<table><thead><tr><th scope=\"col\">Mark</th><th scope=\"col\">Change</th><th scope=\"col\">Direction</th><th scope=\"col\">Path</th></tr></thead><tbody>\n");
        for change in version.changes() {
            change_row(page, change, none);
        }
        page.raw("</tbody></table>\n");
    }
}

fn change_row(page: &mut Page, change: &VersionChange, none: bool) {
    let breaking = !none && change.is_breaking();
    page.raw("<tr><td>")
        .raw(if breaking {
            "<span class=\"mark breaking\">breaking</span>"
        } else if change.is_forgiven() && !none {
            "<span class=\"mark safe\">safe</span> <span class=\"note\">(forgiven by the policy)</span>"
        } else {
            "<span class=\"mark safe\">safe</span>"
        })
        .raw("</td><td><code>")
        .text(change.kind().name())
        .raw("</code></td><td>")
        .text(change.direction().as_str())
        .raw("</td><td><code>")
        .text(change.path())
        .raw("</code>");
    if let Some(label) = change.label() {
        page.raw(" <span class=\"note\">(")
            .text(label)
            .raw(")</span>");
    }
    page.raw("</td></tr>\n");
}

/// The report of a check form's candidate: the verdict, each version's
/// changes marked, and the text the command line prints.
pub(super) fn report_section(
    page: &mut Page,
    state: &AppState,
    name: &str,
    report: &CompatReport,
    none: bool,
) {
    page.raw("<section aria-labelledby=\"verdict\"><h2 id=\"verdict\">")
        .raw(if report.is_compatible() {
            "Compatible: this breaks no one"
        } else {
            "Incompatible: this would break readers"
        })
        .raw("</h2>\n<p>Checked under <strong>")
        .text(&mode_label(report.level()))
        .raw("</strong>");
    if report.versions().is_empty() {
        page.raw(": no prior version checked");
    }
    page.raw(" for ")
        .link(
            &subject_url(state.namespace(), name),
            &shown(state.namespace(), state.namespace(), name),
        )
        .raw(".</p>\n");
    changes_table(page, report, none);
    page.raw("<h3>As the command line prints it</h3>\n")
        .code("Report as text", &report.to_string())
        .raw("</section>\n");
}

// --------------------------------------------------------------- lookup

/// What a lookup's text is read as.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Guess,
    Id,
    Urn,
    Guid,
    Frame,
}

impl Kind {
    const ALL: [(Kind, &'static str, &'static str); 5] = [
        (Kind::Guess, "", "Guess from the text"),
        (Kind::Id, "id", "Schema id"),
        (Kind::Urn, "urn", "URN"),
        (Kind::Guid, "guid", "Guid"),
        (Kind::Frame, "frame", "Frame's first bytes (hex)"),
    ];

    fn of(value: Option<&str>) -> Kind {
        Kind::ALL
            .iter()
            .find(|(_, v, _)| Some(*v) == value)
            .map_or(Kind::Guess, |(kind, _, _)| *kind)
    }

    /// The kind `text` reads as: a URN, a guid (8-4-4-4-12 hex), a frame
    /// (hex starting with the magic byte `00`, at least its 5 bytes), else
    /// an id.
    fn guess(text: &str) -> Kind {
        let hex = hex_digits(text);
        if text.starts_with("urn:") {
            Kind::Urn
        } else if is_guid(text) {
            Kind::Guid
        } else if hex
            .as_ref()
            .is_some_and(|h| h.len() >= 10 && h.starts_with("00"))
        {
            Kind::Frame
        } else {
            Kind::Id
        }
    }
}

fn is_guid(text: &str) -> bool {
    let parts: Vec<&str> = text.split('-').collect();
    parts.len() == 5
        && parts
            .iter()
            .zip([8, 4, 4, 4, 12])
            .all(|(part, len)| part.len() == len && part.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// The hex digits of `text` (spaces, `:` and a `0x` prefix dropped), if
/// it is only that.
fn hex_digits(text: &str) -> Option<String> {
    let text = text.trim();
    let text = text.strip_prefix("0x").unwrap_or(text);
    let digits: String = text
        .chars()
        .filter(|c| !c.is_whitespace() && *c != ':')
        .collect();
    (!digits.is_empty()
        && digits.len().is_multiple_of(2)
        && digits.bytes().all(|b| b.is_ascii_hexdigit()))
    .then(|| digits.to_ascii_lowercase())
}

/// A frame's header read from its first bytes: Confluent's wire format
/// (magic byte 0, the id in 4 bytes big-endian) and, when what follows
/// reads as them, protobuf's message indexes (a zig-zag varint count,
/// then each index; a lone 0 is `[0]`).
#[derive(Debug)]
struct FrameHeader {
    id: SchemaId,
    indexes: Option<Vec<u64>>,
}

fn frame_header(hex: &str) -> Result<FrameHeader, String> {
    let bytes: Vec<u8> = hex
        .as_bytes()
        .chunks(2)
        .map(|pair| {
            std::str::from_utf8(pair)
                .ok()
                .filter(|pair| pair.len() == 2)
                .and_then(|pair| u8::from_str_radix(pair, 16).ok())
                .ok_or_else(|| "not hex digits (two per byte)".to_owned())
        })
        .collect::<Result<_, _>>()?;
    if bytes.len() < 5 {
        return Err(format!(
            "a frame starts with 5 bytes (the magic byte 0 and a 4-byte id); {} given",
            bytes.len()
        ));
    }
    if bytes[0] != 0 {
        return Err(format!(
            "the first byte is {:#04x}, not the magic byte 0: not a Confluent frame",
            bytes[0]
        ));
    }
    let id = u32::from_be_bytes([bytes[1], bytes[2], bytes[3], bytes[4]]);
    let mut rest = &bytes[5..];
    let mut varint = || -> Option<i64> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let (&byte, tail) = rest.split_first()?;
            rest = tail;
            value |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Some(((value >> 1) as i64) ^ -((value & 1) as i64));
            }
        }
        None
    };
    let indexes = match varint() {
        Some(0) => Some(vec![0]),
        Some(count) if (1..=64).contains(&count) => (0..count)
            .map(|_| varint().and_then(|i| u64::try_from(i).ok()))
            .collect(),
        _ => None,
    };
    Ok(FrameHeader { id, indexes })
}

/// What a lookup found: each URN with its id.
struct Found {
    ids: Vec<(SchemaId, Vec<Urn>)>,
    language: Option<Language>,
}

fn urns_of_ids(registry: &Registry, ids: Vec<SchemaId>) -> Result<Found, Error> {
    let mut found = Found {
        ids: Vec::new(),
        language: None,
    };
    for id in ids {
        let urns = registry.urns_of_id(id)?;
        if found.language.is_none() {
            found.language = registry.schema_by_id(id).ok().map(|s| s.language());
        }
        found.ids.push((id, urns));
    }
    Ok(found)
}

/// `GET /ui/lookup?q=&kind=`: an id, a URN, a guid or a frame's first
/// bytes.
pub(super) async fn lookup(State(state): State<AppState>, RawQuery(raw): RawQuery) -> Response {
    const TITLE: &str = "Look up";
    let query = Query::parse(raw.as_deref());
    let text = query.get("q").unwrap_or("").trim().to_owned();
    let chosen = Kind::of(query.get("kind"));
    let mut page = Page::new(TITLE, "/ui/lookup");
    page.raw("<form class=\"inline\" method=\"get\" action=\"/ui/lookup\" role=\"search\">")
        .raw("<div><label for=\"q\">Id, URN, guid or frame bytes</label><input id=\"q\" name=\"q\" size=\"60\" required value=\"")
        .attr(&text)
        .raw("\" aria-describedby=\"q-help\"></div><div><label for=\"kind\">Read it as</label><select id=\"kind\" name=\"kind\">");
    for (kind, value, label) in Kind::ALL {
        page.raw("<option value=\"").attr(value).raw("\"");
        if kind == chosen {
            page.raw(" selected");
        }
        page.raw(">").text(label).raw("</option>");
    }
    page.raw("</select></div><div><button type=\"submit\">Look up</button></div></form>\n")
        .raw("<p id=\"q-help\" class=\"note\">For example <code>7</code>, <code>urn:acme:schema:orders:2</code>, a guid such as <code>0f8e4c1a-…</code>, or a message's first bytes in hex such as <code>00 00 00 00 07</code>.</p>\n");
    if text.is_empty() {
        return page.finish();
    }
    if text.len() > 1024 {
        page.status(StatusCode::BAD_REQUEST)
            .error("That is longer than anything this page looks up (1024 characters).");
        return page.finish();
    }
    let kind = match chosen {
        Kind::Guess => Kind::guess(&text),
        kind => kind,
    };
    page.raw("<h2>Read as ")
        .text(
            Kind::ALL
                .iter()
                .find(|(k, _, _)| *k == kind)
                .map_or("", |(_, _, label)| label),
        )
        .raw("</h2>\n");
    let mut frame_indexes = None;
    let outcome: Result<Found, String> = match kind {
        Kind::Urn => match text.parse::<Urn>() {
            Err(err) => Err(err.to_string()),
            Ok(urn) => {
                let wanted = urn.clone();
                state
                    .blocking(move |registry| {
                        registry.resolve(&wanted)?;
                        let id = registry.id_of(&wanted).ok();
                        Ok(Found {
                            ids: vec![(id.unwrap_or(0), vec![wanted])],
                            language: None,
                        })
                    })
                    .await
                    .map_err(|err| err.to_string())
            }
        },
        Kind::Guid => {
            let guid = text.to_ascii_lowercase();
            state
                .blocking(move |registry| {
                    let ids = registry.ids_of_guid(&guid)?;
                    urns_of_ids(registry, ids)
                })
                .await
                .map_err(|err| err.to_string())
        }
        Kind::Frame => match hex_digits(&text)
            .ok_or_else(|| "not hex digits (two per byte)".to_owned())
            .and_then(|hex| frame_header(&hex))
        {
            Err(message) => Err(message),
            Ok(header) => {
                frame_indexes = header.indexes;
                page.raw("<p>Magic byte 0, schema id <strong>")
                    .num(header.id)
                    .raw("</strong>.</p>\n");
                state
                    .blocking(move |registry| urns_of_ids(registry, vec![header.id]))
                    .await
                    .map_err(|err| err.to_string())
            }
        },
        Kind::Id | Kind::Guess => match text.parse::<SchemaId>() {
            Err(_) => Err(format!(
                "{:?} is not an id (a number), a URN, a guid or hex bytes",
                clip(&text, 60)
            )),
            Ok(id) => state
                .blocking(move |registry| urns_of_ids(registry, vec![id]))
                .await
                .map_err(|err| err.to_string()),
        },
    };
    let found = match outcome {
        Ok(found) => found,
        Err(message) => {
            page.status(StatusCode::NOT_FOUND).error(&message);
            return page.finish();
        }
    };
    if found.language == Some(Language::Protobuf) {
        if let Some(indexes) = &frame_indexes {
            let list: Vec<String> = indexes.iter().map(u64::to_string).collect();
            page.raw("<p>Protobuf message indexes: <code>[")
                .text(&list.join(", "))
                .raw("]</code>.</p>\n");
        }
    }
    if found.ids.iter().all(|(_, urns)| urns.is_empty()) {
        page.status(StatusCode::NOT_FOUND)
            .error("Nothing held matches.");
        return page.finish();
    }
    page.raw("<table><thead><tr><th scope=\"col\">Id</th><th scope=\"col\">Held under</th></tr></thead><tbody>\n");
    for (id, urns) in &found.ids {
        for urn in urns {
            page.raw("<tr><td>");
            if *id > 0 {
                page.num(*id);
            }
            page.raw("</td><td>")
                .link(&version_url(urn), urn.as_ref())
                .raw("</td></tr>\n");
        }
    }
    page.raw("</tbody></table>\n");
    page.finish()
}

// --------------------------------------------------------------- server

/// What the store holds, counted from its one list.
struct Held {
    urns: usize,
    names: usize,
    namespaces: usize,
}

/// `GET /ui/server`: readiness and uptime, the store and what it holds,
/// the requests answered by route and status and the refusals, the cache
/// and the limits.
pub(super) async fn server(State(state): State<AppState>) -> Response {
    const TITLE: &str = "Server";
    let ready = state.ready().await;
    let held = state
        .blocking(|registry| {
            let urns = registry.list()?;
            let mut names = 0;
            let mut namespaces = 0;
            let mut last: Option<&Urn> = None;
            for urn in &urns {
                match last {
                    Some(prev)
                        if prev.namespace() == urn.namespace() && prev.name() == urn.name() => {}
                    Some(prev) if prev.namespace() == urn.namespace() => names += 1,
                    _ => {
                        names += 1;
                        namespaces += 1;
                    }
                }
                last = Some(urn);
            }
            Ok(Held {
                urns: urns.len(),
                names,
                namespaces,
            })
        })
        .await;
    let config = state.config();
    let (urn_entries, id_entries, cached_bytes) = state.cache_size();
    let mut page = Page::new(TITLE, "/ui/server");
    page.raw(
        "<h2>Health</h2>\n<dl class=\"facts\"><dt>Process</dt><dd>answering</dd><dt>Store</dt><dd>",
    );
    match &ready {
        Ok(()) => page.raw("<span class=\"mark safe\">ready</span>"),
        Err(reason) => page
            .raw("<span class=\"mark breaking\">not ready</span> ")
            .text(reason),
    };
    page.raw("</dd><dt>Up for</dt><dd>")
        .text(&duration_label(state.uptime()))
        .raw("</dd></dl>\n<h2>Store</h2>\n<dl class=\"facts\">");
    if !config.store_label().is_empty() {
        page.raw("<dt>Store</dt><dd><code>")
            .text(config.store_label())
            .raw("</code></dd>");
    }
    page.raw("<dt>Namespace of subjects</dt><dd>")
        .text(state.namespace())
        .raw("</dd>");
    match &held {
        Ok(held) => {
            page.raw("<dt>Versions held</dt><dd>")
                .num(held.urns)
                .raw("</dd><dt>Names</dt><dd>")
                .num(held.names)
                .raw("</dd><dt>Namespaces</dt><dd>")
                .num(held.namespaces)
                .raw("</dd>");
        }
        Err(err) => {
            page.raw("<dt>Versions held</dt><dd>")
                .text(&crate::server::wire::server_failure(err))
                .raw("</dd>");
        }
    }
    page.raw("</dl>\n");
    requests_section(&mut page, state.metrics());
    page.raw("<h2>Cache</h2>\n<dl class=\"facts\"><dt>Cached URN answers</dt><dd>")
        .num(urn_entries)
        .raw("</dd><dt>Cached id answers</dt><dd>")
        .num(id_entries)
        .raw("</dd><dt>Cached schema bytes</dt><dd>")
        .num(cached_bytes)
        .raw(" of ")
        .num(config.cache_bytes())
        .raw("</dd><dt>Prometheus metrics</dt><dd>")
        .raw(if config.metrics() {
            "exported (Prometheus text at the --metrics address)"
        } else {
            "not exported (dataschema serve --metrics ADDR exports them)"
        })
        .raw("</dd></dl>\n<h2>Limits</h2>\n<dl class=\"facts\"><dt>Requests at once</dt><dd>")
        .num(config.concurrency_limit())
        .raw("</dd><dt>Compiling requests at once</dt><dd>")
        .num(config.check_concurrency())
        .raw("</dd><dt>Largest schema</dt><dd>")
        .num(config.max_schema_bytes())
        .raw(" bytes</dd><dt>Largest request body</dt><dd>")
        .num(config.max_body_bytes())
        .raw(" bytes</dd><dt>Request timeout</dt><dd>")
        .num(config.request_timeout().as_secs_f64())
        .raw(" s</dd></dl>\n");
    if ready.is_err() {
        page.status(StatusCode::SERVICE_UNAVAILABLE);
    }
    page.finish()
}

/// A duration as a person reads it: `3 d 4 h`, `2 h 5 min`, `4 min 7 s`,
/// `12 s`.
fn duration_label(took: std::time::Duration) -> String {
    let secs = took.as_secs();
    let (days, hours, minutes, seconds) =
        (secs / 86_400, secs / 3_600 % 24, secs / 60 % 60, secs % 60);
    if days > 0 {
        format!("{days} d {hours} h")
    } else if hours > 0 {
        format!("{hours} h {minutes} min")
    } else if minutes > 0 {
        format!("{minutes} min {seconds} s")
    } else {
        format!("{seconds} s")
    }
}

/// A status with its reason phrase: `429 Too Many Requests`.
fn status_label(status: u16) -> String {
    let reason = StatusCode::from_u16(status)
        .ok()
        .and_then(|status| status.canonical_reason());
    match reason {
        Some(reason) => format!("{status} {reason}"),
        None => status.to_string(),
    }
}

/// The requests answered since the server started, by route and status,
/// and the refusals (counted in the process whether or not the metrics
/// are exported: `server::metrics`). A page's own request is counted once
/// it is answered, so it is not in its own table.
fn requests_section(page: &mut Page, metrics: &crate::server::metrics::Metrics) {
    let routes = metrics.requests();
    let mut refusals: std::collections::BTreeMap<u16, u64> = std::collections::BTreeMap::new();
    let total: u64 = routes
        .iter()
        .flat_map(|route| route.statuses.iter())
        .map(|(_, count)| count)
        .sum();
    page.raw("<h2>Requests</h2>\n<p id=\"requests-note\">")
        .num(total)
        .raw(if total == 1 {
            " request answered"
        } else {
            " requests answered"
        })
        .raw(" since the server started, by route template (this page's own request is counted once it is answered).</p>\n");
    if !routes.is_empty() {
        page.raw("<table aria-describedby=\"requests-note\"><thead><tr><th scope=\"col\">Route</th><th scope=\"col\">Answered</th><th scope=\"col\">Refused (4xx)</th><th scope=\"col\">Failed (5xx)</th><th scope=\"col\">By status</th></tr></thead><tbody>\n");
        for route in &routes {
            let (mut answered, mut refused, mut failed) = (0u64, 0u64, 0u64);
            for &(status, count) in &route.statuses {
                answered += count;
                match status {
                    400..=499 => {
                        refused += count;
                        *refusals.entry(status).or_default() += count;
                    }
                    500..=599 => {
                        failed += count;
                        *refusals.entry(status).or_default() += count;
                    }
                    _ => {}
                }
            }
            let by_status: Vec<String> = route
                .statuses
                .iter()
                .map(|(status, count)| format!("{status}: {count}"))
                .collect();
            page.raw("<tr><th scope=\"row\"><code>")
                .text(&route.route)
                .raw("</code></th><td>")
                .num(answered)
                .raw("</td><td>")
                .num(refused)
                .raw("</td><td>")
                .num(failed)
                .raw("</td><td>")
                .text(&by_status.join(", "))
                .raw("</td></tr>\n");
        }
        page.raw("</tbody></table>\n");
    }
    page.raw("<h2>Refusals and failures</h2>\n<dl class=\"facts\" id=\"refusals\">");
    for (status, count) in &refusals {
        page.raw("<dt>")
            .text(&status_label(*status))
            .raw("</dt><dd>")
            .num(*count)
            .raw("</dd>");
    }
    page.raw("<dt>Compile budget spent (429, code 42901)</dt><dd>")
        .num(metrics.compile_budget_refusals.get())
        .raw("</dd><dt>Request bodies too slow (408, code 40801)</dt><dd>")
        .num(metrics.body_timeouts.get())
        .raw("</dd><dt>Requests past the request timeout (503, code 50002)</dt><dd>")
        .num(metrics.handling_timeouts.get())
        .raw("</dd></dl>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_read_their_id_and_indexes() {
        let header = frame_header("0000000007").unwrap();
        assert_eq!((header.id, header.indexes), (7, None));
        let header = frame_header("000000010200").unwrap();
        assert_eq!((header.id, header.indexes), (258, Some(vec![0])));
        // Two indexes, 1 and 0: count 2 (zig-zag 4), 1 (2), 0 (0).
        let header = frame_header("00000000070402000a").unwrap();
        assert_eq!(header.indexes, Some(vec![1, 0]));
        assert!(frame_header("01000000070").is_err());
        assert!(frame_header("0000").is_err());
        assert!(frame_header("0100000007")
            .unwrap_err()
            .contains("magic byte"));
    }

    #[test]
    fn durations_read_as_people_read_them() {
        use std::time::Duration;
        assert_eq!(duration_label(Duration::from_secs(12)), "12 s");
        assert_eq!(duration_label(Duration::from_secs(247)), "4 min 7 s");
        assert_eq!(duration_label(Duration::from_secs(7_500)), "2 h 5 min");
        assert_eq!(duration_label(Duration::from_secs(273_600)), "3 d 4 h");
        assert_eq!(status_label(429), "429 Too Many Requests");
    }

    #[test]
    fn lookups_guess_what_they_are_given() {
        assert!(Kind::guess("urn:acme:schema:a:1") == Kind::Urn);
        assert!(Kind::guess("0f8e4c1a-1234-5678-9abc-def012345678") == Kind::Guid);
        assert!(Kind::guess("00 00 00 00 07") == Kind::Frame);
        assert!(Kind::guess("42") == Kind::Id);
    }
}
