"""Frames protobuf payloads with Confluent's own ProtobufSerializer against
a dataschema server (its Confluent API), for
tests/server/confluent_protobuf_python.rs.

    python confluent_protobuf.py URL TOKEN SET OUT_DIR

SET is a serialized FileDescriptorSet holding `acme/common/v1/money.proto`
and `shop.proto` (which imports it, `google/protobuf/timestamp.proto` and
`confluent/meta.proto`); the message classes are made from it with
protobuf's own descriptor APIs (no protoc, no generated _pb2 modules).

Registers with auto.register.schemas (the import as a reference, under
subject `money`; the well-known files skipped, skip.known.types), reads the
frames back with ProtobufDeserializer, serializes again with
use.latest.version, and writes to OUT_DIR:

* order.bin: an Order (message indexes [0]);
* refund.bin: a Refund (message indexes [1]);
* latest.bin: an Order serialized with use.latest.version;
* id.txt: the schema id of the frames.

Exits non-zero on the first failed check, printing it.
"""

import os
import struct
import sys

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from google.protobuf import timestamp_pb2  # noqa: F401 (in the default pool)

# Confluent's well-known files, in the default pool as the serializer has them.
import confluent_kafka.schema_registry.confluent.meta_pb2  # noqa: F401
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.protobuf import ProtobufDeserializer, ProtobufSerializer
from confluent_kafka.serialization import MessageField, SerializationContext


def message_classes(set_path, *names):
    """The message classes of `names` (full names), made from the serialized
    FileDescriptorSet at `set_path` added to the default pool."""
    files = descriptor_pb2.FileDescriptorSet()
    with open(set_path, "rb") as f:
        files.ParseFromString(f.read())
    pool = descriptor_pool.Default()
    for file in files.file:
        try:
            pool.FindFileByName(file.name)
        except KeyError:
            pool.Add(file)
    return [message_factory.GetMessageClass(pool.FindMessageTypeByName(n)) for n in names]


def main():
    url, token, set_path, out_dir = sys.argv[1:5]
    Order, Refund = message_classes(set_path, "acme.shop.v1.Order", "acme.shop.v1.Refund")
    sr = SchemaRegistryClient({"url": url, "basic.auth.user.info": "ci-user:" + token})
    conf = {
        "auto.register.schemas": True,
        "skip.known.types": True,
        # Our subjects are URN names: the reference's subject is `money`.
        "reference.subject.name.strategy": lambda ctx, dep: "money",
    }
    order = Order(id="o1")
    line = order.lines.add(sku="x", quantity=2)
    line.price.currency = "EUR"
    line.price.cents = 1250
    order.placed_at.seconds = 1_700_000_000
    refund = Refund(order_id="o1", cents=5)

    ctx = SerializationContext("shop", MessageField.VALUE)
    framed_order = ProtobufSerializer(Order, sr, conf)(order, ctx)
    framed_refund = ProtobufSerializer(Refund, sr, conf)(refund, ctx)
    magic, schema_id = struct.unpack(">bI", framed_order[:5])
    assert magic == 0, magic
    assert framed_order[5] == 0, "indexes [0] as the single byte 0"
    assert framed_refund[:5] == framed_order[:5], "one file, one id"
    assert framed_refund[5:7] == b"\x02\x02", framed_refund[5:7]
    registered = sr.get_latest_version("shop-value")
    assert registered.schema_id == schema_id, (registered.schema_id, schema_id)
    refs = [(r.name, r.subject, r.version) for r in registered.schema.references]
    assert refs == [("acme/common/v1/money.proto", "money", 1)], refs
    print(f"ok  framed with schema id {schema_id}, references {refs}")

    # Confluent's deserializer reads the frames back through our server
    # (the writer schema read with format=serialized, its reference too).
    fresh = SchemaRegistryClient({"url": url})
    assert ProtobufDeserializer(Order, {}, fresh)(framed_order, ctx) == order
    assert ProtobufDeserializer(Refund, {}, fresh)(framed_refund, ctx) == refund
    print("ok  ProtobufDeserializer reads the frames back")

    latest_conf = dict(conf, **{"auto.register.schemas": False, "use.latest.version": True})
    # A client of its own: this one's cache holds the latest version read
    # above in the default format (text), where the serializer asks for it
    # serialized.
    latest_sr = SchemaRegistryClient({"url": url, "basic.auth.user.info": "ci-user:" + token})
    latest = ProtobufSerializer(Order, latest_sr, latest_conf)(order, ctx)
    assert latest == framed_order, "use.latest.version frames with the same id"
    print("ok  use.latest.version")

    for name, data in [("order.bin", framed_order), ("refund.bin", framed_refund), ("latest.bin", latest)]:
        with open(os.path.join(out_dir, name), "wb") as f:
            f.write(data)
    with open(os.path.join(out_dir, "id.txt"), "w") as f:
        f.write(str(schema_id))


if __name__ == "__main__":
    main()
