"""For the revisions that change what the search index holds: recompute every row's `search_terms`."""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy.engine import Connection

from store.persistence.migrations.recompute import recompute_columns

__all__ = ("recompute_search_terms",)


def recompute_search_terms(bind: Connection, terms_of: Callable[[str, str, str], str]) -> None:
    """Every row's terms by `terms_of(scope, key, text)`, only the rows whose terms change written
    (`recompute_columns`). Each index follows the column (SQLite's postings by the update trigger of
    revision 0004, PostgreSQL's generated `search_vector`)."""
    recompute_columns(bind, ("scope", "key", "text"), ("search_terms",), lambda *row: (terms_of(*row),))
