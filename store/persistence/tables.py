"""The tables, as SQLAlchemy rows. Only `store.persistence` may import this module.

The migrations under `migrations/` create exactly this schema (a test compares them), plus the
search machinery each backend needs, which is not part of the portable schema: on SQLite the
postings tables `memory_terms` and `memory_corpus` and the triggers that keep them in step
(`store.persistence.search_index`), on PostgreSQL the `search_vector` column generated from
`search_terms`, and its GIN index.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any, cast

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    CheckConstraint,
    Date,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    Table,
    Text,
    UniqueConstraint,
    false,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from store.persistence.types import UtcDateTime

__all__ = (
    "AuditEntryRow",
    "ConversationRunRow",
    "ConversationThreadRow",
    "DashboardSessionRow",
    "ForgottenStashRow",
    "KnownPersonRow",
    "MemoryRow",
    "MemoryUseCountRow",
    "OrganisationExpiryRow",
    "OrganisationSettingRow",
    "PendingMemoryRow",
    "PersonPreferenceRow",
    "PrunedRunRow",
    "RunCheckpointRow",
    "TableBase",
    "table_of",
)

NAMING = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

Json = JSON().with_variant(JSONB(), "postgresql")
# SQLite aliases the rowid only for a column declared exactly INTEGER PRIMARY KEY; the search index's
# postings name their record by that rowid, so it must be stable (an un-aliased rowid may change on VACUUM).
RowNumber = BigInteger().with_variant(Integer(), "sqlite")


class TableBase(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)
    type_annotation_map: dict[Any, Any] = {datetime: UtcDateTime, str: Text}  # noqa: RUF012


class MemoryRow(TableBase):
    """One keyed fact at one scope; at most one per (scope, key).

    `seq` is internal (the search index's row key); `id` is the public, unguessable handle. The
    unique (scope, key) index leads with scope, so it is also the index every `scope IN (…)` read
    uses: a second index on scope alone would only slow writes. The origin's thread and run are
    pointers that may dangle — no foreign key, no cascade: a history ceiling must never erase a fact.
    """

    __tablename__ = "agent_memory"
    __table_args__ = (
        UniqueConstraint("scope", "key"),
        CheckConstraint("origin_author IN ('human', 'agent')", name="origin_author"),
        # The personal page lists one scope's records newest or oldest first, a page at a time.
        Index(None, "scope", "updated_at"),
        Index(None, "expires_at"),
    )

    seq: Mapped[int] = mapped_column(RowNumber, primary_key=True, autoincrement=True)
    id: Mapped[str] = mapped_column(unique=True)
    scope: Mapped[str]
    key: Mapped[str]
    text: Mapped[str]
    origin_author: Mapped[str]
    origin_thread_id: Mapped[str | None]
    origin_run_id: Mapped[str | None]
    origin_actor_ref: Mapped[str | None]
    origin_promoted_from: Mapped[str | None]
    pinned: Mapped[bool] = mapped_column(Boolean, server_default=false())
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]
    search_terms: Mapped[str] = mapped_column(server_default="")
    """What the search index holds for the row: a digest per (scope, word), never the words
    (`store.persistence.terms`). Every write computes it; the index is kept in step from it."""
    folded_words: Mapped[str] = mapped_column(server_default="")
    """The key's and the text's words folded as the personal page searches them, between spaces
    (`store.domain.finding.folded_memory`): the page's search by words runs in SQL on it. It is the
    row's own text in another form, so it goes when the row goes, as the text does."""
    sort_key: Mapped[str] = mapped_column(server_default="")
    """The key folded (`store.domain.finding.sort_key`): what the page's order by key compares."""
    embedding: Mapped[bytes | None] = mapped_column(LargeBinary)
    """The record's meaning as a vector (`store.embedding`: normalised, float16), written with the
    record, so forgetting the record forgets its vector; None until an embedder has embedded it."""
    embedder: Mapped[str | None]
    """The name of the embedder that made `embedding`: a turn compares only its own embedder's vectors."""
    confirmed_at: Mapped[datetime | None]
    """When the person last asked to keep this memory (None: never asked)."""
    expires_at: Mapped[datetime | None]
    """When this memory leaves every prompt, and `onfile prune` removes it (None: never). Only what
    the assistant concluded about a person of an organisation that set a lifetime ever has one."""


class RunCheckpointRow(TableBase):
    """A run's journal: the stored answer at each (run, position), written once and then only read."""

    __tablename__ = "run_journal"
    __table_args__ = (Index(None, "actor_id"), Index(None, "created_at"))

    run_id: Mapped[str] = mapped_column(primary_key=True)
    position: Mapped[str] = mapped_column(primary_key=True)
    payload: Mapped[Any] = mapped_column(Json)
    created_at: Mapped[datetime]
    actor_id: Mapped[str | None]
    """Whom the run is for, so erasing a person finds their journaled digests without reading payloads."""


class MemoryUseCountRow(TableBase):
    """How many of a person's turns were offered a memory on one day, folded in from the journal when
    it was pruned: ids and numbers, never the text. The live journal holds the rest."""

    __tablename__ = "memory_use_count"

    person_id: Mapped[str] = mapped_column(primary_key=True)
    memory_id: Mapped[str] = mapped_column(primary_key=True)
    day: Mapped[date] = mapped_column(Date, primary_key=True)
    turns: Mapped[int] = mapped_column(Integer)
    last_used_at: Mapped[datetime]
    last_thread_id: Mapped[str | None]


class PrunedRunRow(TableBase):
    """A run whose checkpoints were deleted (pruned after its retention, or its person erased): it can no
    longer resume, and says so."""

    __tablename__ = "pruned_run"

    run_id: Mapped[str] = mapped_column(primary_key=True)
    pruned_at: Mapped[datetime]


class ConversationThreadRow(TableBase):
    """A conversation OnFile has heard of. A deleted thread stays as a tombstone (`deleted_at`), so the
    origins pointing into it can be shown as dangling."""

    __tablename__ = "conversation_thread"

    id: Mapped[str] = mapped_column(primary_key=True)
    actor: Mapped[str | None]
    deleted_at: Mapped[datetime | None]


class ConversationRunRow(TableBase):
    """A turn OnFile has heard of (registered when its digest is resolved); `dropped_at` when the
    history ceiling dropped it from its thread."""

    __tablename__ = "conversation_run"
    __table_args__ = (Index(None, "thread_id"),)

    run_id: Mapped[str] = mapped_column(primary_key=True)
    thread_id: Mapped[str] = mapped_column(ForeignKey("conversation_thread.id"))
    actor: Mapped[str | None]
    registered_at: Mapped[datetime]
    dropped_at: Mapped[datetime | None]


class AuditEntryRow(TableBase):
    """One human act on memory: who did what, at which scope and key, with the before and after."""

    __tablename__ = "audit_entry"
    __table_args__ = (Index(None, "scope", "at"), Index(None, "subject", "at"))

    id: Mapped[str] = mapped_column(primary_key=True)
    at: Mapped[datetime]
    who: Mapped[str]
    action: Mapped[str]
    scope: Mapped[str]
    key: Mapped[str | None]
    before: Mapped[Any | None] = mapped_column(Json)
    after: Mapped[Any | None] = mapped_column(Json)
    subject: Mapped[str | None]
    """The person the act was about (a preview of their prompt, their erasure, their move), so they
    can be shown who looked; None for acts on shared facts."""


class DashboardSessionRow(TableBase):
    """A signed-in dashboard session. `data` is whatever the web layer keeps in it."""

    __tablename__ = "dashboard_session"
    __table_args__ = (Index(None, "expires_at"), Index(None, "actor_id"))

    id: Mapped[str] = mapped_column(primary_key=True)
    data: Mapped[Any] = mapped_column(Json)
    created_at: Mapped[datetime]
    last_seen_at: Mapped[datetime]
    expires_at: Mapped[datetime]
    actor_id: Mapped[str | None]


class KnownPersonRow(TableBase):
    """Someone OnFile has seen at login or in an agent call, with the tenant and roles they had then:
    the support preview offers them as actors to preview. `name` is what their identity provider
    called them at their last login (None until they log in): pages show it beside their id."""

    __tablename__ = "known_person"
    __table_args__ = (Index(None, "last_seen_at"),)

    id: Mapped[str] = mapped_column(primary_key=True)
    tenant_ref: Mapped[str | None]
    roles: Mapped[Any] = mapped_column(Json)
    last_seen_at: Mapped[datetime]
    name: Mapped[str | None]


class PersonPreferenceRow(TableBase):
    """A person's own switches: `memory_paused` while they asked that nothing new be remembered."""

    __tablename__ = "person_preference"

    person_id: Mapped[str] = mapped_column(primary_key=True)
    memory_paused: Mapped[bool] = mapped_column(Boolean, server_default=false())
    changed_at: Mapped[datetime]


class OrganisationSettingRow(TableBase):
    """An organisation's choices, set by its administrators: `approval_required` when what the
    assistant concludes about its people waits for each person's approval."""

    __tablename__ = "organisation_setting"

    tenant_ref: Mapped[str] = mapped_column(primary_key=True)
    approval_required: Mapped[bool] = mapped_column(Boolean, server_default=false())
    changed_at: Mapped[datetime]
    changed_by: Mapped[str]


class OrganisationExpiryRow(TableBase):
    """An organisation's lifetime for what the assistant concludes about its people:
    `concluded_lifetime_days` since the person last confirmed it or the assistant last wrote it (None:
    kept until forgotten). Kept apart from `organisation_setting`, so choosing a lifetime is never
    read as a choice about approval."""

    __tablename__ = "organisation_expiry"

    tenant_ref: Mapped[str] = mapped_column(primary_key=True)
    concluded_lifetime_days: Mapped[int | None] = mapped_column(Integer)
    changed_at: Mapped[datetime]
    changed_by: Mapped[str]


class PendingMemoryRow(TableBase):
    """A note the assistant concluded about a person, waiting for their approval: outside
    `agent_memory`, so no prompt, digest or search can reach it. One per (person, key): a later
    conclusion on the same key replaces the waiting one."""

    __tablename__ = "pending_memory"
    __table_args__ = (UniqueConstraint("person_id", "key"),)

    id: Mapped[str] = mapped_column(primary_key=True)
    person_id: Mapped[str]
    key: Mapped[str]
    text: Mapped[str]
    origin_thread_id: Mapped[str | None]
    origin_run_id: Mapped[str | None]
    concluded_at: Mapped[datetime]


class ForgottenStashRow(TableBase):
    """What one act of forgetting removed, kept for its undo: the records, encrypted with a key only the
    person's browser holds (`store.personal`). Deleted when undone, after the undo window, or with the person."""

    __tablename__ = "forgotten_stash"
    __table_args__ = (Index(None, "owner"), Index(None, "created_at"))

    id: Mapped[str] = mapped_column(primary_key=True)
    owner: Mapped[str]
    """The scope the records were forgotten from: only its person may take them back."""
    created_at: Mapped[datetime]
    sealed: Mapped[bytes] = mapped_column(LargeBinary)


def table_of(row: type[TableBase]) -> Table:
    """The Core table behind a row class, typed as one (for statements built with Core)."""
    return cast(Table, row.__table__)
