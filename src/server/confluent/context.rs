//! Confluent's context URL prefix: a client whose registry URL is
//! `http://host/contexts/.staging` sends `/contexts/.staging/subjects/orders-value/versions`,
//! which is `/subjects/:.staging:orders-value/versions`. The request is
//! rewritten before routing, as Confluent's `ContextFilter`
//! (`rest/filters/ContextFilter.java`, v8.2.0) rewrites it:
//!
//! * the path segment after `subjects` (and after a leading `config` or
//!   `mode`) is a subject: qualified with the context unless it names one
//!   already (`:.other:s`, or the wildcard `:*:`); a bare `config` or
//!   `mode` becomes the context's own (`/config/:.staging:`);
//! * `/schemas/ids/...`: the `subject` parameter qualified the same way
//!   (absent, it is the context itself);
//! * `/schemas` and `/subjects`: every `subjectPrefix` qualified (absent,
//!   the context itself), so listings keep to the context;
//! * the default context (`.`) qualifies nothing.
//!
//! A context naming a colon is `400`, as Confluent's
//! `QualifiedSubject.normalizeContext` refuses it.

use axum::extract::Request;
use axum::http::uri::PathAndQuery;
use axum::http::Uri;
use axum::response::{IntoResponse, Response};
use axum::routing::any;
use axum::Router;
use tower_service::Service;

use super::error::bad_request;

/// `app` with `/contexts/{context}/...` taken: each such request
/// rewritten ([`rewrite`]) and handed to `app` itself, so it meets the
/// same routes, credential checks and limits as the path it stands for.
pub(crate) fn mount(app: Router) -> Router {
    let inner = app.clone();
    app.route(
        "/contexts/{*rest}",
        any(move |request: Request| forward(inner.clone(), request)),
    )
}

async fn forward(mut app: Router, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let target = match rewrite(parts.uri.path(), parts.uri.query()) {
        Ok(target) => target,
        Err(why) => return bad_request(why).into_response(),
    };
    let mut uri = parts.uri.into_parts();
    uri.path_and_query = match target.parse::<PathAndQuery>() {
        Ok(path) => Some(path),
        Err(_) => return bad_request("the context's path is not a valid URI").into_response(),
    };
    let Ok(uri) = Uri::from_parts(uri) else {
        return bad_request("the context's path is not a valid URI").into_response();
    };
    // A new request: the method, headers and body, none of this route's
    // extensions (its matched path and parameters are not the target's).
    let mut forwarded = Request::new(body);
    *forwarded.method_mut() = parts.method;
    *forwarded.uri_mut() = uri;
    *forwarded.version_mut() = parts.version;
    *forwarded.headers_mut() = parts.headers;
    // A router is always ready.
    match app.call(forwarded).await {
        Ok(response) => response,
        Err(never) => match never {},
    }
}

/// The path (with its query) a `/contexts/{context}/...` request stands
/// for, or why it is refused. `path` is the request's raw path (its
/// percent-encoding kept), `query` its raw query.
pub(crate) fn rewrite(path: &str, query: Option<&str>) -> Result<String, String> {
    let mut segments = path.trim_start_matches('/').split('/');
    if segments.next() != Some("contexts") {
        return Err("not a context path".into());
    }
    let context = segments.next().unwrap_or_default();
    let qualifier = qualifier(&percent_decoded(context))?;
    let mut rest: Vec<&str> = segments.collect();
    // As Java's `split`: trailing empty segments dropped.
    while rest.last() == Some(&"") {
        rest.pop();
    }
    if rest.is_empty() {
        // The context itself (no route here answers it).
        return Ok(format!("/contexts/{qualifier}"));
    }

    let mut out: Vec<String> = Vec::with_capacity(rest.len() + 1);
    let mut subject_next = false;
    let mut config_or_mode = false;
    for (index, segment) in rest.iter().enumerate() {
        if subject_next {
            subject_next = false;
            if qualified(segment) {
                out.push((*segment).to_owned());
            } else {
                out.push(format!("{qualifier}{segment}"));
            }
            continue;
        }
        let root = index == 0 && (*segment == "config" || *segment == "mode");
        if *segment == "subjects" || *segment == "deks" || root {
            subject_next = true;
            config_or_mode |= root;
        }
        out.push((*segment).to_owned());
    }
    // `/contexts/.c/config` (no subject after it): the context's config.
    if config_or_mode && subject_next && !qualifier.is_empty() {
        out.push(qualifier.clone());
    }
    let path = format!("/{}", out.join("/"));

    let bare = path
        .trim_end_matches('/')
        .trim_start_matches('/')
        .to_owned();
    let pairs: Vec<(String, String)> = form_urlencoded::parse(query.unwrap_or("").as_bytes())
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    let pairs = if bare.starts_with("schemas/ids") {
        qualify_param(pairs, "subject", &qualifier)
    } else if bare == "schemas" || bare == "subjects" {
        qualify_param(pairs, "subjectPrefix", &qualifier)
    } else {
        pairs
    };
    if pairs.is_empty() {
        return Ok(path);
    }
    let mut query = form_urlencoded::Serializer::new(String::new());
    for (key, value) in &pairs {
        query.append_pair(key, value);
    }
    Ok(format!("{path}?{}", query.finish()))
}

/// `:{.context}:` of a context as written in the URL (a leading `.`
/// added, outer colons dropped); empty for the default context.
pub(crate) fn qualifier(context: &str) -> Result<String, String> {
    let mut name = context.strip_prefix(':').unwrap_or(context);
    name = name.strip_suffix(':').unwrap_or(name);
    if name.contains(':') {
        return Err(format!("Context name '{name}' cannot contain a colon"));
    }
    let name = if name.starts_with('.') {
        name.to_owned()
    } else {
        format!(".{name}")
    };
    Ok(if name == "." {
        String::new()
    } else {
        format!(":{name}:")
    })
}

/// Whether a subject (as written in a path or a parameter) names its
/// context already: `:.ctx:...`, or the wildcard `:*:`.
pub(crate) fn qualified(subject: &str) -> bool {
    let subject = percent_decoded(subject);
    subject.starts_with(":.") || subject.starts_with(":*:")
}

fn percent_decoded(text: &str) -> String {
    form_urlencoded::parse(format!("x={}", text.replace('+', "%2B")).as_bytes())
        .next()
        .map(|(_, value)| value.into_owned())
        .unwrap_or_default()
}

/// Every value of `name` qualified with `qualifier` unless it names a
/// context; absent, the qualifier alone.
fn qualify_param(
    mut pairs: Vec<(String, String)>,
    name: &str,
    qualifier: &str,
) -> Vec<(String, String)> {
    if qualifier.is_empty() {
        return pairs;
    }
    let mut found = false;
    for (key, value) in &mut pairs {
        if key == name {
            found = true;
            if !qualified(value) {
                *value = format!("{qualifier}{value}");
            }
        }
    }
    if !found {
        pairs.push((name.to_owned(), qualifier.to_owned()));
    }
    pairs
}

#[cfg(test)]
mod tests {
    use super::rewrite;

    #[test]
    fn paths_are_rewritten_as_confluents_context_filter_rewrites_them() {
        for (path, query, expected) in [
            (
                "/contexts/.staging/subjects/orders-value/versions",
                None,
                "/subjects/:.staging:orders-value/versions",
            ),
            (
                "/contexts/staging/subjects/orders-value/versions/1",
                None,
                "/subjects/:.staging:orders-value/versions/1",
            ),
            (
                "/contexts/.staging/subjects/:.other:s/versions",
                None,
                "/subjects/:.other:s/versions",
            ),
            (
                "/contexts/.staging/subjects/%3A.other%3As",
                None,
                "/subjects/%3A.other%3As",
            ),
            (
                "/contexts/.staging/subjects",
                None,
                "/subjects?subjectPrefix=%3A.staging%3A",
            ),
            (
                "/contexts/.staging/subjects",
                Some("subjectPrefix=ord&deleted=true"),
                "/subjects?subjectPrefix=%3A.staging%3Aord&deleted=true",
            ),
            (
                "/contexts/.staging/schemas/ids/7",
                None,
                "/schemas/ids/7?subject=%3A.staging%3A",
            ),
            (
                "/contexts/.staging/schemas/ids/7/versions",
                Some("subject=s"),
                "/schemas/ids/7/versions?subject=%3A.staging%3As",
            ),
            ("/contexts/.staging/config/s", None, "/config/:.staging:s"),
            ("/contexts/.staging/config", None, "/config/:.staging:"),
            ("/contexts/.staging/mode", None, "/mode/:.staging:"),
            (
                "/contexts/.staging/compatibility/subjects/s/versions/latest",
                None,
                "/compatibility/subjects/:.staging:s/versions/latest",
            ),
            (
                "/contexts/./subjects/s/versions",
                None,
                "/subjects/s/versions",
            ),
            ("/contexts/:.x:/subjects/s", None, "/subjects/:.x:s"),
        ] {
            assert_eq!(rewrite(path, query).unwrap(), expected, "{path}");
        }
    }

    #[test]
    fn a_context_with_a_colon_is_refused() {
        let err = rewrite("/contexts/.a:b/subjects/s", None).unwrap_err();
        assert!(err.contains("cannot contain a colon"), "{err}");
    }
}
