"""The journal's JSON form of digests and records: an exact round trip, and clear errors for anything else."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from store import resolve_digest
from store.domain.codec import digest_from_json, digest_to_json, record_from_json, record_to_json
from tests.builders import SCOPES, make_record
from tests.unit.test_properties import records


@settings(max_examples=200)
@given(records(), st.booleans(), st.one_of(st.none(), st.integers(0, 10)))
def test_every_digest_survives_the_round_trip(given_records: list[Any], ranked: bool, ceiling: int | None) -> None:
    digest = resolve_digest(
        given_records, scopes=(*SCOPES[:2], "global", "depot:spandau"), max_memories=ceiling, ranked=ranked
    )

    assert digest_from_json(digest_to_json(digest)) == digest


def test_a_record_round_trips_with_its_origin_and_timezone() -> None:
    record = make_record(pinned=True, thread_id="thr_1", run_id="run_1")

    assert record_from_json(record_to_json(record)) == record
    assert record_to_json(record)["updatedAt"] == "2026-09-01T09:12:44+00:00"


def test_a_digest_keeps_the_entry_pin_apart_from_the_record_pin() -> None:
    pinned_global = make_record("k", scope="global", pinned=True)
    personal = make_record("k", scope="actor:ada")
    digest = resolve_digest([pinned_global, personal], scopes=SCOPES)

    (entry,) = digest_from_json(digest_to_json(digest)).entries

    assert entry.pinned
    assert not entry.record.pinned


def good() -> dict[str, Any]:
    return digest_to_json(resolve_digest([make_record("k", scope="global"), make_record("k")], scopes=SCOPES))


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: "not a digest", "digest must be an object"),
        (lambda d: {**d, "entries": {}}, "entries must be a list"),
        (lambda d: {**d, "scopes": [1]}, "scope must be a string"),
        (lambda d: {**d, "omitted": -1}, "omitted must be a count"),
        (lambda d: {**d, "omitted": True}, "omitted must be a count"),
        (lambda d: {**d, "recalled": "yes"}, "recalled must be true or false"),
        (lambda d: {**d, "entries": ["x"]}, "entry must be an object"),
        (lambda d: {**d, "entries": [{**d["entries"][0], "origin": None}]}, "record.origin must be an object"),
        (lambda d: {**d, "entries": [{**d["entries"][0], "overrides": ["x"]}]}, "override must be an object"),
        (
            lambda d: {**d, "entries": [{**d["entries"][0], "origin": {**d["entries"][0]["origin"], "author": "bot"}}]},
            "author must be 'human' or 'agent'",
        ),
        (
            lambda d: {**d, "entries": [{**d["entries"][0], "origin": {**d["entries"][0]["origin"], "threadId": 3}}]},
            "threadId must be a string",
        ),
    ],
)
def test_a_malformed_payload_is_refused_naming_the_field(mutate: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        digest_from_json(mutate(good()))
