"""What a journaled digest was offered, as pruning counts it: the thread and the entries' ids, and
nothing from a checkpoint of another shape."""

from __future__ import annotations

import pytest

from store.runs import offered


@pytest.mark.parametrize(
    ("stored", "expected"),
    [
        ('{"threadId": "thr_1", "digest": {"entries": [{"id": "m1"}, {"id": "m2"}]}}', ("thr_1", {"m1", "m2"})),
        ('{"threadId": null, "digest": {"entries": []}, "block": "..."}', (None, set())),
        ('{"digest": {}}', (None, set())),
        ('{"threadId": 7}', (None, set())),
        ("not json", (None, set())),
    ],
    ids=["a digest", "no thread, nothing offered", "fields missing", "a field of another type", "not JSON"],
)
def test_the_offered_ids_of_a_checkpoint(stored: str, expected: tuple[str | None, set[str]]) -> None:
    assert offered(stored) == (expected[0], frozenset(expected[1]))
