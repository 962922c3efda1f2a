"""PostgreSQL compresses the run journal's payloads with LZ4 instead of pglz.

A new run journals its digest — some 14 KB of JSON — and PostgreSQL compresses any value over about
2 KB before storing it. With its default method, pglz, that compression was the larger part of the
journal insert: about 220 µs of the database's CPU a row, against about 45 µs with LZ4, for a stored
size within a tenth (measured on these payloads); the journal's insert as a whole went from about
390 µs to 210. Reading a payload back decompresses it, faster with LZ4 too. On a database shared by
several workers, the database's CPU is what they share.

The setting applies to values written from now on; payloads already stored stay as they are, and
both kinds read back alike. A PostgreSQL built without LZ4 (it is optional, though Debian's and the
official images have it) keeps pglz: the upgrade says so in a notice and goes on. SQLite compresses
nothing: nothing changes there.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-03
"""

from __future__ import annotations

from alembic import op

revision = "0005"
down_revision = "0004"

_LZ4 = """DO $$
BEGIN
    ALTER TABLE run_journal ALTER COLUMN payload SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
    RAISE NOTICE 'this PostgreSQL was built without LZ4: run_journal.payload stays compressed with pglz';
END
$$"""


def upgrade() -> None:
    if _postgresql_with_column_compression():
        op.execute(_LZ4)


def downgrade() -> None:
    if _postgresql_with_column_compression():
        op.execute("ALTER TABLE run_journal ALTER COLUMN payload SET COMPRESSION default")


def _postgresql_with_column_compression() -> bool:
    """PostgreSQL 14 and later choose a compression method per column."""
    dialect = op.get_bind().dialect
    return dialect.name == "postgresql" and (dialect.server_version_info or (0,)) >= (14,)
