"""The cost of a CEL condition in Confluent's own Python client, for
BENCHMARKS.md beside `cargo bench --bench rules` (issue 40): the same
rule (`message.items.all(i, i.quantity > 0)`), the same schema
(`schemas/orders.created.v1.json`) and payload
(`tests/data/payloads/order_valid.json`) as `rules/guard_cel`.

    python benches/rules_python.py [ITERATIONS]   # run by benches/rules_vs_python.sh

Confluent's `JSONDeserializer` (confluent-kafka 2.16.1 with its `rules`
extra: cel-python) reads the frame of a version without rules and of one
carrying the rule (its reader runs the writer's READ/WRITEREAD rules),
over its in-memory `MockSchemaRegistryClient` (no network in the loop).
Prints one line per case, the best of 5 rounds in microseconds per
payload, and the rule's own cost (the difference).
"""

import json
import os
import struct
import sys
import time

from confluent_kafka.schema_registry import RuleSet, Schema
from confluent_kafka.schema_registry._sync.mock_schema_registry_client import MockSchemaRegistryClient
from confluent_kafka.schema_registry.json_schema import JSONDeserializer
from confluent_kafka.schema_registry.rules.cel.cel_executor import CelExecutor
from confluent_kafka.serialization import MessageField, SerializationContext

EXPR = "message.items.all(i, i.quantity > 0)"
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def best_us(call, frame, ctx, iterations):
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(iterations):
            call(frame, ctx)
        best = min(best, (time.perf_counter() - start) / iterations)
    return best * 1e6


def main():
    iterations = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    CelExecutor.register()
    with open(os.path.join(ROOT, "schemas/orders.created.v1.json")) as f:
        schema = f.read()
    with open(os.path.join(ROOT, "tests/data/payloads/order_valid.json"), "rb") as f:
        payload = f.read()
    client = MockSchemaRegistryClient({"url": "mock://rules-bench"})
    rules = RuleSet.from_dict(
        {
            "domainRules": [
                {"name": "positiveQuantities", "kind": "CONDITION", "type": "CEL", "mode": "WRITEREAD", "expr": EXPR}
            ]
        }
    )
    bare_id = client.register_schema("bare-value", Schema(schema, "JSON"))
    ruled_id = client.register_schema("ruled-value", Schema(schema, "JSON", rule_set=rules))
    reader = JSONDeserializer(None, schema_registry_client=client)
    cases = {}
    for name, topic, schema_id in [("deserialize", "bare", bare_id), ("deserialize_cel", "ruled", ruled_id)]:
        frame = struct.pack(">bI", 0, schema_id) + payload
        ctx = SerializationContext(topic, MessageField.VALUE)
        reader(frame, ctx)  # warm: the schema fetched, the rule compiled
        cases[name] = best_us(reader, frame, ctx, iterations)
        print(f"python/{name}: {cases[name]:.1f} us")
    # The rule runs: a payload it fails is refused.
    bad = json.loads(payload)
    bad["items"][0]["quantity"] = 0
    frame = struct.pack(">bI", 0, ruled_id) + json.dumps(bad).encode()
    try:
        reader(frame, SerializationContext("ruled", MessageField.VALUE))
    except Exception as err:
        assert EXPR in str(err.__cause__), repr(err.__cause__)
    else:
        raise AssertionError("the CEL rule did not refuse a zero quantity")
    print(f"python/cel_rule (deserialize_cel - deserialize): {cases['deserialize_cel'] - cases['deserialize']:.1f} us")


if __name__ == "__main__":
    main()
