"""Reads by a list of keys (the ids a page shows), as statements built once and run on the driver.

A page asks a few questions about the entries it shows: their authors' names, their expiries, which
conversations are gone, when each was used. Each names those entries' ids, a list whose length
changes with every page, and SQLAlchemy builds, caches and runs such a statement at several times
the cost of SQLite answering it. So each question is instead a statement with one named parameter
per key, built once for each size in `KEY_SIZES`: a list is padded to the next size by repeating its
last key, which changes nothing an `IN` matches. A statement built once runs as a turn's reads do
(`store.persistence.driver.point_rows`): on a SQLite file inline on the event loop's thread, bounded
in steps, and otherwise on a pooled connection straight on the driver. A list longer than the
largest size is asked in several statements (`key_chunks`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from sqlalchemy import BindParameter, bindparam
from sqlalchemy.ext.asyncio import AsyncEngine

from store.persistence.driver import Selecting, as_results, point_rows

__all__ = ("KEY_SIZES", "KeyedStatement", "key_chunks")

KEY_SIZES = (1, 4, 16, 64, 256)
"""The list lengths a keyed statement is built for: a list is padded to the next one."""


def key_chunks(keys: Sequence[Any]) -> Iterator[Sequence[Any]]:
    """`keys` in pieces of at most the largest of `KEY_SIZES`: one statement each."""
    most = KEY_SIZES[-1]
    for start in range(0, len(keys), most):
        yield keys[start : start + most]


def _size_for(count: int) -> int:
    return 0 if count == 0 else next(size for size in KEY_SIZES if size >= count)


class KeyedStatement:
    """A read naming one or more lists of keys, each key a parameter: `build` is given, for each list,
    its parameters (possibly none) and makes the statement; it is called once per combination of
    sizes. The parameters of list `i` are named `k{i}_0`, `k{i}_1`, …"""

    __slots__ = ("_build", "_made")

    def __init__(self, build: Callable[..., Selecting]) -> None:
        self._build = build
        self._made: dict[tuple[int, ...], Selecting] = {}

    def bound(self, *lists: Sequence[Any]) -> tuple[Selecting, dict[str, Any]]:
        """The statement for lists of these lengths, and the value of each of its key parameters.
        Every list must be at most the largest of `KEY_SIZES` long (see `key_chunks`)."""
        sizes = tuple(_size_for(len(keys)) for keys in lists)
        statement = self._made.get(sizes)
        if statement is None:
            params: list[list[BindParameter[Any]]] = [
                [bindparam(f"k{i}_{n}") for n in range(size)] for i, size in enumerate(sizes)
            ]
            statement = self._made[sizes] = self._build(*params)
        values: dict[str, Any] = {}
        for i, (keys, size) in enumerate(zip(lists, sizes, strict=True)):
            values.update((f"k{i}_{n}", keys[min(n, len(keys) - 1)]) for n in range(size))
        return statement, values

    async def rows(
        self, engine: AsyncEngine, *lists: Sequence[Any], values: Mapping[str, Any] | None = None
    ) -> list[list[Any]]:
        """Every row the statement selects for these lists (and any other named `values`), each value
        as SQLAlchemy's result would give it (see `store.persistence.driver.as_results`)."""
        statement, keyed = self.bound(*lists)
        found = await point_rows(engine, statement, {**keyed, **values} if values else keyed)
        return [as_results(engine.dialect, statement, row) for row in found]
