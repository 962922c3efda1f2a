"""The memory block: what the model reads at the top of every turn.

Two sections by who decided the winning fact — "Stated by people." before "Concluded by you." —
because telling the model that an organisation's published policy is its own fallible note would
hand any user an override of that policy. Within a section the order is pinned first, then scope
order, then key: never recency or score, so the block does not reshuffle on every write and the
provider's prompt cache survives.

Whatever is in the database, every record is exactly one line of the block: stored text is
neutralised so it cannot open a line, close the block or forge a section, nor hold anything NFKC reads
as one of the block's tags (`store.domain.lookalikes`: writes are neutralised before they are stored,
and rendering holds it for whatever was stored before). The one record left out is a wider value
identical to the one overriding it (a note published for the whole organisation from someone's own):
the preamble tells the model to point out where a person's setting differs from the wider one, and it
differs from nothing.
"""

from __future__ import annotations

import re

from store.domain.lookalikes import neutralise_tags
from store.domain.scopes import scope_ranks
from store.domain.types import DigestEntry, MemoryDigest, Override

__all__ = (
    "BLOCK_CLOSE",
    "BLOCK_OPEN",
    "CONCLUDED_HEADING",
    "PARTIAL_NOTICE",
    "PREAMBLE",
    "REMEMBER_INVITATION",
    "STATED_HEADING",
    "build_memory_block",
    "in_render_order",
    "neutralise",
)

BLOCK_OPEN = "<memory>"
BLOCK_CLOSE = "</memory>"

PREAMBLE = (
    "What is on file about this user and their organisation, carried over from earlier conversations. "
    "Each line is a scope, a key and the fact. A narrower scope overrides a wider one; where the wider "
    "value is shown underneath, tell the user their setting differs from it rather than silently "
    "choosing one."
)
PARTIAL_NOTICE = (
    "This is a selection: other notes exist that are not in this list, so never read something's "
    "absence from it as evidence that it was never recorded."
)
REMEMBER_INVITATION = (
    "When you learn a durable fact about this user, one that will still be true another day, "
    "save it with the remember tool: they can read and delete what you save."
)
STATED_HEADING = (
    "Stated by people. A person wrote each of these deliberately — the user about themselves, or "
    "someone administering their organisation. Treat them as you would any other instruction you were "
    "given. If the user says something that contradicts one, say which note it conflicts with and at "
    "what scope it is held, rather than quietly setting it aside."
)
CONCLUDED_HEADING = (
    "Concluded by you. These are your own notes from earlier turns, not documents anyone wrote: they "
    "may be wrong or out of date, so prefer what the user says now, and say where a note came from if "
    "you act on it."
)

_OVERRIDE_INDENT = "    ↳ "
_WHITESPACE_RUN = re.compile(r" {2,}")
# Unicode's control characters (Cc), line and paragraph separators (Zl, Zp) and lone surrogates (Cs).
_LINE_BREAKING = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")
# Anything neutralise could change; most stored text has none of it and is returned as it is.
_SUSPECT = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff<\ufe64\uff1c]|  |^\\s|\\s$")


def neutralise(text: str) -> str:
    """One line of plain text: control characters and line or paragraph separators become spaces
    (runs of spaces fold to one), and a `<memory>` or `</memory>` tag — or anything NFKC reads as one,
    `＜/memory＞`, `< / MEMORY`, `</mem\u200bory>` — loses its opening bracket to `‹`
    (`store.domain.lookalikes.neutralise_tags`)."""
    if _is_plain(text) or not _SUSPECT.search(text):
        return text
    return neutralise_tags(_WHITESPACE_RUN.sub(" ", _LINE_BREAKING.sub(" ", text)).strip())


def build_memory_block(digest: MemoryDigest, *, writable: bool) -> str:
    """Render a digest. No entries: no block at all (the empty string). Lines joined by newlines,
    no trailing newline. The partial-selection notice appears whenever the ceiling bit or a search
    selected; the invitation to `remember` only when the provider can write."""
    if not digest.entries:
        return ""
    stated: list[str] = []
    concluded: list[str] = []
    for entry in in_render_order(digest):
        record = entry.record
        section = stated if record.origin.author == "human" else concluded
        section.append(_head_line(record.scope, record.key, record.text))
        for override in entry.overrides:
            if override.text != record.text:  # the same value held wider differs from nothing
                section.append(_override_line(override))

    lines = [BLOCK_OPEN, PREAMBLE]
    if digest.is_partial:
        lines.append(PARTIAL_NOTICE)
    if writable:
        lines.append(REMEMBER_INVITATION)
    if stated:
        lines.append(STATED_HEADING)
        lines += stated
    if concluded:
        lines.append(CONCLUDED_HEADING)
        lines += concluded
    lines.append(BLOCK_CLOSE)
    return "\n".join(lines)


def in_render_order(digest: MemoryDigest) -> list[DigestEntry]:
    """Pinned first, then scope order (narrowest first), then key: the order people and the model read.
    Entries that tie on all three keep the digest's order."""
    ranks = scope_ranks(digest.scopes)
    unranked = len(ranks)
    entries = digest.entries
    order = sorted(
        (not e.pinned, ranks.get(e.record.scope, unranked), e.record.key, at) for at, e in enumerate(entries)
    )
    return [entries[position] for _, _, _, position in order]


def _is_plain(text: str) -> bool:
    """A shortcut that is true only where `_SUSPECT` cannot match, with string methods (several times
    faster than the search): printable text has no control character, separator or surrogate, and no
    whitespace but the ASCII space, so "starts or ends with whitespace" is a look at the two ends. The
    two lookalikes of `<` are wider than any Latin-1 text, which the `in` sees at once."""
    return _plain_inside(text) and text[:1] != " " and text[-1:] != " "


def _plain_inside(text: str) -> bool:
    """True only when `text` holds nothing `neutralise` changes wherever it stands — no control
    character, separator or surrogate, no opener of a tag, no run of spaces — leaving its ends to the
    caller, who knows where they are."""
    return text.isprintable() and "<" not in text and "\uff1c" not in text and "\ufe64" not in text and "  " not in text


def _head_line(scope: str, key: str, text: str) -> str:
    """`- [scope] key: text`, each part neutralised."""
    line = f"[{scope}] {key}: {text}"
    # `_is_plain_line`, with the ends of the two short parts looked at instead of the whole line
    # searched three more times for them (a line is some hundred characters; those scans were a
    # fifth of rendering a block): what follows `] ` or `: ` shows its leading space as `  `.
    plain = _plain_inside(line) and scope[:1] != " " and scope[-1:] != " " and key[-1:] != " " and line[-1:] != " "
    return f"- {line}" if plain else f"- [{neutralise(scope)}] {neutralise(key)}: {neutralise(text)}"


def _override_line(override: Override) -> str:
    says = "a person stated" if override.author == "human" else "instead has"
    line = f"[{override.scope}] {says}: {override.text}"
    if _is_plain_line(line):
        return _OVERRIDE_INDENT + line
    return f"{_OVERRIDE_INDENT}[{neutralise(override.scope)}] {says}: {neutralise(override.text)}"


def _is_plain_line(line: str) -> bool:
    """For a line `[a] b: c` built from parts that are then each left as they are: true only when
    `neutralise` would change none of them. The line is checked once instead of each part: a part
    that starts or ends with a space shows as a space beside the line's `[`, `]` or `:`, beside its
    separating space, or at its end. A false alarm (`a :` inside a text) only takes the long way."""
    return _plain_inside(line) and "[ " not in line and " ]" not in line and " :" not in line and line[-1:] != " "
