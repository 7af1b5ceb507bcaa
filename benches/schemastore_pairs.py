#!/usr/bin/env python3
"""Successive releases of SchemaStore schemas, as version pairs for
`benches/resolution.rs` (`DATASCHEMA_RESOLVE_PAIRS`):

    python3 benches/schemastore_pairs.py <schemastore checkout> <out dir>

SchemaStore keeps some schemas once per release, the version in the file's
name (`aurora-1.2.json`, `kestra-0.18.1.json`, `traefik-v2.json`). For each
such family, every release that has test instances (`src/test/<name>/`) is
paired with the next release: `<out>/<family>-<writer>-to-<reader>/` holds
`writer.json`, `reader.json` and `instances.json` (the writer's test
instances, a JSON array, read as `benches/schemastore_corpus.py` reads
them). The bench makes the plan of each pair and reads every instance the
writer's schema accepts as the reader; pairs the plan refuses are counted
and named, not timed. SchemaStore is Apache-2.0; a schema may carry its own
project's licence, which is why the pairs stay out of the repository.
"""

import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from schemastore_corpus import instances  # noqa: E402

RELEASE = re.compile(r"^(.*?)-v?(\d+(?:\.\d+)*)(-preview)?$")


def release(name):
    return tuple(int(part) for part in RELEASE.match(name).group(2).split("."))


def main(checkout, out):
    src = os.path.join(checkout, "src")
    families = {}
    for file in os.listdir(os.path.join(src, "schemas", "json")):
        if not file.endswith(".json"):
            continue
        name = file[: -len(".json")]
        match = RELEASE.match(name)
        if match:
            families.setdefault(match.group(1), []).append(name)
    written = 0
    for family, names in sorted(families.items()):
        names.sort(key=release)
        for writer, reader in zip(names, names[1:]):
            found = instances(os.path.join(src, "test", writer))
            if not found:
                continue
            schemas = []
            for name in (writer, reader):
                with open(os.path.join(src, "schemas", "json", name + ".json"), "rb") as f:
                    text = f.read()
                try:
                    json.loads(text)
                except Exception as err:  # noqa: BLE001 - a schema that does not read is left out
                    print(f"skipped {name}: {err}", file=sys.stderr)
                    break
                schemas.append(text)
            if len(schemas) != 2:
                continue
            folder = os.path.join(out, f"{writer}-to-{release_text(reader)}")
            os.makedirs(folder, exist_ok=True)
            for file, text in zip(("writer.json", "reader.json"), schemas):
                with open(os.path.join(folder, file), "wb") as f:
                    f.write(text)
            with open(os.path.join(folder, "instances.json"), "w") as f:
                json.dump(found, f)
            written += 1
    print(f"{written} pairs written to {out}", file=sys.stderr)


def release_text(name):
    return ".".join(str(part) for part in release(name))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
