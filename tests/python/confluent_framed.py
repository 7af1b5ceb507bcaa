"""Frames payloads with Confluent's own JSONSerializer against a dataschema
server (its Confluent API), for tests/server/confluent_framed.rs.

    python confluent_framed.py URL TOKEN OUT_DIR

Registers the schema under subject `orders-value` (auto.register.schemas,
topic `orders`), and writes to OUT_DIR:

* valid.bin: a conforming record, serialized with validation on;
* invalid.bin: a record that does not conform, serialized with
  `validate: False` (the serializer's own check refused it first: checked);
* id.txt: the schema id the serializer framed.

Exits non-zero on the first failed check, printing it.
"""

import json
import os
import struct
import sys

from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.json_schema import JSONDeserializer, JSONSerializer
from confluent_kafka.serialization import MessageField, SerializationContext, SerializationError

SCHEMA = json.dumps(
    {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "title": "Order",
        "type": "object",
        "properties": {
            "id": {"type": "string", "pattern": "^ord_"},
            "amount": {"type": "number", "exclusiveMinimum": 0},
        },
        "required": ["id", "amount"],
    }
)
VALID = {"id": "ord_1", "amount": 12.5}
INVALID = {"id": 42, "amount": -1}


def main():
    url, token, out_dir = sys.argv[1:4]
    sr = SchemaRegistryClient({"url": url, "basic.auth.user.info": "ci-user:" + token})
    ctx = SerializationContext("orders", MessageField.VALUE)
    checked = JSONSerializer(SCHEMA, sr, conf={"auto.register.schemas": True})
    valid = checked(VALID, ctx)

    try:
        checked(INVALID, ctx)
    except SerializationError as err:
        print(f"ok  the serializer refuses the invalid record itself: {str(err)[:80]}")
    else:
        raise AssertionError("JSONSerializer accepted an invalid record with validation on")

    unchecked = JSONSerializer(SCHEMA, sr, conf={"auto.register.schemas": True, "validate": False})
    invalid = unchecked(INVALID, ctx)

    magic, schema_id = struct.unpack(">bI", valid[:5])
    assert magic == 0, magic
    assert invalid[:5] == valid[:5], "one schema, one id"
    assert json.loads(valid[5:]) == VALID
    assert json.loads(invalid[5:]) == INVALID
    registered = sr.get_latest_version("orders-value")
    assert registered.schema_id == schema_id, (registered.schema_id, schema_id)
    print(f"ok  framed with schema id {schema_id} (subject orders-value v{registered.version})")

    # Confluent's deserializer reads the valid frame back through our server.
    fresh = SchemaRegistryClient({"url": url})
    assert JSONDeserializer(None, schema_registry_client=fresh)(valid, ctx) == VALID
    print("ok  JSONDeserializer reads the frame back")

    for name, data in [("valid.bin", valid), ("invalid.bin", invalid)]:
        with open(os.path.join(out_dir, name), "wb") as f:
            f.write(data)
    with open(os.path.join(out_dir, "id.txt"), "w") as f:
        f.write(str(schema_id))


if __name__ == "__main__":
    main()
