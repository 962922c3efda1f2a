"""Which entries the page shows: grouped by scope, filtered, and one page of each group at a time.

Groups follow the resolver's order (the person's own scope first, then whatever it returned next),
one group per scope token. The text is matched one of two ways (`match=`):

- `words` (the default): the text must appear in the key or the fact (case-insensitively);
- `related`: the entries whose keys the store ranks first for the text, as it ranks a turn's memories
  (`store.memory.related_keys`, at most `RELATED_LIMIT`), each group in that order, best first. The
  ranking is the store's; this module only keeps and orders the entries it names.

The author filter matches who wrote the winning record, either way. Counts:

- `total` is everything on file, whatever the filter;
- a group's `held` is everything held at its scope, whatever the filter;
- a group's `matching` is what passes the text and author filters.

Paging is per group, `PAGE_SIZE` entries at a time, in render order (pinned first, then key). A
numbered page (`page=`) serves the plain links; a cursor (`after=`, the last entry already shown)
serves htmx's "show more", so entries forgotten in place never make the next chunk skip any. A related
search shows at most `RELATED_LIMIT` entries, fewer than a page, so it has neither: `page=` and
`after=` are dropped from it.
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import ClassVar, Literal, get_args

from store import Actor, DigestEntry
from web.kit.paging import MAX_QUERY_CHARS, ListQuery, page_number, search_text
from web.kit.words import AuthorKind, ScopeWords, author_kind, scope_words
from web.me.on_file import OnFile

__all__ = (
    "MAX_QUERY_CHARS",
    "PAGE_SIZE",
    "RELATED_LIMIT",
    "GroupSelection",
    "Match",
    "MemoryQuery",
    "Selection",
    "cursor_of",
    "select_entries",
)

PAGE_SIZE = 50
RELATED_LIMIT = 20
"""How many of the closest memories a related search shows, across every group."""
AUTHOR_KINDS: tuple[AuthorKind, ...] = get_args(AuthorKind)
Match = Literal["words", "related"]


@dataclass(frozen=True, slots=True)
class MemoryQuery(ListQuery):
    """What the person asked the page for. Unknown or malformed values read as "no filter"."""

    path: ClassVar[str] = "/"
    text: str = ""
    group: str = ""
    author: str = ""
    page: int = 1
    after: str | None = None
    match: Match = "words"
    """How the text is matched; kept without text too, so the person's choice stays chosen."""

    @classmethod
    def parse(
        cls,
        *,
        text: str | None = None,
        group: str | None = None,
        author: str | None = None,
        page: str | None = None,
        after: str | None = None,
        match: str | None = None,
    ) -> MemoryQuery:
        query = cls(
            text=search_text(text),
            group=(group or "").strip(),
            author=author if author in AUTHOR_KINDS else "",
            page=page_number(page),
            after=after or None,
            match="related" if match == "related" else "words",
        )
        return replace(query, page=1, after=None) if query.related else query

    @property
    def related(self) -> bool:
        """Whether the store ranks the entries for the text (related mode with something to search for)."""
        return self.match == "related" and bool(self.text)

    @property
    def filtered(self) -> bool:
        """Whether anything narrows the list (the page number does not)."""
        return bool(self.text or self.group or self.author)

    def pairs(self) -> list[tuple[str, str]]:
        return [
            ("q", self.text),
            ("group", self.group),
            ("author", self.author),
            ("match", self.match if self.match != "words" else ""),
            ("page", str(self.page) if self.page > 1 else ""),
            ("after", self.after or ""),
        ]


@dataclass(frozen=True, slots=True)
class GroupSelection:
    """One scope's entries: how many it holds, which match, and which are shown."""

    scope: str
    slug: str
    words: ScopeWords
    held: int
    matching: tuple[DigestEntry, ...]
    shown: tuple[DigestEntry, ...]
    start: int
    """The index in `matching` of the first shown entry."""

    @property
    def remaining(self) -> int:
        """Matching entries after the shown ones."""
        return len(self.matching) - self.start - len(self.shown)

    @property
    def pages(self) -> int:
        return max(1, -(-len(self.matching) // PAGE_SIZE))

    @property
    def page(self) -> int:
        return self.start // PAGE_SIZE + 1


@dataclass(frozen=True, slots=True)
class Selection:
    query: MemoryQuery
    """The query as understood: a group that is not this person's reads as no group filter."""
    total: int
    related: int
    """For a related search, how many of the entries on file the store's ranking named, before the group
    and author filters; 0 otherwise."""
    groups: tuple[GroupSelection, ...]
    """Every group, in the resolver's order, whether or not it is visible."""

    @property
    def visible(self) -> tuple[GroupSelection, ...]:
        """The groups the page renders: the chosen one; otherwise every group, except that a text or
        author filter hides the groups with nothing matching."""
        if self.query.group:
            return tuple(g for g in self.groups if g.slug == self.query.group)
        if self.query.text or self.query.author:
            return tuple(g for g in self.groups if g.matching)
        return self.groups

    @property
    def matching(self) -> int:
        return sum(len(g.matching) for g in self.visible)

    def shown(self) -> tuple[DigestEntry, ...]:
        return tuple(e for g in self.visible for e in g.shown)

    def group(self, slug: str) -> GroupSelection | None:
        return next((g for g in self.groups if g.slug == slug), None)


def cursor_of(entry: DigestEntry) -> str:
    """Where an entry sits in its group's order, as a string for `after=`."""
    return f"{0 if entry.pinned else 1}:{entry.key}"


def _position(cursor: str) -> tuple[bool, str]:
    flag, _, key = cursor.partition(":")
    return (flag != "0", key)


def select_entries(on_file: OnFile, actor: Actor, query: MemoryQuery, related: Sequence[str] = ()) -> Selection:
    """`related`: for a related search, the keys the store ranked first, best first (the entries of
    other keys do not match); ignored otherwise."""
    by_scope: dict[str, list[DigestEntry]] = {scope: [] for scope in on_file.scopes}
    for entry in on_file.entries:
        by_scope.setdefault(entry.scope, []).append(entry)
    slugs: Counter[str] = Counter()
    named = []
    for scope in by_scope:
        words = scope_words(scope, actor)
        slugs[words.slug] += 1
        named.append((scope, words.slug if slugs[words.slug] == 1 else f"{words.slug}-{slugs[words.slug]}", words))
    if query.group not in {slug for _, slug, _ in named}:
        query = replace(query, group="", after=None)
    on_file_keys = {e.key for e in on_file.entries}
    ranks = {key: n for n, key in enumerate(k for k in dict.fromkeys(related) if k in on_file_keys)}
    needle = "" if query.related else query.text.casefold()
    groups = []
    for scope, slug, words in named:
        entries = by_scope[scope]
        matching = tuple(e for e in entries if _matches(e, needle, query.author, actor))
        if query.related:
            matching = tuple(sorted((e for e in matching if e.key in ranks), key=lambda e: ranks[e.key]))
        start = _start(matching, query) if slug == query.group and not query.related else 0
        shown = matching[start : start + PAGE_SIZE]
        groups.append(GroupSelection(scope, slug, words, len(entries), matching, shown, start))
    related_count = len(ranks) if query.related else 0
    return Selection(query=query, total=len(on_file.entries), related=related_count, groups=tuple(groups))


def _matches(entry: DigestEntry, needle: str, author: str, actor: Actor) -> bool:
    if author and author_kind(entry.record.origin, entry.scope, actor) != author:
        return False
    return not needle or needle in entry.key.casefold() or needle in entry.text.casefold()


def _start(matching: tuple[DigestEntry, ...], query: MemoryQuery) -> int:
    if query.after is not None:
        after = _position(query.after)
        return bisect.bisect_right(matching, after, key=lambda e: (not e.pinned, e.key))
    last_page = max(1, -(-len(matching) // PAGE_SIZE))
    return (min(query.page, last_page) - 1) * PAGE_SIZE
