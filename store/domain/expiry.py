"""How long what the assistant concluded about a person is kept, and how the person is told.

An organisation may give what the assistant concludes about its people a lifetime: so many days since
the person last asked to keep it, or since the assistant last wrote it. Past that, the memory leaves
every prompt at once and `onfile prune` removes it. What a person or an administrator stated never
expires: only their own forgetting removes it. OnFile does not yet count when a memory went into a
prompt, so "last use" is read as the last time it was written or kept. Pure: time is a parameter.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

__all__ = (
    "LIFETIME_CHOICES",
    "ExpiryWords",
    "LifetimeChoice",
    "concluded_expiry",
    "expiry_basis",
    "expiry_words",
    "is_expired",
    "lifetime_choice",
    "lifetime_words",
)

LIFETIME_CHOICES = (30, 90, 180, 365)
"""The lifetimes, in days, an organisation's administrators are offered (or none: kept until forgotten)."""


def concluded_expiry(author: str, basis: datetime, lifetime_days: int | None) -> datetime | None:
    """When a memory written by `author` and last written or kept at `basis` leaves every prompt: never
    for what a person stated, nor while the organisation set no lifetime."""
    if author != "agent" or lifetime_days is None:
        return None
    return basis + timedelta(days=lifetime_days)


def expiry_basis(updated_at: datetime, confirmed_at: datetime | None) -> datetime:
    """The memory's clock starts at whichever is later: its last write or the person's last keep."""
    return updated_at if confirmed_at is None else max(updated_at, confirmed_at)


def is_expired(expires_at: datetime | None, now: datetime) -> bool:
    """Expired from the instant its time is reached; a memory without one never is."""
    return expires_at is not None and expires_at <= now


@dataclass(frozen=True, slots=True)
class LifetimeChoice:
    """An administrator's answer to "how long": `days` (None: kept until forgotten) or, when the answer
    is not one of the offered ones, `error`."""

    days: int | None = None
    error: str = ""


def lifetime_choice(answer: str) -> LifetimeChoice:
    """ "never" keeps concluded memories until forgotten; otherwise one of `LIFETIME_CHOICES`. Nothing
    chosen is no choice: a setting is never changed by a value the page does not offer."""
    text = answer.strip()
    if text == "never":
        return LifetimeChoice()
    if text.isdigit() and int(text) in LIFETIME_CHOICES:
        return LifetimeChoice(days=int(text))
    offered = ", ".join(str(days) for days in LIFETIME_CHOICES)
    return LifetimeChoice(error=f"Choose one of {offered} days, or keep them until forgotten.")


def lifetime_words(days: int | None) -> str:
    """A lifetime as an administrator reads it."""
    if days is None:
        return "kept until the person forgets them"
    return f"kept for {_span(days)} after the person last kept them or the assistant last wrote them"


@dataclass(frozen=True, slots=True)
class ExpiryWords:
    """What the person is told about one memory's expiry: `expired` once it left their prompts."""

    text: str
    expired: bool


def expiry_words(expires_at: datetime, now: datetime) -> ExpiryWords:
    """In the person's words: when their assistant stops using it, or that it already has."""
    if is_expired(expires_at, now):
        return ExpiryWords("Your assistant no longer uses this: it expired. Keep it to bring it back.", expired=True)
    left = expires_at - now
    # to the nearest day: kept just now for thirty days reads "in 30 days", not 29 and some hours
    when = "today" if left < timedelta(days=1) else f"in {_span(round(left / timedelta(days=1)))}"
    return ExpiryWords(f"Your assistant stops using this {when}, unless you keep it.", expired=False)


def _span(days: int) -> str:
    """Days, months or years: whole ones of the largest unit that reads naturally, rounded down unless
    the next is a few days off, so the time left is never said to be longer than it is by more than that
    (77 days are "2 months", not "3"; 88 are "3 months"; 352 are "11 months", 361 "1 year")."""
    if days >= 360:
        return _count(_whole(days, 365, within=5), "year")
    if days >= 60:
        return _count(_whole(days, 30, within=5), "month")
    return _count(days, "day")


def _whole(days: int, unit: int, *, within: int) -> int:
    """Whole `unit`s in `days`, one more when the next is at most `within` days away."""
    whole, rest = divmod(days, unit)
    return whole + (rest >= unit - within)


def _count(number: int, unit: str) -> str:
    return f"{number} {unit}" if number == 1 else f"{number} {unit}s"
