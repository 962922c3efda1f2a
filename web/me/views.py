"""The view-models of "What's on file about you": every template on the page renders from these.

Nothing here decides anything. Whether an entry can be forgotten is `memory_forget_verdict`'s answer;
which entries are shown is `select_entries`'; whether a conversation is gone is the registry's. This
module only puts those answers into words and addresses.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime
from urllib.parse import quote, urlencode

from store import Actor, DigestEntry, Override, memory_forget_verdict
from store.domain.expiry import expiry_words
from store.domain.finding import marked_pieces
from store.domain.usage import Usage
from store.persistence.registry import Origin
from web.kit.notices import NoticeView
from web.kit.paging import PagerView, pager
from web.kit.views import OptionView, TimeView, time_view
from web.kit.words import (
    AuthorKind,
    Mention,
    author_kind,
    count_words,
    day_words,
    override_by,
    scope_words,
    written_by,
)
from web.me.listing import RELATED_LIMIT, GroupSelection, Listed, MemoryQuery, Selection
from web.me.on_file import HasRecord, origin_of

__all__ = (
    "DateJumpView",
    "EntryView",
    "EntryWording",
    "FiltersView",
    "GroupView",
    "MemoriesPage",
    "OriginView",
    "OverrideView",
    "Pieces",
    "PromotionConfirmView",
    "PromotionView",
    "RankingView",
    "RowPage",
    "conversation_link",
    "entry_view",
    "memories_page",
    "stated_by",
)


Pieces = tuple[tuple[str, bool], ...]
"""A text cut where a search matched: each piece with whether the page marks it."""


@dataclass(frozen=True, slots=True)
class OriginView:
    url: str | None
    """The conversation's address, when the deployment configured one and the origin resolves."""
    gone: bool
    """The conversation or the turn the memory came from is no longer available."""


@dataclass(frozen=True, slots=True)
class OverrideView:
    """A wider value the entry overrides: "Your organisation's default is “…”, set by an administrator"."""

    lead: str
    text: str
    by: str
    group: str
    """The slug of the group the value is held in."""
    pieces: Pieces = ()
    """The text, marked where the search matched."""


@dataclass(frozen=True, slots=True)
class ExpiryView:
    """When the assistant stops using a memory it concluded, in the person's words, and their way to
    keep it: `expired` once it already has."""

    text: str
    expired: bool
    at: TimeView
    keep_href: str


@dataclass(frozen=True, slots=True)
class PromotionView:
    """An offer to republish one of the person's own entries at a wider scope they administer."""

    scope: str
    label: str
    """"Publish for everyone in your organisation"."""
    confirm_href: str
    """The confirmation step: a page of its own, or for htmx the entry's replacement."""


@dataclass(frozen=True, slots=True)
class UsageView:
    """When the memory last went into one of the person's prompts, and how often lately: `last` None
    for never; the conversation linked (`url`), or `gone` when it was deleted."""

    last: TimeView | None
    turns: int
    turns_words: str
    url: str | None = None
    gone: bool = False


NEVER_USED = UsageView(last=None, turns=0, turns_words="")


def usage_view(usage: Usage, resolving: frozenset[Origin], now: datetime, conversation_url: str) -> UsageView:
    """A memory's use in words, its last conversation linked or said to be gone."""
    if usage.last_used_at is None:
        return NEVER_USED
    turns = f"in {usage.turns:,} {'turn' if usage.turns == 1 else 'turns'} over the last 30 days"
    origin = Origin(usage.last_thread_id, None)
    if usage.last_thread_id is not None and origin not in resolving:
        return UsageView(time_view(usage.last_used_at, now), usage.turns, turns, gone=True)
    url = conversation_link(conversation_url, origin)
    return UsageView(time_view(usage.last_used_at, now), usage.turns, turns, url=url)


@dataclass(frozen=True, slots=True)
class EntryView:
    id: str
    key: str
    fact: str
    scope_words: str
    author: AuthorKind
    written_by: Mention
    updated: TimeView
    pinned: bool
    overrides: tuple[OverrideView, ...]
    """The wider values this entry overrides that say something else."""
    origin: OriginView | None
    forgettable: bool
    """`memory_forget_verdict`'s answer for this person and this entry's scope."""
    managed: str
    """Why there is no forget button (empty when there is one)."""
    address: str
    """The memory's address (`entry_address`), which its acts extend."""
    promotions: tuple[PromotionView, ...] = ()
    """The wider scopes this entry may be published at (someone who administers them, their own entry),
    leaving out a scope that already holds the same text."""
    same_as: tuple[OverrideView, ...] = ()
    """The wider scopes that hold the very same text (as after publishing one's own note): said as
    such, never as a difference."""
    key_pieces: Pieces = ()
    fact_pieces: Pieces = ()
    """The key and the fact, marked where the search matched."""
    overridden_by: str = ""
    """For a record a narrower one overrides: whose value applies instead ("" for one that applies)."""
    set_by: str = "This is your setting"
    """Who set this entry, said above the wider values it differs from."""
    usage: UsageView | None = None
    """When it went into the person's prompts (None where the page does not say)."""
    expiry: ExpiryView | None = None
    """For what the assistant concluded under an organisation's lifetime: when it stops being used."""

    @property
    def forget_href(self) -> str:
        return f"{self.address}/forget"

    @property
    def promote_href(self) -> str:
        return f"{self.address}/promote"

    @property
    def edit_href(self) -> str:
        return f"{self.address}/edit"


def entry_address(id: str) -> str:
    """The memory's address, which its acts (forget, keep, correct, publish) extend."""
    return f"/memories/{quote(id, safe='')}"


@dataclass(frozen=True, slots=True)
class DateJumpView:
    """A form that goes to the page of a date: what it asks, and the day it starts at."""

    label: str
    value: str
    """The day asked for, or else the day of the first entry shown."""


@dataclass(frozen=True, slots=True)
class GroupView:
    slug: str
    heading: str
    note: str
    held: int
    matching: int
    count_words: str
    entries: tuple[EntryView, ...]
    pager: PagerView | None
    empty: str
    """What an empty group says."""
    jump: tuple[tuple[str, str], ...] = ()
    """The fields a "go to page" form sends beside the page number: this view on the group's own view."""
    date_jump: DateJumpView | None = None
    """The "go to a date" form, beside the page numbers of a group listed by date."""
    beyond: str = ""
    """Said when the address asked for more than the group holds (`_beyond`)."""


@dataclass(frozen=True, slots=True)
class FiltersView:
    text: str
    matches: tuple[OptionView, ...]
    """How the text is matched: by its words, or by closeness in meaning."""
    match_hint: str
    """What each way of matching does, for the control's description."""
    groups: tuple[OptionView, ...]
    authors: tuple[OptionView, ...]
    origins: tuple[OptionView, ...]
    orders: tuple[OptionView, ...]
    active: bool
    wordless: bool
    """A search by words whose text holds no word, only signs ("%", "?"): it has nothing to look for,
    so it leaves everything in, and the summary says so rather than only that everything matched."""
    clear_href: str


@dataclass(frozen=True, slots=True)
class RankingView:
    """A related search: the store ranked every memory by closeness in meaning and named the closest."""

    ranked: int
    """How many memories the ranking named (at most `RELATED_LIMIT`), before the group and author filters."""
    explanation: str
    """How the list was chosen, saying it is the closest few and not everything (unless it is)."""


@dataclass(frozen=True, slots=True)
class MemoriesPage:
    viewer_name: str
    csrf_token: str
    total: int
    total_words: str
    matching: int
    matching_words: str
    filters: FiltersView
    groups: tuple[GroupView, ...]
    focused: bool
    """One group was chosen, so it pages with numbered links."""
    back: str
    """This view's own address, for the forms that come back to it."""
    notice: NoticeView | None = None
    area_href: str = ""
    """Where this person's part of the elevated area starts ("" for someone with no elevation)."""
    ranking: RankingView | None = None
    """Present for a related search: the list is the closest few, in that order."""

    @property
    def hx_headers(self) -> str:
        """For `<body hx-headers>`: every htmx request carries the CSRF token."""
        return json.dumps({"X-CSRF-Token": self.csrf_token})

    @property
    def empty(self) -> bool:
        return self.total == 0


def conversation_link(template: str, origin: Origin) -> str | None:
    """The conversation's address from the configured template, or None without a template or a thread."""
    if not template or origin.thread_id is None:
        return None
    url = template.replace("{thread_id}", quote(origin.thread_id, safe=""))
    url = url.replace("{run_id}", quote(origin.run_id or "", safe=""))
    return url.removesuffix("#")


def memories_page(
    selection: Selection,
    actor: Actor,
    *,
    resolving: frozenset[Origin],
    now: datetime,
    conversation_url: str,
    viewer_name: str,
    csrf_token: str,
    names: Mapping[str, str],
    notice: NoticeView | None = None,
    promotion_targets: tuple[str, ...] = (),
    area_href: str = "",
    usage: Mapping[str, UsageView] | None = None,
    expiries: Mapping[str, datetime] | None = None,
) -> MemoriesPage:
    """`promotion_targets`: the wider scopes the person may republish their own entries at
    (`Administration.promotion_targets`), offered on each of their own entries; `names`: the names of
    the people who stated the entries shown (`stated_by`), by id."""
    query = selection.query
    entries = EntryWording(
        actor, selection, resolving, now, conversation_url, names, promotion_targets, usage, expiries
    )
    matching = selection.matching
    verb = "" if query.related else " matches" if matching == 1 else " match"
    return MemoriesPage(
        viewer_name=viewer_name,
        csrf_token=csrf_token,
        total=selection.total,
        total_words=count_words(selection.total),
        matching=matching,
        matching_words=count_words(matching) + verb,
        filters=_filters(selection),
        groups=tuple(group_view(g, query, entries) for g in selection.visible),
        focused=bool(query.group),
        back=query.href(),
        notice=notice,
        area_href=area_href,
        ranking=_ranking(selection),
    )


def _ranking(selection: Selection) -> RankingView | None:
    """A related search in plain words. It shows the closest few, so it never claims to be everything
    unless every memory on file was among them."""
    query = selection.query
    if not query.related:
        return None
    ranked = selection.related
    within = ", within your other filters" if query.group or query.author or query.origin else ""
    shown = (
        f"Showing all {count_words(selection.total)} on file, closest first{within}"
        if ranked >= selection.keys
        else f"Showing the closest one{within}"
        if ranked == 1
        else f"Showing the {ranked:,} closest{within}"
    )
    lead = "Ranked by how close in meaning each memory is to your search, as the assistant ranks them."
    return RankingView(ranked=ranked, explanation=f"{lead} {shown}.")


@dataclass(frozen=True, slots=True)
class RowPage:
    """What one entry's row needs of its page when it is answered alone: the forms' token and way back."""

    csrf_token: str
    back: str


@dataclass(frozen=True, slots=True)
class PromotionConfirmView:
    """Before one of the person's own entries is published for more people: who will be told it."""

    entry: EntryView
    scope: str
    audience: str
    """Who will be told it: "everyone in your organisation"."""
    back: str
    viewer_name: str
    csrf_token: str

    @property
    def row_href(self) -> str:
        return self.entry.address


def entry_view(wording: EntryWording, entry: DigestEntry) -> EntryView:
    """One entry as the page shows it, wherever it is on the page (an in-place step puts it back)."""
    return wording.build(Listed(entry.record, entry))


def stated_by(entries: Iterable[HasRecord], actor: Actor) -> set[str]:
    """The ids of the administrators who stated `entries`, as `actor`'s page names them."""
    return {
        ref
        for e in entries
        if (ref := e.record.origin.actor_ref) and author_kind(e.record.origin, e.record.scope, actor) == "administrator"
    }


def group_view(group: GroupSelection, query: MemoryQuery, entries: EntryWording) -> GroupView:
    matching = group.matched
    paged = query.related or group.pages <= 1
    return GroupView(
        slug=group.slug,
        heading=group.words.heading,
        note=group.words.note,
        held=group.held,
        matching=matching,
        count_words=f"{matching:,} of {count_words(group.held)}" if query.filtered else count_words(matching),
        entries=tuple(entries.build(e) for e in group.shown),
        pager=None if paged else _pager(group, query),
        empty=_empty_filtered(query) if query.filtered else _empty_group(group),
        jump=() if paged else _jump_fields(query, group.slug),
        date_jump=None if paged or query.order == "key" else _date_jump(query, group),
        beyond=_beyond(group, query),
    )


def _beyond(group: GroupSelection, query: MemoryQuery) -> str:
    """What the group says when the address asks past its end — a page after its last, or a date before
    its oldest memory (newest first) or after its newest (oldest first) — as the last page is shown."""
    if group.slug != query.group or query.related or not group.shown or group.start + len(group.shown) < group.matched:
        return ""
    if query.on:
        day, last = date.fromisoformat(query.on), group.shown[-1].record.updated_at.astimezone(UTC).date()
        if query.order == "newest" and last > day:
            return f"Nothing here was written on or before {day_words(day)}: these are the oldest."
        if query.order == "oldest" and last < day:
            return f"Nothing here was written on or after {day_words(day)}: these are the newest."
        return ""
    if query.page > group.pages:
        return f"There is no page {query.page:,}: this is the last, page {group.pages:,}."
    return ""


def _jump_fields(query: MemoryQuery, slug: str) -> tuple[tuple[str, str], ...]:
    """What "go to page" sends beside the number it asks for: this view's filters, on the group."""
    return tuple((n, v) for n, v in replace(query, group=slug, page=1, on="").pairs() if v and n != "page")


def _date_jump(query: MemoryQuery, group: GroupSelection) -> DateJumpView:
    """The "go to a date" form of a group listed newest or oldest first."""
    newest = query.order == "newest"
    label = "Go to what was written on or before" if newest else "Go to what was written on or after"
    shown = group.shown[0].record.updated_at.date().isoformat() if group.shown else ""
    return DateJumpView(label=label, value=query.on or shown)


def _empty_filtered(query: MemoryQuery) -> str:
    if query.related:
        return "None of the memories closest to your search is held here."
    return "Nothing here matches your filter."


def _empty_group(group: GroupSelection) -> str:
    if group.words.kind == "own":
        return "Nothing is noted about you yet. What you or your assistant note will appear here."
    return f"Nothing is held for {group.words.held_for} yet."


def _pager(group: GroupSelection, query: MemoryQuery) -> PagerView | None:
    """The group's pages; each is the group's own view (from the overview, its first page is the one
    shown and its other pages lead there)."""

    def to(number: int) -> str:  # a page number followed stands for the date jump
        return query.href(group=group.slug, page=number, on="") + f"#group-{group.slug}"

    shown, of = len(group.shown), group.matched
    return pager(page=group.page, pages=group.pages, start=group.start, shown=shown, of=of, href=to)


def _filters(selection: Selection) -> FiltersView:
    query = selection.query
    groups = (
        OptionView("", f"All ({selection.total:,})", not query.group),
        *(OptionView(g.slug, f"{_short(g)} ({g.held:,})", g.slug == query.group) for g in selection.groups),
    )
    authors = (
        OptionView("", "Anyone", not query.author),
        OptionView("you", "You", query.author == "you"),
        OptionView("assistant", "Your assistant", query.author == "assistant"),
        OptionView("administrator", "An administrator", query.author == "administrator"),
    )
    matches = (
        OptionView("words", "Words", query.match == "words"),
        OptionView("related", "Related in meaning", query.match == "related"),
    )
    origins = (
        OptionView("", "Any, or none", not query.origin),
        OptionView("present", "Still available", query.origin == "present"),
        OptionView("gone", "No longer available", query.origin == "gone"),
    )
    orders = (
        OptionView("newest", "Newest first", query.order == "newest"),
        OptionView("oldest", "Oldest first", query.order == "oldest"),
        OptionView("key", "By key, A to Z", query.order == "key"),
    )
    return FiltersView(
        text=query.text,
        matches=matches,
        match_hint=(
            "Words finds memories holding every word you type, in any order, including words that begin "
            "with what you typed. Related in meaning ranks them as your assistant "
            f"does and shows the {RELATED_LIMIT} closest."
        ),
        groups=groups,
        authors=authors,
        origins=origins,
        orders=orders,
        active=query.filtered,
        wordless=bool(query.text) and not query.related and not selection.words,
        clear_href=MemoryQuery().href(),
    )


def _short(group: GroupSelection) -> str:
    """The group's name in the filter, after "Held for": "You alone", "Your organisation", "Your depot “north”"."""
    named = {"own": "you alone", "organisation": "your organisation", "everyone": "everyone"}.get(
        group.words.kind, group.words.held_for.removeprefix("everyone in ")
    )
    return named[:1].upper() + named[1:]


@dataclass(frozen=True, slots=True)
class EntryWording:
    """What words the entries of one person's page at one moment: whose page, what the search selected
    (its words are marked), which origins still resolve, the names of who stated them, where the person
    may publish, and each memory's use and expiry, by id."""

    actor: Actor
    selection: Selection
    resolving: frozenset[Origin]
    now: datetime
    conversation_url: str
    names: Mapping[str, str]
    promotion_targets: tuple[str, ...] = ()
    usage: Mapping[str, UsageView] | None = None
    expiries: Mapping[str, datetime] | None = None

    def build(self, listed: Listed) -> EntryView:
        record, entry = listed.record, listed.entry
        at = entry_address(record.id)
        kind = author_kind(record.origin, record.scope, self.actor)
        verdict = memory_forget_verdict(scope=record.scope, actor=self.actor)
        words = scope_words(record.scope, self.actor)
        overrides = listed.overrides
        return EntryView(
            id=record.id,
            key=record.key,
            fact=record.text,
            scope_words=f"Applies to {words.held_for}",
            author=kind,
            written_by=written_by(kind, record.origin, self.names),
            updated=time_view(record.updated_at, self.now),
            pinned=entry.pinned,
            overrides=tuple(self._override(o) for o in overrides if o.text != record.text),
            same_as=tuple(self._override(o) for o in overrides if o.text == record.text),
            origin=self._origin(listed),
            forgettable=verdict.allowed,
            managed="" if verdict.allowed else words.managed,
            promotions=self._promotions(entry, at) if words.kind == "own" else (),
            key_pieces=marked_pieces(record.key, self.selection.words),
            fact_pieces=marked_pieces(record.text, self.selection.words),
            overridden_by=self._overridden_by(listed),
            set_by=words.set_this,
            usage=None if self.usage is None else self.usage.get(record.id, NEVER_USED),
            expiry=self._expiry(record.id, at),
            address=at,
        )

    def _expiry(self, id: str, at: str) -> ExpiryView | None:
        expires_at = (self.expiries or {}).get(id)
        if expires_at is None:
            return None
        words = expiry_words(expires_at, self.now)
        return ExpiryView(words.text, words.expired, time_view(expires_at, self.now), f"{at}/keep")

    def _overridden_by(self, listed: Listed) -> str:
        """For a record another of its key overrides: that it does not apply, and whose value does."""
        if not listed.overridden:
            return ""
        winner = listed.entry.record
        if scope_words(winner.scope, self.actor).kind != "own":
            held_for = scope_words(winner.scope, self.actor).held_for
            return f"Doesn't apply to you: the value held for {held_for} overrides it."
        if winner.text == listed.record.text:
            return "Your own note says the same, and that is the one that applies to you."
        return "Doesn't apply to you: your own setting overrides it."

    def _override(self, override: Override) -> OverrideView:
        return OverrideView(
            lead=scope_words(override.scope, self.actor).default_is,
            text=override.text,
            by=override_by(override.author, override.scope, self.actor),
            group={g.scope: g.slug for g in self.selection.groups}.get(override.scope, ""),
            pieces=marked_pieces(override.text, self.selection.words),
        )

    def _promotions(self, entry: DigestEntry, at: str) -> tuple[PromotionView, ...]:
        published = {o.scope for o in entry.overrides if o.text == entry.text}
        return tuple(
            PromotionView(
                scope=s,
                label=f"Publish for {scope_words(s, self.actor).held_for}",
                confirm_href=f"{at}/promote?{urlencode({'scope': s})}",
            )
            for s in self.promotion_targets
            if s not in published
        )

    def _origin(self, entry: HasRecord) -> OriginView | None:
        origin = origin_of(entry)
        if origin.thread_id is None:
            return None
        if origin not in self.resolving:
            return OriginView(url=None, gone=True)
        url = conversation_link(self.conversation_url, origin)
        return OriginView(url=url, gone=False) if url else None
