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

from alembic import op

from store.persistence.migrations.search_machinery import FTS_MERGING, configure_fts_merging, merge_what_fts_stores

revision = "0003"
down_revision = "0002"

FTS_DEFAULT_MERGING = {"automerge": 4, "crisismerge": 16, "usermerge": 4}
"""FTS5's defaults: revision 0002's settings, for the downgrade."""


def upgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        configure_fts_merging(FTS_MERGING)
        merge_what_fts_stores()


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        configure_fts_merging(FTS_DEFAULT_MERGING)
