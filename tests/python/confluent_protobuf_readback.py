"""Reads back, with Confluent's own Python client, a protobuf schema that
`dataschema publish` put in a dataschema server (a `.proto` folder: a
descriptor set with a root, its imports registered as their own
subjects), for tests/cli/publish_proto.rs.

    python confluent_protobuf_readback.py URL ID SET

SET is the folder's `shop-value.v1.proto` and what it imports, compiled
into a serialized FileDescriptorSet; the message classes are made from it
with protobuf's own descriptor APIs (no protoc, no generated _pb2 modules).
ID is the id `publish` locked for `urn:acme:schema:shop-value:1`.

Checks, exiting non-zero on the first that fails, printing it:

* the schema by id is `.proto` text with one reference, the import under
  its path (subject = import path, Confluent's default);
* ProtobufSerializer without auto.register.schemas (the lookup of the
  import under its path, then of the schema) frames with ID;
* ProtobufDeserializer reads the frame back through a fresh client (the
  writer schema and its reference read with format=serialized);
* use.latest.version frames with ID too.
"""

import struct
import sys

from google.protobuf import timestamp_pb2  # noqa: F401 (in the default pool)

# Confluent's well-known files, in the default pool as the serializer has them.
import confluent_kafka.schema_registry.confluent.meta_pb2  # noqa: F401
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.protobuf import ProtobufDeserializer, ProtobufSerializer
from confluent_kafka.serialization import MessageField, SerializationContext

# The script beside this one (Python puts this script's folder on the path).
from confluent_protobuf import message_classes

MONEY = "acme/common/v1/money.proto"


def main():
    url, schema_id, set_path = sys.argv[1:4]
    schema_id = int(schema_id)
    (Order,) = message_classes(set_path, "acme.shop.v1.Order")

    read = SchemaRegistryClient({"url": url}).get_schema(schema_id)
    assert read.schema_type == "PROTOBUF", read.schema_type
    assert "message Order {" in read.schema_str, read.schema_str
    refs = [(r.name, r.subject, r.version) for r in read.references]
    assert refs == [(MONEY, MONEY, 1)], refs
    print(f"ok  schema {schema_id} reads back as .proto text, references {refs}")

    order = Order(id="o1")
    line = order.lines.add(sku="x", quantity=2)
    line.price.currency = "EUR"
    line.price.cents = 1250
    order.placed_at.seconds = 1_700_000_000
    ctx = SerializationContext("shop", MessageField.VALUE)

    conf = {"auto.register.schemas": False, "skip.known.types": True}
    framed = ProtobufSerializer(Order, SchemaRegistryClient({"url": url}), conf)(order, ctx)
    magic, framed_id = struct.unpack(">bI", framed[:5])
    assert magic == 0, magic
    assert framed_id == schema_id, (framed_id, schema_id)
    print("ok  ProtobufSerializer's lookup finds the published schema")

    fresh = SchemaRegistryClient({"url": url})
    assert ProtobufDeserializer(Order, {}, fresh)(framed, ctx) == order
    print("ok  ProtobufDeserializer reads the frame back")

    latest_conf = dict(conf, **{"use.latest.version": True})
    latest = ProtobufSerializer(Order, SchemaRegistryClient({"url": url}), latest_conf)(order, ctx)
    assert latest == framed, "use.latest.version frames with the same id"
    print("ok  use.latest.version")


if __name__ == "__main__":
    main()
