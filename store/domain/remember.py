"""The `remember` tool: what the model is offered, and what it may hand back.

The tool has no scope parameter on purpose: the assistant only ever writes the actor it runs for, so
a scope argument could only be a request that gets refused — and a refusable request is one a model
will keep making. A model's mistake (empty, too long, more than one line) is a result worded so it
can correct itself, never an exception.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Any

from store.domain.lookalikes import (
    DIRECTION_CONTROLS,
    TAG_OPENERS,
    first_stray_invisible,
    neutralise_tags,
    opens_a_tag,
    without_stray_invisibles,
)

__all__ = (
    "DEFAULT_MAX_FACT_CHARS",
    "DIRECTION_CONTROLS",
    "MAX_KEY_CHARS",
    "REMEMBER_TOOL",
    "MemoryInput",
    "check_memory_input",
    "remember_tool",
)

DEFAULT_MAX_FACT_CHARS = 240
MAX_KEY_CHARS = 120

_DESCRIPTION = (
    "Save a durable fact about the user you are helping, so later conversations start knowing it: "
    "something that will still be true another day (a preference, how they work, a correction they "
    "gave you), not what this conversation is about. Give it a short key naming the question it answers "
    "(reusing a key replaces the earlier fact) and state the fact in one line. The user can read and "
    "delete everything saved this way."
)


def remember_tool(max_fact_chars: int = DEFAULT_MAX_FACT_CHARS) -> dict[str, Any]:
    """The tool definition as a plain JSON-schema description: exactly `key` and `fact`, both required."""
    return {
        "name": "remember",
        "description": _DESCRIPTION,
        "parameters": {
            "type": "object",
            "properties": {
                "key": {
                    "type": "string",
                    "description": "A short name for the question this fact answers, e.g. 'fiscal-year'.",
                    "minLength": 1,
                    "maxLength": MAX_KEY_CHARS,
                },
                "fact": {
                    "type": "string",
                    "description": "The fact itself, in one line.",
                    "minLength": 1,
                    "maxLength": max_fact_chars,
                },
            },
            "required": ["key", "fact"],
            "additionalProperties": False,
        },
    }


REMEMBER_TOOL = remember_tool()


@dataclass(frozen=True, slots=True)
class MemoryInput:
    """A key and a fact that passed the checks (trimmed), or the error to hand back instead."""

    key: str
    fact: str
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


def check_memory_input(key: str, fact: str, *, max_fact_chars: int = DEFAULT_MAX_FACT_CHARS) -> MemoryInput:
    """Trim both, and take out of the fact the invisible characters writing does not need where they
    stand (`store.domain.lookalikes`: nothing it shows changes). Then refuse: an empty key or fact; a
    key over `MAX_KEY_CHARS` or a fact over `max_fact_chars` characters (the message states the limit
    and the length); a line break or other control character in either; an explicit text-direction
    control in either (see `DIRECTION_CONTROLS`); an invisible character in the key that writing does
    not need where it stands (see `_disguised`); a copy of the block's tag in the key, or a key that
    begins with a bracket (`_labelled`). In a fact such a copy of the tag is neutralised instead: its
    opening bracket becomes `‹`, as the block renders one. The first failure found is the one reported."""
    key, fact = key.strip(), without_stray_invisibles(fact.strip()).strip()
    error = (
        _empty("key", key)
        or _empty("fact", fact)
        or _too_long("key", key, MAX_KEY_CHARS, "Use a short name for the question it answers.")
        or _too_long("fact", fact, max_fact_chars, "State it in one shorter sentence.")
        or _not_one_line("key", key)
        or _not_one_line("fact", fact)
        or _reordered("key", key)
        or _reordered("fact", fact)
        or _disguised(key)
        or _tagged(key)
        or _labelled(key)
    )
    return MemoryInput(key=key, fact=neutralise_tags(fact), error=error)


def _reordered(name: str, value: str) -> str | None:
    bad = next((ch for ch in value if ch in DIRECTION_CONTROLS), None)
    return _stray(
        bad, f"The {name} contains a text-direction control", "show it to the user in another order than it is read"
    )


def _disguised(key: str) -> str | None:
    """A key is a name two notes are told apart by: an invisible character in it (a zero-width space,
    a word joiner, a soft hyphen, a joiner between letters that do not join) makes a second key that
    reads exactly like the first. The joiners scripts and emoji need, where they need them, and the
    direction marks in right-to-left text are kept (`store.domain.lookalikes`)."""
    return _stray(
        first_stray_invisible(key), "The key contains an invisible character", "make it look like another key"
    )


def _stray(bad: str | None, found: str, harm: str) -> str | None:
    """The refusal of a character that has no place there, by its code point: the model cannot see it
    in its own text, but can leave out what is named."""
    if bad is None:
        return None
    return f"{found} (U+{ord(bad):04X}), which would {harm}. Write it without one."


def _tagged(key: str) -> str | None:
    """A key that holds a copy of the block's tag, however written (`<memory>`, `＜/memory＞`,
    `< / memory`), would read as the block opening or closing around it."""
    if not any(opens_a_tag(key, at) for at, ch in enumerate(key) if ch in TAG_OPENERS):
        return None
    return (
        "The key contains a copy of the memory block's tag (<memory> or </memory>, however it is written), "
        "which would read as the block's own. Choose a key without it."
    )


def _labelled(key: str) -> str | None:
    """A key that begins with a bracket, however written (`[`, `［`), would read as the label the block
    puts before each fact to say whom it applies to: `- [actor:ada] [global] tone: …` reads as
    everyone's."""
    if not unicodedata.normalize("NFKC", key[:1]).startswith("["):
        return None
    return (
        "The key begins with “[”, which the memory block uses to say whom a fact applies to, so it would read "
        "as a label of its own. Choose a key that begins otherwise."
    )


def _empty(name: str, value: str) -> str | None:
    """Empty also when nothing in it shows: only spaces and invisible formatting characters (a
    zero-width space alone would be a line of the block with nothing to read on it)."""
    if any(unicodedata.category(ch) not in _BLANK for ch in value):
        return None
    return f"The {name} is empty. Give a {name} and try again."


_BLANK = frozenset({"Cf", "Zs"})


def _too_long(name: str, value: str, limit: int, advice: str) -> str | None:
    if len(value) <= limit:
        return None
    return f"The {name} is {len(value)} characters long; the limit is {limit}. {advice}"


def _not_one_line(name: str, value: str) -> str | None:
    bad = next((ch for ch in value if unicodedata.category(ch) in {"Cc", "Zl", "Zp", "Cs"}), None)
    if bad is None:
        return None
    if unicodedata.category(bad) == "Cs":
        half = f"half of a character that takes two (U+{ord(bad):04X}), as a cut emoji does"
        return f"The {name} contains {half}. Write it whole."
    what = "a line break" if bad in "\n\r\x0b\x0c\x85\u2028\u2029" else f"a control character (U+{ord(bad):04X})"
    return f"The {name} contains {what}. It must be a single line of plain text."
