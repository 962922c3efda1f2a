"""Digests and records as JSON values, for the run journal and the APIs.

A run's digest is journaled once and read back on every replay, so this round trip must be exact:
`digest_from_json(digest_to_json(d)) == d` for every digest. Field names are the API's (camelCase).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from store.domain.types import Author, DigestEntry, MemoryDigest, MemoryOrigin, MemoryRecord, Override

__all__ = ("digest_from_json", "digest_to_json", "record_from_json", "record_to_json")

_AUTHORS: dict[str, Author] = {"human": "human", "agent": "agent"}


def record_to_json(record: MemoryRecord) -> dict[str, Any]:
    origin = record.origin
    return {
        "id": record.id,
        "key": record.key,
        "text": record.text,
        "scope": record.scope,
        "pinned": record.pinned,
        "origin": {
            "author": origin.author,
            "threadId": origin.thread_id,
            "runId": origin.run_id,
            "actorRef": origin.actor_ref,
            "promotedFrom": origin.promoted_from,
        },
        "updatedAt": record.updated_at.isoformat(),
    }


def record_from_json(value: Any) -> MemoryRecord:
    """Raises ValueError, naming the field, when `value` is not a record this module wrote."""
    data = _object(value, "record")
    origin = _object(data.get("origin"), "record.origin")
    return MemoryRecord(
        id=_text(data, "id"),
        key=_text(data, "key"),
        text=_text(data, "text"),
        scope=_text(data, "scope"),
        pinned=_flag(data, "pinned"),
        origin=MemoryOrigin(
            author=_author(origin.get("author")),
            thread_id=_optional_text(origin, "threadId"),
            run_id=_optional_text(origin, "runId"),
            actor_ref=_optional_text(origin, "actorRef"),
            promoted_from=_optional_text(origin, "promotedFrom"),
        ),
        updated_at=datetime.fromisoformat(_text(data, "updatedAt")),
    )


def digest_to_json(digest: MemoryDigest) -> dict[str, Any]:
    return {
        "scopes": list(digest.scopes),
        "entries": [
            {
                **record_to_json(entry.record),
                "pinned": entry.pinned,
                "recordPinned": entry.record.pinned,
                "overrides": [{"scope": o.scope, "text": o.text, "author": o.author} for o in entry.overrides],
            }
            for entry in digest.entries
        ],
        "omitted": digest.omitted,
        "pinnedOmitted": digest.pinned_omitted,
        "recalled": digest.recalled,
    }


def digest_from_json(value: Any) -> MemoryDigest:
    """Raises ValueError, naming the field, when `value` is not a digest this module wrote."""
    data = _object(value, "digest")
    entries = []
    for raw in _list(data, "entries"):
        item = _object(raw, "entry")
        record = record_from_json({**item, "pinned": _flag(item, "recordPinned")})
        overrides = tuple(
            Override(scope=_text(o, "scope"), text=_text(o, "text"), author=_author(o.get("author")))
            for o in (_object(raw_o, "override") for raw_o in _list(item, "overrides"))
        )
        entries.append(DigestEntry(record=record, overrides=overrides, pinned=_flag(item, "pinned")))
    scopes = tuple(_text({"scope": s}, "scope") for s in _list(data, "scopes"))
    return MemoryDigest(
        scopes=scopes,
        entries=tuple(entries),
        omitted=_count(data, "omitted"),
        pinned_omitted=_count(data, "pinnedOmitted"),
        recalled=_flag(data, "recalled"),
    )


def _object(value: Any, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        msg = f"{what} must be an object"
        raise ValueError(msg)
    return value


def _list(data: dict[str, Any], name: str) -> list[Any]:
    value = data.get(name)
    if not isinstance(value, list):
        msg = f"{name} must be a list"
        raise ValueError(msg)
    return value


def _text(data: dict[str, Any], name: str) -> str:
    value = data.get(name)
    if not isinstance(value, str):
        msg = f"{name} must be a string"
        raise ValueError(msg)
    return value


def _optional_text(data: dict[str, Any], name: str) -> str | None:
    return None if data.get(name) is None else _text(data, name)


def _flag(data: dict[str, Any], name: str) -> bool:
    value = data.get(name)
    if not isinstance(value, bool):
        msg = f"{name} must be true or false"
        raise ValueError(msg)
    return value


def _count(data: dict[str, Any], name: str) -> int:
    value = data.get(name)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        msg = f"{name} must be a count"
        raise ValueError(msg)
    return value


def _author(value: Any) -> Author:
    if value not in _AUTHORS:
        msg = f"author must be 'human' or 'agent', not {value!r}"
        raise ValueError(msg)
    return _AUTHORS[value]
