"""Frames Avro payloads with Confluent's own AvroSerializer against a
dataschema server (its Confluent API), for
tests/server/confluent_avro_python.rs.

    python confluent_avro.py URL TOKEN V1 V2 OUT_DIR

V1 and V2 are the files of an Avro record schema and of its next version
(a field added with a default). Topic `payments`, subject `payments-value`:

* auto.register.schemas on: V1 is registered by the serializer itself;
* auto.register.schemas off: the serializer looks V1 up (same id), and a
  subject nobody registered is refused by the server (40401);
* V2 registered by the client, then use.latest.version (auto off):
  the serializer writes with the latest version, and its id;
* AvroDeserializer (a fresh client) reads every frame back.

Writes to OUT_DIR: v1.bin (auto-registered), lookup.bin (auto off),
latest.bin (use.latest.version), ids.txt (V1's id, then V2's).

Exits non-zero on the first failed check, printing it.
"""

import os
import struct
import sys

from confluent_kafka.schema_registry import Schema, SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer
from confluent_kafka.schema_registry.error import SchemaRegistryError
from confluent_kafka.serialization import MessageField, SerializationContext

RECORD = {"id": "p1", "cents": 1250, "currency": "EUR", "note": None}


def frame_id(frame):
    magic, schema_id = struct.unpack(">bI", frame[:5])
    assert magic == 0, magic
    return schema_id


def main():
    url, token, v1_path, v2_path, out_dir = sys.argv[1:6]
    with open(v1_path) as f:
        v1 = f.read()
    with open(v2_path) as f:
        v2 = f.read()
    auth = {"url": url, "basic.auth.user.info": "ci-user:" + token}
    ctx = SerializationContext("payments", MessageField.VALUE)

    sr = SchemaRegistryClient(auth)
    framed = AvroSerializer(sr, v1, conf={"auto.register.schemas": True})(RECORD, ctx)
    v1_id = frame_id(framed)
    registered = sr.get_latest_version("payments-value")
    assert registered.schema_id == v1_id, (registered.schema_id, v1_id)
    assert registered.version == 1, registered.version
    assert registered.schema.schema_type == "AVRO", registered.schema.schema_type
    print(f"ok  auto.register.schemas: framed with schema id {v1_id}")

    # Off: the serializer looks the schema up under the subject.
    lookup_sr = SchemaRegistryClient(auth)
    lookup = AvroSerializer(lookup_sr, v1, conf={"auto.register.schemas": False})(RECORD, ctx)
    assert lookup == framed, "the lookup frames with the registered id"
    other = SerializationContext("unregistered", MessageField.VALUE)
    try:
        AvroSerializer(lookup_sr, v1, conf={"auto.register.schemas": False})(RECORD, other)
        raise AssertionError("a subject nobody registered was served")
    except SchemaRegistryError as err:
        assert err.error_code == 40401, (err.error_code, err.error_message)
    print("ok  auto.register.schemas off: looked up, and 40401 for an unregistered subject")

    # The next version, registered by the client; the serializer, given
    # only V1, writes with the latest (V2 fills the new field's default).
    v2_id = sr.register_schema("payments-value", Schema(v2, "AVRO"))
    assert v2_id != v1_id, (v1_id, v2_id)
    latest_sr = SchemaRegistryClient(auth)
    latest = AvroSerializer(
        latest_sr, v1, conf={"auto.register.schemas": False, "use.latest.version": True}
    )(RECORD, ctx)
    assert frame_id(latest) == v2_id, (frame_id(latest), v2_id)
    print(f"ok  use.latest.version: framed with schema id {v2_id}")

    # Confluent's deserializer reads every frame back through our server,
    # each with its writer's schema (by the frame's id).
    fresh = SchemaRegistryClient({"url": url})
    read = AvroDeserializer(fresh)
    assert read(framed, ctx) == RECORD, read(framed, ctx)
    assert read(lookup, ctx) == RECORD
    with_default = dict(RECORD, channel="web")
    assert read(latest, ctx) == with_default, read(latest, ctx)
    # And as V1's reader (the migration Avro defines): V2's field dropped.
    as_v1 = AvroDeserializer(fresh, v1)
    assert as_v1(latest, ctx) == RECORD, as_v1(latest, ctx)
    print("ok  AvroDeserializer reads the frames back")

    for name, data in [("v1.bin", framed), ("lookup.bin", lookup), ("latest.bin", latest)]:
        with open(os.path.join(out_dir, name), "wb") as f:
            f.write(data)
    with open(os.path.join(out_dir, "ids.txt"), "w") as f:
        f.write(f"{v1_id}\n{v2_id}\n")


if __name__ == "__main__":
    main()
