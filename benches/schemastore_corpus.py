#!/usr/bin/env python3
"""A JSON corpus from a SchemaStore checkout, in the layout of
`tests/data/json_corpus` (`schemas/<name>.json`, `instances/<name>.json`
with `{"valid": [...], "invalid": [...]}`), for `benches/json_schemastore.rs`
and `JSON_CORPUS_DIR`:

    python3 benches/schemastore_corpus.py <schemastore checkout> <out dir>

Every schema of `src/schemas/json/` with test instances (`src/test/<name>/`
valid, `src/negative_test/<name>/` invalid: JSON, YAML or TOML, read as
SchemaStore's own test runner reads them; a file that does not read is left
out). SchemaStore is Apache-2.0 (`tests/data/json_corpus/licenses/
LICENSE.schemastore`); a schema may carry its own project's licence, which
is why the generated corpus stays out of the repository.
"""

import datetime
import json
import os
import sys
import tomllib

import yaml


def plain(value):
    """A YAML or TOML value as JSON has it (dates as their ISO text)."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, (datetime.date, datetime.datetime, datetime.time)):
        return value.isoformat()
    return value


def read(path):
    with open(path, "rb") as f:
        text = f.read()
    ext = path.rsplit(".", 1)[-1]
    if ext == "json":
        return [json.loads(text)]
    if ext in ("yaml", "yml"):
        return [plain(doc) for doc in yaml.safe_load_all(text.decode("utf-8")) if doc is not None]
    if ext == "toml":
        return [plain(tomllib.loads(text.decode("utf-8")))]
    raise ValueError(ext)


def instances(folder):
    found = []
    if not os.path.isdir(folder):
        return found
    for name in sorted(os.listdir(folder)):
        try:
            found.extend(read(os.path.join(folder, name)))
        except Exception as err:  # noqa: BLE001 - a test file that does not read is left out
            print(f"skipped {folder}/{name}: {err}", file=sys.stderr)
    return found


def main(checkout, out):
    src = os.path.join(checkout, "src")
    os.makedirs(os.path.join(out, "schemas"), exist_ok=True)
    os.makedirs(os.path.join(out, "instances"), exist_ok=True)
    written = 0
    for name in sorted(os.listdir(os.path.join(src, "test"))):
        schema = os.path.join(src, "schemas", "json", name + ".json")
        if not os.path.isfile(schema):
            continue
        valid = instances(os.path.join(src, "test", name))
        invalid = instances(os.path.join(src, "negative_test", name))
        if not valid and not invalid:
            continue
        try:
            with open(schema, "rb") as f:
                json.loads(f.read())
        except Exception as err:  # noqa: BLE001
            print(f"skipped schema {name}: {err}", file=sys.stderr)
            continue
        with open(schema, "rb") as f, open(os.path.join(out, "schemas", name + ".json"), "wb") as g:
            g.write(f.read())
        with open(os.path.join(out, "instances", name + ".json"), "w") as g:
            json.dump({"valid": valid, "invalid": invalid}, g)
        written += 1
    print(f"{written} schemas written to {out}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
