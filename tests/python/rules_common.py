"""What confluent_rules.py and confluent_rules_formats.py share: a
registry client with Confluent's rule executors registered, and writing
or reading a frame with the refusal recorded in Confluent's words."""

from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.rules.cel.cel_executor import CelExecutor
from confluent_kafka.schema_registry.rules.cel.cel_field_executor import CelFieldExecutor
from confluent_kafka.schema_registry.rules.jsonata.jsonata_executor import JsonataExecutor


def registry(url, token):
    """A client of the server at URL (the token as Basic auth's
    password), with the CEL, CEL_FIELD and JSONata executors registered."""
    CelExecutor.register()
    CelFieldExecutor.register()
    JsonataExecutor.register()
    return SchemaRegistryClient({"url": url, "basic.auth.user.info": "ci-user:" + token})


def refusal(err):
    """The refusal's words, its causes' too: Confluent's
    RuleConditionError says the rule's doc, else `Rule expr failed:
    EXPR`."""
    parts = []
    seen = 0
    while err is not None and seen < 8:
        parts.append(f"{type(err).__name__}: {err} {err.args!r}")
        err = err.__cause__ or err.__context__
        seen += 1
    return " <- ".join(parts)


def write(serialize, message, would, ctx):
    """The frame `serialize` writes (its rules run) and None, checked
    equal to `would`, the frame it should write; or, when its rules refuse
    the message, `would` and the refusal."""
    try:
        frame = serialize(message, ctx)
    except Exception as err:  # RuleConditionError through SerializationError
        return would, refusal(err)
    assert frame == would, (frame.hex(), would.hex())
    return frame, None


def attempt(read):
    """`read()` and None, or None and the refusal it raised."""
    try:
        return read(), None
    except Exception as err:
        return None, refusal(err)
