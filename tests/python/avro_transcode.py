"""Reads lines {"writer": ..., "reader": ..., "seed": n} on standard input
and writes, per line, a random datum of the writer's schema written by
fastavro (schemaless_writer) and what fastavro makes of it read as the
reader's schema and written again: schemaless_reader(writer, reader) then
schemaless_writer(reader), both hex, and that read back as the writer's
schema (schemaless_reader(reader, writer) then schemaless_writer(writer))
when fastavro can (tests/compat/avro_python.rs)."""
import io
import json
import random
import sys

from fastavro import parse_schema, schemaless_reader, schemaless_writer


def datum(schema, rnd, depth=0):
    if isinstance(schema, list):
        return datum(schema[rnd.randrange(len(schema))], rnd, depth + 1)
    if isinstance(schema, dict):
        kind = schema["type"]
        if kind == "record":
            return {f["name"]: datum(f["type"], rnd, depth + 1) for f in schema["fields"]}
        if kind == "enum":
            return rnd.choice(schema["symbols"])
        if kind == "fixed":
            return bytes(rnd.randrange(256) for _ in range(schema["size"]))
        if kind == "array":
            return [datum(schema["items"], rnd, depth + 1) for _ in range(rnd.randrange(4))]
        if kind == "map":
            return {f"k{i}": datum(schema["values"], rnd, depth + 1) for i in range(rnd.randrange(4))}
        return datum(kind, rnd, depth)
    if schema == "null":
        return None
    if schema == "boolean":
        return rnd.random() < 0.5
    if schema == "int":
        return rnd.choice([0, 1, -1, rnd.randint(-2**31, 2**31 - 1), rnd.randint(-300, 300)])
    if schema == "long":
        return rnd.choice([0, -5, rnd.randint(-2**63, 2**63 - 1), rnd.randint(-2**40, 2**40)])
    if schema in ("float", "double"):
        return rnd.randint(-4000, 4000) / 8
    if schema == "string":
        return "".join(rnd.choice("abcxyzé") for _ in range(rnd.randrange(5)))
    if schema == "bytes":
        return bytes(rnd.randrange(97, 123) for _ in range(rnd.randrange(5)))
    raise ValueError(schema)


for line in sys.stdin:
    case = json.loads(line)
    rnd = random.Random(case["seed"])
    try:
        writer = parse_schema(case["writer"], _write_hint=False)
        reader = parse_schema(case["reader"], _write_hint=False)
        out = io.BytesIO()
        schemaless_writer(out, writer, datum(case["writer"], rnd))
        written = out.getvalue()
    except Exception as err:
        print(json.dumps({"error": "write: " + str(err)[:200]}))
        continue
    try:
        value = schemaless_reader(io.BytesIO(written), writer, reader)
        again = io.BytesIO()
        schemaless_writer(again, reader, value)
        answer = {"input": written.hex(), "output": again.getvalue().hex()}
        # Written back: the reader's datum read as the writer's schema.
        try:
            back_value = schemaless_reader(io.BytesIO(again.getvalue()), reader, writer)
            back = io.BytesIO()
            schemaless_writer(back, writer, back_value)
            answer["back"] = back.getvalue().hex()
        except Exception:
            pass
        print(json.dumps(answer))
    except Exception as err:
        print(json.dumps({"input": written.hex(), "error": "read: " + str(err)[:200]}))
