"""A pytest plugin: the peer suite's expected failures, each with its reason.

Reads the list $DATASCHEMA_PEER_EXPECTED names (one test a line: its node id,
white space, the reason; `#` starts a comment line) and marks each listed test
`xfail(strict=True)`: a listed test that passes fails the run, so the list
stays true. A listed test the suite does not have is a usage error.
"""

import os

import pytest


def _load(path):
    entries = {}
    with open(path, encoding="utf-8") as fd:
        for number, line in enumerate(fd, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            parts = line.split(None, 1)
            if len(parts) != 2:
                raise pytest.UsageError(f"{path}:{number}: a test id and its reason expected")
            node, reason = parts
            if node in entries:
                raise pytest.UsageError(f"{path}:{number}: {node} is listed twice")
            entries[node] = reason
    return entries


def pytest_collection_modifyitems(session, config, items):
    path = os.environ.get("DATASCHEMA_PEER_EXPECTED")
    if not path:
        raise pytest.UsageError("DATASCHEMA_PEER_EXPECTED names no expected-failure list")
    entries = _load(path)
    seen = set()
    for item in items:
        reason = entries.get(item.nodeid)
        if reason is not None:
            item.add_marker(pytest.mark.xfail(reason=reason, strict=True))
            seen.add(item.nodeid)
    # Only a whole run checks that every entry names a collected test.
    if not config.args or config.args == ["tests/integration/schema_registry"]:
        missing = sorted(set(entries) - seen)
        if missing:
            raise pytest.UsageError(
                "expected failures the suite does not have (remove them): " + ", ".join(missing)
            )
