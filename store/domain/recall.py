"""Recall: which keys a turn's block carries once more keys apply than it holds.

Two rankings of the applicable keys are fused by reciprocal rank fusion: the lexical one (the turn's
words, BM25) and the one by meaning (nearest vectors). A key's fused score is the sum, over the
rankings that hold it, of `1 / (RRF_K + place)`, its place counted from 1; a key neither ranking
holds scores nothing. Fusion needs no common scale between the two scores, only their orders, so a
turn that shares no word with any memory is ranked by meaning alone and one whose words match is
ranked by both.

Ties go to the listed order — the order a turn with no ranking at all uses: by each key's narrowest
record, narrowest scope first, then newest, then by key. Then, while the block still has room, the
keys no ranking holds follow in that same listed order, so a turn always gets `limit` keys when at
least that many apply: a memory is never left out because the turn's words differ from it while
there was room for it.

The ranking by words is asked only with the turn's content words (`content_words`). Fusion counts
places, not scores, so a memory that holds "the" and "is" of "how far away is the depot?" would
otherwise take a place in the ranking by words and, with any place in the ranking by meaning, beat
the memory nearest in meaning that shares no word with the turn — the one recall exists to find.

The ranking by meaning takes the meaning of at most `MEANING_CHARS_AT_MOST` characters of the turn
(`meaning_text`): all of a turn up to that, and of a longer one (a pasted document, up to the 100,000
characters a turn may hold) its opening and its close, where a question about it usually stands.
An embedding's cost grows with its text, and a turn's must be paid before the turn can answer; its
words are all ranked by, whatever its length.

Everything here is exact and ordered, so the same inputs give the same keys in the same order.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from store.domain.scopes import scope_ranks
from store.domain.types import MemoryRecord

__all__ = (
    "MEANING_CHARS_AT_MOST",
    "RANKING_WINDOW",
    "RRF_K",
    "STOP_WORDS",
    "content_words",
    "fuse_rankings",
    "listed_keys",
    "listed_rows",
    "meaning_text",
)

RRF_K = 60
"""The fusion's damping constant: the usual choice, under which the first place of one ranking is
worth about as much as the third place of both together."""

RANKING_WINDOW = 50
"""How deep into each ranking fusion looks, at the least (a turn whose block holds more looks
`limit` deep): places past it weigh under 1/110 each and cannot overturn the head of either list."""

MEANING_CHARS_AT_MOST = 1_000
"""The most characters of a turn its meaning is taken from: some 150 words of prose. Embedded by the
default model, a thousand characters of the densest text (ideographs, symbols) take some 70 ms here,
and a hundred thousand several seconds."""


_STOP_WORDS = (
    # English
    "a an and any are as at be been but by can could did do does for from had has have he her him his how "
    "i if in into is it its me my no not of on or our she so than that the their them then there these "
    "they this those to too up us was we were what when where which who whom why will with would you "
    "your yours about after all also am again just more most only other over own same some such very "
    # German
    "aber als am an auch auf aus bei bin bis bist da dann das dass dem den der des die dir doch du ein "
    "eine einem einen einer eines er es für hat hatte ich ihr ihre im in ist ja kann mein meine mich mir "
    "mit nach nicht noch nun nur ob oder sehr sein seine sich sie sind so um und uns unser vom von vor "
    "war was wenn wer wie wir wird wo zu zum zur über "
    # French
    "au aux avec ce ces cette dans de des du elle en est et eux il ils je la le les leur leurs lui ma "
    "mais me mes moi mon ne nos notre nous on ou où par pas pour qu que qui sa se ses son sont sur ta te "
    "tes toi ton tu un une vos votre vous c d j l m n s t y "
    # Spanish
    "al como con cual cuando de del el ella ellas ellos en entre es esa ese esta este esto están fue ha "
    "hay la las le les lo los me mi mis muy más nos o para pero por que qué se si sin su sus también te "
    "tu tus un una uno y yo"
)
STOP_WORDS = frozenset(_STOP_WORDS.split())
"""Words that carry no content in the languages the default embedder reads best (English, German,
French, Spanish): articles, pronouns, prepositions, conjunctions and the commonest auxiliaries."""


def content_words(words: Sequence[str]) -> tuple[str, ...]:
    """`words` (already cut and case-folded, as `store.domain.relevance.query_words` gives them) without
    the stop words, in order."""
    return tuple(word for word in words if word not in STOP_WORDS)


def listed_keys(rows: Iterable[tuple[str, bool]]) -> tuple[list[str], list[str]]:
    """The applicable keys in listed order, and the pinned ones among them, from `(key, pinned)`
    rows already ordered narrowest scope first, newest first, then by key: a key takes the place of
    its first row, which is its narrowest record. A key is pinned when any of its records is: a pin
    belongs to the question, not to the record that answers it."""
    held = rows if isinstance(rows, list) else list(rows)
    return list(dict.fromkeys([key for key, _ in held])), list(dict.fromkeys([key for key, on in held if on]))


def listed_rows(records: Iterable[MemoryRecord], scopes: Sequence[str]) -> list[tuple[str, bool]]:
    """`(key, pinned)` of `records` (every record at `scopes`) in the order `listed_keys` reads: narrowest
    scope first, newest first, then by key — what a database's read of them in that order gives."""
    ranks = scope_ranks(scopes)
    ordered = sorted(records, key=lambda record: record.key)
    ordered.sort(key=lambda record: record.updated_at, reverse=True)  # a stable sort: equal times keep key order
    ordered.sort(key=lambda record: ranks[record.scope])
    return [(record.key, record.pinned) for record in ordered]


def fuse_rankings(rankings: Sequence[Sequence[str]], listed: Sequence[str], limit: int) -> list[str]:
    """The best `limit` of the `listed` keys: by fused score (see the module docstring), ties and the
    unranked remainder in listed order. A ranked key that is not listed does not apply to the turn and
    is dropped; a key repeated within one ranking counts at its first place only."""
    if limit <= 0:
        return []
    place = {key: n for n, key in enumerate(listed)}
    scores: dict[str, float] = {}
    for ranking in rankings:
        seen: set[str] = set()
        for n, key in enumerate(ranking, start=1):
            if key in seen or key not in place:
                continue
            seen.add(key)
            scores[key] = scores.get(key, 0.0) + 1.0 / (RRF_K + n)
    fused = sorted(scores, key=lambda key: (-scores[key], place[key]))[:limit]
    if len(fused) < limit:
        chosen = set(fused)
        fused.extend([key for key in listed if key not in chosen][: limit - len(fused)])
    return fused


def meaning_text(turn: str) -> str:
    """What a turn's meaning is taken from: the turn itself, or, past `MEANING_CHARS_AT_MOST`
    characters, its first and last halves of that many, on two lines."""
    if len(turn) <= MEANING_CHARS_AT_MOST:
        return turn
    half = MEANING_CHARS_AT_MOST // 2
    return f"{turn[:half]}\n{turn[-half:]}"
