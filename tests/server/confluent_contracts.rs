//! References and data contracts through the Confluent API: references
//! resolved at register and followed by the guard, `referencedby`;
//! metadata and rule sets kept, inherited and merged with the config;
//! `confluent:version`; guids; `/subjects/{s}/metadata`; the config's
//! other fields; compatibility groups and the lenient policy.
#![cfg(feature = "server")]

use crate::common;
use crate::server;

use dataschema::{Guard, Outcome, Urn};
use serde_json::{json, Value};
use server::*;

fn post(running: &Running, path: &str, body: &Value) -> Reply {
    confluent("POST", &running.url(path), body)
}

fn put(running: &Running, path: &str, body: &Value) -> Reply {
    confluent("PUT", &running.url(path), body)
}

fn read(running: &Running, path: &str) -> Value {
    let reply = get(&running.url(path));
    assert_eq!(reply.status, 200, "{path}: {}", reply.text());
    reply.json()
}

fn file(name: &str) -> String {
    String::from_utf8(common::read(&format!("contracts/{name}"))).unwrap()
}

fn register(running: &Running, subject: &str, body: Value) -> Value {
    let reply = post(running, &format!("/subjects/{subject}/versions"), &body);
    assert_eq!(reply.status, 200, "{subject}: {}", reply.text());
    reply.json()
}

/// customer, order (referencing customer by its `$id`), invoice
/// (referencing order, and a fragment of customer, by relative names).
fn register_references(running: &Running) -> (u64, u64, u64) {
    let customer = register(
        running,
        "customer",
        json!({"schema": file("customer.json"), "schemaType": "JSON"}),
    );
    let order = register(
        running,
        "order",
        json!({"schema": file("order.json"), "schemaType": "JSON", "references": [
            {"name": "http://example.com/customer.schema.json", "subject": "customer", "version": 1}
        ]}),
    );
    let invoice = register(
        running,
        "invoice",
        json!({"schema": file("invoice.json"), "schemaType": "JSON", "references": [
            {"name": "order.json", "subject": "order", "version": -1},
            {"name": "customer.json", "subject": "customer", "version": 1}
        ]}),
    );
    let id = |v: &Value| v["id"].as_u64().unwrap();
    (id(&customer), id(&order), id(&invoice))
}

#[test]
fn references_resolve_at_register_and_the_guard_follows_them() {
    let running = start();
    let (customer, order, invoice) = register_references(&running);
    // Returned on every read of the version, with the version -1 resolved.
    let version = read(&running, "/subjects/invoice/versions/1");
    assert_eq!(
        version["references"],
        json!([
            {"name": "customer.json", "subject": "customer", "version": 1},
            {"name": "order.json", "subject": "order", "version": 1}
        ])
    );
    let by_id = read(&running, &format!("/schemas/ids/{order}"));
    assert_eq!(
        by_id["references"],
        json!([{"name": "http://example.com/customer.schema.json", "subject": "customer", "version": 1}])
    );
    // The registry holds them on the version, as URNs.
    let urn: Urn = "urn:acme:schema:invoice:1".parse().unwrap();
    let held = running.registry.resolve(&urn).unwrap();
    let names: Vec<(&str, String)> = held
        .references()
        .iter()
        .map(|r| (r.name(), r.urn().to_string()))
        .collect();
    assert_eq!(
        names,
        [
            ("customer.json", "urn:acme:schema:customer:1".to_owned()),
            ("order.json", "urn:acme:schema:order:1".to_owned())
        ]
    );
    // The guard follows them, transitively (invoice -> order -> customer).
    let guard = Guard::new(running.registry.clone());
    let good = br#"{"order": {"customer": {"name": "Ada", "id": 1}}, "billed": "Ada"}"#;
    assert!(matches!(
        guard.validate(urn.as_ref(), good),
        Ok(Outcome::Validated)
    ));
    let bad_deep = br#"{"order": {"customer": {"name": "Ada", "id": "one"}}, "billed": "Ada"}"#;
    let refused = guard.validate(urn.as_ref(), bad_deep).unwrap_err();
    assert!(
        refused
            .violations()
            .iter()
            .any(|v| v.path().contains("customer")),
        "{refused}"
    );
    let bad_fragment = br#"{"order": {"customer": {"name": "Ada", "id": 1}}, "billed": 7}"#;
    assert!(guard.validate(urn.as_ref(), bad_fragment).is_err());
    // referencedby: the ids of the versions referring to one.
    assert_eq!(
        read(&running, "/subjects/customer/versions/1/referencedby"),
        json!([order, invoice])
    );
    assert_eq!(
        read(&running, "/subjects/order/versions/latest/referencedby"),
        json!([invoice])
    );
    assert_eq!(
        read(&running, "/subjects/invoice/versions/1/referencedby"),
        json!([])
    );
    assert_ne!(customer, order);
    let missing = get(&running.url("/subjects/customer/versions/9/referencedby"));
    assert_eq!(missing.code(), 40402);
}

#[test]
fn a_missing_reference_is_refused_with_42201_and_stores_nothing() {
    let running = start();
    for reference in [
        json!({"name": "http://example.com/customer.schema.json", "subject": "customer", "version": 1}),
        json!({"name": "x", "subject": "Not A Subject!", "version": 1}),
        json!({"name": "", "subject": "customer", "version": 1}),
        json!({"name": "x", "subject": "customer", "version": 0}),
        json!("customer"),
    ] {
        let reply = post(
            &running,
            "/subjects/order/versions",
            &json!({"schema": file("order.json"), "schemaType": "JSON", "references": [reference]}),
        );
        assert_eq!(
            (reply.status, reply.code()),
            (422, 42201),
            "{}",
            reply.text()
        );
    }
    register(
        &running,
        "customer",
        json!({"schema": file("customer.json"), "schemaType": "JSON"}),
    );
    let later = post(
        &running,
        "/subjects/order/versions",
        &json!({"schema": file("order.json"), "schemaType": "JSON", "references": [
            {"name": "http://example.com/customer.schema.json", "subject": "customer", "version": 2}
        ]}),
    );
    assert_eq!(later.code(), 42201, "{}", later.text());
    assert!(later.text().contains("customer"), "{}", later.text());
    assert_eq!(get(&running.url("/subjects/order/versions")).code(), 40401);
    // Without the reference the $ref is a URL, which is never fetched.
    let unresolved = post(
        &running,
        "/subjects/order/versions",
        &json!({"schema": file("order.json"), "schemaType": "JSON"}),
    );
    assert_eq!(unresolved.code(), 42201, "{}", unresolved.text());
}

#[test]
fn metadata_and_rule_sets_are_kept_inherited_and_returned() {
    let running = start();
    let metadata = json!({
        "properties": {"owner": "team-a", "application.major.version": "1"},
        "tags": {"$.id": ["PII"]},
        "sensitive": ["secret"]
    });
    let rules = json!({"domainRules": [
        {"name": "checkId", "kind": "CONDITION", "type": "CEL", "mode": "WRITE", "expr": "message.id != ''"}
    ]});
    let first = register(
        &running,
        "orders-value",
        json!({"schema": r#"{"type": "object", "properties": {"id": {"type": "string"}}}"#,
               "schemaType": "JSON", "metadata": metadata, "ruleSet": rules}),
    );
    assert_eq!(first["metadata"], metadata);
    assert_eq!(first["ruleSet"]["domainRules"], rules["domainRules"]);
    let guid = first["guid"].as_str().unwrap().to_owned();
    assert_eq!(guid.len(), 36, "{guid}");
    // Every read returns them.
    let version = read(&running, "/subjects/orders-value/versions/1");
    assert_eq!(version["metadata"], metadata);
    assert_eq!(version["ruleSet"]["domainRules"], rules["domainRules"]);
    assert_eq!(version["guid"], guid.as_str());
    let id = first["id"].as_u64().unwrap();
    let by_id = read(&running, &format!("/schemas/ids/{id}"));
    assert_eq!(by_id["metadata"], metadata);
    let by_guid = read(&running, &format!("/schemas/guids/{guid}"));
    assert_eq!(by_guid, by_id);
    assert_eq!(
        get(&running.url("/schemas/guids/00000000-0000-0000-0000-000000000000")).code(),
        40403
    );
    assert_eq!(get(&running.url("/schemas/guids/nonsense")).code(), 40403);
    // A registration without them takes the previous version's.
    let second = register(
        &running,
        "orders-value",
        json!({"schema": r#"{"type": "object", "properties": {"id": {"type": "string"}}, "title": "v2"}"#,
               "schemaType": "JSON"}),
    );
    assert_eq!(second["version"], 2);
    assert_eq!(second["metadata"], metadata);
    assert_eq!(second["ruleSet"]["domainRules"], rules["domainRules"]);
    // The same schema with other metadata is another version and id.
    let third = register(
        &running,
        "orders-value",
        json!({"schema": r#"{"type": "object", "properties": {"id": {"type": "string"}}, "title": "v2"}"#,
               "schemaType": "JSON", "metadata": {"properties": {"owner": "team-b"}}}),
    );
    assert_eq!(third["version"], 3);
    assert_ne!(third["id"], second["id"]);
    // Registering it again answers the same version.
    let again = register(
        &running,
        "orders-value",
        json!({"schema": r#"{"type": "object", "properties": {"id": {"type": "string"}}, "title": "v2"}"#,
               "schemaType": "JSON", "metadata": {"properties": {"owner": "team-b"}}}),
    );
    assert_eq!(
        (again["version"].clone(), again["id"].clone()),
        (json!(3), third["id"].clone())
    );
    // GET /subjects/{s}/metadata: the latest version with the properties.
    let latest_a = read(
        &running,
        "/subjects/orders-value/metadata?key=owner&value=team-a",
    );
    assert_eq!(latest_a["version"], 2);
    let latest_b = read(
        &running,
        "/subjects/orders-value/metadata?key=owner&value=team-b",
    );
    assert_eq!(latest_b["version"], 3);
    let both = read(
        &running,
        "/subjects/orders-value/metadata?key=owner&value=team-a&key=application.major.version&value=1",
    );
    assert_eq!(both["version"], 2);
    assert_eq!(
        get(&running.url("/subjects/orders-value/metadata?key=owner&value=team-c")).code(),
        40403
    );
    assert_eq!(
        get(&running.url("/subjects/nothing/metadata?key=owner&value=team-a")).code(),
        40401
    );
    // Bad shapes are 42201.
    for bad in [
        json!({"properties": {"owner": 1}}),
        json!(["owner"]),
        json!({"colour": "red"}),
    ] {
        let reply = post(
            &running,
            "/subjects/orders-value/versions",
            &json!({"schema": r#"{"type": "object"}"#, "schemaType": "JSON", "metadata": bad}),
        );
        assert_eq!(reply.code(), 42201, "{}", reply.text());
    }
    let duplicate = post(
        &running,
        "/subjects/orders-value/versions",
        &json!({"schema": r#"{"type": "object"}"#, "schemaType": "JSON",
                "ruleSet": {"domainRules": [{"name": "a"}], "migrationRules": [{"name": "a"}]}}),
    );
    assert_eq!(duplicate.code(), 42201, "{}", duplicate.text());
}

#[test]
fn config_metadata_and_rules_merge_into_registrations() {
    let running = start();
    let set = put(
        &running,
        "/config/orders-value",
        &json!({
            "compatibility": "NONE",
            "normalize": true,
            "compatibilityGroup": "major",
            "compatibilityPolicy": "LENIENT",
            "defaultMetadata": {"properties": {"owner": "default-owner", "tier": "gold"}},
            "overrideMetadata": {"properties": {"tier": "platinum"}},
            "defaultRuleSet": {"domainRules": [{"name": "a", "expr": "default"}, {"name": "b", "expr": "default"}]},
            "overrideRuleSet": {"domainRules": [{"name": "b", "expr": "override"}]},
            "validateFields": false
        }),
    );
    assert_eq!(set.status, 200, "{}", set.text());
    assert_eq!(set.json()["compatibility"], "NONE");
    assert_eq!(set.json()["compatibilityGroup"], "major");
    // Stored and returned, not dropped.
    let config = read(&running, "/config/orders-value");
    assert_eq!(config["compatibilityLevel"], "NONE");
    assert_eq!(config["normalize"], true);
    assert_eq!(config["compatibilityGroup"], "major");
    assert_eq!(config["compatibilityPolicy"], "LENIENT");
    assert_eq!(config["validateFields"], false);
    assert_eq!(
        config["overrideMetadata"],
        json!({"properties": {"tier": "platinum"}})
    );
    // A PUT of one field keeps the others.
    put(
        &running,
        "/config/orders-value",
        &json!({"compatibilityGroup": "v"}),
    );
    let config = read(&running, "/config/orders-value");
    assert_eq!(config["compatibilityGroup"], "v");
    assert_eq!(config["normalize"], true);
    assert_eq!(config["compatibilityLevel"], "NONE");
    let registered = register(
        &running,
        "orders-value",
        json!({"schema": r#"{"type": "object"}"#, "schemaType": "JSON",
               "metadata": {"properties": {"owner": "me", "tier": "bronze"}},
               "ruleSet": {"domainRules": [{"name": "a", "expr": "mine"}]}}),
    );
    // default below, the registration's own over it, the override on top.
    assert_eq!(
        registered["metadata"]["properties"],
        json!({"owner": "me", "tier": "platinum"})
    );
    assert_eq!(
        registered["ruleSet"]["domainRules"],
        json!([{"name": "a", "expr": "mine"}, {"name": "b", "expr": "override"}])
    );
    // The global config holds settings too.
    let global = put(
        &running,
        "/config",
        &json!({"compatibility": "BACKWARD", "defaultMetadata": {"properties": {"org": "acme"}}}),
    );
    assert_eq!(global.status, 200, "{}", global.text());
    assert_eq!(
        read(&running, "/config")["defaultMetadata"],
        json!({"properties": {"org": "acme"}})
    );
    let other = register(
        &running,
        "payments-value",
        json!({"schema": r#"{"type": "object"}"#, "schemaType": "JSON"}),
    );
    assert_eq!(other["metadata"], json!({"properties": {"org": "acme"}}));
    // A bad setting is refused, nothing kept.
    let bad = put(
        &running,
        "/config/orders-value",
        &json!({"compatibilityPolicy": "LOOSE"}),
    );
    assert_eq!(bad.code(), 42203, "{}", bad.text());
    assert_eq!(
        read(&running, "/config/orders-value")["compatibilityPolicy"],
        "LENIENT"
    );
    // DELETE clears them.
    let cleared = confluent("DELETE", &running.url("/config/orders-value"), &json!({}));
    assert_eq!(cleared.status, 200, "{}", cleared.text());
    assert_eq!(cleared.json()["compatibilityGroup"], "v");
    assert_eq!(get(&running.url("/config/orders-value")).code(), 40408);
}

#[test]
fn confluent_version_follows_the_version_registered() {
    let running = start();
    let first = register(
        &running,
        "orders-value",
        json!({"schema": r#"{"type": "object"}"#, "schemaType": "JSON",
               "metadata": {"properties": {"confluent:version": "1", "owner": "a"}}}),
    );
    assert_eq!(first["metadata"]["properties"]["confluent:version"], "1");
    // Inherited, and set to the new version.
    let second = register(
        &running,
        "orders-value",
        json!({"schema": r#"{"type": "object", "title": "2"}"#, "schemaType": "JSON"}),
    );
    assert_eq!(second["version"], 2);
    assert_eq!(second["metadata"]["properties"]["confluent:version"], "2");
    assert_eq!(second["metadata"]["properties"]["owner"], "a");
    // The first schema again is its version, not a new one.
    let again = register(
        &running,
        "orders-value",
        json!({"schema": r#"{"type": "object"}"#, "schemaType": "JSON"}),
    );
    assert_eq!(again["version"], 1, "{again}");
    assert_eq!(again["id"], first["id"]);
}

const ID_STRING: &str =
    r#"{"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}"#;
const EVENT_ID_INT: &str = r#"{"type": "object", "properties": {"event_id": {"type": "integer"}}, "required": ["event_id"]}"#;

#[test]
fn compatibility_groups_check_each_group_apart() {
    let running = start();
    let set = put(
        &running,
        "/config/event",
        &json!({"compatibility": "BACKWARD", "compatibilityGroup": "application.major.version"}),
    );
    assert_eq!(set.status, 200, "{}", set.text());
    let group = |n: &str| json!({"properties": {"application.major.version": n}});
    register(
        &running,
        "event",
        json!({"schema": ID_STRING, "schemaType": "JSON", "metadata": group("1")}),
    );
    // Group 2 is checked against nothing of group 1: accepted.
    let two = register(
        &running,
        "event",
        json!({"schema": EVENT_ID_INT, "schemaType": "JSON", "metadata": group("2")}),
    );
    assert_eq!(two["version"], 2);
    // The compatibility test says the same as the register.
    let test = |schema: &str, metadata: Value| {
        post(
            &running,
            "/compatibility/subjects/event/versions/latest",
            &json!({"schema": schema, "schemaType": "JSON", "metadata": metadata}),
        )
        .json()["is_compatible"]
            .clone()
    };
    assert_eq!(test(EVENT_ID_INT, group("2")), json!(true));
    // The same schema in group 1 is refused: it breaks group 1's version.
    let text = r#"{"type": "object", "properties": {"event_id": {"type": "integer"}}, "required": ["event_id"], "title": "in 1"}"#;
    let refused = post(
        &running,
        "/subjects/event/versions",
        &json!({"schema": text, "schemaType": "JSON", "metadata": group("1")}),
    );
    assert_eq!(
        (refused.status, refused.code()),
        (409, 40901),
        "{}",
        refused.text()
    );
    // Without the property: its own group (empty so far), accepted.
    let none = register(
        &running,
        "event",
        json!({"schema": text, "schemaType": "JSON", "metadata": {"properties": {"other": "x"}}}),
    );
    assert_eq!(none["version"], 3);
}

#[test]
fn the_lenient_policy_accepts_a_property_added_to_an_open_model() {
    let running = start();
    let open = r#"{"type": "object", "properties": {"id": {"type": "string"}}}"#;
    let added = r#"{"type": "object", "properties": {"id": {"type": "string"}, "note": {"type": "string"}}}"#;
    put(
        &running,
        "/config/notes",
        &json!({"compatibility": "BACKWARD"}),
    );
    register(
        &running,
        "notes",
        json!({"schema": open, "schemaType": "JSON"}),
    );
    // BACKWARD: the new schema reads the old data; under STRICT the new
    // property is breaking (the old open model let data hold "note" with
    // any value).
    let strict = post(
        &running,
        "/subjects/notes/versions",
        &json!({"schema": added, "schemaType": "JSON"}),
    );
    assert_eq!(strict.code(), 40901, "{}", strict.text());
    put(
        &running,
        "/config/notes",
        &json!({"compatibilityPolicy": "LENIENT"}),
    );
    let lenient = register(
        &running,
        "notes",
        json!({"schema": added, "schemaType": "JSON"}),
    );
    assert_eq!(lenient["version"], 2);
}

#[test]
fn confluents_python_client_reads_references_and_contracts() {
    let Some(python) = common::python_importing("confluent_kafka.schema_registry") else {
        return;
    };
    let running = start();
    let script = r#"
import json, sys
from confluent_kafka.schema_registry import (
    SchemaRegistryClient, Schema, SchemaReference, Metadata, MetadataProperties, MetadataTags,
    RuleSet, Rule, RuleKind, RuleMode,
)
url, token, customer, order = sys.argv[1:5]
sr = SchemaRegistryClient({"url": url, "basic.auth.user.info": "token:" + token})
customer_id = sr.register_schema("customer", Schema(customer, "JSON"))
metadata = Metadata(MetadataTags({}), MetadataProperties({"owner": "team-a"}), set())
rules = RuleSet(None, [Rule("checkTotal", None, RuleKind.CONDITION, RuleMode.WRITE, "CEL", None, None,
                            "message.total > 0", None, None, False)])
order_schema = Schema(order, "JSON",
    [SchemaReference("http://example.com/customer.schema.json", "customer", 1)], metadata, rules)
registered = sr.register_schema_full_response("order", order_schema)
assert registered.guid, registered
latest = sr.get_latest_with_metadata("order", {"owner": "team-a"})
assert latest.version == 1, latest
assert latest.schema.metadata.properties.properties == {"owner": "team-a"}, latest.schema.metadata
assert latest.schema.rule_set.domain_rules[0].name == "checkTotal", latest.schema.rule_set
assert [(r.name, r.subject, r.version) for r in latest.schema.references] == [
    ("http://example.com/customer.schema.json", "customer", 1)], latest.schema.references
assert sr.get_referenced_by("customer", 1) == [registered.schema_id], sr.get_referenced_by("customer", 1)
by_guid = sr.get_by_guid(registered.guid)
assert by_guid.metadata.properties.properties == {"owner": "team-a"}, by_guid
print("ok")
"#;
    let out = std::process::Command::new(python)
        .args(["-c", script, &running.url(""), TOKEN])
        .arg(file("customer.json"))
        .arg(file("order.json"))
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success() && text.contains("ok"), "{text}");
}
