"""A recalled turn's digest: the chosen keys in rank order, its omissions counted from all that applied."""

from __future__ import annotations

import pytest

from store.domain.precedence import resolve_recalled
from tests.builders import SCOPES, make_record

CHOSEN = [
    make_record("units", "kilometres"),
    make_record("manifest", "print it", "tenant:berlin", pinned=True),
    make_record("tea", "green"),
]


@pytest.mark.parametrize(
    ("keys", "pinned_keys", "ceiling", "expected"),
    [
        # twenty of two thousand: the omissions are the keys that applied and were not carried
        (2_000, 5, 3, (["manifest", "units", "tea"], 1_997, 4)),
        # the ceiling bit into what was chosen: at least what was dropped here
        (2_000, 5, 2, (["manifest", "units"], 1_998, 4)),
        # totals below what the records hold count as what they hold
        (0, 0, 2, (["manifest", "units"], 1, 0)),
    ],
)
def test_omissions_count_every_key_that_applied_and_was_not_carried(
    keys: int, pinned_keys: int, ceiling: int, expected: tuple[list[str], int, int]
) -> None:
    digest = resolve_recalled(CHOSEN, keys=keys, pinned_keys=pinned_keys, scopes=SCOPES, max_memories=ceiling)

    assert ([e.key for e in digest.entries], digest.omitted, digest.pinned_omitted) == expected
    assert digest.recalled
    assert digest.is_partial
