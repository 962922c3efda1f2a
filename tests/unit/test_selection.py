"""Selection under the ceiling: pinned keys take the budget first, then relevance or scope-then-newest."""

from __future__ import annotations

import pytest

from store import MemoryRecord, resolve_digest
from tests.builders import SCOPES, make_record


def keys(records: list[MemoryRecord], *, max_memories: int | None, ranked: bool = False) -> list[str]:
    return [e.key for e in resolve_digest(records, scopes=SCOPES, max_memories=max_memories, ranked=ranked).entries]


def test_without_a_search_the_widest_and_then_the_stalest_are_dropped_first() -> None:
    records = [
        make_record("g-new", scope="global", age_days=1),
        make_record("t-old", scope="tenant:berlin", age_days=9),
        make_record("a-old", scope="actor:ada", age_days=9),
        make_record("t-new", scope="tenant:berlin", age_days=1),
        make_record("a-new", scope="actor:ada", age_days=1),
    ]

    assert keys(records, max_memories=5) == ["a-new", "a-old", "t-new", "t-old", "g-new"]
    assert keys(records, max_memories=3) == ["a-new", "a-old", "t-new"]


def test_ties_in_scope_and_age_are_broken_by_key_so_selection_is_stable() -> None:
    records = [make_record(k, scope="actor:ada") for k in ("c", "a", "b")]

    assert keys(records, max_memories=2) == ["a", "b"]


def test_a_ranked_search_selects_by_relevance_never_by_scope() -> None:
    best_is_global = [
        make_record("pallet-labels", scope="global", age_days=30),
        make_record("tone", scope="actor:ada"),
        make_record("units", scope="tenant:berlin"),
    ]

    assert keys(best_is_global, max_memories=2, ranked=True) == ["pallet-labels", "tone"]


def test_a_key_ranks_where_its_first_record_appears() -> None:
    records = [
        make_record("b", scope="global"),
        make_record("a", scope="global"),
        make_record("b", scope="actor:ada"),
    ]

    assert keys(records, max_memories=1, ranked=True) == ["b"]


def test_the_pallet_manifest_stays_when_relevance_would_drop_it() -> None:
    # "Never dispatch a pallet without a printed manifest" is never close to a labelling question.
    manifest = make_record("manifest-required", scope="tenant:berlin", author="human", pinned=True)
    labelling = [make_record(f"label-{i}", scope="actor:ada") for i in range(5)]

    digest = resolve_digest([*labelling, manifest], scopes=SCOPES, max_memories=3, ranked=True)

    assert [e.key for e in digest.entries] == ["manifest-required", "label-0", "label-1"]
    assert (digest.omitted, digest.pinned_omitted, digest.recalled) == (3, 0, True)


@pytest.mark.parametrize(
    ("pinned", "unpinned", "ceiling", "expected"),
    [
        # (pinned keys, unpinned keys, max_memories) -> (entries, omitted, pinned_omitted)
        (0, 10, 20, (10, 0, 0)),
        (0, 25, 20, (20, 5, 0)),
        (5, 25, 20, (20, 10, 0)),
        (20, 5, 20, (20, 5, 0)),
        (25, 5, 20, (20, 10, 5)),
        (3, 0, 20, (3, 0, 0)),
        (0, 0, 20, (0, 0, 0)),
        (4, 4, 0, (0, 8, 4)),
    ],
)
def test_the_budget_arithmetic(pinned: int, unpinned: int, ceiling: int, expected: tuple[int, int, int]) -> None:
    records = [make_record(f"p{i:02d}", pinned=True) for i in range(pinned)]
    records += [make_record(f"u{i:02d}") for i in range(unpinned)]

    digest = resolve_digest(records, scopes=SCOPES, max_memories=ceiling)

    assert (len(digest.entries), digest.omitted, digest.pinned_omitted) == expected
    assert sum(e.pinned for e in digest.entries) == min(pinned, ceiling)


def test_pinned_overflow_is_dropped_widest_then_stalest_first() -> None:
    records = [
        make_record("global-new", scope="global", pinned=True, age_days=1),
        make_record("tenant-old", scope="tenant:berlin", pinned=True, age_days=9),
        make_record("tenant-new", scope="tenant:berlin", pinned=True, age_days=1),
        make_record("mine", scope="actor:ada", pinned=True, age_days=30),
    ]

    digest = resolve_digest(records, scopes=SCOPES, max_memories=2)

    assert [e.key for e in digest.entries] == ["mine", "tenant-new"]
    assert digest.pinned_omitted == 2


def test_the_read_back_passes_no_ceiling() -> None:
    records = [make_record(f"k{i:04d}") for i in range(2_500)]

    digest = resolve_digest(records, scopes=SCOPES, max_memories=None)

    assert len(digest.entries) == 2_500
    assert digest.omitted == 0
    assert not digest.recalled


def test_a_negative_ceiling_is_refused() -> None:
    with pytest.raises(ValueError, match="zero or more"):
        resolve_digest([], scopes=SCOPES, max_memories=-1)
