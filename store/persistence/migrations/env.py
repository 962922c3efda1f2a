"""Alembic's environment for OnFile. Run through `store.persistence.migrate.upgrade` (or
`onfile db upgrade`), which hands in a connection already inside a write transaction."""

from __future__ import annotations

from alembic import context
from sqlalchemy.engine import Connection

from store.persistence.migrate import include_in_comparison
from store.persistence.tables import TableBase


def run_migrations(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=TableBase.metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        include_object=include_in_comparison,
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


_connection = context.config.attributes.get("connection")
if _connection is None:
    msg = "OnFile's migrations run through `onfile db upgrade` or store.persistence.migrate.upgrade()."
    raise RuntimeError(msg)
run_migrations(_connection)
