"""The recall set: hand-written memories, each with a later turn (or two) that needs it and shares no
content word with it, placed in a store among a few thousand distractors.

A pair is a memory and a turn, of one of two kinds:

- `topical`: the turn asks about, or asks to act on, the very subject the memory records, in other
  words. The memory answers the turn or says directly how to carry it out, and a person reading the
  two would say "of course that note is relevant" without reasoning through any third fact: "they
  report distances in kilometres" for "how far is the depot from the station?", "she always picks an
  aisle seat" for "the airline is asking where I'd like to sit". This is what ranking by nearness of
  meaning promises to find.
- `inferential`: the turn is about something else, and the memory bears on it only through a fact the
  reader has to bring: "he uses a wheelchair" for "which museum in Rome can we visit on Saturday?"
  (museums can have steps), "she always picks an aisle seat" for "book me the 7am to Madrid" (that is
  a flight, flights have seats). Kept for reference: no similarity model is expected to find these.

The memories are data (`recall_set.json`, one per line, in English, German and French, beside the
distractors' templates): a line holds a memory's key and fact and its `topical` turn, its `inferential`
turn, or both, so a memory has at most one pair of each kind. `shared_content_words` is the check that
keeps every pair honest, and the unit tests run it over all of them. Two words count as shared when
they are equal, begin with the same five letters ("report" and "reports") or one of four letters or
more begins the other ("Kind" and "Kinder"), after case folding and with accents dropped, once the
language's function words (articles, pronouns, prepositions, auxiliaries) are set aside. The check
is stricter than any word search (which needs the whole word), so a pair that passes it gives a
lexical search nothing but function words to go on.

Where things live: each language is one tenant, its people hold the personal memories (a fact about
"her" goes to a woman of that tenant, "his" to a man, "they" to anyone), policies sit at the tenant
and a few facts at `global`; every turn about a memory is asked by the person it was placed with.
Distractors are built from templates (projects, colleagues, suppliers, subscriptions, customers,
friends), in the same three languages, at the same people's scopes, their tenants' and `global`, plus
people who hold no memory. Everything is drawn from seeded generators: the same arguments give the
same set, with no download.
"""

from __future__ import annotations

import itertools
import json
import random
import re
import string
import unicodedata
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, get_args

from store.domain.scopes import GLOBAL_SCOPE, own_scope
from store.domain.types import Actor

__all__ = (
    "DISTRACTORS",
    "KINDS",
    "LANGUAGES",
    "LEVELS",
    "PAIRS",
    "STOP_WORDS",
    "Case",
    "Kind",
    "Level",
    "Memory",
    "Pair",
    "RecallSet",
    "build_recall_set",
    "content_words",
    "pairs_of",
    "shared_content_words",
)

Level = Literal["actor", "tenant", "global"]
Kind = Literal["topical", "inferential"]
LANGUAGES = ("en", "de", "fr")
LEVELS: tuple[Level, ...] = get_args(Level)
KINDS: tuple[Kind, ...] = get_args(Kind)
"""The kinds of pair, in the order a memory's line and the bench's table list them."""
DISTRACTORS = 3_300
"""How many distractors the full run stores."""
_DISTRACTOR_SHARE = {"en": 0.44, "de": 0.28, "fr": 0.28}
_PREFIX = 5
_SHORTEST_STEM = 4

_STOP_WORDS = {
    "en": """a an the and or but nor not no so if then than as of to in on at by for from with without into onto
        over under about after before above below between up down out off again here there when where why how
        what which who whom whose this that these those i me my mine myself you your yours yourself he him his
        himself she her hers herself it its itself we us our ours they them their theirs themselves is are was
        were be been being am do does did doing have has had having can could shall should will would may might
        must let s t d ll re ve m don doesn isn aren wasn weren won wouldn shouldn couldn didn any some all each
        every both either such own same other only just also too very much many more most few less really quite
        please thanks yes ok one something anything someone anyone somewhere anywhere""",
    "de": """der die das den dem des ein eine einen einem einer eines kein keine keinen keinem keiner und oder
        aber denn doch sondern nicht nur auch noch schon so ja nein ich du er sie es wir ihr mich mir dich dir
        ihn ihm uns euch ihnen sich mein meine meinen meinem meiner dein deine deinen deinem deiner sein seine
        seinen seinem seiner ihre ihren ihrem ihrer unser unsere unseren unserem euer eure ist sind war waren
        bin bist seid wird werden wurde wurden würde hat haben habe hast hatte kann kannst können könnte soll
        sollte sollen muss musst müssen will willst wollen möchte darf dürfen mit zu zum zur im in ins an am
        auf aus bei beim nach von vom vor für über unter um durch gegen ohne bis als wie was wer wen wem wo
        wohin woher wann warum welche welcher welches welchen welchem wenn dass ob da hier dort man bitte mal
        etwas gibt alle alles allem diese dieser dieses diesen diesem""",
    "fr": """le la les l un une des du de d et ou mais donc or ni car ne n pas plus je j tu il elle on nous vous
        ils elles me m te t se s moi toi lui leur leurs son sa ses mon ma mes ton ta tes notre nos votre vos ce
        c cet cette ces ça cela ceci qui que qu quoi dont où est sont suis es sommes êtes être été a ai as avons
        avez ont avoir au aux à en dans par pour sur sous avec sans chez y si comme quand comment quel quelle
        quels quelles tout tous toute toutes aussi très bien peut peux pouvez puis dois doit faut fait faire va
        vais vont merci""",
}


def _folded(text: str) -> str:
    """Case folded, accents dropped: "Réunion" and "reunion" are one word here."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def _words(text: str) -> list[str]:
    return re.findall(r"[^\W_]+", _folded(text))


STOP_WORDS: dict[str, frozenset[str]] = {language: frozenset(_words(words)) for language, words in _STOP_WORDS.items()}
"""Each language's function words, folded as the words they are compared with."""


def content_words(text: str, language: str) -> set[str]:
    """The folded words of `text` that are not the language's function words (a key's hyphens split it)."""
    return {word for word in _words(text) if word not in STOP_WORDS[language]}


@dataclass(frozen=True, slots=True)
class Pair:
    """A memory (key and fact) and a later turn that needs it, written in `language`; `level` says
    whose the fact is: a person's (`actor`), their organisation's (`tenant`) or everyone's (`global`);
    `kind` says how the turn reaches the memory (`topical` or `inferential`, see the module's note)."""

    language: str
    level: Level
    key: str
    fact: str
    turn: str
    kind: Kind


def shared_content_words(pair: Pair) -> tuple[str, ...]:
    """The turn's content words that the memory (key or fact) also holds: whole, by their first five
    letters, or as the start of a longer word (or the longer word of one of at least four letters it
    starts with); empty for a sound pair."""
    held = content_words(f"{pair.key.replace('-', ' ')} {pair.fact}", pair.language)
    prefixes = {word[:_PREFIX] for word in held}

    def shared(word: str) -> bool:
        if word in held or word[:_PREFIX] in prefixes:
            return True
        stems = (w for w in held if min(len(w), len(word)) >= _SHORTEST_STEM)
        return any(word.startswith(stem) or stem.startswith(word) for stem in stems)

    return tuple(sorted(w for w in content_words(pair.turn, pair.language) if shared(w)))


_MEMORY_FIELDS = ("language", "level", "key", "fact")


def _text(line: Mapping[str, object], field: str) -> str:
    value = line.get(field)
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"recall set line {line.get('key')!r}: {field} must be non-blank text, not {value!r}")
    return value


def pairs_of(line: Mapping[str, object]) -> tuple[Pair, ...]:
    """The pairs one line of `recall_set.json` holds: its memory with its `topical` turn, then with its
    `inferential` turn, whichever it has. A line with a field other than those, a language or level not
    listed, a blank field or no turn at all is refused (ValueError): a misspelt kind cannot quietly drop
    its turn."""
    unknown = sorted(set(line) - {*_MEMORY_FIELDS, *KINDS})
    if unknown:
        raise ValueError(f"recall set line {line.get('key')!r}: unknown fields {unknown}")
    language, level, key, fact = (_text(line, field) for field in _MEMORY_FIELDS)
    if language not in LANGUAGES or level not in LEVELS:
        raise ValueError(f"recall set line {key!r}: language {language!r} or level {level!r} is not listed")
    kinds = [kind for kind in KINDS if kind in line]
    if not kinds:
        raise ValueError(f"recall set line {key!r}: no turn; give it one of {KINDS}")
    return tuple(Pair(language, level, key, fact, _text(line, kind), kind) for kind in kinds)


_DATA: dict[str, Any] = json.loads(Path(__file__).with_name("recall_set.json").read_text(encoding="utf-8"))
PAIRS = tuple(pair for line in _DATA["memories"] for pair in pairs_of(line))


@dataclass(frozen=True, slots=True)
class Memory:
    """A fact on file: `key` and `fact` at `scope`."""

    key: str
    fact: str
    scope: str
    language: str


@dataclass(frozen=True, slots=True)
class Case:
    """A pair placed: its memory at `memory.scope`, its turn asked by `actor`, whose scopes include it.
    The pairs of one memory share the memory and the actor."""

    pair: Pair
    memory: Memory
    actor: Actor


@dataclass(frozen=True, slots=True)
class RecallSet:
    cases: tuple[Case, ...]
    distractors: tuple[Memory, ...]

    @property
    def memories(self) -> tuple[Memory, ...]:
        """Everything on file: every pair's memory (once, however many pairs it has), then the distractors."""
        return tuple(dict.fromkeys(case.memory for case in self.cases)) + self.distractors


# Each language's tenant and its people: (id, "f"/"m"); the last three hold distractors only.
_TENANTS = {"en": "northwind", "de": "berlin", "fr": "lyon"}
_PEOPLE = {
    "en": [("ada", "f"), ("ben", "m"), ("chloe", "f"), ("dev", "m"), ("emeka", "m"), ("fern", "f")],
    "de": [("anke", "f"), ("bernd", "m"), ("carla", "f"), ("dirk", "m"), ("elif", "f")],
    "fr": [("amelie", "f"), ("bruno", "m"), ("chantal", "f"), ("didier", "m"), ("elodie", "f")],
}
_BYSTANDERS = {"en": ["gus", "hana", "ivan"], "de": ["frank", "greta", "hakan"], "fr": ["fabien", "gaelle", "henri"]}
# The first of these words a fact holds says whose it can be; a fact with none fits anyone.
_GENDERED = {
    "en": {"she": "f", "her": "f", "he": "m", "his": "m", "him": "m"},
    "de": {"sie": "f", "ihre": "f", "ihr": "f", "er": "m", "seine": "m", "sein": "m", "seinem": "m"},
    "fr": {"elle": "f", "il": "m"},
}


def _actors(language: str, *, bystanders: bool = False) -> list[Actor]:
    tenant = _TENANTS[language]
    people = [person for person, _ in _PEOPLE[language]] + (_BYSTANDERS[language] if bystanders else [])
    return [Actor(id=person, tenant_ref=tenant) for person in people]


def _owner(pair: Pair, chooser: random.Random) -> Actor:
    gendered = _GENDERED[pair.language]
    gender = next((gendered[w] for w in _words(pair.fact) if w in gendered), None)
    fitting = [person for person, g in _PEOPLE[pair.language] if gender in (None, g)]
    return Actor(id=chooser.choice(fitting), tenant_ref=_TENANTS[pair.language])


def _by_memory(pairs: Sequence[Pair]) -> dict[str, list[Pair]]:
    """The pairs grouped by key, in first-seen order; the pairs of one key must agree on its memory."""
    grouped: dict[str, list[Pair]] = {}
    for pair in pairs:
        grouped.setdefault(pair.key, []).append(pair)
    for key, group in grouped.items():
        if len({(pair.language, pair.level, pair.fact) for pair in group}) > 1:
            raise ValueError(f"the pairs keyed {key!r} disagree on their memory's language, level or fact")
    return grouped


def _place(group: Sequence[Pair], chooser: random.Random) -> list[Case]:
    first = group[0]
    if first.level == "actor":
        actor = _owner(first, chooser)
        scope = own_scope(actor)
    else:
        actor = chooser.choice(_actors(first.language))
        scope = f"tenant:{actor.tenant_ref}" if first.level == "tenant" else GLOBAL_SCOPE
    memory = Memory(first.key, first.fact, scope, first.language)
    return [Case(pair, memory, actor) for pair in group]


def _templated(language: str, chooser: random.Random) -> Iterator[tuple[str, str]]:
    """Every (key, fact) the language's templates make, in a shuffled order, each slot filled by a draw."""
    pools: dict[str, list[str]] = _DATA["distractors"][language]["pools"]
    combos = [
        (family["prefix"], entity, aspect, template)
        for family in _DATA["distractors"][language]["families"]
        for entity, (aspect, template) in itertools.product(family["entities"], family["aspects"].items())
    ]
    chooser.shuffle(combos)
    for prefix, entity, aspect, template in combos:
        slots = {f: chooser.choice(pools[f]) for _, f, _, _ in string.Formatter().parse(template) if f and f != "e"}
        slug = _folded(entity).replace(" ", "-")
        yield f"{prefix}-{slug}-{aspect}", template.format(e=entity, **slots)


def _distractor_scope(language: str, chooser: random.Random) -> str:
    draw = chooser.random()
    if draw < 0.6:
        return own_scope(chooser.choice(_actors(language, bystanders=True)))
    return f"tenant:{_TENANTS[language]}" if draw < 0.9 else GLOBAL_SCOPE


def _distractors(count: int, taken: set[str], chooser: random.Random) -> list[Memory]:
    made: list[Memory] = []
    for language in LANGUAGES:
        wanted = round(count * _DISTRACTOR_SHARE[language]) if language != LANGUAGES[-1] else count - len(made)
        for key, fact in itertools.islice(((k, f) for k, f in _templated(language, chooser) if k not in taken), wanted):
            taken.add(key)
            made.append(Memory(key, fact, _distractor_scope(language, chooser), language))
    return made


def build_recall_set(
    pairs: Sequence[Pair] = PAIRS, *, distractors: int = DISTRACTORS, seed: int = 20_260_901
) -> RecallSet:
    """Place each pair's memory once (its pairs share it and the person who asks) and draw `distractors`
    distractors with keys of their own (none is a pair's)."""
    chooser = random.Random(seed)
    grouped = _by_memory(pairs)
    cases = tuple(case for group in grouped.values() for case in _place(group, chooser))
    return RecallSet(cases, tuple(_distractors(distractors, set(grouped), chooser)))
