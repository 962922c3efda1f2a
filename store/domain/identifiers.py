"""The ids a runtime hands OnFile — runs, threads, tool calls, actors, tenants, roles — and what makes one.

An id names something OnFile stores, shows a person (an actor id becomes their scope, `actor:<id>`,
in the block and on the dashboard) and looks up again later, possibly in a URL. So an id is plain,
visible text that reads the same way wherever it is shown:

- one to `MAX_ID_CHARS` characters, with no space at either end (" u1" and "u1" would be two people
  who look like one);
- no control character, line or paragraph separator, lone surrogate, or invisible formatting
  character (zero-width spaces and joiners, text-direction controls): each can make an id show
  as another one, or reorder what is printed after it;
- no U+FFFD, the replacement character, which is what undecodable bytes in an address turn into:
  two different ids sent that way would arrive as one;
- and an id that goes into an address (a run's or a thread's) holds no `/`, which an address cannot
  carry as part of one segment.

Letters of every script, digits, punctuation, symbols and emoji are all fine, except an emoji sequence
joined by the zero-width joiner, which is invisible.
"""

from __future__ import annotations

import unicodedata

__all__ = ("MAX_ID_CHARS", "MAX_ROLES", "id_problem")

MAX_ID_CHARS = 200
MAX_ROLES = 50
"""The most roles an actor is named with (each an id)."""
_INVISIBLE = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
_LINE_BREAKS = frozenset("\n\r\x0b\x0c\x85\u2028\u2029")


def id_problem(name: str, value: str, *, in_address: bool = False) -> str | None:
    """Why `value` cannot be the id called `name` (one sentence, naming it), or None when it can.
    `in_address`: the id is also a segment of an address (a run id or a thread id)."""
    if not value:
        return f"{name} is empty; give an id of 1 to {MAX_ID_CHARS} characters."
    if len(value) > MAX_ID_CHARS:
        return f"{name} is {len(value)} characters long; the limit is {MAX_ID_CHARS}."
    plain = value.isascii() and value.isprintable()  # letters, digits, punctuation and spaces only
    for character in "" if plain else value:
        if character in _LINE_BREAKS:
            return f"{name} contains a line break (U+{ord(character):04X}); an id is one line of plain visible text."
        if unicodedata.category(character) in _INVISIBLE:
            return (
                f"{name} contains an invisible or control character (U+{ord(character):04X}); "
                "ids are plain visible text."
            )
    if value != value.strip():
        return f"{name} starts or ends with a space; ids are compared exactly, so send it without."
    if "\ufffd" in value:
        return f"{name} contains U+FFFD, which stands for bytes that were not UTF-8; send the id as UTF-8."
    if in_address and "/" in value:
        return f"{name} contains '/', which an address cannot carry inside one segment; use another separator."
    return None
