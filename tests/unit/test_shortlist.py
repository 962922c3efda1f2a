"""A shortlist: a listed turn whose provider applied the ceiling in its own query decides exactly as it
would over every applicable record — the same entries, the same omissions — or is refused."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from store import MemoryRecord, Shortlist, resolve_digest, resolve_shortlist
from tests.builders import SCOPES, make_record, reference_shortlist
from tests.unit.test_properties import records, resolved_scopes

RECORDS = [
    make_record("manifest", "never without a printed manifest", "tenant:berlin", author="human", pinned=True),
    make_record("fiscal-year", "they report on the calendar year", "actor:ada"),
    make_record("fiscal-year", "the fiscal year starts in October", "global", author="human"),
    make_record("units", "kilometres", "global", author="human", age_days=3),
    make_record("tone", "short answers", "actor:ada", age_days=1),
    make_record("greeting", "hello", "tenant:berlin", author="human", age_days=2),
]


@pytest.mark.parametrize("ceiling", [1, 2, 3, 4, 5, 20])
def test_a_shortlist_decides_as_the_whole_list_would(ceiling: int) -> None:
    shortlist = reference_shortlist(RECORDS, SCOPES, ceiling)

    assert resolve_shortlist(shortlist, scopes=SCOPES, max_memories=ceiling) == resolve_digest(
        RECORDS, scopes=SCOPES, max_memories=ceiling
    )


def test_the_omissions_are_counted_from_the_totals_not_from_what_was_read() -> None:
    shortlist = reference_shortlist(RECORDS, SCOPES, 1)
    assert (len(shortlist.records), shortlist.keys, shortlist.pinned_keys) == (1, 5, 1)

    digest = resolve_shortlist(shortlist, scopes=SCOPES, max_memories=1)

    assert [e.key for e in digest.entries] == ["manifest"]
    assert (digest.omitted, digest.pinned_omitted, digest.recalled) == (4, 0, False)


def test_pinned_keys_beyond_the_ceiling_are_counted_as_pinned_omitted() -> None:
    pinned = [make_record(f"rule-{n}", "always", "global", author="human", pinned=True, age_days=n) for n in range(4)]
    shortlist = reference_shortlist(pinned, SCOPES, 3)

    digest = resolve_shortlist(shortlist, scopes=SCOPES, max_memories=3)

    assert [e.key for e in digest.entries] == ["rule-0", "rule-1", "rule-2"]
    assert (digest.omitted, digest.pinned_omitted) == (1, 1)


def test_an_empty_shortlist_is_an_empty_digest() -> None:
    digest = resolve_shortlist(Shortlist(records=(), keys=0, pinned_keys=0), scopes=SCOPES, max_memories=20)

    assert (digest.entries, digest.omitted, digest.pinned_omitted, digest.scopes) == ((), 0, 0, SCOPES)


@pytest.mark.parametrize(
    ("keys", "pinned_keys", "refusal"),
    [
        (4, 1, "cannot total 4 keys"),  # fewer keys in all than the five it holds
        (5, 0, r"\(1 pinned\) cannot total"),  # fewer pinned keys in all than it holds
        (5, 6, "cannot total 5 keys"),  # more pinned keys than keys
    ],
)
def test_a_shortlist_whose_totals_cannot_be_true_is_refused(keys: int, pinned_keys: int, refusal: str) -> None:
    shortlist = replace(reference_shortlist(RECORDS, SCOPES, 20), keys=keys, pinned_keys=pinned_keys)

    with pytest.raises(ValueError, match=refusal):
        resolve_shortlist(shortlist, scopes=SCOPES, max_memories=20)


def test_a_shortlist_that_left_out_keys_the_block_had_room_for_is_refused() -> None:
    """Two keys read, seven in all, a ceiling of five: three entries the block had room for are missing,
    and a block short of them would look whole to the model."""
    shortlist = replace(reference_shortlist(RECORDS, SCOPES, 2), keys=7)

    with pytest.raises(ValueError, match="kept 2 keys of 7 under a ceiling of 5"):
        resolve_shortlist(shortlist, scopes=SCOPES, max_memories=5)


@settings(max_examples=300)
@given(records(unique=True), resolved_scopes, st.integers(min_value=1, max_value=25))
def test_any_true_shortlist_resolves_to_the_whole_lists_digest(
    given_records: list[MemoryRecord], scopes: tuple[str, ...], ceiling: int
) -> None:
    shortlist = reference_shortlist(given_records, scopes, ceiling)

    assert resolve_shortlist(shortlist, scopes=scopes, max_memories=ceiling) == resolve_digest(
        given_records, scopes=scopes, max_memories=ceiling
    )
