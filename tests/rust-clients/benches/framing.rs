//! The cost of one frame: `dataschema::Framer::frame` against
//! `schema_registry_converter`'s encoders (6.0.0) and
//! `schema-registry-client`'s serializers (0.4.2), in the same run, each
//! with its schema and id already cached (a registry router in this
//! process answered the first call; no request is timed).
//!
//! What each does per message: the `Framer` validates the payload's bytes
//! against the schema (as the consumers' guards will) and writes the
//! prefix; the encoders take a value (a `serde_json::Value`, a serde
//! struct for Avro), validate it (`schema_registry_converter` always;
//! `schema-registry-client` with `validate` on) and serialize it. A
//! producer holding bytes pays the Framer's; one holding values pays
//! serialization either way (`serde_json::to_vec` is timed beside).
//!
//! ```text
//! cargo bench --manifest-path tests/rust-clients/Cargo.toml --bench framing
//! ```

use std::collections::HashMap;
use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};

use dataschema::http::{Api, HttpResolver};
use dataschema::{Framer, Registry, Schema, Urn};
use dataschema_rust_clients::{
    order, payment_bytes, Serve, ORDER_JSON, PAYMENT, PAYMENT_AVRO, TOKEN,
};

use schema_registry_client::rest::client_config::ClientConfig;
use schema_registry_client::rest::models::Schema as SrSchema;
use schema_registry_client::rest::schema_registry_client::{Client, SchemaRegistryClient};
use schema_registry_client::serdes::avro::AvroSerializer;
use schema_registry_client::serdes::config::SerializerConfig;
use schema_registry_client::serdes::json::JsonSerializer;
use schema_registry_client::serdes::serde::{SerdeFormat, SerdeType, SerializationContext};
use schema_registry_converter::async_impl::easy_avro::EasyAvroEncoder;
use schema_registry_converter::async_impl::easy_json::EasyJsonEncoder;
use schema_registry_converter::async_impl::schema_registry::SrSettings;
use schema_registry_converter::schema_registry_common::SubjectNameStrategy;

fn sr_schema(kind: &str, text: &str) -> SrSchema {
    SrSchema {
        schema_type: Some(kind.to_owned()),
        references: None,
        metadata: None,
        rule_set: None,
        schema: text.to_owned(),
    }
}

fn context(topic: &str, format: SerdeFormat) -> SerializationContext {
    SerializationContext {
        topic: topic.to_owned(),
        serde_type: SerdeType::Value,
        serde_format: format,
        headers: None,
    }
}

fn framing(c: &mut Criterion) {
    let serve = Serve::start();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("a runtime");
    let mut config = ClientConfig::new(vec![serve.url()]);
    config.bearer_access_token = Some(TOKEN.to_owned());
    let client = SchemaRegistryClient::new(config);
    let (order_id, payment_id) = runtime.block_on(async {
        let order = client
            .register_schema("orders-value", &sr_schema("JSON", ORDER_JSON), false)
            .await
            .expect("registered");
        let payment = client
            .register_schema("payments-value", &sr_schema("AVRO", PAYMENT_AVRO), false)
            .await
            .expect("registered");
        (order.id.expect("id"), payment.id.expect("id"))
    });

    let urn = |text: &str| text.parse::<Urn>().expect("a URN");
    let order_urn = urn("urn:acme:schema:orders-value:1");
    let payment_urn = urn("urn:acme:schema:payments-value:1");
    let bundle = Registry::embed_with_ids(
        [
            Schema::json(order_urn.clone(), ORDER_JSON),
            Schema::avro(payment_urn.clone(), PAYMENT_AVRO),
        ],
        [
            (order_urn.clone(), order_id as u32),
            (payment_urn.clone(), payment_id as u32),
        ],
    )
    .expect("a bundle");
    let framer = Framer::builder(bundle)
        .registry(
            HttpResolver::builder(serve.url())
                .api(Api::Native)
                .timeout(Duration::from_secs(5))
                .build()
                .expect("a resolver"),
        )
        .build();
    let order_value = order();
    let order_bytes = serde_json::to_vec(&order_value).expect("JSON");
    let payment_bytes = payment_bytes();

    let settings = SrSettings::new(serve.url());
    let json_encoder = EasyJsonEncoder::new(settings.clone());
    let avro_encoder = EasyAvroEncoder::new(settings);
    let json_strategy = || SubjectNameStrategy::TopicNameStrategy("orders".into(), false);
    let avro_strategy = SubjectNameStrategy::TopicNameStrategy("payments".into(), false);
    let validating = SerializerConfig::new(false, None, false, true, HashMap::new());
    let order_schema = sr_schema("JSON", ORDER_JSON);
    let payment_schema = sr_schema("AVRO", PAYMENT_AVRO);
    let json_serializer =
        JsonSerializer::new(&client, Some(&order_schema), None, validating.clone())
            .expect("a serializer");
    let avro_serializer = AvroSerializer::new(&client, Some(&payment_schema), None, validating)
        .expect("a serializer");
    let json_ctx = context("orders", SerdeFormat::Json);
    let avro_ctx = context("payments", SerdeFormat::Avro);

    // Every frame the same bytes (the ids agree), and each cache warm.
    runtime.block_on(async {
        let ours = framer.frame(&order_urn, &order_bytes).expect("framed");
        let theirs = json_encoder
            .encode(&order_value, json_strategy())
            .await
            .expect("encoded");
        assert_eq!(ours[..5], theirs[..5]);
        let client_frame = json_serializer
            .serialize(&json_ctx, order_value.clone())
            .await
            .expect("serialized");
        assert_eq!(ours[..5], client_frame[..5]);
        let ours = framer.frame(&payment_urn, &payment_bytes).expect("framed");
        let theirs = avro_encoder
            .encode_struct(&PAYMENT, &avro_strategy)
            .await
            .expect("encoded");
        assert_eq!(ours, theirs);
        let client_frame = avro_serializer
            .serialize_ser(&avro_ctx, &PAYMENT)
            .await
            .expect("serialized");
        assert_eq!(ours, client_frame);
    });

    let mut group = c.benchmark_group("framing/json");
    group.bench_function("dataschema Framer::frame (bytes)", |b| {
        b.iter(|| framer.frame(black_box(&order_urn), black_box(&order_bytes)))
    });
    group.bench_function("serde_json::to_vec + Framer::frame", |b| {
        b.iter(|| {
            let bytes = serde_json::to_vec(black_box(&order_value)).expect("JSON");
            framer.frame(&order_urn, &bytes)
        })
    });
    group.bench_function("schema_registry_converter EasyJsonEncoder::encode", |b| {
        b.to_async(&runtime)
            .iter(|| json_encoder.encode(black_box(&order_value), json_strategy()))
    });
    group.bench_function("schema-registry-client JsonSerializer::serialize", |b| {
        b.to_async(&runtime)
            .iter(|| json_serializer.serialize(&json_ctx, black_box(order_value.clone())))
    });
    group.finish();

    let mut group = c.benchmark_group("framing/avro");
    group.bench_function("dataschema Framer::frame (bytes)", |b| {
        b.iter(|| framer.frame(black_box(&payment_urn), black_box(&payment_bytes)))
    });
    group.bench_function(
        "schema_registry_converter EasyAvroEncoder::encode_struct",
        |b| {
            b.to_async(&runtime)
                .iter(|| avro_encoder.encode_struct(black_box(&PAYMENT), &avro_strategy))
        },
    );
    group.bench_function(
        "schema-registry-client AvroSerializer::serialize_ser",
        |b| {
            b.to_async(&runtime)
                .iter(|| avro_serializer.serialize_ser(&avro_ctx, black_box(&PAYMENT)))
        },
    );
    group.finish();
}

criterion_group!(benches, framing);
criterion_main!(benches);
