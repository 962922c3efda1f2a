"""The shape of SQLite's full-text index: how many b-tree segments `memory_fts` is split into.

FTS5 writes each change as a new segment (one per statement that changes the index) and merges
segments of one size class into a bigger one. A query looks each of its terms up in every segment,
so what a search costs beyond its own matches is (terms × segments) lookups. With FTS5's default
merging a class holds up to three segments before they merge, and the newest up to fifteen: sampled
while building the storage benchmark's stores, 15 segments on average at 10,000 memories and 19 at a
million (24 and 34 at worst). Migration 0003 merges each class as soon as it holds two, the newest at
four: 7 and 10 on average (11 and 18 at worst) — one segment per populated size class, so the count
still grows with the logarithm of the store, and at any one size depends on its binary digits.

What is never run: `optimize`, or a `merge` with a negative budget. On SQLite before the fix that
caps it (3.40.1 here), each one that finds segments on more than one level adds two levels to the
structure record for good, and past 2,000 levels FTS5 reads the record as corrupt ("database disk
image is malformed"): what an `optimize` after every delete did within a thousand deletes, with one
connection as with many.

The structure record (`memory_fts_data` row 10) is FTS5's own format (`fts5StructureDecode` in
`fts5_index.c`): a 4-byte cookie, an optional 4-byte version-2 marker, then varints — levels,
segments, a write counter, and per level its merging count and segments (id, first and last leaf
page; in version 2 five more values each).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

__all__ = ("IndexShape", "index_shape", "shape_from_structure")

_STRUCTURE = text("SELECT block FROM memory_fts_data WHERE id = 10")
_VERSION_2 = b"\xff\x00\x00\x01"


@dataclass(frozen=True, slots=True)
class IndexShape:
    """The index's segments, level by level: each segment as its size in leaf pages."""

    levels: tuple[tuple[int, ...], ...]
    merging: tuple[int, ...]
    """Per level, how many of its segments are inputs to a merge still in progress."""

    @property
    def segments(self) -> int:
        """How many segments a query looks each term up in."""
        return sum(len(level) for level in self.levels)

    @property
    def level_count(self) -> int:
        """Levels in the record, empty ones included: FTS5 refuses a record of more than 2,000."""
        return len(self.levels)

    @property
    def pages(self) -> int:
        return sum(sum(level) for level in self.levels)


def shape_from_structure(record: bytes) -> IndexShape:
    """Decode FTS5's structure record; `ValueError` when it is not one."""
    reader = _Varints(record, 8 if record[4:8] == _VERSION_2 else 4)
    extra = 5 if record[4:8] == _VERSION_2 else 0
    level_count, _segment_count, _writes = reader.take(3)
    levels: list[tuple[int, ...]] = []
    merging: list[int] = []
    for _ in range(level_count):
        merge_inputs, count = reader.take(2)
        sizes = []
        for _ in range(count):
            _segment_id, first_page, last_page = reader.take(3)
            reader.take(extra)
            sizes.append(last_page - first_page + 1)
        levels.append(tuple(sizes))
        merging.append(merge_inputs)
    return IndexShape(levels=tuple(levels), merging=tuple(merging))


async def index_shape(connection: AsyncConnection) -> IndexShape:
    """The shape of `memory_fts` as `connection` sees it (SQLite only)."""
    record = (await connection.execute(_STRUCTURE)).scalar_one()
    return shape_from_structure(bytes(record))


class _Varints:
    """SQLite's varints (big-endian, 7 bits a byte, the ninth byte whole), read one after another."""

    def __init__(self, data: bytes, offset: int) -> None:
        self._data = data
        self._at = offset

    def take(self, count: int) -> list[int]:
        return [self._one() for _ in range(count)]

    def _one(self) -> int:
        value = 0
        for _ in range(8):
            byte = self._byte()
            value = (value << 7) | (byte & 0x7F)
            if byte < 0x80:
                return value
        return (value << 8) | self._byte()

    def _byte(self) -> int:
        if self._at >= len(self._data):
            msg = "the FTS5 structure record ends inside a value"
            raise ValueError(msg)
        self._at += 1
        return self._data[self._at - 1]
