//! The Rust clients against a `dataschema serve` router: Confluent's
//! `schema-registry-client` 0.4.2 (its registry client, its JSON and Avro
//! serdes: serialize with auto-registration, a consumer's guard validates
//! the frame, deserialize back) and `schema_registry_converter` 6.0.0
//! (its decoders), both reading the frames `dataschema::Framer` writes
//! (ids by content from the registry, auto-registered); and the registry
//! client's association calls (Confluent's Associations API).

use std::collections::HashMap;
use std::time::Duration;

use dataschema::http::{Api, HttpResolver};
use dataschema::{Framer, Guard, Language, Outcome, Registry, Schema, Urn};
use dataschema_rust_clients::{
    order, payment_bytes, Serve, ORDER_JSON, PAYMENT, PAYMENT_AVRO, TICKS_PROTO, TOKEN,
};

use schema_registry_client::rest::client_config::ClientConfig;
use schema_registry_client::rest::models::Schema as SrSchema;
use schema_registry_client::rest::schema_registry_client::{Client, SchemaRegistryClient};
use schema_registry_client::serdes::avro::{AvroDeserializer, AvroSerializer};
use schema_registry_client::serdes::config::{DeserializerConfig, SerializerConfig};
use schema_registry_client::serdes::json::{JsonDeserializer, JsonSerializer};
use schema_registry_client::serdes::serde::{SerdeFormat, SerdeType, SerializationContext};
use schema_registry_converter::async_impl::easy_avro::EasyAvroDecoder;
use schema_registry_converter::async_impl::easy_json::EasyJsonDecoder;
use schema_registry_converter::async_impl::easy_proto_decoder::EasyProtoDecoder;
use schema_registry_converter::async_impl::schema_registry::SrSettings;

fn client(serve: &Serve) -> SchemaRegistryClient {
    let mut config = ClientConfig::new(vec![serve.url()]);
    config.bearer_access_token = Some(TOKEN.to_owned());
    config.max_retries = 0;
    SchemaRegistryClient::new(config)
}

fn context(topic: &str, format: SerdeFormat) -> SerializationContext {
    SerializationContext {
        topic: topic.to_owned(),
        serde_type: SerdeType::Value,
        serde_format: format,
        headers: None,
    }
}

fn schema(kind: &str, text: &str) -> SrSchema {
    SrSchema {
        schema_type: Some(kind.to_owned()),
        references: None,
        metadata: None,
        rule_set: None,
        schema: text.to_owned(),
    }
}

/// A consumer's guard: nothing bundled, the server as its fallback.
fn guard(serve: &Serve) -> Guard {
    let fallback = HttpResolver::builder(serve.url())
        .timeout(Duration::from_secs(5))
        .build()
        .expect("a resolver");
    Guard::builder(Registry::embed(Vec::new()).expect("empty"))
        .fallback(fallback)
        .build()
}

fn id_of(frame: &[u8]) -> i32 {
    assert_eq!(frame[0], 0, "magic byte");
    i32::from_be_bytes(frame[1..5].try_into().expect("four bytes"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_registry_client_registers_reads_and_looks_up() {
    let serve = Serve::start();
    let client = client(&serve);
    let registered = client
        .register_schema("orders-value", &schema("JSON", ORDER_JSON), false)
        .await
        .expect("registered");
    let id = registered.id.expect("an id");
    assert!(id > 0);
    // Registering the same schema again: the same id, no new version.
    let again = client
        .register_schema("orders-value", &schema("JSON", ORDER_JSON), false)
        .await
        .expect("registered again");
    assert_eq!(again.id, Some(id));
    let by_id = client
        .get_by_subject_and_id(None, id, None)
        .await
        .expect("read by id");
    assert_eq!(by_id.schema_type.as_deref(), Some("JSON"));
    let latest = client
        .get_latest_version("orders-value", None)
        .await
        .expect("latest");
    assert_eq!((latest.id, latest.version), (Some(id), Some(1)));
    let found = client
        .get_by_schema("orders-value", &schema("JSON", ORDER_JSON), false, false)
        .await
        .expect("looked up");
    assert_eq!((found.id, found.version), (Some(id), Some(1)));
    let version = client
        .get_version("orders-value", 1, false, None)
        .await
        .expect("version 1");
    assert_eq!(version.id, Some(id));
    assert_eq!(
        client
            .get_all_versions("orders-value")
            .await
            .expect("versions"),
        [1]
    );
    assert!(client
        .get_all_subjects(false)
        .await
        .expect("subjects")
        .contains(&"orders-value".to_owned()));
    // The client reads a compatibility test's answer as a bare boolean;
    // Confluent answers `{"is_compatible": true}` (CompatibilityResource,
    // CompatibilityCheckResponse), as this server does: the client's own
    // error, kept here so that a fix upstream shows.
    let err = client
        .test_subject_compatibility("orders-value", &schema("JSON", ORDER_JSON))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("expected a boolean"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn its_serdes_round_trip_and_a_guard_validates_their_frames() {
    let serve = Serve::start();
    let client = client(&serve);
    let guard = guard(&serve);
    let auto = SerializerConfig::new(true, None, false, false, HashMap::new());
    let plain = DeserializerConfig::new(None, false, HashMap::new());

    // JSON Schema.
    let order_schema = schema("JSON", ORDER_JSON);
    let serializer = JsonSerializer::new(&client, Some(&order_schema), None, auto.clone())
        .expect("a serializer");
    let ctx = context("orders", SerdeFormat::Json);
    let frame = serializer
        .serialize(&ctx, order())
        .await
        .expect("serialized");
    let id = id_of(&frame);
    assert_eq!(
        client
            .get_latest_version("orders-value", None)
            .await
            .expect("auto-registered")
            .id,
        Some(id)
    );
    assert!(matches!(
        guard.validate_framed(&frame),
        Ok(Outcome::Validated)
    ));
    let deserializer = JsonDeserializer::new(&client, None, plain.clone()).expect("a deserializer");
    assert_eq!(
        deserializer
            .deserialize(&ctx, &frame)
            .await
            .expect("read back"),
        order()
    );

    // Avro.
    let payment_schema = schema("AVRO", PAYMENT_AVRO);
    let serializer = AvroSerializer::new(&client, Some(&payment_schema), None, auto.clone())
        .expect("a serializer");
    let ctx = context("payments", SerdeFormat::Avro);
    let frame = serializer
        .serialize_ser(&ctx, &PAYMENT)
        .await
        .expect("serialized");
    assert!(matches!(
        guard.validate_framed(&frame),
        Ok(Outcome::Validated)
    ));
    let deserializer = AvroDeserializer::new(&client, None, plain).expect("a deserializer");
    let read = deserializer
        .deserialize(&ctx, &frame)
        .await
        .expect("read back");
    let shown = format!("{:?}", read.value);
    for expected in ["pay_1", "990", "EUR"] {
        assert!(shown.contains(expected), "{shown}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_framers_frames_decode_with_both_rust_clients() {
    let serve = Serve::start();
    let client = client(&serve);
    // The protobuf file as Confluent's clients register it (its text).
    let ticks = client
        .register_schema("ticks-value", &schema("PROTOBUF", TICKS_PROTO), false)
        .await
        .expect("registered")
        .id
        .expect("an id");
    let urn = |text: &str| text.parse::<Urn>().expect("a URN");
    let bundle = Registry::embed([
        Schema::json(urn("urn:acme:schema:orders-value:1"), ORDER_JSON),
        Schema::avro(urn("urn:acme:schema:payments-value:1"), PAYMENT_AVRO),
        Schema::new(
            urn("urn:acme:schema:ticks-value:1"),
            Language::Protobuf,
            TICKS_PROTO,
            None,
        ),
    ])
    .expect("a bundle");
    // Ids by content, the two the registry lacks registered now.
    let registry = HttpResolver::builder(serve.url())
        .api(Api::Native)
        .auto_register(TOKEN)
        .timeout(Duration::from_secs(5))
        .build()
        .expect("a resolver");
    let framer = Framer::builder(bundle).registry(registry).build();

    let order_bytes = serde_json::to_vec(&order()).expect("JSON");
    let json_frame = framer
        .frame(&urn("urn:acme:schema:orders-value:1"), &order_bytes)
        .expect("framed");
    // Payment {id: "pay_1", cents: 990, currency: EUR, note: null}.
    let avro_payload = payment_bytes();
    let avro_frame = framer
        .frame(&urn("urn:acme:schema:payments-value:1"), &avro_payload)
        .expect("framed");
    // Tick {id: "t1", at: 5}.
    let tick = b"\x0a\x02t1\x10\x05";
    let proto_frame = framer
        .frame(&urn("urn:acme:schema:ticks-value:1"), tick)
        .expect("framed");
    assert_eq!(id_of(&proto_frame), ticks, "the id Confluent's client got");

    // schema-registry-client's deserializers.
    let plain = DeserializerConfig::new(None, false, HashMap::new());
    let json = JsonDeserializer::new(&client, None, plain.clone()).expect("a deserializer");
    assert_eq!(
        json.deserialize(&context("orders", SerdeFormat::Json), &json_frame)
            .await
            .expect("read"),
        order()
    );
    let avro = AvroDeserializer::new(&client, None, plain).expect("a deserializer");
    let read = avro
        .deserialize(&context("payments", SerdeFormat::Avro), &avro_frame)
        .await
        .expect("read");
    let shown = format!("{:?}", read.value);
    for expected in ["pay_1", "990", "EUR"] {
        assert!(shown.contains(expected), "{shown}");
    }

    // schema_registry_converter's decoders.
    let settings = SrSettings::new(serve.url());
    let json = EasyJsonDecoder::new(settings.clone())
        .decode(Some(&json_frame))
        .await
        .expect("read")
        .expect("a value");
    assert_eq!(json.value, order());
    let avro = EasyAvroDecoder::new(settings.clone())
        .decode(Some(&avro_frame))
        .await
        .expect("read");
    let shown = format!("{:?}", avro.value);
    for expected in ["pay_1", "990", "EUR"] {
        assert!(shown.contains(expected), "{shown}");
    }
    let tick = EasyProtoDecoder::new(settings)
        .decode(Some(&proto_frame))
        .await
        .expect("read");
    let shown = format!("{tick:?}");
    assert!(shown.contains("t1") && shown.contains('5'), "{shown}");
}

/// The status and Confluent error code of a refused call.
fn refusal(err: schema_registry_client::rest::apis::Error) -> (u16, Option<i32>) {
    match err {
        schema_registry_client::rest::apis::Error::ResponseError(content) => (
            content.status.as_u16(),
            content.entity.and_then(|e| e.error_code),
        ),
        other => panic!("a refusal expected, got {other}"),
    }
}

/// The client's association calls (Confluent's Associations API, CP
/// 8.0.4+): a create names the topic's value subject, a delete of that
/// subject is then refused with 40904 (`deleteSubject`), and the
/// client's delete of the association frees it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_registry_client_creates_and_deletes_associations() {
    use schema_registry_client::rest::models::{
        AssociationCreateOrUpdateInfo, AssociationCreateOrUpdateRequest,
    };

    let serve = Serve::start();
    let client = client(&serve);
    client
        .register_schema("orders-value", &schema("JSON", ORDER_JSON), false)
        .await
        .expect("registered");
    let request = AssociationCreateOrUpdateRequest {
        resource_name: Some("orders".to_owned()),
        resource_namespace: Some("lkc-1".to_owned()),
        resource_id: Some("lkc-1:orders".to_owned()),
        resource_type: Some("topic".to_owned()),
        associations: Some(vec![AssociationCreateOrUpdateInfo {
            subject: Some("orders-value".to_owned()),
            association_type: Some("value".to_owned()),
            ..Default::default()
        }]),
    };
    let created = client
        .create_association(&request)
        .await
        .expect("the association is created");
    assert_eq!(created.resource_id.as_deref(), Some("lkc-1:orders"));
    assert_eq!(created.resource_name.as_deref(), Some("orders"));
    let infos = created.associations.expect("its associations");
    assert_eq!(infos.len(), 1, "{infos:?}");
    assert_eq!(infos[0].subject.as_deref(), Some("orders-value"));
    assert_eq!(infos[0].association_type.as_deref(), Some("value"));

    // The client's lookup by resource name calls `GET /associations`
    // with the name as a query (Confluent serves the lookup only at
    // `/associations/resources/{ns}/{name}`, `AssociationsResource.java`,
    // v8.0.4 to master): this server answers that form too, so the
    // lookup, and the serializers' default `Associated` strategy, work.
    let by_name = client
        .get_associations_by_resource_name("orders", "lkc-1", "topic", &[], "", 0, -1)
        .await
        .expect("the lookup by name");
    assert_eq!(by_name.len(), 1, "{by_name:?}");
    assert_eq!(by_name[0].subject.as_deref(), Some("orders-value"));
    assert_eq!(by_name[0].resource_id.as_deref(), Some("lkc-1:orders"));
    // The serializers' default strategy finds the subject by the topic's
    // association: topic `orders` in any cluster is `orders-value` here,
    // and so is topic `shipments` once associated with it (its topic
    // strategy subject, `shipments-value`, holds nothing).
    let shipments = AssociationCreateOrUpdateRequest {
        resource_name: Some("shipments".to_owned()),
        resource_id: Some("lkc-1:shipments".to_owned()),
        ..request.clone()
    };
    client
        .create_association(&shipments)
        .await
        .expect("the second association is created");
    let config = SerializerConfig::new(false, None, false, true, HashMap::new());
    let order_schema = schema("JSON", ORDER_JSON);
    let serializer =
        JsonSerializer::new(&client, Some(&order_schema), None, config).expect("a serializer");
    let frame = serializer
        .serialize(&context("shipments", SerdeFormat::Json), order())
        .await
        .expect("serialized under the associated subject");
    let latest = client
        .get_latest_version("orders-value", None)
        .await
        .expect("latest");
    let id = u32::try_from(latest.id.expect("an id")).expect("a positive id");
    assert_eq!(frame[0], 0);
    assert_eq!(frame[1..5], id.to_be_bytes());
    client
        .delete_associations("lkc-1:shipments", Some("topic"), None, false)
        .await
        .expect("the second association is deleted");

    // While the association names it, the subject cannot be deleted.
    let refused = client
        .delete_subject("orders-value", false)
        .await
        .expect_err("an associated subject is kept");
    assert_eq!(refusal(refused), (409, Some(40904)));

    client
        .delete_associations("lkc-1:orders", Some("topic"), None, false)
        .await
        .expect("the association is deleted");
    // Deleting it again: nothing to delete (40410).
    let again = client
        .delete_associations("lkc-1:orders", Some("topic"), None, false)
        .await
        .expect_err("already deleted");
    assert_eq!(refusal(again), (404, Some(40410)));
    assert_eq!(
        client
            .delete_subject("orders-value", false)
            .await
            .expect("the subject is free"),
        [1]
    );
}
