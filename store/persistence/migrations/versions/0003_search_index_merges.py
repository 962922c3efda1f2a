"""SQLite's full-text index stays one segment per size class: FTS5's own merging, set to merge pairs.

FTS5 merges the segments of one size class once there are `automerge` of them (default 4, in a
batch of up to 64 × levels leaf pages after every 64 pages written), and at once, blocking, when the
newest class reaches `crisismerge` (default 16). With 2 and 4 a class is merged as soon as it holds
two, and the newest never piles up past four: a store of a million memories looks its terms up in
about 10 segments instead of about 19 (`store.persistence.search_index`). `usermerge` 2 makes an
explicit `merge` — the catch-up below, or an operator's — merge the same way. The index already
stored is merged here until there is nothing left to merge.

Only positive merge budgets, never `optimize` or a negative one: on this SQLite each of those adds
levels to the index for good. PostgreSQL's GIN index has no segments: nothing changes there.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"

SQLITE_MERGING = {"automerge": 2, "crisismerge": 4, "usermerge": 2}
SQLITE_DEFAULT_MERGING = {"automerge": 4, "crisismerge": 16, "usermerge": 4}
"""FTS5's defaults: revision 0002's settings, for the downgrade."""

_CATCH_UP = "INSERT INTO memory_fts (memory_fts, rank) VALUES ('merge', 2000)"


def _configure(settings: dict[str, int]) -> None:
    for name, value in settings.items():
        op.get_bind().execute(
            sa.text("INSERT INTO memory_fts (memory_fts, rank) VALUES (:name, :value)"), {"name": name, "value": value}
        )


def _merge_what_is_stored() -> None:
    """Merge until a merge finds nothing to do (it then changes fewer than two rows, as FTS5's
    documentation says); bounded, because the writes that follow would finish it anyway."""
    bind = op.get_bind()
    changes = sa.text("SELECT total_changes()")
    for _ in range(1_000):
        before = bind.execute(changes).scalar_one()
        bind.execute(sa.text(_CATCH_UP))
        if bind.execute(changes).scalar_one() - before < 2:
            return


def upgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        _configure(SQLITE_MERGING)
        _merge_what_is_stored()


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        _configure(SQLITE_DEFAULT_MERGING)
