"""The audit trail as the page and the downloads show it: filtered, paged, and in words.

The entries are `store.admin`'s answer (the trail of the scopes the person administers); the filter
narrows them by action, scope, who did it (by id or name), and text in the key. A download carries
the whole filtered set, never a page of it. CSV cells a spreadsheet would run as a formula are
neutralised. The page names the people in it — who acted, whose prompt was previewed, who was erased
— by the names `people_named` asks for; the downloads keep to ids, as the entries hold them.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, ClassVar

from store import Actor
from store.domain.expiry import lifetime_words
from store.domain.finding import sought_person
from store.domain.wire import AuditEntryWire
from store.persistence import AUDIT_ACTIONS, AuditEntry
from web.kit.area import AreaView
from web.kit.area_words import action_words, organisation_name, scope_label
from web.kit.paging import ListQuery, page_number
from web.kit.spreadsheets import neutralise_cell
from web.kit.views import OptionView, TimeView, time_view
from web.kit.words import Mention, PersonName, count_words, person_name

__all__ = (
    "AUDIT_PAGE_SIZE",
    "AuditPage",
    "AuditQuery",
    "AuditRowView",
    "audit_csv",
    "audit_json",
    "audit_page",
    "filter_entries",
    "people_named",
)

AUDIT_PAGE_SIZE = 100


@dataclass(frozen=True, slots=True)
class AuditQuery(ListQuery):
    """The filter. Unknown actions and scopes the person does not administer read as no filter."""

    path: ClassVar[str] = "/admin/audit"
    action: str = ""
    scope: str = ""
    who: str = ""
    key: str = ""
    page: int = 1

    @classmethod
    def parse(
        cls,
        *,
        action: str | None = None,
        scope: str | None = None,
        who: str | None = None,
        key: str | None = None,
        page: str | None = None,
    ) -> AuditQuery:
        return cls(
            action=action if action in AUDIT_ACTIONS else "",
            scope=(scope or "").strip(),
            who=(who or "").strip()[:200],
            key=(key or "").strip()[:200],
            page=page_number(page),
        )

    @property
    def filtered(self) -> bool:
        return bool(self.action or self.scope or self.who or self.key)

    def pairs(self) -> list[tuple[str, str]]:
        return [
            ("action", self.action),
            ("scope", self.scope),
            ("who", self.who),
            ("key", self.key),
            ("page", str(self.page) if self.page > 1 else ""),
        ]


def filter_entries(
    entries: Sequence[AuditEntry], query: AuditQuery, scopes: Sequence[str], names: Mapping[str, str]
) -> list[AuditEntry]:
    """`who` matches the whole id or part of it, or of the name in `names` of whoever did it, ignoring
    case, or that name by the beginnings of its words in any order, ignoring accents too ("zoe"
    finds Zoë); `key` any part of the key, ignoring case."""
    scope = query.scope if query.scope in scopes else ""
    who, key = query.who.casefold(), query.key.casefold()
    named = {person for person, name in names.items() if sought_person(query.who, person, name)} if who else set()
    return [
        e
        for e in entries
        if (not query.action or e.action == query.action)
        and (not scope or e.scope == scope)
        and (not who or who in e.who.casefold() or who in names.get(e.who, "").casefold() or e.who in named)
        and (not key or key in (e.key or "").casefold())
    ]


def people_named(entries: Sequence[AuditEntry]) -> set[str]:
    """The ids of everyone the entries name: who acted, and whom a preview or an erasure was about."""
    named = {entry.who for entry in entries}
    for entry in entries:
        subject = _subject(entry)
        if subject is not None:
            named.add(subject)
    return named


def _subject(entry: AuditEntry) -> str | None:
    """Whom a preview, an erasure or a move was about."""
    after = entry.after if isinstance(entry.after, dict) else {}
    if entry.action == "preview" and isinstance(after.get("actor"), dict) and after["actor"].get("id"):
        return str(after["actor"]["id"])
    if entry.action in {"erase", "erase-refused", "move"} and after.get("person"):
        return str(after["person"])
    return None


@dataclass(frozen=True, slots=True)
class AuditRowView:
    id: str
    at: TimeView
    who: PersonName
    action: str
    action_words: str
    scope: str
    scope_name: str
    key: str
    before: str
    after: str
    detail: Mention | None


@dataclass(frozen=True, slots=True)
class AuditPage:
    area: AreaView
    rows: tuple[AuditRowView, ...]
    total: int
    matching: int
    matching_words: str
    actions: tuple[OptionView, ...]
    scopes: tuple[OptionView, ...]
    who: str
    key: str
    filtered: bool
    csv_href: str
    json_href: str
    clear_href: str
    page: int
    pages: int
    previous_href: str | None
    next_href: str | None


def _text_of(snapshot: Any) -> str:
    return str(snapshot.get("text", "")) if isinstance(snapshot, dict) else ""


def _count(after: Mapping[str, Any], field: str) -> int:
    value = after.get(field, 0)
    return value if isinstance(value, int) else 0


def _promoted_from(source: Mapping[str, Any], names: Mapping[str, str], actor: Actor) -> Mention:
    """Where a promoted fact was republished from: a person's own note (the usual case), by their
    name, or another scope in words; never its token."""
    scope = str(source.get("scope", ""))
    kind, _, value = scope.partition(":")
    if kind == "actor" and value:
        return Mention("Republished from a personal note of ", person_name(value, names))
    return Mention(f"Republished from what applies to {scope_label(scope, actor).audience}")


def _detail(entry: AuditEntry, names: Mapping[str, str], actor: Actor) -> Mention | None:
    after = entry.after if isinstance(entry.after, dict) else {}
    subject = _subject(entry)
    if entry.action == "preview" and subject is not None:
        tenant = after["actor"].get("tenantRef")
        about = person_name(subject, names)
        at = f" at {organisation_name(tenant)}" if isinstance(tenant, str) and tenant else ""
        return Mention("Looked at what the assistant is told about ", about, at)
    source = after.get("promotedFrom")
    if entry.action == "promote" and isinstance(source, dict):
        return _promoted_from(source, names, actor)
    if entry.action == "erase" and subject is not None:
        counts = ", ".join(
            count_words(_count(after, field), one, many)
            for field, one, many in (
                ("memories", "memory", "memories"),
                ("conversations", "conversation", "conversations"),
                ("sessions", "session", "sessions"),
            )
        )
        return Mention("Erased ", person_name(subject, names), f": {counts}")
    if entry.action == "erase-refused" and subject is not None:
        return Mention("Asked to erase ", person_name(subject, names), ", who is not among their people: refused")
    if entry.action == "move" and subject is not None:
        left, joined = (
            organisation_name(after[side]) if after.get(side) else "no organisation" for side in ("from", "to")
        )
        how = "at their sign-in, as their identity provider says" if after.get("by") == "sign-in" else "by an operator"
        return Mention("Moved ", person_name(subject, names), f" from {left} to {joined}, {how}")
    before = entry.before if isinstance(entry.before, dict) else {}
    if entry.action == "approval":
        return _setting_change("approvalRequired", before, after, _approval_words)
    if entry.action == "lifetime":
        said = _setting_change("concludedLifetimeDays", before, after, _lifetime_words)
        expired = after.get("expiredAtOnce")
        if isinstance(expired, int) and expired > 0:
            return Mention(f"{said.lead}; {count_words(expired)} it had concluded expired at once")
        return said
    return None


def _approval_words(required: object) -> tuple[str, str]:
    """The approval setting as it is now, and as it was."""
    if required is True:
        return "Each person now approves what the assistant concludes about them", "each person approved it"
    return "What the assistant concludes is now kept without asking each person", "it was kept without asking"


def _lifetime_words(days: object) -> tuple[str, str]:
    """The lifetime as it is now, and as it was."""
    words = lifetime_words(days if isinstance(days, int) else None)
    return f"What the assistant concludes is now {words}", f"it was {words}"


def _setting_change(
    field: str, before: Mapping[str, Any], after: Mapping[str, Any], words: Callable[[object], tuple[str, str]]
) -> Mention:
    """An organisation setting's change in words, with the value before. Choosing the value the
    deployment's default already gave (`byDefault`) is said as such: only that it is now chosen changed."""
    now, _ = words(after.get(field))
    if field not in before:  # no value before recorded
        return Mention(now)
    _, was = words(before.get(field))
    if before.get(field) == after.get(field):
        return Mention(f"{now}, as the default already had it: the choice is now the organisation's own")
    return Mention(f"{now}; before, {was}{' (the default)' if before.get('byDefault') is True else ''}")


def audit_page(
    entries: Sequence[AuditEntry],
    scopes: Sequence[str],
    actor: Actor,
    query: AuditQuery,
    *,
    area: AreaView,
    now: datetime,
    names: Mapping[str, str],
) -> AuditPage:
    """`names`: the names of the people the entries name (`people_named`), by id. A scope not
    administered reads as no scope filter, here as in `filter_entries`: the page does not call it one."""
    if query.scope not in scopes:
        query = replace(query, scope="")
    matching = filter_entries(entries, query, scopes, names)
    pages = max(1, -(-len(matching) // AUDIT_PAGE_SIZE))
    page = min(query.page, pages)
    shown = matching[(page - 1) * AUDIT_PAGE_SIZE : page * AUDIT_PAGE_SIZE]
    labels = {s: scope_label(s, actor).name for s in scopes}
    return AuditPage(
        area=area,
        rows=tuple(
            AuditRowView(
                id=e.id,
                at=time_view(e.at, now),
                who=person_name(e.who, names),
                action=e.action,
                action_words=action_words(e.action),
                scope=e.scope,
                scope_name=labels.get(e.scope, e.scope),
                key=e.key or "",
                before=_text_of(e.before),
                after=_text_of(e.after),
                detail=_detail(e, names, actor),
            )
            for e in shown
        ),
        total=len(entries),
        matching=len(matching),
        matching_words=count_words(len(matching), "entry", "entries"),
        actions=(
            OptionView("", "Any action", not query.action),
            *(OptionView(a, action_words(a), a == query.action) for a in AUDIT_ACTIONS),
        ),
        scopes=(
            OptionView("", "Everyone you administer for", query.scope not in scopes),
            *(OptionView(s, labels[s], s == query.scope) for s in scopes),
        ),
        who=query.who,
        key=query.key,
        filtered=query.filtered,
        csv_href=query.at("/admin/audit.csv", page=1),
        json_href=query.at("/admin/audit.json", page=1),
        clear_href="/admin/audit",
        page=page,
        pages=pages,
        previous_href=query.href(page=page - 1) if page > 1 else None,
        next_href=query.href(page=page + 1) if page < pages else None,
    )


def audit_json(entries: Sequence[AuditEntry]) -> list[AuditEntryWire]:
    return [e.to_wire() for e in entries]


def audit_csv(entries: Sequence[AuditEntry]) -> str:
    """One row per entry, the columns of its wire shape: `before` and `after` as compact JSON; every
    cell neutralised."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(AuditEntryWire.__struct_fields__)
    for wire in audit_json(entries):
        cells = [
            wire.id,
            wire.at,
            wire.who,
            wire.action,
            wire.scope,
            wire.key or "",
            "" if wire.before is None else json.dumps(wire.before, ensure_ascii=False, separators=(",", ":")),
            "" if wire.after is None else json.dumps(wire.after, ensure_ascii=False, separators=(",", ":")),
        ]
        writer.writerow([neutralise_cell(str(c)) for c in cells])
    return out.getvalue()
