"""Which memories the page shows: grouped by whom they apply to, filtered, sorted, a page at a time.

Every record on file is listed, in the group of the scope it is held at, in the resolver's order
(the person's own scope first, then whatever it returned next), one group per scope token. A record
a narrower one overrides (an organisation's default the person set otherwise) is listed too, in its
own group, and said to be overridden: so each group counts and lists everything held for it, and
"nothing is left out" holds under every filter.

The text is matched one of two ways (`match=`):

- `words` (the default): every word of the search begins a word of the memory's key, its fact or,
  for the record that applies, the wider values it overrides (`store.domain.finding`), in any order;
- `related`: the memories whose keys the store ranks first for the text, as it ranks a turn's
  memories (`store.memory.related_keys`, at most `RELATED_LIMIT` keys), in that order, best first.

Then who wrote it (`author=`: the person, their assistant, an administrator) and whether the
conversation it came from is still there (`origin=`: `present` or `gone`; a memory that came from no
conversation has neither). Counts:

- `total` is every record on file, whatever the filter;
- a group's `held` is every record held at its scope, whatever the filter;
- a group's `matching` is what passes the filters.

Each group is sorted (`sort=`: newest first by default, oldest first, or by key; a related search
keeps the store's order) and paged `PAGE_SIZE` at a time. Without a chosen group every group shows
its first page, and its page numbers lead to the group's own view, where `page=` applies, or a date
(`on=`, in the orders by date) stands for the page: the one holding the first memory written on or
before that day, newest first, or on or after it, oldest first.

Two ways, one answer: the page asks the database (`records_ask`, then `selection_of` over what it
answered: only the counts and the shown records are read), and a related search, which the store
ranks over every record on file, chooses them here (`select_entries`). The tests hold both to the
same selection for every filter. Forgetting all that match asks the database the same filters with
no page (`records_ask`, then the provider's `records_matching`), except in a related search.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date, datetime
from typing import ClassVar, Literal, get_args

from store import Actor, DigestEntry, MemoryRecord, Override, own_scope
from store.domain.finding import ORDERS, Order, folded, folded_memory, in_page_order, search_words, words_pattern
from store.domain.paging import RecordsAsk, RecordsPage, jump_instant, jump_page, page_start
from store.persistence.registry import Origin
from web.kit.paging import MAX_QUERY_CHARS, ListQuery, page_number, search_text
from web.kit.words import AuthorKind, ScopeWords, author_kind, scope_words
from web.me.on_file import OnFile

__all__ = (
    "MAX_QUERY_CHARS",
    "PAGE_SIZE",
    "RELATED_LIMIT",
    "GroupSelection",
    "Listed",
    "Match",
    "MemoryQuery",
    "OriginState",
    "Selection",
    "listed_records",
    "records_ask",
    "select_entries",
    "selection_of",
)

PAGE_SIZE = 50
RELATED_LIMIT = 20
"""How many of the closest memories a related search shows, across every group."""
AUTHOR_KINDS: tuple[AuthorKind, ...] = get_args(AuthorKind)
Match = Literal["words", "related"]
OriginState = Literal["present", "gone"]
ORIGIN_STATES: tuple[OriginState, ...] = get_args(OriginState)
_DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


@dataclass(frozen=True, slots=True)
class MemoryQuery(ListQuery):
    """What the person asked the page for. Unknown or malformed values read as "no filter"."""

    path: ClassVar[str] = "/"
    text: str = ""
    group: str = ""
    author: str = ""
    origin: str = ""
    """`present` or `gone`: only memories whose conversation is still there, or is no longer."""
    order: Order = "newest"
    page: int = 1
    match: Match = "words"
    """How the text is matched; kept without text too, so the person's choice stays chosen."""
    on: str = ""
    """A date jump (`YYYY-MM-DD`): the chosen group's page is the one holding the first memory written
    on or before that day, newest first, or on or after it, oldest first; it stands for `page`."""

    @classmethod
    def parse(
        cls,
        *,
        text: str | None = None,
        group: str | None = None,
        author: str | None = None,
        origin: str | None = None,
        order: str | None = None,
        page: str | None = None,
        match: str | None = None,
        on: str | None = None,
    ) -> MemoryQuery:
        query = cls(
            text=search_text(text),
            group=(group or "").strip(),
            author=author if author in AUTHOR_KINDS else "",
            origin=origin if origin in ORIGIN_STATES else "",
            order=next((o for o in ORDERS if o == order), "newest"),
            page=page_number(page),
            match="related" if match == "related" else "words",
            on=_jump_day(on),
        )
        return replace(query, page=1, on="") if query.related else query

    @classmethod
    def from_params(cls, params: Mapping[str, str]) -> MemoryQuery:
        """The query of an address's parameters (`q`, `group`, `author`, `origin`, `sort`, `on`, `page`,
        `match`)."""
        return cls.parse(
            text=params.get("q"),
            group=params.get("group"),
            author=params.get("author"),
            origin=params.get("origin"),
            order=params.get("sort"),
            page=params.get("page"),
            match=params.get("match"),
            on=params.get("on"),
        )

    @property
    def jump(self) -> datetime | None:
        """The date jump's instant in this order (none without a date, or in the order by key)."""
        return jump_instant(date.fromisoformat(self.on), self.order) if self.on else None

    @property
    def related(self) -> bool:
        """Whether the store ranks the entries for the text (related mode with something to search for)."""
        return self.match == "related" and bool(self.text)

    @property
    def filtered(self) -> bool:
        """Whether anything narrows the list (the order and the page number do not)."""
        return bool(self.text or self.group or self.author or self.origin)

    def pairs(self) -> list[tuple[str, str]]:
        return [
            ("q", self.text),
            ("match", self.match if self.match != "words" else ""),
            ("group", self.group),
            ("author", self.author),
            ("origin", self.origin),
            ("sort", self.order if self.order != "newest" else ""),
            ("on", self.on),
            ("page", str(self.page) if self.page > 1 else ""),
        ]


@dataclass(frozen=True, slots=True)
class Listed:
    """One record on the page, with the entry of its key: the record that applies to the person, and
    the wider values it overrides. A record is `overridden` when another record of its key applies."""

    record: MemoryRecord
    entry: DigestEntry

    @property
    def overridden(self) -> bool:
        return self.entry.record.id != self.record.id

    @property
    def key(self) -> str:
        return self.record.key

    @property
    def scope(self) -> str:
        return self.record.scope

    @property
    def pinned(self) -> bool:
        return self.entry.pinned

    @property
    def overrides(self) -> tuple[Override, ...]:
        """The wider values this record beats: none for a record that is itself overridden."""
        return () if self.overridden else self.entry.overrides


@dataclass(frozen=True, slots=True)
class GroupSelection:
    """One scope's records: how many it holds, how many match, and which are shown."""

    scope: str
    slug: str
    words: ScopeWords
    held: int
    matched: int
    shown: tuple[Listed, ...]
    start: int
    """The index among the matching records of the first shown record."""
    matching: tuple[MemoryRecord, ...] = ()
    """The matching records themselves, in order, when they were chosen here rather than by the
    database (`select_entries`): forgetting all that match in a related search reads them."""

    @property
    def pages(self) -> int:
        return max(1, -(-self.matched // PAGE_SIZE))

    @property
    def page(self) -> int:
        return self.start // PAGE_SIZE + 1


@dataclass(frozen=True, slots=True)
class Selection:
    query: MemoryQuery
    """The query as understood: a group that is not this person's reads as no group filter."""
    total: int
    related: int
    """For a related search, how many of the keys on file the store's ranking named, before the other
    filters; 0 otherwise."""
    groups: tuple[GroupSelection, ...]
    """Every group, in the resolver's order, whether or not it is visible."""
    words: tuple[str, ...] = ()
    """The folded words of a search by words, which the page marks where they matched."""
    keys: int = 0
    """How many keys are on file (a key held at several scopes once): what a related search ranks."""

    @property
    def visible(self) -> tuple[GroupSelection, ...]:
        """The groups the page renders: the chosen one; otherwise every group, except that a filter
        hides the groups with nothing matching."""
        if self.query.group:
            return tuple(g for g in self.groups if g.slug == self.query.group)
        if self.query.filtered:
            return tuple(g for g in self.groups if g.matched)
        return self.groups

    @property
    def matching(self) -> int:
        return sum(g.matched for g in self.visible)

    def shown(self) -> tuple[Listed, ...]:
        return tuple(e for g in self.visible for e in g.shown)

    def group(self, slug: str) -> GroupSelection | None:
        return next((g for g in self.groups if g.slug == slug), None)


def listed_records(on_file: OnFile) -> list[Listed]:
    """Every record on file with the entry of its key."""
    return [Listed(r, on_file.entry_of(r)) for r in on_file.records]


def select_entries(
    on_file: OnFile,
    actor: Actor,
    query: MemoryQuery,
    related: Sequence[str] = (),
    resolving: frozenset[Origin] | None = None,
) -> Selection:
    """`related`: for a related search, the keys the store ranked first, best first (records of other
    keys do not match); ignored otherwise. `resolving`: the origins that still resolve among every
    record's, needed only by a filter by origin (without it, that filter keeps nothing).

    Only the shown records are made into `Listed` entries; the rest stay records, so a page over ten
    thousand memories sorts and counts them without building anything per record."""
    by_scope: dict[str, list[MemoryRecord]] = {scope: [] for scope in on_file.scopes}
    for record in on_file.records:
        by_scope[record.scope].append(record)
    named = _named_groups(by_scope, actor)
    if query.group not in {slug for _, slug, _ in named}:
        query = replace(query, group="", page=1)
    jump = None if query.related or not query.group else query.jump
    ranks: dict[str, int] = {}
    on_file_keys: set[str] = set()
    if query.related:
        on_file_keys = {r.key for r in on_file.records}
        ranks = {key: n for n, key in enumerate(k for k in dict.fromkeys(related) if k in on_file_keys)}
    words = () if query.related else search_words(query.text)
    keep = _Filter(query, words, actor, resolving or frozenset(), on_file)
    kept_at = {scope: keep.kept(by_scope[scope]) for scope, _, _ in named}
    if query.related:  # the closest among what the filters keep, not the filters applied to the closest
        ranks = _closest(ranks, (r for scope, slug, _ in named if query.group in {"", slug} for r in kept_at[scope]))
    groups = []
    for scope, slug, scope_named in named:
        held = by_scope[scope]
        kept = kept_at[scope]
        if query.related:
            matching = sorted((r for r in kept if r.key in ranks), key=lambda r: ranks[r.key])
        else:
            matching = in_page_order(query.order, kept)
        page = query.page
        if slug == query.group and jump is not None:
            newer = query.order == "newest"
            page = jump_page(
                sum(1 for r in matching if (r.updated_at >= jump if newer else r.updated_at < jump)), PAGE_SIZE
            )
        start = page_start(len(matching), page, PAGE_SIZE) if slug == query.group and not query.related else 0
        shown = tuple(Listed(r, on_file.entry_of(r)) for r in matching[start : start + PAGE_SIZE])
        groups.append(GroupSelection(scope, slug, scope_named, len(held), len(matching), shown, start, tuple(matching)))
    return Selection(
        query=query,
        total=len(on_file.records),
        related=len(ranks),
        groups=tuple(groups),
        words=words,
        keys=len(on_file_keys) if query.related else 0,
    )


def records_ask(scopes: Sequence[str], actor: Actor, query: MemoryQuery) -> tuple[MemoryQuery, RecordsAsk]:
    """What to ask the database for `query` (a search by words; a related search is ranked by the
    store instead), and the query as understood: a group that is not this person's reads as none."""
    named = _named_groups(dict.fromkeys(scopes), actor)
    chosen = next((scope for scope, slug, _ in named if slug == query.group), None)
    if chosen is None:
        query = replace(query, group="", page=1)
    ask = RecordsAsk(
        scopes=tuple(scopes),
        actor_id=actor.id,
        own=own_scope(actor),
        words=search_words(query.text),
        author=query.author,
        origin=query.origin,
        order=query.order,
        scope=chosen,
        page=query.page,
        size=PAGE_SIZE,
        jump=query.jump,
    )
    return query, ask


def selection_of(page: RecordsPage, ask: RecordsAsk, actor: Actor, query: MemoryQuery) -> Selection:
    """The selection the database answered `ask` with, grouped as `select_entries` groups it."""
    contested = OnFile(ask.scopes, page.contested)
    groups = tuple(
        GroupSelection(
            scope,
            slug,
            words,
            held=page.held.get(scope, 0),
            matched=page.matching.get(scope, 0),
            shown=tuple(Listed(r, contested.entry_of(r)) for r in page.shown.get(scope, ())),
            start=page.starts.get(scope, 0),
        )
        for scope, slug, words in _named_groups(dict.fromkeys(ask.scopes), actor)
    )
    return Selection(query=query, total=sum(page.held.values()), related=0, groups=groups, words=ask.words)


def _named_groups(by_scope: Mapping[str, object], actor: Actor) -> list[tuple[str, str, ScopeWords]]:
    """Each scope with its slug and words; two scopes of one kind are numbered apart ("shared-x-2")."""
    slugs: Counter[str] = Counter()
    named = []
    for scope in by_scope:
        words = scope_words(scope, actor)
        slugs[words.slug] += 1
        named.append((scope, words.slug if slugs[words.slug] == 1 else f"{words.slug}-{slugs[words.slug]}", words))
    return named


def _closest(ranks: dict[str, int], kept: Iterable[MemoryRecord]) -> dict[str, int]:
    """Of the ranked keys, the `RELATED_LIMIT` best that a kept record holds, with their ranks."""
    keys = sorted({r.key for r in kept if r.key in ranks}, key=ranks.__getitem__)[:RELATED_LIMIT]
    return {key: ranks[key] for key in keys}


class _Filter:
    """Whether a record passes the author, origin and word filters."""

    def __init__(
        self, query: MemoryQuery, words: tuple[str, ...], actor: Actor, resolving: frozenset[Origin], on_file: OnFile
    ) -> None:
        self._author = query.author
        self._origin = query.origin
        self._actor = actor
        self._resolving = resolving
        self._pattern = words_pattern(words) if words else None
        # The record that applies for a key held at several scopes is found by its wider values too.
        self._wider = {
            e.record.id: "".join(folded(o.text) for o in e.overrides)
            for e in (on_file.contested if words else {}).values()
        }
        self.narrows = bool(self._author or self._origin or words)

    def kept(self, records: list[MemoryRecord]) -> list[MemoryRecord]:
        """The records that pass. A search by words alone, the common case over thousands, runs as one
        comprehension: a cached lookup and one match of the pattern per record."""
        if not self.narrows:
            return records
        if self._author or self._origin or self._pattern is None:
            return [r for r in records if self(r)]
        match, wider = self._pattern.match, self._wider
        return [
            r
            for r in records
            if match(folded_memory(r.key, r.text) + wider[r.id] if r.id in wider else folded_memory(r.key, r.text))
        ]

    def __call__(self, record: MemoryRecord) -> bool:
        if self._author and author_kind(record.origin, record.scope, self._actor) != self._author:
            return False
        if self._origin and not self._origin_kept(record.origin.thread_id, record.origin.run_id):
            return False
        if self._pattern is None:
            return True
        found = folded_memory(record.key, record.text)
        wider = self._wider.get(record.id)
        return self._pattern.match(found if wider is None else found + wider) is not None

    def _origin_kept(self, thread_id: str | None, run_id: str | None) -> bool:
        """A memory that came from no conversation is neither still there nor gone."""
        if thread_id is None:
            return False
        return (Origin(thread_id, run_id) in self._resolving) == (self._origin == "present")


def _jump_day(raw: str | None) -> str:
    """An `on=` value as the day it names (`YYYY-MM-DD`), or none when it names no day."""
    if not raw or not _DAY.fullmatch(raw):
        return ""
    try:
        return date.fromisoformat(raw).isoformat()
    except ValueError:
        return ""
