"""A search finds the Latin letters with a stroke or a ligature by their plain letters ("Łódź" by
"lodz", "Søren" by "soren", "Æbeltoft" by "aebeltoft"): each row's `agent_memory.folded_words` and
`sort_key` are recomputed where they change (`store.domain.finding.fold`).

No decomposition takes ł, ø, đ, ð, ħ, æ or œ apart, so removing accents left them whole, and a search
typed without them found nothing. Only the rows holding one of those letters come out differently,
and only they are written (`recompute_columns`).

The downgrade leaves the columns as they are: under the earlier rule a refolded row is found by its
plain letters ("lodz"), not by the stroked ones ("łódź"), until it is upgraded again.

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-07
"""

from __future__ import annotations

from alembic import op

from store.domain.finding import folded_memory, sort_key
from store.persistence.migrations.recompute import recompute_columns

revision = "0015"
down_revision = "0014"


def upgrade() -> None:
    recompute_columns(
        op.get_bind(),
        ("key", "text"),
        ("folded_words", "sort_key"),
        lambda key, text: (folded_memory(key, text), sort_key(key)),
    )


def downgrade() -> None:
    pass
