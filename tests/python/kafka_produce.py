"""Writes part of tests/cli/kafka.rs's stream with Confluent's own Python
producer and serializer: `confluent-kafka`'s `SerializingProducer` with
its `JSONSerializer`, auto-registering the schema into a dataschema
server's Confluent API, producing to a real Kafka-protocol broker.

    python kafka_produce.py BROKERS TOPIC REGISTRY_URL TOKEN

Produces to TOPIC, in order and acknowledged (`acks=all`):

1. a conforming record, serialized with validation on;
2. a record that does not conform, serialized with `validate: False`
   (the serializer's own check refuses it first: checked).

Prints `id N` (the schema id the serializer framed) and one
`produced PARTITION:OFFSET` per record; exits non-zero on the first failed
check, printing it.
"""

import json
import struct
import sys

from confluent_kafka import Producer
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.json_schema import JSONSerializer
from confluent_kafka.serialization import MessageField, SerializationContext, SerializationError

SCHEMA = json.dumps(
    {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "title": "Refund",
        "type": "object",
        "properties": {
            "refund_id": {"type": "string", "pattern": "^ref_"},
            "amount": {"type": "number", "exclusiveMinimum": 0},
        },
        "required": ["refund_id", "amount"],
    }
)
VALID = {"refund_id": "ref_1", "amount": 12.5}
INVALID = {"refund_id": 42, "amount": -1}


def main():
    brokers, topic, url, token = sys.argv[1:5]
    sr = SchemaRegistryClient({"url": url, "basic.auth.user.info": "ci-user:" + token})
    ctx = SerializationContext(topic, MessageField.VALUE)
    checked = JSONSerializer(SCHEMA, sr, conf={"auto.register.schemas": True})
    valid = checked(VALID, ctx)
    try:
        checked(INVALID, ctx)
    except SerializationError:
        pass
    else:
        raise AssertionError("JSONSerializer accepted an invalid record with validation on")
    unchecked = JSONSerializer(SCHEMA, sr, conf={"auto.register.schemas": True, "validate": False})
    invalid = unchecked(INVALID, ctx)
    magic, schema_id = struct.unpack(">bI", valid[:5])
    assert magic == 0, magic
    print(f"id {schema_id}", flush=True)

    producer = Producer({"bootstrap.servers": brokers, "acks": "all", "message.timeout.ms": 30000})
    delivered = []

    def report(err, msg):
        if err is not None:
            raise SystemExit(f"not delivered: {err}")
        delivered.append(f"produced {msg.partition()}:{msg.offset()}")

    for body in (valid, invalid):
        producer.produce(topic, value=body, key=b"python", on_delivery=report)
        # One at a time: the test reads the stream in this order.
        if producer.flush(30) != 0:
            raise SystemExit("the broker did not acknowledge within 30 s")
    for line in delivered:
        print(line, flush=True)
    if len(delivered) != 2:
        raise SystemExit(f"{len(delivered)} of 2 records delivered")


if __name__ == "__main__":
    main()
