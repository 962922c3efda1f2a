"""Plain words for what the page shows: scopes, authors, people, times and counts.

A person never has to read a scope token. Their own scope is "you", a `tenant:` scope is "your
organisation", `global` is "everyone", and any other token a resolver mints (`depot:north`) is named
by its two halves ("your depot “north”"). Who wrote a memory is read from its origin and its scope:
the assistant, the person themselves, or — a human-authored memory held for more people than
them — an administrator, named when the origin says who.

A person is named by the name their identity provider gave at their last login, with their id beside
it, since names are not unique; someone whose name OnFile does not know (never logged in, or erased)
by their id alone. A page asks for all the names it shows at once (`KnownPeople.names_of`) and hands
them here as a mapping from id to name.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Literal

from markupsafe import Markup

from store import DIRECTION_CONTROLS, GLOBAL_SCOPE, Actor, Author, MemoryOrigin, own_scope

__all__ = (
    "NOT_PUT_BACK",
    "PUBLISH_REFUSED",
    "AuthorKind",
    "Mention",
    "PersonName",
    "ScopeWords",
    "author_kind",
    "author_words",
    "count_words",
    "day_words",
    "exact_time",
    "not_theirs_to_change",
    "overridden_not_theirs",
    "override_by",
    "person_name",
    "relative_time",
    "scope_words",
    "shared_scope_name",
    "shown_as_read",
    "written_by",
)

AuthorKind = Literal["you", "assistant", "administrator"]
"""Who wrote an entry, as the author filter offers it."""

ScopeKind = Literal["own", "organisation", "everyone", "shared"]

_SLUG_UNSAFE = re.compile(r"[^a-z0-9]+")

PUBLISH_REFUSED = "You can publish your own notes only for people whose shared facts you administer."
"""Why a person's note cannot be published where they asked: the store's own reason names scopes."""
NOT_PUT_BACK = "Your own notes can no longer be written for you here, so nothing was put back."
"""Why an undo put nothing back because the person's own memory no longer applies to them."""


@dataclass(frozen=True, slots=True)
class ScopeWords:
    """How one scope is named on the page."""

    kind: ScopeKind
    slug: str
    """Stable within one person's page; safe in a URL and an element id."""
    heading: str
    """The group's heading."""
    held_for: str
    """Who an entry at this scope applies to ("you alone")."""
    note: str
    """One sentence under the heading: what the group is and who manages it."""
    managed: str
    """Why an entry here has no forget button (unused for the person's own scope)."""
    default_is: str
    """How an overridden value held here is introduced: "Your organisation's default is"."""
    set_this: str
    """Who set an entry here that overrides a wider value: "This is your setting", "Your organisation
    set this"."""


def scope_words(scope: str, actor: Actor) -> ScopeWords:
    """The words for `scope` as `actor` sees it. Two scopes of one kind (two `tenant:` tokens) get the
    same slug here; the page numbers the later ones apart."""
    if scope == own_scope(actor):
        return ScopeWords(
            kind="own",
            slug="you",
            heading="What you or your assistant noted about you",
            held_for="you alone",
            note="These apply to you alone. You can forget any of them.",
            managed="",
            default_is="Your own value is",
            set_this="This is your setting",
        )
    if scope == GLOBAL_SCOPE:
        return ScopeWords(
            kind="everyone",
            slug="everyone",
            heading="What holds for everyone",
            held_for="everyone",
            note="These apply to everyone who uses the assistant. OnFile's administrators manage them.",
            managed="Applies to everyone; managed by OnFile's administrators",
            default_is="The default for everyone is",
            set_this="OnFile's administrators set this for everyone",
        )
    kind, _, value = scope.partition(":")
    if kind == "tenant":
        return ScopeWords(
            kind="organisation",
            slug="organisation",
            heading="What your organisation holds",
            held_for="everyone in your organisation",
            note="These apply to everyone in your organisation. Its administrators manage them.",
            managed="Managed by your organisation",
            default_is="Your organisation's default is",
            set_this="Your organisation set this",
        )
    return _shared_words(kind, value)


def not_theirs_to_change(scope: str, actor: Actor) -> str:
    """Why a person may not forget or correct a memory held at `scope`, in words, where the store's
    verdict names the scope's token: who manages it, and that only they can change it."""
    return f"{scope_words(scope, actor).managed}: only its administrators can change or remove it."


def overridden_not_theirs(scope: str, actor: Actor) -> str:
    """Why a person may not forget or correct a wider value their own setting overrides."""
    return f"{not_theirs_to_change(scope, actor)} It does not apply to you: your own setting overrides it."


def shared_scope_name(scope: str, *, whose: str = "your") -> str:
    """A scope a deployment minted, named: `depot:spandau` → "your depot “spandau”" (`whose`: "the",
    for a page about someone else)."""
    kind, _, value = scope.partition(":")
    noun = kind.replace("_", " ").replace("-", " ").strip() or "group"
    return f"{whose} {noun} “{value}”" if value else f"{whose} {noun}"


def _shared_words(kind: str, value: str) -> ScopeWords:
    noun = kind.replace("_", " ").replace("-", " ").strip() or "group"
    named = shared_scope_name(f"{kind}:{value}")
    slug = "shared-" + (_SLUG_UNSAFE.sub("-", f"{noun} {value}".lower()).strip("-") or "scope")
    return ScopeWords(
        kind="shared",
        slug=slug,
        heading=f"What {named} holds",
        held_for=f"everyone in {named}",
        note=f"These apply to everyone in {named}. Its administrators manage them.",
        managed=f"Shared with {named}; managed by its administrators",
        default_is=f"{named[0].upper()}{named[1:]} has",
        set_this=f"{named[0].upper()}{named[1:]} set this",
    )


def author_kind(origin: MemoryOrigin, scope: str, actor: Actor) -> AuthorKind:
    """The assistant for anything it concluded; the person for what a human wrote at their own scope
    (unless the origin names somebody else); an administrator for any other human-written memory."""
    if origin.author == "agent":
        return "assistant"
    if scope == own_scope(actor) and origin.actor_ref in {None, actor.id}:
        return "you"
    return "administrator"


def author_words(kind: AuthorKind) -> str:
    return {
        "you": "You wrote this",
        "assistant": "Your assistant concluded it",
        "administrator": "An administrator stated it",
    }[kind]


@dataclass(frozen=True, slots=True)
class PersonName:
    """How a page names one person: `name` (empty when OnFile knows none, or it is just their id), and
    their `id`. Templates show it with the `person` macro (`_person.html`): the name, the id smaller."""

    id: str
    name: str = ""

    @property
    def text(self) -> str:
        """As plain text, where no markup can go (a title, a button, an option): "Ada Lovelace (ada)"."""
        return f"{self.name} ({self.id})" if self.name else self.id


def person_name(person_id: str, names: Mapping[str, str]) -> PersonName:
    name = names.get(person_id, "")
    return PersonName(person_id, "" if name == person_id else name)


@dataclass(frozen=True, slots=True)
class Mention:
    """Words that may name a person: `lead`, the person, then `tail` ("Stated by ", Lena, ", an
    administrator"). Templates show it with the `mention` macro (`_person.html`)."""

    lead: str
    person: PersonName | None = None
    tail: str = ""


def written_by(kind: AuthorKind, origin: MemoryOrigin, names: Mapping[str, str]) -> Mention:
    """Who wrote an entry, in words (`author_words`), naming the administrator when the origin says who."""
    if kind == "administrator" and origin.actor_ref:
        return Mention("Stated by ", person_name(origin.actor_ref, names), ", an administrator")
    return Mention(author_words(kind))


def override_by(author: Author, scope: str, actor: Actor) -> str:
    """How a beaten value's author is named after it: "set by an administrator"."""
    if author == "agent":
        return "concluded by your assistant"
    return "set by you" if scope == own_scope(actor) else "set by an administrator"


def count_words(count: int, singular: str = "memory", plural: str = "memories") -> str:
    """`1 memory`, `10,000 memories`."""
    return f"{count:,} {singular if count == 1 else plural}"


def relative_time(then: datetime, now: datetime) -> str:
    """How long ago, in the largest whole unit: "just now", "5 minutes ago", "yesterday", "3 days ago",
    "2 months ago", "a year ago". A time in the future (clock skew) reads "just now"."""
    elapsed = now - then
    if elapsed < timedelta(minutes=1):
        return "just now"
    minutes = int(elapsed.total_seconds() // 60)
    if minutes < 60:
        return _ago(minutes, "minute")
    hours = minutes // 60
    if hours < 24:
        return _ago(hours, "hour")
    days = elapsed.days
    if days == 1:
        return "yesterday"
    if days < 31:
        return _ago(days, "day")
    if days < 365:
        return _ago(days // 30, "month")
    return _ago(days // 365, "year")


def _ago(count: int, unit: str) -> str:
    if count == 1:
        return f"an {unit} ago" if unit == "hour" else f"a {unit} ago"
    return f"{count} {unit}s ago"


_MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)


def day_words(day: date) -> str:
    """A day written out: "1 September 2026" (in English whatever the locale)."""
    return f"{day.day} {_MONTHS[day.month - 1]} {day.year}"


def exact_time(moment: datetime) -> str:
    """The moment in UTC, written out: "1 September 2026, 09:12 UTC" (in English whatever the locale)."""
    utc = moment.astimezone(UTC)
    return f"{utc.day} {_MONTHS[utc.month - 1]} {utc.year}, {utc.hour:02}:{utc.minute:02} UTC"


_WITHOUT_DIRECTION_CONTROLS = dict.fromkeys(map(ord, DIRECTION_CONTROLS))


def shown_as_read(value: object) -> object:
    """Every value a page prints (the templates' `finalize`): a text with an explicit direction
    control (`store.DIRECTION_CONTROLS`) loses it, so a stored key, fact or name shows in the order
    the model reads it and cannot reorder the page around it. No write OnFile accepts holds one; a
    record stored by other means, and a name from the identity provider, may. Markup is what a
    template made of values each already shown this way (a macro's output, a captured block), so it
    is passed as it is rather than read through again."""
    if not isinstance(value, str) or isinstance(value, Markup) or value.isascii():
        return value
    return value.translate(_WITHOUT_DIRECTION_CONTROLS)
