"""Reads schema pairs (JSON lines: {"writer": ..., "reader": ...}) on
standard input and writes, per line, PyPI avro's verdict of
ReaderWriterCompatibilityChecker().get_compatibility(reader, writer): the
verdict and the incompatibility types (tests/compat/avro_python.rs)."""
import json
import sys

from avro.compatibility import ReaderWriterCompatibilityChecker, SchemaCompatibilityType
from avro.schema import parse

for line in sys.stdin:
    pair = json.loads(line)
    try:
        writer = parse(json.dumps(pair["writer"]))
        reader = parse(json.dumps(pair["reader"]))
    except Exception as err:  # a schema avro refuses
        print(json.dumps({"error": str(err)[:200]}))
        continue
    result = ReaderWriterCompatibilityChecker().get_compatibility(reader, writer)
    print(json.dumps({
        "compatible": result.compatibility is SchemaCompatibilityType.compatible,
        "kinds": sorted({kind.name.upper() for kind in result.incompatibilities}),
    }))
