"""The value types' own guarantees."""

from __future__ import annotations

from datetime import datetime

import pytest

from store import MemoryOrigin, MemoryRecord
from tests.builders import digest, entry, make_record, override


def test_a_record_refuses_a_naive_timestamp() -> None:
    with pytest.raises(ValueError, match="timezone-aware"):
        MemoryRecord(
            id="m",
            key="k",
            text="t",
            scope="global",
            origin=MemoryOrigin(author="human"),
            updated_at=datetime(2026, 1, 1),  # noqa: DTZ001 - the naive timestamp is the point
        )


def test_an_entry_reads_through_to_its_winning_record() -> None:
    record = make_record("units", "km", "global", author="human")
    e = entry(record, override("global", "miles"))

    assert (e.key, e.text, e.scope, e.author) == ("units", "km", "global", "human")


@pytest.mark.parametrize(("omitted", "recalled", "partial"), [(0, False, False), (2, False, True), (0, True, True)])
def test_a_digest_knows_how_many_it_offers_and_whether_it_is_partial(
    omitted: int, recalled: bool, partial: bool
) -> None:
    d = digest(entry(make_record()), entry(make_record("other")), omitted=omitted, recalled=recalled)

    assert d.offered == 2
    assert d.is_partial is partial
