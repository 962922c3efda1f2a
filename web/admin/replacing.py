"""Publishing a key that already holds a fact at that scope: the administrator first sees the fact it
replaces, and confirms or keeps it.

The confirmation carries what it showed (`FactView.replaces_token`: the fact's id and when it was last
written), so a confirmation answers only the value it showed: if the fact changed meanwhile, the new
value is shown and asked about again, never replaced unseen.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from store import Actor, MemoryRecord, check_memory_input
from web.admin.views import FactView, fact_view
from web.kit.area_words import scope_label

__all__ = ("ReplaceView", "fact_to_replace", "replaces_token")


@dataclass(frozen=True, slots=True)
class ReplaceView:
    """The view-model of `admin/_confirm_replace.html`: the fact now, and what would replace it."""

    current: FactView
    key: str
    text: str
    scope: str
    pinned: bool
    replaces: str
    back: str
    csrf_token: str
    changed: bool = False
    """The person confirmed replacing a value that has changed since: they are asked again about the new one."""


def fact_to_replace(
    records: Sequence[MemoryRecord],
    actor: Actor,
    *,
    scope: str,
    key: str,
    text: str,
    max_fact_chars: int,
    now: datetime,
    names: Mapping[str, str],
) -> FactView | None:
    """The fact among `records` that publishing `key` at `scope` would replace, as the list shows it;
    None for a new key, or for input the publish will refuse anyway (it says why)."""
    checked = check_memory_input(key, text, max_fact_chars=max_fact_chars)
    if checked.error is not None:
        return None
    record = next((r for r in records if r.scope == scope and r.key == checked.key), None)
    if record is None:
        return None
    return fact_view(record, scope_label(record.scope, actor), now, names=names)


def replaces_token(fact: FactView) -> str:
    """What a confirmation carries to say which value it showed."""
    return f"{fact.id}@{fact.updated.iso}"
