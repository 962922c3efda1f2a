"""The initial schema: memories (with full-text search), run journal, conversation registry, audit
trail, dashboard sessions and the people seen.

Revision ID: 0001
Revises:
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

from store.persistence.migrations.search_machinery import (
    DROP_FTS,
    WORDS_FTS,
    WORDS_FTS_TRIGGERS,
    WORDS_SEARCH_VECTOR,
    for_each_backend,
)
from store.persistence.types import UtcDateTime

revision = "0001"
down_revision = None

JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
ROW_NUMBER = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "agent_memory",
        sa.Column("seq", ROW_NUMBER, primary_key=True, autoincrement=True),
        sa.Column("id", sa.Text(), nullable=False),
        sa.Column("scope", sa.Text(), nullable=False),
        sa.Column("key", sa.Text(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("origin_author", sa.Text(), nullable=False),
        sa.Column("origin_thread_id", sa.Text(), nullable=True),
        sa.Column("origin_run_id", sa.Text(), nullable=True),
        sa.Column("origin_actor_ref", sa.Text(), nullable=True),
        sa.Column("origin_promoted_from", sa.Text(), nullable=True),
        sa.Column("pinned", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("created_at", UtcDateTime(), nullable=False),
        sa.Column("updated_at", UtcDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("seq", name="pk_agent_memory"),
        sa.UniqueConstraint("id", name="uq_agent_memory_id"),
        sa.UniqueConstraint("scope", "key", name="uq_agent_memory_scope_key"),
        sa.CheckConstraint("origin_author IN ('human', 'agent')", name=op.f("ck_agent_memory_origin_author")),
    )
    op.create_table(
        "run_journal",
        sa.Column("run_id", sa.Text(), nullable=False),
        sa.Column("position", sa.Text(), nullable=False),
        sa.Column("payload", JSON, nullable=False),
        sa.Column("created_at", UtcDateTime(), nullable=False),
        sa.Column("actor_id", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("run_id", "position", name="pk_run_journal"),
    )
    op.create_index("ix_run_journal_actor_id", "run_journal", ["actor_id"])
    op.create_index("ix_run_journal_created_at", "run_journal", ["created_at"])
    op.create_table(
        "pruned_run",
        sa.Column("run_id", sa.Text(), nullable=False),
        sa.Column("pruned_at", UtcDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("run_id", name="pk_pruned_run"),
    )
    op.create_table(
        "conversation_thread",
        sa.Column("id", sa.Text(), nullable=False),
        sa.Column("actor", sa.Text(), nullable=True),
        sa.Column("deleted_at", UtcDateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_conversation_thread"),
    )
    op.create_table(
        "conversation_run",
        sa.Column("run_id", sa.Text(), nullable=False),
        sa.Column("thread_id", sa.Text(), nullable=False),
        sa.Column("actor", sa.Text(), nullable=True),
        sa.Column("registered_at", UtcDateTime(), nullable=False),
        sa.Column("dropped_at", UtcDateTime(), nullable=True),
        sa.PrimaryKeyConstraint("run_id", name="pk_conversation_run"),
        sa.ForeignKeyConstraint(
            ["thread_id"], ["conversation_thread.id"], name="fk_conversation_run_thread_id_conversation_thread"
        ),
    )
    op.create_index("ix_conversation_run_thread_id", "conversation_run", ["thread_id"])
    op.create_table(
        "audit_entry",
        sa.Column("id", sa.Text(), nullable=False),
        sa.Column("at", UtcDateTime(), nullable=False),
        sa.Column("who", sa.Text(), nullable=False),
        sa.Column("action", sa.Text(), nullable=False),
        sa.Column("scope", sa.Text(), nullable=False),
        sa.Column("key", sa.Text(), nullable=True),
        sa.Column("before", JSON, nullable=True),
        sa.Column("after", JSON, nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_audit_entry"),
    )
    op.create_index("ix_audit_entry_scope_at", "audit_entry", ["scope", "at"])
    op.create_table(
        "dashboard_session",
        sa.Column("id", sa.Text(), nullable=False),
        sa.Column("data", JSON, nullable=False),
        sa.Column("created_at", UtcDateTime(), nullable=False),
        sa.Column("last_seen_at", UtcDateTime(), nullable=False),
        sa.Column("expires_at", UtcDateTime(), nullable=False),
        sa.Column("actor_id", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_dashboard_session"),
    )
    op.create_index("ix_dashboard_session_expires_at", "dashboard_session", ["expires_at"])
    op.create_index("ix_dashboard_session_actor_id", "dashboard_session", ["actor_id"])
    op.create_table(
        "known_person",
        sa.Column("id", sa.Text(), nullable=False),
        sa.Column("tenant_ref", sa.Text(), nullable=True),
        sa.Column("roles", JSON, nullable=False),
        sa.Column("last_seen_at", UtcDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_known_person"),
    )
    op.create_index("ix_known_person_last_seen_at", "known_person", ["last_seen_at"])
    for_each_backend(sqlite=[WORDS_FTS, *WORDS_FTS_TRIGGERS], postgresql=WORDS_SEARCH_VECTOR)


def downgrade() -> None:
    for_each_backend(sqlite=DROP_FTS)  # PostgreSQL's search_vector goes with its table
    op.drop_table("known_person")
    op.drop_table("dashboard_session")
    op.drop_table("audit_entry")
    op.drop_table("conversation_run")
    op.drop_table("conversation_thread")
    op.drop_table("pruned_run")
    op.drop_table("run_journal")
    op.drop_table("agent_memory")
