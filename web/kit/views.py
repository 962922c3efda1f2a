"""View-model parts that pages of every audience render: a moment, and a choice in a filter or a form."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ("OptionView", "TimeView")


@dataclass(frozen=True, slots=True)
class TimeView:
    iso: str
    """For `<time datetime>`."""
    relative: str
    exact: str


@dataclass(frozen=True, slots=True)
class OptionView:
    value: str
    label: str
    selected: bool
