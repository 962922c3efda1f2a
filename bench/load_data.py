"""What the load benchmark stores and sends: a few hundred memories and the three agent workloads.

The store: 4 tenants of 12 people each; every person holds 6 memories of their own, every tenant 25,
and 12 are global — 400 in all, about 43 applicable to any one person, some keys held at two or three
scopes (overrides) and one in twenty pinned. Facts and turns are drawn from one vocabulary, so every
turn's search finds something to rank and the block carries up to 20 entries.

The workloads (request `n` of a generator tagged `tag`):
- digest, new run: run `<tag>-<n>`, four turns to a thread, people in turn — every request resolves,
  searches, renders, registers the run and journals the digest;
- digest, replay: one of the `SEED_RUNS` runs resolved before measuring, asked again with the same
  body — the journal read back;
- remember: a fresh call id against one of those runs, eight keys per person rewritten in turn.
"""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime, timedelta

from bench.load_traffic import Traffic
from store import Actor, Author, MemoryOrigin, MemoryRecord

__all__ = (
    "ACTORS",
    "SEED_RUNS",
    "TOKEN",
    "bare_traffic",
    "digest_traffic",
    "remember_traffic",
    "replay_traffic",
    "seed_records",
    "seed_run_bodies",
)

TOKEN = "load-benchmark-agent-token-0123456789"  # noqa: S105 - a loopback benchmark's own token
TENANTS = ("berlin", "lyon", "porto", "turku")
ACTORS = tuple(Actor(f"p{n:02d}", TENANTS[n % len(TENANTS)], ("staff",)) for n in range(48))
SEED_RUNS = 240
TURNS_PER_THREAD = 4
_VOCABULARY = (
    "invoice report quarterly depot route driver shift metric kilometre mile euro budget forecast meeting "
    "monday friday summary table chart draft review deadline supplier contract warehouse pallet freight "
    "customer ticket refund weekly monthly calendar holiday timezone english german french spreadsheet "
    "email short formal casual bullet heading appendix audit compliance safety training onboarding fleet "
    "fuel tyre maintenance schedule overtime roster payroll expense receipt approval manager team project"
)
WORDS = tuple(_VOCABULARY.split())
KEYS = tuple(f"{a}-{b}" for a, b in zip(WORDS[::2], WORDS[1::2], strict=False))[:36]
START = datetime(2026, 1, 1, tzinfo=UTC)


def seed_records() -> list[MemoryRecord]:
    chooser = random.Random(6)
    placements: list[tuple[str, int, Author]] = [("global", 12, "human")]
    placements += [(f"tenant:{tenant}", 25, "human") for tenant in TENANTS]
    placements += [(f"actor:{actor.id}", 6, "agent") for actor in ACTORS]
    records: list[MemoryRecord] = []
    for scope, count, author in placements:
        for key in chooser.sample(KEYS, count):
            serial = len(records)
            origin = MemoryOrigin(author, f"thr_seed_{serial % 30}", f"run_seed_{serial}", scope.partition(":")[2])
            text = " ".join(chooser.choices(WORDS, k=9))
            stamp = START + timedelta(minutes=serial)
            records.append(MemoryRecord(f"mem_load_{serial:04d}", key, text, scope, origin, stamp, serial % 20 == 0))
    return records


def _turn_texts() -> list[str]:
    chooser = random.Random(9)
    return [
        f"Could you look at the {a} and {b} again, and check the {c} before {d}?"
        for a, b, c, d in (chooser.sample(WORDS, 4) for _ in range(16))
    ]


TEXTS = _turn_texts()


def _actor_json(actor: Actor) -> str:
    return json.dumps({"id": actor.id, "tenantRef": actor.tenant_ref, "roles": list(actor.roles)})


def _digest_body(actor: Actor, thread_id: str, text: str) -> str:
    return json.dumps({"actor": json.loads(_actor_json(actor)), "threadId": thread_id, "text": text})


def seed_run_bodies() -> list[tuple[str, bytes]]:
    """The runs resolved before measuring (for the replay and remember rows): run id and digest body."""
    return [
        (f"seed-{i}", _digest_body(ACTORS[i % len(ACTORS)], f"seed-thread-{i // 2}", TEXTS[i % len(TEXTS)]).encode())
        for i in range(SEED_RUNS)
    ]


_AGENT_HEADERS = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"}


def bare_traffic() -> Traffic:
    return Traffic(method="GET", lua='path = "/"', build=lambda _tag, _n: ("/", None))


def digest_traffic() -> Traffic:
    def build(tag: str, n: int) -> tuple[str, bytes]:
        turn = n // TURNS_PER_THREAD
        body = _digest_body(ACTORS[turn % len(ACTORS)], f"{tag}-t{turn}", TEXTS[n % len(TEXTS)])
        return f"/agent/runs/{tag}-{n}/digest", body.encode()

    lua = f"""
local turn = math.floor(n / {TURNS_PER_THREAD})
path = "/agent/runs/" .. tag .. "-" .. n .. "/digest"
body = '{{"actor": ' .. actors[turn % #actors + 1] .. ', "threadId": "' .. tag .. '-t' .. turn
  .. '", "text": ' .. texts[n % #texts + 1] .. '}}'
"""
    tables = {"actors": [_actor_json(a) for a in ACTORS], "texts": [json.dumps(t) for t in TEXTS]}
    return Traffic("POST", lua, build, tables, _AGENT_HEADERS, expect='"block":')


def replay_traffic() -> Traffic:
    seeds = seed_run_bodies()

    def build(_tag: str, n: int) -> tuple[str, bytes]:
        run_id, body = seeds[n % len(seeds)]
        return f"/agent/runs/{run_id}/digest", body

    lua = """
local i = n % #runs + 1
path = "/agent/runs/" .. runs[i] .. "/digest"
body = bodies[i]
"""
    tables = {"runs": [run_id for run_id, _ in seeds], "bodies": [body.decode() for _, body in seeds]}
    return Traffic("POST", lua, build, tables, _AGENT_HEADERS, expect='"block":')


def remember_traffic() -> Traffic:
    def build(tag: str, n: int) -> tuple[str, bytes]:
        body = {"callId": f"{tag}-{n}", "key": f"load-note-{n % 8}", "fact": f"noted on call {tag}-{n}"}
        return f"/agent/runs/seed-{n % SEED_RUNS}/remember", json.dumps(body).encode()

    lua = f"""
path = "/agent/runs/seed-" .. (n % {SEED_RUNS}) .. "/remember"
body = '{{"callId": "' .. tag .. '-' .. n .. '", "key": "load-note-' .. (n % 8) .. '", "fact": "noted on call '
  .. tag .. '-' .. n .. '"}}'
"""
    return Traffic("POST", lua, build, {}, _AGENT_HEADERS, expect='"ok":true')
