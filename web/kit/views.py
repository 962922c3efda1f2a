"""View-model parts that pages of every audience render: a moment, and a choice in a filter or a form."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from web.kit.words import exact_time, relative_time

__all__ = ("OptionView", "TimeView", "time_view")


@dataclass(frozen=True, slots=True)
class TimeView:
    iso: str
    """For `<time datetime>`."""
    relative: str
    exact: str


def time_view(moment: datetime, now: datetime) -> TimeView:
    """`moment` as a page shows it at `now`: how long ago in words, the exact time in UTC beside it,
    and ISO 8601 (UTC written `Z`) for the machine."""
    return TimeView(
        iso=moment.isoformat().replace("+00:00", "Z"), relative=relative_time(moment, now), exact=exact_time(moment)
    )


@dataclass(frozen=True, slots=True)
class OptionView:
    value: str
    label: str
    selected: bool
