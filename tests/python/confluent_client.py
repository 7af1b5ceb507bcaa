"""Drives a dataschema server with Confluent's own Python client.

    python confluent_client.py URL TOKEN before STATE_FILE
    python confluent_client.py URL TOKEN after STATE_FILE

`before` registers, reads and checks everything, then writes the ids it
saw to STATE_FILE; `after` (run against the same store after a restart)
checks that those ids and versions still resolve to the same schemas.
Needs `confluent-kafka[schemaregistry,json]`. Exits non-zero on the first
failed check, printing it.
"""

import json
import sys

from confluent_kafka.schema_registry import Schema, SchemaRegistryClient
from confluent_kafka.schema_registry.error import SchemaRegistryError

V1 = json.dumps({"type": "object", "properties": {"id": {"type": "string"}}})
V2 = json.dumps(
    {"type": "object", "properties": {"id": {"type": "string"}}, "description": "v2"}
)
NARROWED = json.dumps({"type": "object", "properties": {"id": {"type": "integer"}}})


def canonical(text):
    """The form the server stores and answers: Confluent's canonical JSON
    (compact, keys in their order)."""
    return json.dumps(json.loads(text), separators=(",", ":"))


def client(url, token, password=None):
    # A fresh client each time: its caches must not answer for the server.
    return SchemaRegistryClient(
        {"url": url, "basic.auth.user.info": "ci-user:" + (password or token)}
    )


def expect_error(what, code, status, call):
    try:
        call()
    except SchemaRegistryError as err:
        assert err.error_code == code, f"{what}: code {err.error_code}, wanted {code}: {err}"
        assert (
            err.http_status_code == status
        ), f"{what}: HTTP {err.http_status_code}, wanted {status}: {err}"
        print(f"ok  {what}: {code} ({err.error_message[:80]})")
        return
    raise AssertionError(f"{what}: no error, wanted {code}")


def before(url, token, state_file):
    sr = client(url, token)
    assert sr.get_subjects() == [], sr.get_subjects()

    id1 = sr.register_schema("orders-value", Schema(V1, "JSON"))
    again = client(url, token).register_schema("orders-value", Schema(V1, "JSON"))
    assert again == id1, (again, id1)
    other = client(url, token).register_schema("payments-value", Schema(V1, "JSON"))
    assert other == id1, "the same schema under two subjects has one id"
    print(f"ok  register: id {id1}, same schema same id")

    fetched = client(url, token).get_schema(id1)
    assert fetched.schema_str == canonical(V1), fetched.schema_str
    assert fetched.schema_type == "JSON", fetched.schema_type
    print("ok  get_schema by id")

    id2 = sr.register_schema("orders-value", Schema(V2, "JSON"))
    assert id2 != id1
    fresh = client(url, token)
    latest = fresh.get_latest_version("orders-value")
    assert latest.version == 2 and latest.schema_id == id2, latest
    assert latest.schema.schema_str == canonical(V2)
    print("ok  get_latest_version")
    assert fresh.get_versions("orders-value") == [1, 2]
    v1 = fresh.get_version("orders-value", 1)
    assert v1.schema_id == id1 and v1.schema.schema_str == canonical(V1), v1
    print("ok  get_versions, get_version")
    assert sorted(fresh.get_subjects()) == ["orders-value", "payments-value"]
    print("ok  get_subjects")

    found = fresh.lookup_schema("orders-value", Schema(V1, "JSON"))
    assert found.version == 1 and found.schema_id == id1, found
    print("ok  lookup_schema")

    assert fresh.test_compatibility("orders-value", Schema(V2, "JSON")) is True
    assert fresh.test_compatibility("orders-value", Schema(NARROWED, "JSON")) is False
    assert fresh.test_compatibility("orders-value", Schema(NARROWED, "JSON"), version=1) is False
    assert fresh.test_compatibility_all_versions("orders-value", Schema(V2, "JSON")) is True
    print("ok  test_compatibility")

    assert fresh.get_compatibility() == "BACKWARD"
    fresh.set_compatibility(level="FULL")
    assert fresh.get_compatibility() == "FULL"
    fresh.set_compatibility(level="BACKWARD")
    fresh.set_compatibility("payments-value", "NONE")
    assert fresh.get_compatibility("payments-value") == "NONE"
    print("ok  set_compatibility, get_compatibility")

    expect_error(
        "incompatible register",
        40901,
        409,
        lambda: fresh.register_schema("orders-value", Schema(NARROWED, "JSON")),
    )
    expect_error("unknown version", 40402, 404, lambda: fresh.get_version("orders-value", 9))
    expect_error("unknown subject", 40401, 404, lambda: fresh.get_latest_version("nothing"))
    expect_error("unknown id", 40403, 404, lambda: fresh.get_schema(99999))
    expect_error(
        "lookup of an unknown schema",
        40403,
        404,
        lambda: fresh.lookup_schema("orders-value", Schema(NARROWED, "JSON")),
    )
    expect_error(
        "Avro under a JSON Schema subject",
        40901,
        409,
        lambda: fresh.register_schema("orders-value", Schema('{"type": "string"}', "AVRO")),
    )
    expect_error(
        "invalid subject",
        42208,
        422,
        lambda: fresh.register_schema("orders\u0001value", Schema(V1, "JSON")),
    )
    expect_error(
        "permanent delete of a subject",
        42205,
        422,
        lambda: fresh.delete_subject("orders-value", permanent=True),
    )
    expect_error(
        "permanent delete of a version",
        42205,
        422,
        lambda: fresh.delete_version("orders-value", 1, permanent=True),
    )
    # A soft delete hides the version from its subject; its id still resolves.
    assert fresh.delete_version("payments-value", 1) == 1
    assert fresh.get_schema(id1).schema_str == canonical(V1)
    print("ok  soft delete: the version hidden, its id resolves")
    expect_error(
        "wrong password",
        40101,
        401,
        lambda: client(url, token, "wrong").register_schema("x", Schema(V1, "JSON")),
    )

    with open(state_file, "w") as f:
        json.dump({"id1": id1, "id2": id2}, f)
    print("before: all checks passed")


def after(url, token, state_file):
    with open(state_file) as f:
        state = json.load(f)
    sr = client(url, token)
    assert sr.get_schema(state["id1"]).schema_str == canonical(V1)
    assert sr.get_schema(state["id2"]).schema_str == canonical(V2)
    latest = sr.get_latest_version("orders-value")
    assert latest.version == 2 and latest.schema_id == state["id2"], latest
    assert sr.register_schema("orders-value", Schema(V1, "JSON")) == state["id1"]
    assert sr.get_compatibility("payments-value") == "NONE"
    print("after: ids, versions and config survived the restart")


def main():
    url, token, phase, state_file = sys.argv[1:5]
    {"before": before, "after": after}[phase](url, token, state_file)


if __name__ == "__main__":
    main()
