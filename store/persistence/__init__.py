"""Where memories are stored in a database: the only package in OnFile that builds SQL.

SQLite is the embedded default and PostgreSQL the scale-out; the same code and the same guarantees
run on both. Open an engine with `open_engine`, bring its schema up to date with `upgrade_engine`
(or `onfile db upgrade`), then hand the engine to the repositories below. Row classes live in
`store.persistence.tables`, which nothing outside this package imports.
"""

from store.persistence.audit import AUDIT_ACTIONS, AuditAction, AuditEntry, AuditTrail
from store.persistence.controls import MemoryControlStore
from store.persistence.engine import (
    DATABASE_URL_VARIABLE,
    DEFAULT_DATABASE_URL,
    database_url_from_environment,
    is_sqlite,
    open_engine,
    printable_url,
)
from store.persistence.journal import RunJournal, RunPrunedError
from store.persistence.migrate import (
    OtherApplicationsFileError,
    UnknownRevisionError,
    downgrade_engine,
    upgrade,
    upgrade_engine,
)
from store.persistence.people import KnownPeople
from store.persistence.provider import SqlMemoryProvider
from store.persistence.registry import ConversationRegistry, Origin, RunsOnAnotherThreadError
from store.persistence.sessions import DashboardSession, DashboardSessions
from store.persistence.stash import ForgottenStash

__all__ = (
    "AUDIT_ACTIONS",
    "DATABASE_URL_VARIABLE",
    "DEFAULT_DATABASE_URL",
    "AuditAction",
    "AuditEntry",
    "AuditTrail",
    "ConversationRegistry",
    "DashboardSession",
    "DashboardSessions",
    "ForgottenStash",
    "KnownPeople",
    "MemoryControlStore",
    "Origin",
    "OtherApplicationsFileError",
    "RunJournal",
    "RunPrunedError",
    "RunsOnAnotherThreadError",
    "SqlMemoryProvider",
    "UnknownRevisionError",
    "database_url_from_environment",
    "downgrade_engine",
    "is_sqlite",
    "open_engine",
    "printable_url",
    "upgrade",
    "upgrade_engine",
)
