"""A person's display name: how a page names someone, as their identity provider last named them.

A name is not an id. It is never compared, looked up or put in an address; it only sits beside the
id on a page (names are not unique, so the id is shown too). But it is text an outsider chose — the
provider passes on whatever the person or their administrator typed — so OnFile keeps it as plain
visible text on one line:

- every run of white space (line breaks, tabs, no-break spaces, line and paragraph separators)
  becomes one space, and there is none at either end;
- control characters, lone surrogates and invisible formatting characters go: a text-direction
  control would reorder what the page prints after the name, a zero-width space would make one name
  look like another. The zero-width joiner and non-joiner stay: Persian and Indic names and emoji
  sequences need them, and they reorder nothing;
- at most `MAX_NAME_CHARS` characters are kept.

Markup is just text here: the pages escape whatever they print.
"""

from __future__ import annotations

import unicodedata

__all__ = ("MAX_NAME_CHARS", "display_name")

MAX_NAME_CHARS = 200
_INVISIBLE = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
_JOINERS = frozenset({"\u200c", "\u200d"})


def display_name(value: object) -> str | None:
    """`value` as a name a page may show, or None when it is not text or nothing visible is left."""
    if not isinstance(value, str):
        return None
    kept = "".join(
        " " if character.isspace() else character
        for character in value
        if character.isspace() or character in _JOINERS or unicodedata.category(character) not in _INVISIBLE
    )
    name = " ".join(kept.split())[:MAX_NAME_CHARS].rstrip()
    return name or None
