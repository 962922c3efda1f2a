"""What was last made from what was last read, for the few keys asked most recently.

A value made from a read (a shortlist from its rows, a run's answer from its journaled text) is the
same value whenever the read is the same. `Recent` keeps, for each of the last `size` keys, what was
read and what was made from it; asked with an equal read, it gives back the value it kept, the same
object. The read itself is never skipped: the caller reads, and only an equal read, compared in full,
is a hit.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable
from typing import Generic, TypeVar

__all__ = ("Recent",)

K = TypeVar("K", bound=Hashable)
R = TypeVar("R")
V = TypeVar("V")


class Recent(Generic[K, R, V]):
    """For each of the last `size` keys (the least recently asked go first): what was read, and the
    value made from it. 0 keeps nothing; a negative size is refused, naming `setting`."""

    __slots__ = ("_kept", "_size")

    def __init__(self, size: int, *, setting: str) -> None:
        if size < 0:
            msg = f"{setting} cannot be negative, not {size}"
            raise ValueError(msg)
        self._size = size
        self._kept: OrderedDict[K, tuple[R, V]] = OrderedDict()

    def same(self, key: K, read: R) -> V | None:
        """The value kept for `key`, when it was made from a read equal to `read`."""
        kept = self._kept.get(key)
        if kept is None or kept[0] != read:
            return None
        self._kept.move_to_end(key)
        return kept[1]

    def keep(self, key: K, read: R, value: V) -> None:
        """Keep `value`, made from `read`, for `key`; the least recently asked key goes past `size`."""
        if self._size == 0:
            return
        self._kept[key] = (read, value)
        self._kept.move_to_end(key)
        if len(self._kept) > self._size:
            self._kept.popitem(last=False)

    def __len__(self) -> int:
        return len(self._kept)
