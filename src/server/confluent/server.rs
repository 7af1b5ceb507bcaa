//! What a Confluent client asks of the server itself: `GET /`, its
//! cluster id and version (`/v1/metadata/...`), its contexts.

use axum::extract::{RawQuery, State};
use serde_json::{json, Value};

use super::error::{from_error, Reply};
use super::subjects::{every_subject, Seen};
use crate::server::query::Query;
use crate::server::state::AppState;
use crate::server::wire::confluent::ok;

/// `GET /`: an empty object, as Confluent answers it.
pub(crate) async fn root() -> Reply {
    Ok(ok(&json!({})))
}

/// `GET /v1/metadata/id`: the registry's cluster id, the server's
/// namespace (there is no Kafka cluster behind it).
pub(crate) async fn id(State(state): State<AppState>) -> Reply {
    Ok(ok(&json!({
        "id": format!("dataschema-{}", state.namespace()),
        "scope": {
            "path": [],
            "clusters": {"schema-registry-cluster": state.namespace()},
        },
    })))
}

/// `GET /v1/metadata/version`: this server's version.
pub(crate) async fn version() -> Reply {
    Ok(ok(&json!({
        "version": env!("CARGO_PKG_VERSION"),
        "commitId": "",
    })))
}

/// `GET /contexts`: the default context `.` and every context a held
/// subject is qualified by (`:.staging:orders-value` is in `.staging`),
/// sorted; those starting with `contextPrefix`, then paged by `offset` and
/// `limit`, as Confluent's `ContextsResource.listContexts` (v8.2.0).
pub(crate) async fn contexts(State(state): State<AppState>, RawQuery(raw): RawQuery) -> Reply {
    let query = Query::parse(raw.as_deref());
    let namespace = state.namespace().to_owned();
    let mut contexts: Vec<String> = state
        .blocking(move |registry| {
            Ok(every_subject(registry, &namespace, Seen::All)?
                .keys()
                .map(|subject| crate::subject::context_of(subject).to_owned())
                .collect())
        })
        .await
        .map_err(from_error)?;
    contexts.push(".".to_owned());
    contexts.sort();
    contexts.dedup();
    if let Some(prefix) = query.get("contextPrefix").filter(|p| !p.is_empty()) {
        contexts.retain(|context| context.starts_with(prefix));
    }
    Ok(ok(&Value::from(query.page(contexts)?)))
}
