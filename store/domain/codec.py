"""Digests and records as JSON values, for the run journal and the APIs.

The JSON is the wire shape of `store.domain.wire`, so what the journal stores and what the API
answers are one shape. A run's digest is journaled once and read back on every replay, so this round
trip must be exact: `digest_from_json(digest_to_json(d)) == d` for every digest. Reading refuses
anything else with a `ValueError` that names the field in the API's words ("threadId must be a
string").
"""

from __future__ import annotations

import re
from typing import Any, TypeVar

import msgspec

from store.domain.types import MemoryDigest, MemoryRecord
from store.domain.wire import DigestWire, RecordWire, digest_of, digest_wire, record_of, record_wire

__all__ = ("digest_from_json", "digest_to_json", "problem_in", "record_from_json", "record_to_json")

_to_json = msgspec.to_builtins
_Wire = TypeVar("_Wire")


def record_to_json(record: MemoryRecord) -> dict[str, Any]:
    value: dict[str, Any] = _to_json(record_wire(record))
    return value


def record_from_json(value: Any) -> MemoryRecord:
    """Raises ValueError, naming the field, when `value` is not a record this module wrote."""
    return record_of(_convert(value, RecordWire, "record"))


def digest_to_json(digest: MemoryDigest) -> dict[str, Any]:
    value: dict[str, Any] = _to_json(digest_wire(digest))
    return value


def digest_from_json(value: Any) -> MemoryDigest:
    """Raises ValueError, naming the field, when `value` is not a digest this module wrote."""
    return digest_of(_convert(value, DigestWire, "digest"))


def _convert(value: Any, shape: type[_Wire], what: str) -> _Wire:
    try:
        return msgspec.convert(value, shape)
    except msgspec.ValidationError as e:
        raise ValueError(problem_in(str(e), what)) from None


_AT = r"(?: - at `(?P<at>[^`]+)`)?$"
_EXPECTED = re.compile(r"Expected `(?P<kind>[^`]+)`(?P<bound> [<>]=? ?-?\d+)?(?:, got `[^`]+`)?" + _AT)
_ENUM = re.compile(r"Invalid enum value (?P<value>.+?)" + _AT)
_MISSING = re.compile(r"Object missing required field `(?P<field>[^`]+)`" + _AT)
_ITEMS = {"entries": "entry", "scopes": "scope", "overrides": "override"}
_QUALIFIED = {"origin": "record.origin"}
_KINDS = {"object": "an object", "array": "a list", "bool": "true or false", "int": "a count"}


def problem_in(message: str, what: str) -> str:
    """msgspec's validation `message` about a `what` in the API's words: the field's name (an item of
    a list by its singular), then what it must be."""
    if found := _EXPECTED.match(message):
        kind = found["kind"]
        must = "a count" if found["bound"] else _KINDS.get(kind, "a string" if kind.startswith("str") else f"`{kind}`")
        return f"{_field(found['at'], what)} must be {must}"
    if found := _ENUM.match(message):
        return f"{_field(found['at'], what)} must be 'human' or 'agent', not {found['value']}"
    if found := _MISSING.match(message):
        return f"{_field(found['at'], what)} has no {found['field']}"
    return f"{what}: {message}"


def _field(at: str | None, what: str) -> str:
    if not at:
        return what
    name = at.rsplit(".", 1)[-1]
    if name.endswith("]"):
        plural = name.split("[", 1)[0]
        return _ITEMS.get(plural, plural)
    return _QUALIFIED.get(name, name)
