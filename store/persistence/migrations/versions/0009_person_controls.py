"""A person's say over their memory, and the trail of who looked at them.

- `person_preference`: a person's own switches (`memory_paused`).
- `organisation_setting`: an organisation's choices (`approval_required`), set by its administrators.
- `pending_memory`: notes the assistant concluded that wait for the person's approval, kept apart from
  `agent_memory` so that no prompt, digest or search reaches them.
- `audit_entry.subject`: the person an act was about (a preview of their prompt, their erasure, their
  move), filled in for the entries already kept from what their values name.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-05
"""

from __future__ import annotations

import json
from typing import Any

import sqlalchemy as sa
from alembic import op

from store.persistence.types import UtcDateTime

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("audit_entry", sa.Column("subject", sa.Text(), nullable=True))
    op.create_index("ix_audit_entry_subject_at", "audit_entry", ["subject", "at"])
    _fill_subjects()
    op.create_table(
        "person_preference",
        sa.Column("person_id", sa.Text(), nullable=False),
        sa.Column("memory_paused", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("changed_at", UtcDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("person_id", name="pk_person_preference"),
    )
    op.create_table(
        "organisation_setting",
        sa.Column("tenant_ref", sa.Text(), nullable=False),
        sa.Column("approval_required", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("changed_at", UtcDateTime(), nullable=False),
        sa.Column("changed_by", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("tenant_ref", name="pk_organisation_setting"),
    )
    op.create_table(
        "pending_memory",
        sa.Column("id", sa.Text(), nullable=False),
        sa.Column("person_id", sa.Text(), nullable=False),
        sa.Column("key", sa.Text(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("origin_thread_id", sa.Text(), nullable=True),
        sa.Column("origin_run_id", sa.Text(), nullable=True),
        sa.Column("concluded_at", UtcDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_pending_memory"),
        sa.UniqueConstraint("person_id", "key", name="uq_pending_memory_person_id_key"),
    )


def _fill_subjects() -> None:
    """Previews name their person in `after.actor.id`, erasures and moves in `after.person`."""
    bind = op.get_bind()
    rows = bind.execute(
        sa.text("SELECT id, action, after FROM audit_entry WHERE action IN ('preview', 'erase', 'move')")
    ).all()
    for entry_id, action, after in rows:
        subject = _subject(action, json.loads(after) if isinstance(after, str) else after)
        if subject is not None:
            bind.execute(sa.text("UPDATE audit_entry SET subject = :s WHERE id = :id"), {"s": subject, "id": entry_id})


def _subject(action: str, after: Any) -> str | None:
    if not isinstance(after, dict):
        return None
    if action == "preview":
        actor = after.get("actor")
        named = actor.get("id") if isinstance(actor, dict) else None
    else:
        named = after.get("person")
    return named if isinstance(named, str) else None


def downgrade() -> None:
    op.drop_table("pending_memory")
    op.drop_table("organisation_setting")
    op.drop_table("person_preference")
    op.drop_index("ix_audit_entry_subject_at", table_name="audit_entry")
    op.execute("ALTER TABLE audit_entry DROP COLUMN subject")
