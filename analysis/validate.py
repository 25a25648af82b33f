"""A results.json held against its schema (experiments/schema/results.schema.json) as it is read,
before any figure, table or comparison touches it. A run from elsewhere is untrusted input: a
`threads` of "2", a numeric `kernel` or a rate of 1e400 (which Python's json reads as inf) would
otherwise reach the arithmetic of some figure and end as a traceback (exit 3). Here it is an
InputError (exit 2) naming the file, the record and the field:

    results.json: record 3: 'threads': '2' is not of type 'integer'

records.load_run calls check_results on every run it reads, so the report, the table,
`parlab compare` and the reference runs all get the same check.

A run of an older readable schema (parlab-results/2 and /3, which the analysis reads as they
are) is held against the same schema less the rules a later schema added: each such rule sits in
an allOf entry whose $comment begins "since parlab-results/N"."""
from __future__ import annotations

import functools
import json
import math
import os
import re

from analysis.read import InputError

SCHEMA_NAME = "results.schema.json"
# How much of a value a message quotes: enough to recognise it, never a page of it.
QUOTE_MAX = 60


def schema_file() -> str:
    """The results schema: share/parlab/schema/ beside this package where installed (or in a
    build tree's mirror, whose analysis/ links to the source), else experiments/schema/ of the
    source tree the package sits at the top of."""
    here = os.path.dirname(os.path.abspath(__file__))
    for pkg in (here, os.path.realpath(here)):
        for path in (os.path.join(os.path.dirname(pkg), "schema", SCHEMA_NAME),
                     os.path.join(os.path.dirname(pkg), "experiments", "schema", SCHEMA_NAME)):
            if os.path.isfile(path):
                return path
    return os.path.join(os.path.dirname(here), "schema", SCHEMA_NAME)


def _version(text: str) -> int:
    """N of the first "parlab-results/N" in text, 0 where there is none."""
    m = re.search(r"parlab-results/(\d+)", text or "")
    return int(m.group(1)) if m else 0


def _newer(entry, version: int) -> bool:
    """Whether a schema entry is a rule a schema after `version` added: "$comment": "since
    parlab-results/N: ..." with N above it."""
    comment = entry.get("$comment", "") if isinstance(entry, dict) else ""
    return isinstance(comment, str) and comment.startswith("since ") and _version(comment) > version


def _older(node, version: int):
    """The schema `node` as a run of schema `version` is held to: less every allOf entry a later
    schema added (_newer)."""
    if isinstance(node, list):
        return [_older(x, version) for x in node]
    if not isinstance(node, dict):
        return node
    out = {k: _older(v, version) for k, v in node.items()}
    if isinstance(out.get("allOf"), list):
        out["allOf"] = [x for x in out["allOf"] if not _newer(x, version)]
    return out


@functools.lru_cache(maxsize=None)
def validator(schema_name: str):
    """The validator of a run of schema `schema_name` (a readable one: records checks that
    first). A schema file that is missing or broken is the installation's fault: InputError
    naming it."""
    import jsonschema

    path = schema_file()
    try:
        with open(path, encoding="utf-8") as f:
            schema = json.load(f)
    except (OSError, ValueError) as e:
        raise InputError(f"{path}: the results schema cannot be read ({e}); reinstall parlab") from None
    current = schema.get("properties", {}).get("schema", {}).get("const")
    if schema_name != current:
        schema = _older(schema, _version(schema_name))
        schema["properties"]["schema"] = {"const": schema_name}
    cls = jsonschema.validators.validator_for(schema)
    # "integer" as parlab writes one and its C++ readers take one: 2.0 is a float in JSON as
    # Python and nlohmann read it, and a threads of 2.0 is no count (JSON Schema would take it).
    strict = cls.TYPE_CHECKER.redefine("integer", lambda _, v: isinstance(v, int) and not isinstance(v, bool))
    # "number" as the analysis computes with one, a float: an integer past 2**53 has no float that
    # holds it exactly, and one past 1e308 none at all (float() of it raises OverflowError).
    strict = strict.redefine("number", lambda _, v: _is_number(v))
    # The bounds too, then, on every number: jsonschema checks one only where the value is of type
    # "number", which an integer past 2**53 no longer is, so a threads of 2**70 passed "maximum".
    return jsonschema.validators.extend(cls, type_checker=strict, validators=_BOUNDS)(schema)


def _bound(fails, words):
    def check(_validator, bound, instance, _schema):
        import jsonschema
        if isinstance(instance, (int, float)) and not isinstance(instance, bool) and fails(instance, bound):
            yield jsonschema.ValidationError(f"{instance!r} is {words} {bound!r}")
    return check


_BOUNDS = {"minimum": _bound(lambda v, b: v < b, "less than the minimum of"),
           "exclusiveMinimum": _bound(lambda v, b: v <= b, "not above"),
           "maximum": _bound(lambda v, b: v > b, "more than the maximum of"),
           "exclusiveMaximum": _bound(lambda v, b: v >= b, "not below")}


# The largest integer every float between -FLOAT_INT_MAX and it holds exactly (a double's 53-bit
# significand); a JSON integer beyond it where the schema asks for a number is refused.
FLOAT_INT_MAX = 2 ** 53
# An integer this large is refused wherever it stands, an integer-typed field included: no count,
# size or seed parlab writes comes near it, and converting it to a float overflows.
INT_MAX = 10 ** 300


def _is_number(v) -> bool:
    """A JSON number the analysis can take as a float: a float, or an int no larger than
    FLOAT_INT_MAX (a bool is neither)."""
    if isinstance(v, bool):
        return False
    return isinstance(v, float) or (isinstance(v, int) and abs(v) <= FLOAT_INT_MAX)


def where(path) -> str:
    """An instance path as a message names it: "record 3: 'time_s.median'", "plan entry 0:
    'threads'", "'context.cpu'", "'reps_s[2]'" (the record's own fields, from its index on)."""
    parts = list(path)
    lead = ""
    if len(parts) >= 2 and parts[0] in ("records", "plan", "consistency") and isinstance(parts[1], int):
        lead = {"records": "record", "plan": "plan entry", "consistency": "consistency entry"}[parts[0]]
        lead += f" {parts[1]}"
        parts = parts[2:]
    field = ""
    for p in parts:
        field += f"[{p}]" if isinstance(p, int) else (f".{p}" if field else str(p))
    field = f"'{_cut(field)}'" if field else ""
    return ": ".join(x for x in (lead, field) if x)


def _cut(text: str) -> str:
    return text if len(text) <= QUOTE_MAX else text[:QUOTE_MAX - 1] + "…"


def _quote(value) -> str:
    """A value as a message quotes it: its repr (a string's control characters escaped), cut."""
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "an array"
    return _cut(repr(value))


def _digits(value: int) -> str:
    """"an integer of 400 digits": a long integer as a message names it (its repr would fill a page)."""
    return f"an integer of {len(str(abs(value)))} digits"


def _describe(e) -> str:
    """One error's message, its value quoted short (_quote) where jsonschema would quote it whole."""
    if e.validator == "type" and isinstance(e.instance, int) and not isinstance(e.instance, bool) \
            and abs(e.instance) > FLOAT_INT_MAX:
        return (f"{_digits(e.instance)} where a number is expected: past 2**53 no float holds it exactly "
                "(write it as a float, 1.5e20)")
    if e.validator == "type":
        want = e.validator_value if isinstance(e.validator_value, list) else [e.validator_value]
        return f"{_quote(e.instance)} is not of type {', '.join(repr(x) for x in want)}"
    if e.validator in ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"):
        words = {"minimum": "less than the minimum of", "exclusiveMinimum": "not above",
                 "maximum": "more than the maximum of", "exclusiveMaximum": "not below"}[e.validator]
        return f"{_quote(e.instance)} is {words} {e.validator_value!r}"
    if e.validator == "minLength" and e.validator_value == 1:
        return f"{_quote(e.instance)} must not be empty"
    if e.validator == "enum":
        return f"{_quote(e.instance)} is not one of {_cut(repr(e.validator_value))}"
    if e.validator == "const":
        return f"{_quote(e.instance)} is not {e.validator_value!r}"
    return e.message if len(e.message) <= 2 * QUOTE_MAX else f"{_quote(e.instance)} does not hold what it must"


def _position(e) -> tuple:
    """Where an error is in the document, for the first in reading order (record 3 before 12)."""
    return tuple((0, p, "") if isinstance(p, int) else (1, 0, str(p)) for p in e.absolute_path)


def first_error(doc: dict, schema_name: str):
    """The first error of doc against the schema of schema_name in reading order, or None. Of a
    choice (oneOf: a limit with a roof, or the reason it has none) the first error of the
    alternative the value came nearest to, the one it fails fewest rules of: a limit with a roof
    and a unit that is none of the three is told of its unit, not that it lacks a reason."""
    errors = list(validator(schema_name).iter_errors(doc))
    if not errors:
        return None
    e = min(errors, key=_position)
    while e.context:
        alternatives: dict = {}
        for sub in e.context:
            alternatives.setdefault(sub.relative_schema_path[0], []).append(sub)
        e = min(min(alternatives.values(), key=len), key=_position)
    return e


def unusable_number(value, path=()):
    """(path, value) of the first number no arithmetic can take, or None: a float that is not
    finite (Python's json reads NaN, Infinity and 1e400, which JSON cannot hold), or an integer
    beyond INT_MAX (json reads 400 digits as an int, which float() cannot convert). One walk over
    the document finds both."""
    if isinstance(value, float):
        return None if math.isfinite(value) else (path, value)
    if isinstance(value, int):
        return (path, value) if not isinstance(value, bool) and abs(value) > INT_MAX else None
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for k, v in items:
        found = unusable_number(v, path + (k,))
        if found:
            return found
    return None


def non_finite(value, path=()):
    """(path, value) of the first number that is not finite (Python's json reads NaN, Infinity and
    1e400, which JSON cannot hold), or None."""
    if isinstance(value, float) and not math.isfinite(value):
        return path, value
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for k, v in items:
        found = non_finite(v, path + (k,))
        if found:
            return found
    return None


def check_results(doc: dict, file: str, schema_name: str) -> None:
    """InputError naming file, record and field where doc is not a run of schema_name: a number
    that is not finite or an integer no float can hold (unusable_number), or the first error
    against the schema (where a number is expected, an integer past 2**53 is one too: _is_number)."""
    found = unusable_number(doc)
    if found:
        at, value = found
        if isinstance(value, int):
            raise InputError(f"{file}: {where(at)}: {_digits(value)}, beyond any float (more than 1e300); "
                             "not a measurement")
        raise InputError(f"{file}: {where(at)}: {value!r} is not a finite number (JSON has no NaN or Infinity; "
                         "a literal such as 1e400 reads as inf)")
    e = first_error(doc, schema_name)
    if e is None:
        return
    path = list(e.absolute_path)
    if e.validator == "required":  # named where it is missing: "record 0: 'validation.pass' is missing"
        missing = next((k for k in e.validator_value if isinstance(e.instance, dict) and k not in e.instance),
                       e.validator_value[0])
        raise InputError(f"{file}: {where(path + [missing])} is missing")
    at = where(path)
    raise InputError(f"{file}: " + (f"{at}: " if at else "") + _describe(e))


__all__ = ["FLOAT_INT_MAX", "INT_MAX", "check_results", "first_error", "non_finite", "schema_file", "unusable_number",
           "validator", "where"]
