"""The rules of a concluded memory's lifetime: when it expires, and how the person is told."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from store.domain.expiry import (
    LifetimeChoice,
    concluded_expiry,
    expiry_basis,
    expiry_words,
    is_expired,
    lifetime_choice,
    lifetime_words,
)

AT = datetime(2026, 12, 1, 9, tzinfo=UTC)


@pytest.mark.parametrize(
    ("author", "lifetime", "expected"),
    [
        ("agent", 180, AT + timedelta(days=180)),
        ("agent", None, None),
        ("human", 180, None),
        ("human", None, None),
    ],
)
def test_only_what_the_assistant_concluded_expires_and_only_when_a_lifetime_is_set(
    author: str, lifetime: int | None, expected: datetime | None
) -> None:
    assert concluded_expiry(author, AT, lifetime) == expected


@pytest.mark.parametrize(
    ("confirmed", "expected"),
    [(None, AT), (AT - timedelta(days=1), AT), (AT + timedelta(days=1), AT + timedelta(days=1))],
)
def test_the_clock_starts_at_the_later_of_the_last_write_and_the_last_keep(
    confirmed: datetime | None, expected: datetime
) -> None:
    assert expiry_basis(AT, confirmed) == expected


@pytest.mark.parametrize(
    ("expires_at", "expired"),
    [(None, False), (AT + timedelta(seconds=1), False), (AT, True), (AT - timedelta(days=1), True)],
)
def test_a_memory_is_expired_from_the_instant_its_time_is_reached(expires_at: datetime | None, expired: bool) -> None:
    assert is_expired(expires_at, AT) is expired


@pytest.mark.parametrize(
    ("answer", "choice"),
    [
        ("", LifetimeChoice(error="Choose one of 30, 90, 180, 365 days, or keep them until forgotten.")),
        ("never", LifetimeChoice()),
        (" 180 ", LifetimeChoice(days=180)),
        ("30", LifetimeChoice(days=30)),
        ("31", LifetimeChoice(error="Choose one of 30, 90, 180, 365 days, or keep them until forgotten.")),
        ("-30", LifetimeChoice(error="Choose one of 30, 90, 180, 365 days, or keep them until forgotten.")),
        ("soon", LifetimeChoice(error="Choose one of 30, 90, 180, 365 days, or keep them until forgotten.")),
    ],
)
def test_an_administrator_chooses_one_of_the_offered_lifetimes_or_none(answer: str, choice: LifetimeChoice) -> None:
    assert lifetime_choice(answer) == choice


@pytest.mark.parametrize(
    ("days", "words"),
    [
        (None, "kept until the person forgets them"),
        (30, "kept for 30 days after the person last kept them or the assistant last wrote them"),
        (90, "kept for 3 months after the person last kept them or the assistant last wrote them"),
        (365, "kept for 1 year after the person last kept them or the assistant last wrote them"),
    ],
)
def test_a_lifetime_is_said_in_plain_words(days: int | None, words: str) -> None:
    assert lifetime_words(days) == words


@pytest.mark.parametrize(
    ("left", "text", "expired"),
    [
        (timedelta(hours=3), "Your assistant stops using this today, unless you keep it.", False),
        (timedelta(days=1), "Your assistant stops using this in 1 day, unless you keep it.", False),
        (timedelta(days=45), "Your assistant stops using this in 45 days, unless you keep it.", False),
        (
            timedelta(days=29, hours=23, minutes=59),
            "Your assistant stops using this in 30 days, unless you keep it.",
            False,
        ),
        (timedelta(days=1, hours=11), "Your assistant stops using this in 1 day, unless you keep it.", False),
        (timedelta(days=1, hours=13), "Your assistant stops using this in 2 days, unless you keep it.", False),
        (timedelta(days=89, hours=23), "Your assistant stops using this in 3 months, unless you keep it.", False),
        (timedelta(days=179, hours=23), "Your assistant stops using this in 6 months, unless you keep it.", False),
        (timedelta(days=349), "Your assistant stops using this in 11 months, unless you keep it.", False),
        (timedelta(days=77), "Your assistant stops using this in 2 months, unless you keep it.", False),
        (timedelta(days=85), "Your assistant stops using this in 3 months, unless you keep it.", False),
        (timedelta(days=84), "Your assistant stops using this in 2 months, unless you keep it.", False),
        (timedelta(days=600), "Your assistant stops using this in 1 year, unless you keep it.", False),
        (timedelta(days=352), "Your assistant stops using this in 11 months, unless you keep it.", False),
        (timedelta(days=361), "Your assistant stops using this in 1 year, unless you keep it.", False),
        (timedelta(days=364, hours=23), "Your assistant stops using this in 1 year, unless you keep it.", False),
        (timedelta(days=730), "Your assistant stops using this in 2 years, unless you keep it.", False),
        (timedelta(0), "Your assistant no longer uses this: it expired. Keep it to bring it back.", True),
    ],
)
def test_the_person_is_told_when_their_assistant_stops_using_a_memory(
    left: timedelta, text: str, expired: bool
) -> None:
    words = expiry_words(AT + left, AT)

    assert (words.text, words.expired) == (text, expired)
