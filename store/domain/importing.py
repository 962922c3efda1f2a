"""Reading a person's own export back in: what each line of the file would do, before anything is
written.

The file is the JSON the person's page exports (a list of memories, each an object with a `key` and a
`text`, as `GET /memories/export.json` writes them). Every line is written, if at all, as stated by the
person at their own scope: a line the export marks as held for others (an organisation's or
everyone's fact) is left out, said as such, and never written anywhere. A line is added (a key they do
not hold), replaces their value (shown beside the new one), or is already on file. A line that cannot
be imported says why; and then nothing is, so an import is never half-applied. Pure: the file's text
and the person's current values come in as data.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from store.domain.lookalikes import may_read_like_another, same_looking_key
from store.domain.remember import check_memory_input

__all__ = (
    "IMPORT_AT_MOST_BYTES",
    "IMPORT_AT_MOST_LINES",
    "NOT_AN_EXPORT",
    "THE_CSV_DOWNLOAD",
    "TOO_LARGE",
    "ImportLine",
    "ImportPlan",
    "plan_import",
)

IMPORT_AT_MOST_BYTES = 2_000_000
"""The largest file an import reads: an export of several thousand memories."""
IMPORT_AT_MOST_LINES = 5_000
"""The most memories one import writes."""

LineAction = Literal["add", "replace", "same", "shared", "error"]
_NOT_A_MEMORY = "This line is not a memory (an object with a key and a text)."
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
TOO_LARGE = f"The file is larger than {IMPORT_AT_MOST_BYTES // 1_000_000} MB: import it in parts."
NOT_AN_EXPORT = "This is not an OnFile export: choose the JSON file your page's “Download as JSON” gives."
THE_CSV_DOWNLOAD = (
    "This is your page's CSV download, which is for reading in a spreadsheet: to import, choose the JSON "
    "file “Download as JSON” gives."
)
_CSV_DOWNLOAD = re.compile(r'\A\s*"?id"?\s*([,;\t])\s*"?key"?\s*\1\s*"?fact"?\s*\1', re.IGNORECASE)
"""How the page's CSV download begins (its columns' names), also as a spreadsheet saves it again:
quoted, with semicolons or tabs between, capitalised, after a blank line."""


@dataclass(frozen=True, slots=True)
class ImportLine:
    """One memory of the file (`number` counts from 1) and what importing it would do: `old` is the
    person's value it replaces; `reason` says why a line is left out or cannot be imported."""

    number: int
    key: str
    text: str
    action: LineAction
    old: str | None = None
    reason: str = ""


@dataclass(frozen=True, slots=True)
class ImportPlan:
    """What importing a file would do, line by line; `error` when the file as a whole cannot be read."""

    lines: tuple[ImportLine, ...] = ()
    error: str = ""
    others: tuple[str, ...] = ()
    """The people other than the importer whose own notes the file holds (by their `actor:` scope),
    in the order they first appear: an export of someone else, or of the person under another id."""

    @property
    def errors(self) -> tuple[ImportLine, ...]:
        return tuple(line for line in self.lines if line.action == "error")

    @property
    def writes(self) -> tuple[ImportLine, ...]:
        """The lines that would be written (added or replacing), when nothing stops the import."""
        return tuple(line for line in self.lines if line.action in ("add", "replace"))

    @property
    def applicable(self) -> bool:
        """Whether the import may go ahead: a readable file, not one line in error, something to write."""
        return not self.error and not self.errors and bool(self.writes)


def plan_import(
    document: str, current: Mapping[str, str], *, max_fact_chars: int, own_scope: str | None = None
) -> ImportPlan:
    """What importing `document` would do to a person whose own values are `current` (by key).

    The file must be JSON holding a list of objects, at most `IMPORT_AT_MOST_LINES` of them. Each
    object needs a `key` and a `text` that a person could write (`check_memory_input`); a key may
    appear once among the lines to import, and may not read like another of theirs or of the file's
    while differing from it (`store.domain.lookalikes`). A `scope` that is not a person's own marks a
    shared fact, left out; one that is another person's than `own_scope` is imported, and named in
    the plan's `others`."""
    if len(document.encode()) > IMPORT_AT_MOST_BYTES:
        return ImportPlan(error=TOO_LARGE)
    try:
        parsed = json.loads(document)
    except (ValueError, RecursionError):  # RecursionError: nested deeper than any export is
        csv = _CSV_DOWNLOAD.match(document.lstrip("\ufeff")) is not None
        return ImportPlan(error=THE_CSV_DOWNLOAD if csv else NOT_AN_EXPORT)
    if not isinstance(parsed, list):
        return ImportPlan(error=NOT_AN_EXPORT)
    if not parsed:
        return ImportPlan(error="The file holds no memories.")
    if len(parsed) > IMPORT_AT_MOST_LINES:
        return ImportPlan(
            error=f"The file holds {len(parsed):,} memories; import at most {IMPORT_AT_MOST_LINES:,} at once."
        )
    seen: set[str] = set()
    lines = []
    for number, item in enumerate(parsed, start=1):
        line = _line(number, item, current, seen, max_fact_chars)
        if line.action not in ("error", "shared"):
            seen.add(line.key)
        lines.append(line)
    return ImportPlan(lines=tuple(lines), others=_others(parsed, lines, own_scope))


def _others(parsed: list[object], lines: list[ImportLine], own_scope: str | None) -> tuple[str, ...]:
    """The ids of the people other than `own_scope`'s whose notes the lines to import were exported for."""
    if own_scope is None:
        return ()
    others: dict[str, None] = {}
    for item, line in zip(parsed, lines, strict=True):
        scope = item.get("scope") if isinstance(item, dict) else None
        if line.action in ("add", "replace", "same") and isinstance(scope, str) and scope != own_scope:
            others.setdefault(scope.removeprefix("actor:"), None)
    return tuple(others)


def _line(number: int, item: object, current: Mapping[str, str], seen: set[str], max_fact_chars: int) -> ImportLine:
    if not isinstance(item, dict):
        return ImportLine(
            number, "", "", "error", reason="This line is not a memory (an object with a key and a text)."
        )
    key, text, scope = item.get("key"), item.get("text"), item.get("scope")
    if not isinstance(key, str) or not isinstance(text, str):
        return ImportLine(number, _shown(key), _shown(text), "error", reason="This line needs a key and a text.")
    if isinstance(scope, str) and not scope.startswith("actor:"):
        reason = "Held for others, not a note of yours, so it is left as it is."
        return ImportLine(number, _shown(key), _shown(text), "shared", reason=reason)
    checked = check_memory_input(key, text, max_fact_chars=max_fact_chars)
    if checked.error is not None:
        return ImportLine(number, _shown(key), _shown(text), "error", reason=checked.error)
    if checked.key in seen:
        return ImportLine(number, checked.key, checked.fact, "error", reason="This key is in the file twice.")
    twin = same_looking_key(checked.key, [*current, *seen]) if may_read_like_another(checked.key) else None
    if twin is not None:
        reason = (
            f"This key reads exactly like “{twin}” but differs in invisible characters: give it exactly as "
            "that one is to replace it, or a key that reads differently."
        )
        return ImportLine(number, checked.key, checked.fact, "error", reason=reason)
    old = current.get(checked.key)
    action: LineAction = "add" if old is None else "same" if old == checked.fact else "replace"
    return ImportLine(number, checked.key, checked.fact, action, old=old)


def _shown(value: object) -> str:
    """A line's value as the preview can show it: a text as it is, but for half of a character that
    takes two (a lone surrogate, which JSON can spell, "\\ud800", and no page can print), shown as the
    replacement character; anything else as nothing."""
    return _LONE_SURROGATE.sub("\ufffd", value) if isinstance(value, str) else ""
