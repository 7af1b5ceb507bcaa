"""Reads back, with Confluent's own Python deserializers, frames that
`dataschema::Framer` wrote, for tests/framer/confluent_python.rs.

    python framer_readback.py URL DIR

DIR holds json.bin, avro.bin and protobuf.bin (frames of a JSON Schema, an
Avro and a protobuf schema that a dataschema server at URL holds under the
ids the frames carry) and protobuf.set (the protobuf schema's serialized
FileDescriptorSet, for the message class: no protoc, no _pb2 module).
Each frame is deserialized by a fresh client (the writer schema fetched
by id from the server's Confluent API); the decoded values are printed as
one JSON object {"json": ..., "avro": ..., "protobuf": ...} on the last
line, for the test to compare with what was framed.
"""

import json
import os
import sys

from google.protobuf import json_format

from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroDeserializer
from confluent_kafka.schema_registry.json_schema import JSONDeserializer
from confluent_kafka.schema_registry.protobuf import ProtobufDeserializer
from confluent_kafka.serialization import MessageField, SerializationContext

# The script beside this one (Python puts this script's folder on the path).
from confluent_protobuf import message_classes


def read(directory, name):
    with open(os.path.join(directory, name), "rb") as f:
        return f.read()


def main():
    url, directory = sys.argv[1:3]
    ctx = SerializationContext("events", MessageField.VALUE)
    decoded = {}

    # No schema of the reader's own: the writer's, by the frame's id.
    sr = SchemaRegistryClient({"url": url})
    decoded["json"] = JSONDeserializer(None, schema_registry_client=sr)(read(directory, "json.bin"), ctx)
    print("ok  JSONDeserializer")

    sr = SchemaRegistryClient({"url": url})
    decoded["avro"] = AvroDeserializer(sr)(read(directory, "avro.bin"), ctx)
    print("ok  AvroDeserializer")

    (Tock,) = message_classes(os.path.join(directory, "protobuf.set"), "acme.ticks.v1.Tock")
    sr = SchemaRegistryClient({"url": url})
    message = ProtobufDeserializer(Tock, {"use.deprecated.format": False}, sr)(
        read(directory, "protobuf.bin"), ctx
    )
    decoded["protobuf"] = json_format.MessageToDict(message, preserving_proto_field_name=True)
    print("ok  ProtobufDeserializer")

    print(json.dumps(decoded, default=str, sort_keys=True))


if __name__ == "__main__":
    main()
