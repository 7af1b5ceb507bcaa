"""Confluent's own JSONSerializer and JSONDeserializer with rule execution
(its CEL, CEL_FIELD and JSONata executors) against a dataschema server,
for tests/server/confluent_rules_python.rs.

    python confluent_rules.py URL TOKEN OUT_FILE

The test registered subject `contracts-value` before: version 1
(`major_version` 1) with WRITEREAD conditions, version 2 (`major_version`
2) with JSONata migration rules. This script:

* serializes each of PAYLOADS with version 1 (`use.latest.with.metadata`
  major_version 1, so its rules run on write), recording the frame it
  wrote, or the rule that refused it and the frame it would have written
  (magic byte, id, the serializer's own JSON encoding: checked equal to
  its output on every payload it accepted);
* reads every frame back with version 1's deserializer (its READ rules),
  recording what it returns or which rule refuses it;
* reads every accepted frame with a deserializer pinned to major version 2
  (`use.latest.with.metadata`), through the migration rules, recording the
  object it returns.

Writes one JSON document to OUT_FILE. Exits non-zero on a failed check.
"""

import json
import struct
import sys

from confluent_kafka.schema_registry.json_schema import JSONDeserializer, JSONSerializer
from confluent_kafka.serialization import MessageField, SerializationContext

from rules_common import attempt, registry, write

PAYLOADS = [
    {"id": "a1", "amount": 12.5, "email": "a@example.com"},
    {"id": "a2", "amount": -1},
    {"id": "a3", "amount": 0},
    {"id": "a4", "amount": 3, "email": ""},
    {"id": "soft", "amount": 2},
    {"id": "a6", "amount": 1e-9},
    {"id": "a7", "amount": 5, "email": "b@example.com"},
    {"id": "blocked", "amount": 4},
    # Fails two rules: on write Confluent runs them in order, on read in
    # reverse order, so the writer and the reader name different rules.
    {"id": "blocked", "amount": -4},
]


def main():
    url, token, out_file = sys.argv[1:4]
    sr = registry(url, token)
    ctx = SerializationContext("contracts", MessageField.VALUE)
    v1 = sr.get_latest_with_metadata("contracts-value", {"major_version": "1"})
    writer = JSONSerializer(
        v1.schema.schema_str,
        sr,
        conf={"auto.register.schemas": False, "use.latest.with.metadata": {"major_version": "1"}},
    )
    reader_v1 = JSONDeserializer(
        None, schema_registry_client=sr, conf={"use.latest.with.metadata": {"major_version": "1"}}
    )
    reader_v2 = JSONDeserializer(
        None, schema_registry_client=sr, conf={"use.latest.with.metadata": {"major_version": "2"}}
    )
    header = struct.pack(">bI", 0, v1.schema_id)

    written = []
    for payload in PAYLOADS:
        # What the serializer writes after the header: its JSON encoding
        # (compact, as confluent_kafka's `_json_dumps` without orjson).
        would = header + json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode("utf8")
        frame, refused_on_write = write(writer, payload, would, ctx)
        entry = {"payload": payload, "refused_on_write": refused_on_write, "frame_hex": frame.hex()}
        entry["read_v1"], entry["refused_on_read"] = attempt(lambda: reader_v1(frame, ctx))
        if entry["refused_on_write"] is None:
            entry["read_v2"] = reader_v2(frame, ctx)
        written.append(entry)
        print(
            f"ok  {json.dumps(payload)}: write {entry['refused_on_write'] or 'accepted'}, "
            f"read {entry['refused_on_read'] or 'accepted'}"
            + (f", as v2 {json.dumps(entry['read_v2'])}" if "read_v2" in entry else "")
        )

    refused = [e for e in written if e["refused_on_write"]]
    accepted = [e for e in written if not e["refused_on_write"]]
    assert refused and accepted, "the payloads must exercise both verdicts"
    with open(out_file, "w") as out:
        json.dump({"v1_id": v1.schema_id, "written": written}, out)


if __name__ == "__main__":
    main()
