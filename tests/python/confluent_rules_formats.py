"""Confluent's own AvroSerializer/AvroDeserializer or
ProtobufSerializer/ProtobufDeserializer with rule execution (its CEL,
CEL_FIELD and JSONata executors) against a dataschema server, for
tests/server/confluent_rules_formats_python.rs.

    python confluent_rules_formats.py avro URL TOKEN OUT_FILE
    python confluent_rules_formats.py protobuf URL TOKEN OUT_FILE SET1 SET2

The test registered subject `contracts-avro-value` (or
`contracts-proto-value`) before: version 1 (`major_version` 1) with
WRITEREAD conditions, one of them on the fields the version's
`metadata.tags` tag; version 2 (`major_version` 2) with JSONata migration
rules, a condition and a CEL_FIELD masking transform on read. For
protobuf, SET1 and SET2 are serialized FileDescriptorSets of each
version's file (`contract.v1.proto`, `contract.v2.proto`, with their
imports), compiled by the test: the message classes are made from them
with protobuf's descriptor APIs (no protoc, no generated _pb2 module);
version 2's in a pool of its own, since both name their message
`acme.contracts.Contract`.

This script:

* serializes each of PAYLOADS with version 1 (`use.latest.with.metadata`
  major_version 1, so its rules run on write), recording the frame it
  wrote, or the rule that refused it and the frame it would have written
  (magic byte, id, [message indexes,] the body as fastavro or protobuf
  encodes it: checked equal to the serializer's output on every payload
  it accepted);
* reads every frame back with version 1's deserializer (its READ rules),
  recording what it returns or which rule refuses it;
* reads every accepted frame with a deserializer pinned to major version
  2, through the migration rules and version 2's masking, recording the
  value it returns and that value written with version 2's schema;
* serializes each of V2_PAYLOADS with version 2 and reads it back with
  the pinned deserializer (version 2's masking alone, no migration), and
  with one pinned to major version 1 (the DOWNGRADE rule, then version
  1's READ rules: the value, or the rule refusing it).

Writes one JSON document to OUT_FILE. Exits non-zero on a failed check.
"""

import io
import json
import struct
import sys

from confluent_kafka.serialization import MessageField, SerializationContext

from rules_common import attempt, registry, write

PAYLOADS = [
    {"id": "a1", "amount": 12.5, "email": "a@example.com", "lines": {"k": {"sku": "s1"}}},
    # A tagged field inside a record a map holds.
    {"id": "a0", "amount": 1.5, "lines": {"k": {"sku": ""}}},
    # No email: Avro's null branch reaches the rules, protobuf's unset
    # optional does not.
    {"id": "nomail", "amount": 1.0},
    {"id": "a2", "amount": -1.0},
    {"id": "a3", "amount": 0.0},
    {"id": "a4", "amount": 3.0, "email": ""},
    {"id": "soft", "amount": 2.0},
    {"id": "a6", "amount": 1e-9},
    {"id": "a7", "amount": 5.0, "email": "b@example.com"},
    {"id": "blocked", "amount": 4.0},
    # Refused by the rule on the field the version's metadata tags.
    {"id": "big", "amount": 2e6, "email": "c@example.com"},
    # Fails two rules: on write Confluent runs them in order, on read in
    # reverse order, so the writer and the reader name different rules.
    {"id": "blocked", "amount": -4.0},
]

V2_PAYLOADS = [
    {"id": "b1", "total": 7.5, "email": "d@example.com", "lines": {"j": {"sku": "s2"}}},
    {"id": "b2", "total": 1.0},
    {"id": "b3", "total": -2.0, "email": "e@example.com"},
    # Version 2 takes it; read as version 1 (the DOWNGRADE rule), version
    # 1's notBlocked refuses it: a reader's own rules run after migrating.
    {"id": "blocked", "total": 3.0},
]


class Avro:
    """Payloads as fastavro's dicts; a returned value as JSON and as its
    datum written with the reader's schema."""

    def __init__(self, sr, subject, v1, v2):
        from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer
        from fastavro import parse_schema

        self.parsed = {1: parse_schema(json.loads(v1.schema.schema_str)),
                       2: parse_schema(json.loads(v2.schema.schema_str))}
        self.writers = {
            n: AvroSerializer(sr, v.schema.schema_str,
                              conf={"auto.register.schemas": False,
                                    "use.latest.with.metadata": {"major_version": str(n)}})
            for n, v in ((1, v1), (2, v2))
        }
        self.readers = {
            n: AvroDeserializer(sr, conf={"use.latest.with.metadata": {"major_version": str(n)}})
            for n in (1, 2)
        }

    def message(self, payload, version):
        # A record's every field: the optional one null when absent.
        value = dict(payload)
        value.setdefault("email", None)
        value.setdefault("lines", {})
        return value

    def body(self, message, version):
        from fastavro import schemaless_writer

        out = io.BytesIO()
        schemaless_writer(out, self.parsed[version], message)
        return out.getvalue()

    def indexes(self):
        return b""

    def as_json(self, value, version):
        return value


class Protobuf:
    """Payloads as protobuf messages (ParseDict); a returned message as
    MessageToDict gives it and as its bytes."""

    def __init__(self, sr, subject, v1, v2, set_paths):
        from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
        # Confluent's meta.proto in the default pool, as the serializer has it.
        import confluent_kafka.schema_registry.confluent.meta_pb2  # noqa: F401
        from confluent_kafka.schema_registry.protobuf import ProtobufDeserializer, ProtobufSerializer

        pools = {1: descriptor_pool.Default(), 2: descriptor_pool.DescriptorPool()}
        for n, pool in pools.items():
            files = descriptor_pb2.FileDescriptorSet()
            with open(set_paths[n - 1], "rb") as f:
                files.ParseFromString(f.read())
            for file in files.file:
                try:
                    pool.FindFileByName(file.name)
                except KeyError:
                    pool.Add(file)
        self.classes = {
            n: message_factory.GetMessageClass(pool.FindMessageTypeByName("acme.contracts.Contract"))
            for n, pool in pools.items()
        }
        self.writers = {
            n: ProtobufSerializer(self.classes[n], sr,
                                  {"auto.register.schemas": False,
                                   "use.latest.with.metadata": {"major_version": str(n)}})
            for n in (1, 2)
        }
        self.readers = {
            n: ProtobufDeserializer(self.classes[n],
                                    {"use.latest.with.metadata": {"major_version": str(n)}},
                                    schema_registry_client=sr)
            for n in (1, 2)
        }

    def message(self, payload, version):
        from google.protobuf import json_format

        return json_format.ParseDict(payload, self.classes[version]())

    def body(self, message, version):
        return message.SerializeToString()

    def indexes(self):
        # Message indexes [0]: the single byte 0.
        return b"\x00"

    def as_json(self, message, version):
        from google.protobuf import json_format

        return json_format.MessageToDict(message)


def main():
    fmt, url, token, out_file = sys.argv[1:5]
    sr = registry(url, token)
    topic = "contracts-avro" if fmt == "avro" else "contracts-proto"
    subject = topic + "-value"
    ctx = SerializationContext(topic, MessageField.VALUE)
    v1 = sr.get_latest_with_metadata(subject, {"major_version": "1"})
    v2 = sr.get_latest_with_metadata(subject, {"major_version": "2"})
    codec = Avro(sr, subject, v1, v2) if fmt == "avro" else Protobuf(sr, subject, v1, v2, sys.argv[5:7])

    def frame_of(message, version):
        schema_id = (v1 if version == 1 else v2).schema_id
        return struct.pack(">bI", 0, schema_id) + codec.indexes() + codec.body(message, version)

    def written_with(version, payload):
        """The entry of `payload` written with `version`: the frame, or
        the refusal and the frame it would have written; then read back
        by `version`'s reader."""
        would = frame_of(codec.message(payload, version), version)
        frame, refused = write(codec.writers[version], codec.message(payload, version), would, ctx)
        entry = {"payload": payload, "refused_on_write": refused, "frame_hex": frame.hex()}
        read, entry["refused_on_read"] = attempt(lambda: codec.readers[version](frame, ctx))
        entry[f"read_v{version}"] = None
        if read is not None:
            entry[f"read_v{version}"] = codec.as_json(read, version)
            entry[f"read_v{version}_hex"] = codec.body(read, version).hex()
        return frame, entry

    written = []
    for payload in PAYLOADS:
        frame, entry = written_with(1, payload)
        if entry["refused_on_write"] is None:
            read = codec.readers[2](frame, ctx)
            entry["read_v2"] = codec.as_json(read, 2)
            entry["read_v2_hex"] = codec.body(read, 2).hex()
        written.append(entry)
        print(
            f"ok  v1 {json.dumps(payload)}: write {entry['refused_on_write'] or 'accepted'}, "
            f"read {entry['refused_on_read'] or 'accepted'}"
            + (f", as v2 {json.dumps(entry['read_v2'])}" if "read_v2" in entry else "")
        )

    written_v2 = []
    for payload in V2_PAYLOADS:
        frame, entry = written_with(2, payload)
        if entry["refused_on_write"] is None:
            # Read by a consumer pinned to major version 1: the DOWNGRADE
            # rule, then version 1's READ rules.
            read, entry["refused_as_v1"] = attempt(lambda: codec.readers[1](frame, ctx))
            if read is not None:
                entry["read_v1"] = codec.as_json(read, 1)
                entry["read_v1_hex"] = codec.body(read, 1).hex()
        written_v2.append(entry)
        print(
            f"ok  v2 {json.dumps(payload)}: write {entry['refused_on_write'] or 'accepted'}, "
            f"read {entry['refused_on_read'] or json.dumps(entry['read_v2'])}"
            + (f", as v1 {entry['refused_as_v1'] or json.dumps(entry['read_v1'])}"
               if "refused_as_v1" in entry else "")
        )

    refused = [e for e in written if e["refused_on_write"]]
    accepted = [e for e in written if not e["refused_on_write"]]
    assert refused and accepted, "the payloads must exercise both verdicts"
    with open(out_file, "w") as out:
        json.dump({"v1_id": v1.schema_id, "v2_id": v2.schema_id,
                   "written": written, "written_v2": written_v2}, out)


if __name__ == "__main__":
    main()
