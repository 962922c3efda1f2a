"""Text that reads as something it is not: invisible characters where writing does not need them,
copies of the memory block's tags, and keys that read like another key.

Two texts can read the same and differ. An invisible formatting character (Unicode's category Cf: a
zero-width space, a word joiner, a soft hyphen, a byte-order mark, a joiner where nothing joins)
shows nothing, so `tone` and `to\\u00adne` are two keys that read as one; and a fullwidth `＜/memory＞`,
a spaced `< / memory >` or a `</mem\\u200bory>` reads as the tag that closes the block. The rule
(`docs/input-rules.md`):

- An invisible formatting character is *needed* where writing uses it: a zero-width joiner or
  non-joiner (or Mongolian's vowel separator) between two letters of a script that joins or
  conjoins them (`_JOINING`: Arabic, Syriac, N'Ko, Mongolian, the Indic scripts, Myanmar, Khmer…),
  a zero-width joiner inside an emoji sequence, a direction mark (U+200E, U+200F, U+061C) in text
  that holds right-to-left letters, and the tags that spell a subdivision's flag after 🏴. The
  prepended number signs (U+0600–U+0605 and their kin) are formatting characters that show, so
  they are not invisible at all. Any other is *stray*; the text-direction controls
  (`DIRECTION_CONTROLS`) are refused on their own, with their own sentence.
- A *tag lookalike* is a character that NFKC reads as `<` (`<`, `＜`, `﹤`) followed by `memory` or
  `/memory` as NFKC reads them, in any case, with any whitespace, invisible or combining characters
  between.
- Two keys *read alike* when they are equal once every invisible formatting character is removed
  (`key_likeness`).
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from collections.abc import Iterable

__all__ = (
    "DIRECTION_CONTROLS",
    "TAG_OPENERS",
    "first_stray_invisible",
    "key_likeness",
    "lookalike_key_problem",
    "may_read_like_another",
    "neutralise_tags",
    "opens_a_tag",
    "same_looking_key",
    "without_stray_invisibles",
)

DIRECTION_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
"""Unicode's explicit embeddings, overrides and isolates (LRE, RLE, PDF, LRO, RLO, LRI, RLI, FSI, PDI):
invisible characters that reorder the text around them on screen, so that a fact could read one way
to the person shown it and another to the model. Right-to-left scripts need none of them; the
direction marks (U+200E, U+200F, U+061C), which reorder nothing, are allowed where there is
right-to-left text to mark."""

TAG_OPENERS = "<\ufe64\uff1c"
"""Every character whose NFKC form holds `<` (checked against all of Unicode by a test)."""

_TAG_NAME = "memory"
_JOINERS = frozenset("\u200c\u200d\u180e")  # ZWNJ, ZWJ, and Mongolian's vowel separator
_ZWJ = "\u200d"
_DIRECTION_MARKS = frozenset("\u200e\u200f\u061c")
_VISIBLE_FORMAT = frozenset("\u0600\u0601\u0602\u0603\u0604\u0605\u06dd\u070f\u0890\u0891\u08e2\U000110bd\U000110cd")
_BLACK_FLAG = "\U0001f3f4"
_TAGS = range(0xE0020, 0xE0080)  # the tag letters and CANCEL TAG that spell a subdivision's flag
_EMOJI_MODIFIERS = frozenset("\ufe0f\U0001f3fb\U0001f3fc\U0001f3fd\U0001f3fe\U0001f3ff")  # VS16, skin tones
_RIGHT_TO_LEFT = frozenset({"R", "AL"})
_NOT_READ = frozenset({"Cc", "Cf", "Mn", "Me", "Zs", "Zl", "Zp"})
_OPENER = re.compile(f"[{TAG_OPENERS}]")

# Blocks of the scripts whose letters a joiner or non-joiner joins, conjoins or keeps apart, as
# (first, last) code points in order.
_JOINING = (
    (0x0600, 0x08FF),  # Arabic, Syriac, Thaana, N'Ko, Samaritan, Mandaic, and their supplements
    (0x0900, 0x0DFF),  # Devanagari, Bengali, Gurmukhi, Gujarati, Oriya, Tamil, Telugu, Kannada, Malayalam, Sinhala
    (0x0F00, 0x0FFF),  # Tibetan
    (0x1000, 0x109F),  # Myanmar
    (0x1780, 0x18AF),  # Khmer, Mongolian
    (0x1B00, 0x1B7F),  # Balinese
    (0x1CD0, 0x1CFF),  # Vedic extensions
    (0xA8E0, 0xA8FF),  # Devanagari extended
    (0xA980, 0xA9DF),  # Javanese
    (0xFB50, 0xFDFF),  # Arabic presentation forms A
    (0xFE70, 0xFEFC),  # Arabic presentation forms B (U+FEFF, the byte-order mark, is not one)
    (0x10AC0, 0x10AFF),  # Manichaean
    (0x10B80, 0x10BAF),  # Psalter Pahlavi
    (0x10D00, 0x10D3F),  # Hanifi Rohingya
    (0x10F30, 0x10FAF),  # Sogdian, Old Uyghur
    (0x11000, 0x111DF),  # Brahmi, Kaithi, Sora Sompeng, Chakma, Mahajani, Sharada
    (0x1E900, 0x1E95F),  # Adlam
)
_JOINING_STARTS = tuple(first for first, _ in _JOINING)


def first_stray_invisible(text: str) -> str | None:
    """The first invisible formatting character of `text` that writing does not need where it
    stands, or None. A text-direction control is not reported here (it has its own refusal)."""
    if text.isprintable():  # no formatting character at all: the usual case, decided in C
        return None
    return next((text[at] for at in _stray_positions(text)), None)


def without_stray_invisibles(text: str) -> str:
    """`text` without the invisible formatting characters writing does not need where they stand:
    nothing it shows changes."""
    if text.isprintable():
        return text
    stray = set(_stray_positions(text))
    return "".join(ch for at, ch in enumerate(text) if at not in stray)


def _stray_positions(text: str) -> Iterable[int]:
    right_to_left = any(_right_to_left(ch) for ch in text)
    for at, ch in enumerate(text):
        if unicodedata.category(ch) == "Cf" and ch not in DIRECTION_CONTROLS and not _needed(text, at, right_to_left):
            yield at


def _needed(text: str, at: int, right_to_left: bool) -> bool:
    """Whether the formatting character at `at` does something where it stands."""
    ch = text[at]
    before = text[at - 1] if at > 0 else ""
    after = text[at + 1 : at + 2]
    if ch in _VISIBLE_FORMAT:
        return True
    if ch in _DIRECTION_MARKS:
        return right_to_left
    if ord(ch) in _TAGS:  # needed in a run of tags that follows the black flag
        start = at
        while start > 0 and ord(text[start - 1]) in _TAGS:
            start -= 1
        return start > 0 and text[start - 1] == _BLACK_FLAG
    if ch not in _JOINERS:
        return False
    if ch == _ZWJ and _emoji(before, modifier_too=True) and _emoji(after, modifier_too=False):
        return True
    return _joining(before) and _joining(after)


def _emoji(ch: str, *, modifier_too: bool) -> bool:
    """A pictograph (`So`), or — ending the emoji before a joiner — a skin tone or the emoji-style
    variation selector."""
    return ch != "" and (unicodedata.category(ch) == "So" or (modifier_too and ch in _EMOJI_MODIFIERS))


def _joining(ch: str) -> bool:
    if ch == "" or unicodedata.category(ch) == "Cf":
        return False
    code = ord(ch)
    block = bisect_right(_JOINING_STARTS, code) - 1
    return block >= 0 and code <= _JOINING[block][1]


def _right_to_left(ch: str) -> bool:
    """A right-to-left letter (the marks are right-to-left too, but mark nothing on their own)."""
    return unicodedata.bidirectional(ch) in _RIGHT_TO_LEFT and ch not in _DIRECTION_MARKS


def opens_a_tag(text: str, at: int) -> bool:
    """Whether the character at `at` opens `<memory` or `</memory` as NFKC reads it: a `<` (or a
    character NFKC reads as one) followed by an optional `/` and `memory`, in any case, whatever
    whitespace, invisible or combining characters stand between them."""
    if text[at] not in TAG_OPENERS:
        return False
    read: list[str] = []
    for after in range(at + 1, len(text)):
        folded = unicodedata.normalize("NFKC", text[after]).casefold()
        read += (c for c in folded if unicodedata.category(c) not in _NOT_READ)
        if len(read) > len(_TAG_NAME):
            break
    name = "".join(read)
    return name.startswith((_TAG_NAME, "/" + _TAG_NAME))


def neutralise_tags(text: str) -> str:
    """`text` with the opening character of each tag lookalike replaced by `‹`, as the block renders a
    plain `<memory>`: it then reads as what it is, text about a tag."""
    if not any(opener in text for opener in TAG_OPENERS):  # three scans that an ASCII text skips at once
        return text
    return _OPENER.sub(lambda found: "‹" if opens_a_tag(text, found.start()) else found[0], text)


def key_likeness(key: str) -> str:
    """The key as it reads: without its invisible formatting characters."""
    if key.isprintable():
        return key
    return "".join(ch for ch in key if unicodedata.category(ch) != "Cf" or ch in _VISIBLE_FORMAT)


def may_read_like_another(key: str) -> bool:
    """Whether a key written by these rules could read like `key` and differ from it: only where an
    invisible character may be needed — next to a letter of a joining script or an emoji, or
    anywhere in right-to-left text. For any other key no lookup is needed."""
    return any(
        _joining(ch) or _right_to_left(ch) or unicodedata.category(ch) == "So" or ch in _EMOJI_MODIFIERS for ch in key
    )


def same_looking_key(key: str, held: Iterable[str]) -> str | None:
    """The first of `held` that differs from `key` only in invisible characters, or None."""
    likeness = key_likeness(key)
    return next((other for other in held if other != key and key_likeness(other) == likeness), None)


def lookalike_key_problem(key: str, twin: str, scope: str) -> str:
    """Why `key` is refused when `twin` already reads like it at `scope`: naming the invisible
    characters they differ in, and the two ways on."""
    invisible = {ch for ch in key + twin if unicodedata.category(ch) == "Cf" and ch not in _VISIBLE_FORMAT}
    # the characters one has more of than the other; the same ones in other places, when there are none
    differ = sorted({ch for ch in invisible if key.count(ch) != twin.count(ch)} or invisible)
    named = ", ".join(f"U+{ord(ch):04X}" for ch in differ)
    return (
        f"The key differs from “{twin}”, already on file at {scope}, only in invisible characters ({named}), "
        "so the two would read as one key. To replace that note, give its key exactly as it is; otherwise "
        "choose a key that reads differently."
    )
