"""The journal's JSON form of digests and records: an exact round trip, and clear errors for anything else."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from store import resolve_digest
from store.domain.codec import digest_from_json, digest_to_json, problem_in, record_from_json, record_to_json
from store.domain.wire import digest_of, digest_wire
from store.memory import WriteOutcome
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


@pytest.mark.parametrize(
    ("message", "what", "said"),
    [
        ("Expected `object`, got `str`", "digest", "digest must be an object"),
        ("Expected `array`, got `object` - at `$.entries`", "digest", "entries must be a list"),
        ("Expected `str`, got `int` - at `$.scopes[0]`", "digest", "scope must be a string"),
        ("Expected `str | null`, got `int` - at `$.origin.threadId`", "record", "threadId must be a string"),
        ("Expected `int` >= 0 - at `$.omitted`", "digest", "omitted must be a count"),
        ("Expected `int`, got `bool` - at `$.pinnedOmitted`", "digest", "pinnedOmitted must be a count"),
        ("Expected `bool`, got `str` - at `$.recalled`", "digest", "recalled must be true or false"),
        ("Expected `object`, got `null` - at `$.entries[0].origin`", "digest", "record.origin must be an object"),
        ("Expected `float`, got `str` - at `$.tags[2]`", "digest", "tags must be `float`"),
        ("Invalid enum value 'bot' - at `$.origin.author`", "record", "author must be 'human' or 'agent', not 'bot'"),
        ("Object missing required field `key` - at `$.entries[0]`", "digest", "entry has no key"),
        ("Object missing required field `id`", "record", "record has no id"),
        ("Something else entirely", "record", "record: Something else entirely"),
    ],
)
def test_a_validation_message_is_said_in_the_apis_words(message: str, what: str, said: str) -> None:
    assert problem_in(message, what) == said


def test_a_record_that_is_not_one_is_refused_naming_the_field() -> None:
    broken = {**record_to_json(make_record()), "origin": {"author": "human", "threadId": None, "runId": 7}}

    with pytest.raises(ValueError, match="runId must be a string"):
        record_from_json(broken)


def test_the_wire_carries_the_entry_pin_and_the_record_pin_apart() -> None:
    digest = resolve_digest([make_record("k", scope="global", pinned=True), make_record("k")], scopes=SCOPES)

    wire = digest_wire(digest)

    assert (wire.entries[0].pinned, wire.entries[0].record_pinned) == (True, False)
    assert digest_of(wire) == digest


def test_a_remember_outcome_round_trips_through_its_wire_shape() -> None:
    written = WriteOutcome(ok=True, record=make_record(thread_id="thr_1"))
    refused = WriteOutcome(ok=False, error="The key is too long.")

    assert WriteOutcome.from_wire(written.to_wire()) == written
    assert WriteOutcome.from_wire(refused.to_wire()) == refused
    assert msgspec.to_builtins(refused.to_wire()) == {"ok": False, "error": "The key is too long."}
