"""The view-models of "Shared facts" (`/admin`): every template of the page renders from these.

Nothing here decides who may do what; `store.admin` does. Which records are shown is a filter over
what it returned (every memory at the scopes the person administers), grouped by scope in the
resolver's order, always-on facts first and then by key, `PAGE_SIZE` at a time per scope. Who wrote
each fact is named by the names of `writers` the page asked for at once.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import ClassVar
from urllib.parse import quote

from store import MAX_KEY_CHARS, Actor, MemoryRecord
from store.domain.administration import PinBudget, pin_budget
from store.domain.finding import folded_memory, marked_pieces, matches_all, search_words
from web.kit.area import AreaView
from web.kit.area_words import ScopeLabel, scope_label, scope_slug
from web.kit.notices import NoticeView
from web.kit.paging import ListQuery, PagerView, page_number, pager, search_text
from web.kit.views import OptionView, TimeView, time_view
from web.kit.words import Mention, count_words, person_name

__all__ = (
    "PAGE_SIZE",
    "AdminQuery",
    "BudgetView",
    "CreateFormView",
    "EditFormView",
    "FactView",
    "FactsPage",
    "FiltersView",
    "ScopeGroupView",
    "blank_create_form",
    "budget_view",
    "fact_view",
    "facts_page",
    "find_fact",
    "writers",
)

PAGE_SIZE = 50


@dataclass(frozen=True, slots=True)
class AdminQuery(ListQuery):
    """What the page was asked for. A scope the person does not administer reads as no scope filter."""

    path: ClassVar[str] = "/admin"
    text: str = ""
    scope: str = ""
    page: int = 1

    @classmethod
    def parse(cls, *, text: str | None = None, scope: str | None = None, page: str | None = None) -> AdminQuery:
        return cls(text=search_text(text), scope=(scope or "").strip(), page=page_number(page))

    @property
    def filtered(self) -> bool:
        return bool(self.text or self.scope)

    def pairs(self) -> list[tuple[str, str]]:
        return [("q", self.text), ("scope", self.scope), ("page", str(self.page) if self.page > 1 else "")]


@dataclass(frozen=True, slots=True)
class FactView:
    id: str
    key: str
    text: str
    scope: str
    scope_name: str
    audience: str
    pinned: bool
    written_by: Mention
    updated: TimeView
    pin_warning: str
    """Said beside "Always on" when pinning this would push the scope's always-on keys past the ceiling."""
    key_pieces: tuple[tuple[str, bool], ...]
    fact_pieces: tuple[tuple[str, bool], ...]
    """The key and the fact, marked where the filter's words matched (`marked_pieces`)."""

    @property
    def href(self) -> str:
        return f"/admin/facts/{quote(self.id, safe='')}"

    @property
    def anchor(self) -> str:
        return f"fact-{self.id}"


@dataclass(frozen=True, slots=True)
class BudgetView:
    """How many keys are always on at a scope against what one prompt carries."""

    pinned: int
    ceiling: int
    words: str
    over: bool
    warning: str


@dataclass(frozen=True, slots=True)
class ScopeGroupView:
    scope: str
    slug: str
    name: str
    budget: BudgetView
    held: int
    matching: int
    count_words: str
    facts: tuple[FactView, ...]
    pager: PagerView | None
    more_href: str | None
    """When the page shows every scope: the link to this scope's next facts."""
    more_count: int
    empty: str


@dataclass(frozen=True, slots=True)
class FiltersView:
    text: str
    scopes: tuple[OptionView, ...]
    active: bool
    wordless: bool
    """Text that holds no word, only signs ("%", "?"): it has nothing to look for, so it leaves
    every fact in, and the summary says so."""
    clear_href: str


@dataclass(frozen=True, slots=True)
class CreateFormView:
    """The publish form: what was typed (kept when it is refused) and why it was refused."""

    key: str
    text: str
    pinned: bool
    scopes: tuple[OptionView, ...]
    error: str
    max_key_chars: int
    max_fact_chars: int
    back: str
    csrf_token: str


@dataclass(frozen=True, slots=True)
class EditFormView:
    fact: FactView
    text: str
    error: str
    max_fact_chars: int
    back: str
    csrf_token: str
    shown: str = ""
    """Which value of the fact this form shows (`web.admin.replacing.replaces_token`): an edit or a
    delete of another value is asked about again."""
    changed: bool = False
    """The fact changed after the person opened the form: its new value is shown, and they are asked again."""


@dataclass(frozen=True, slots=True)
class FactsPage:
    area: AreaView
    total: int
    total_words: str
    matching: int
    filters: FiltersView
    groups: tuple[ScopeGroupView, ...]
    create: CreateFormView
    back: str
    """This view's own address, for the forms that come back to it."""
    notice: NoticeView | None = None

    @property
    def csrf_token(self) -> str:
        return self.area.csrf_token

    def fact(self, memory_id: str) -> FactView | None:
        return next((f for g in self.groups for f in g.facts if f.id == memory_id), None)


def writers(records: Iterable[MemoryRecord]) -> set[str]:
    """The ids of the people who wrote `records` (the assistant's conclusions name nobody)."""
    return {r.origin.actor_ref for r in records if r.origin.author == "human" and r.origin.actor_ref}


def _written_by(record: MemoryRecord, names: Mapping[str, str]) -> Mention:
    origin = record.origin
    if origin.author == "agent":
        return Mention("Concluded by the assistant")
    lead, tail = ("Promoted by ", " from their own notes") if origin.promoted_from else ("Written by ", "")
    if not origin.actor_ref:
        return Mention(f"{lead}someone{tail}")
    return Mention(lead, person_name(origin.actor_ref, names), tail)


def fact_view(
    record: MemoryRecord,
    label: ScopeLabel,
    now: datetime,
    pin_warning: str = "",
    *,
    names: Mapping[str, str],
    words: tuple[str, ...] = (),
) -> FactView:
    """`names`: the name of the fact's writer, if known (see `writers`); `words`: the filter's, to mark."""
    return FactView(
        id=record.id,
        key=record.key,
        text=record.text,
        scope=record.scope,
        scope_name=label.name,
        audience=label.audience,
        pinned=record.pinned,
        written_by=_written_by(record, names),
        updated=time_view(record.updated_at, now),
        pin_warning=pin_warning,
        key_pieces=marked_pieces(record.key, words),
        fact_pieces=marked_pieces(record.text, words),
    )


def budget_view(budget: PinBudget, label: ScopeLabel) -> BudgetView:
    return BudgetView(
        pinned=budget.pinned_keys,
        ceiling=budget.max_memories,
        words=f"{budget.pinned_keys:,} of {budget.max_memories:,} always-on",
        over=budget.over,
        warning=budget.warning_for(f"for {label.audience}") or "",
    )


def facts_page(
    records: Sequence[MemoryRecord],
    scopes: Sequence[str],
    actor: Actor,
    query: AdminQuery,
    *,
    area: AreaView,
    max_memories: int,
    max_fact_chars: int,
    now: datetime,
    names: Mapping[str, str],
    create: CreateFormView | None = None,
    notice: NoticeView | None = None,
) -> FactsPage:
    """`names`: the names of the people who wrote `records` (`writers`), by id."""
    if query.scope not in scopes:
        query = replace(query, scope="", page=1 if query.scope else query.page)
    labels = {scope: scope_label(scope, actor) for scope in scopes}
    by_scope: dict[str, list[MemoryRecord]] = {scope: [] for scope in scopes}
    for record in records:
        if record.scope in by_scope:
            by_scope[record.scope].append(record)
    shown = [s for s in scopes if not query.scope or s == query.scope]
    groups = tuple(
        _group(sorted(by_scope[s], key=lambda r: (not r.pinned, r.key)), labels[s], query, max_memories, now, names)
        for s in shown
    )
    total = sum(len(held) for held in by_scope.values())
    back = query.href()
    return FactsPage(
        area=area,
        total=total,
        total_words=f"{total:,} shared {'fact' if total == 1 else 'facts'}",
        matching=sum(g.matching for g in groups),
        filters=FiltersView(
            text=query.text,
            scopes=(
                OptionView("", f"Everyone you administer for ({_facts(total)})", not query.scope),
                *(OptionView(s, f"{labels[s].name} ({_facts(len(by_scope[s]))})", s == query.scope) for s in scopes),
            ),
            active=query.filtered,
            wordless=bool(query.text) and not search_words(query.text),
            clear_href=AdminQuery().href(),
        ),
        groups=groups,
        create=create
        or blank_create_form(scopes, actor, max_fact_chars=max_fact_chars, back=back, csrf_token=area.csrf_token),
        back=back,
        notice=notice,
    )


def _facts(count: int) -> str:
    """What the scope filter counts: facts, not scopes."""
    return f"{count:,} {'fact' if count == 1 else 'facts'}"


def blank_create_form(
    scopes: Sequence[str],
    actor: Actor,
    *,
    max_fact_chars: int,
    back: str,
    csrf_token: str,
    key: str = "",
    text: str = "",
    scope: str = "",
    pinned: bool = False,
    error: str = "",
) -> CreateFormView:
    chosen = scope if scope in scopes else (scopes[0] if scopes else "")
    return CreateFormView(
        key=key,
        text=text,
        pinned=pinned,
        scopes=tuple(OptionView(s, scope_label(s, actor).name, s == chosen) for s in scopes),
        error=error,
        max_key_chars=MAX_KEY_CHARS,
        max_fact_chars=max_fact_chars,
        back=back,
        csrf_token=csrf_token,
    )


def _group(
    held: list[MemoryRecord],
    label: ScopeLabel,
    query: AdminQuery,
    max_memories: int,
    now: datetime,
    names: Mapping[str, str],
) -> ScopeGroupView:
    words = search_words(query.text)
    matching = [r for r in held if not words or matches_all(words, (folded_memory(r.key, r.text),))]
    focused = query.scope == label.token
    pages = max(1, -(-len(matching) // PAGE_SIZE))
    page = min(query.page, pages) if focused else 1
    start = (page - 1) * PAGE_SIZE
    shown = matching[start : start + PAGE_SIZE]
    budget = pin_budget(held, scope=label.token, max_memories=max_memories)
    pin_warning = _pin_warning(budget)
    remaining = len(matching) - len(shown)
    return ScopeGroupView(
        scope=label.token,
        slug=scope_slug(label.token),
        name=label.name,
        budget=budget_view(budget, label),
        held=len(held),
        matching=len(matching),
        count_words=f"{len(matching):,} of {count_words(len(held), 'fact', 'facts')}"
        if query.text
        else count_words(len(held), "fact", "facts"),
        facts=tuple(fact_view(r, label, now, "" if r.pinned else pin_warning, names=names, words=words) for r in shown),
        pager=_pager(query, label.token, page, pages, start, len(shown), len(matching)) if focused else None,
        more_href=query.href(scope=label.token, page=2) + f"#scope-{scope_slug(label.token)}"
        if not focused and remaining > 0
        else None,
        more_count=remaining,
        empty="Nothing here matches the filter."
        if query.text
        else f"Nothing is published for {label.audience} yet. Publish a fact below.",
    )


def _pager(query: AdminQuery, scope: str, page: int, pages: int, start: int, shown: int, of: int) -> PagerView | None:
    def to(number: int) -> str:
        return query.href(scope=scope, page=number) + f"#scope-{scope_slug(scope)}"

    return pager(page=page, pages=pages, start=start, shown=shown, of=of, href=to)


def _pin_warning(budget: PinBudget) -> str:
    """What pinning one more fact at the budget's scope would do, when it would push past the ceiling.
    Every unpinned fact at a scope is a key not yet pinned there, so pinning one adds exactly one key."""
    after = PinBudget(budget.scope, budget.pinned_keys + 1, budget.max_memories)
    if not after.over:
        return ""
    return f"Pinning this puts {after.pinned_keys:,} keys always on, past the {after.max_memories:,} a prompt carries."


def find_fact(
    records: Sequence[MemoryRecord],
    memory_id: str,
    actor: Actor,
    *,
    max_memories: int,
    now: datetime,
    names: Mapping[str, str],
) -> FactView | None:
    """One of `records` by id, whichever page or filter would show it."""
    record = next((r for r in records if r.id == memory_id), None)
    if record is None:
        return None
    warning = "" if record.pinned else _pin_warning(pin_budget(records, scope=record.scope, max_memories=max_memories))
    return fact_view(record, scope_label(record.scope, actor), now, warning, names=names)
