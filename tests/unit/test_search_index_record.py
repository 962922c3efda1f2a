"""FTS5's structure record, decoded into segments by level (both of FTS5's versions of it)."""

from __future__ import annotations

import pytest

from store.persistence.search_index import IndexShape, shape_from_structure

COOKIE = b"\x00\x00\x00\x07"


def varint(value: int) -> bytes:
    """SQLite's varint for a value below 2**56: 7 bits a byte, most significant first."""
    groups = [value & 0x7F]
    value >>= 7
    while value:
        groups.append(0x80 | (value & 0x7F))
        value >>= 7
    return bytes(reversed(groups))


def record(levels: list[tuple[int, list[tuple[int, int, int]]]], *, version_2: bool = False) -> bytes:
    """A structure record: per level (merging, [(segment id, first page, last page)])."""
    out = COOKIE + (b"\xff\x00\x00\x01" if version_2 else b"")
    out += varint(len(levels)) + varint(sum(len(segments) for _, segments in levels)) + varint(300)
    for merging, segments in levels:
        out += varint(merging) + varint(len(segments))
        for segment in segments:
            out += b"".join(varint(value) for value in segment)
            if version_2:
                out += b"".join(varint(value) for value in (1, 2, 0, 0, 40_000))
    return out


LEVELS = [(0, [(5, 1, 1)]), (0, []), (2, [(1, 1, 200), (2, 1, 130), (3, 1, 1)])]


@pytest.mark.parametrize("version_2", [False, True], ids=["version 1", "version 2"])
def test_a_record_gives_each_level_s_segment_sizes(version_2: bool) -> None:
    shape = shape_from_structure(record(LEVELS, version_2=version_2))

    assert shape == IndexShape(levels=((1,), (), (200, 130, 1)), merging=(0, 0, 2))
    assert (shape.segments, shape.level_count, shape.pages) == (4, 3, 332)


def test_an_empty_index_has_no_segments() -> None:
    assert shape_from_structure(record([])).segments == 0


def test_varints_of_every_length_decode() -> None:
    sizes = [2**7 - 1, 2**7, 2**14, 2**21 + 5, 2**28 + 9]
    shape = shape_from_structure(record([(0, [(n, 1, size) for n, size in enumerate(sizes, 1)])]))

    assert shape.levels == (tuple(sizes),)


def test_a_cut_off_record_is_refused() -> None:
    with pytest.raises(ValueError, match="ends inside a value"):
        shape_from_structure(record(LEVELS)[:-1])
