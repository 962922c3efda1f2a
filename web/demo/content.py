"""The demo: realistic people and memories, a local development identity provider, the dashboard.

`onfile demo` seeds a fresh SQLite database, starts oidc-provider-mock on loopback with the demo
people, serves the dashboard, and says whom to log in as. `onfile demo --turn` prints instead what
the assistant is told on two turns for one person, with a `remember` call between them.
"""

from __future__ import annotations

import secrets
import socket
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from store import (
    Actor,
    InMemoryMemoryProvider,
    MemoryConfig,
    MemoryOrigin,
    MemoryRecord,
    ScopeContext,
    memory_for_turn,
    write_memory,
)
from web.services import Services

__all__ = (
    "DEMO_NOW",
    "DEMO_PEOPLE",
    "DemoPerson",
    "DemoRefusedError",
    "demo_records",
    "refuse_ports_in_use",
    "render_demo",
    "seed_demo",
)

DEMO_NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)

ADA = Actor(id="ada", tenant_ref="berlin")
ADMIN = MemoryOrigin(author="human", actor_ref="lena")
HAMBURG_ADMIN = MemoryOrigin(author="human", actor_ref="jonas")


@dataclass(frozen=True, slots=True)
class DemoPerson:
    sub: str
    name: str
    tenant: str
    roles: tuple[str, ...]
    who: str
    """What they are, in the words of the demo's sign-in page."""


DEMO_PEOPLE = (
    DemoPerson("ada", "Ada Lindqvist", "berlin", (), "A person at Berlin with memories, some overriding Berlin's"),
    DemoPerson("max", "Max Brandt", "berlin", (), "A person at Berlin with thousands of memories"),
    DemoPerson("lena", "Lena Vogt", "berlin", ("onfile-admin",), "Administrator at Berlin"),
    DemoPerson("sam", "Sam Okafor", "berlin", ("onfile-support",), "Support at Berlin"),
    DemoPerson("jonas", "Jonas Meyer", "hamburg", ("onfile-admin",), "Administrator at Hamburg"),
)


def _at(days_ago: float) -> datetime:
    return DEMO_NOW - timedelta(days=days_ago)


def _agent(thread: str, actor: str = "ada") -> MemoryOrigin:
    return MemoryOrigin(author="agent", thread_id=thread, run_id=f"{thread}-run-1", actor_ref=actor)


def demo_records() -> list[MemoryRecord]:
    """Two organisations' policies, everyone's defaults, and Ada's own notes (some overriding them)."""
    return [
        MemoryRecord("mem_g1", "units", "report distances in kilometres", "global", ADMIN, _at(90)),
        MemoryRecord("mem_g2", "fiscal-year", "the fiscal year starts in October", "global", ADMIN, _at(90)),
        MemoryRecord("mem_g3", "date-format", "write dates as 2026-12-01", "global", ADMIN, _at(120)),
        MemoryRecord(
            "mem_b1",
            "manifest-required",
            "never dispatch a pallet without a printed manifest",
            "tenant:berlin",
            ADMIN,
            _at(30),
            pinned=True,
        ),
        MemoryRecord(
            "mem_b2", "pallet-labels", "pallet labels carry the depot code first", "tenant:berlin", ADMIN, _at(20)
        ),
        MemoryRecord("mem_b3", "tone", "answer formally and in full sentences", "tenant:berlin", ADMIN, _at(60)),
        MemoryRecord(
            "mem_h1",
            "pallet-labels",
            "pallet labels start with the customer number",
            "tenant:hamburg",
            HAMBURG_ADMIN,
            _at(5),
        ),
        MemoryRecord(
            "mem_a1", "fiscal-year", "they report on the calendar year", "actor:ada", _agent("thr_q3_report"), _at(7)
        ),
        MemoryRecord(
            "mem_a2",
            "units",
            "she wants road distances in miles for the UK depots",
            "actor:ada",
            MemoryOrigin(author="human", actor_ref="ada"),
            _at(3),
        ),
        MemoryRecord(
            "mem_a3", "tone", "prefers short answers with the number first", "actor:ada", _agent("thr_intro"), _at(40)
        ),
        MemoryRecord(
            "mem_a4", "depot", "works at the Spandau depot on the early shift", "actor:ada", _agent("thr_rota"), _at(12)
        ),
        MemoryRecord(
            "mem_a5", "report-day", "sends the weekly report on Thursdays", "actor:ada", _agent("thr_gone"), _at(25)
        ),
        # Something the assistant concluded for Lena that the whole organisation should know: she can
        # publish it for Berlin from her own page (promotion).
        MemoryRecord(
            "mem_l1",
            "same-day-cutoff",
            "orders for same-day dispatch close at 14:00",
            "actor:lena",
            _agent("thr_lena_dispatch", "lena"),
            _at(2),
        ),
    ]


def _many_for_max(count: int = 2_400) -> Iterator[MemoryRecord]:
    topics = ("customer", "route", "supplier", "depot", "invoice", "pallet", "driver", "shift")
    for i in range(count):
        topic = topics[i % len(topics)]
        yield MemoryRecord(
            id=f"mem_max_{i:05d}",
            key=f"{topic}-{i:04d}",
            text=f"Max handled {topic} case {i} and prefers it summarised in one line",
            scope="actor:max",
            origin=_agent(f"thr_max_{i % 40}", "max"),
            updated_at=_at(i / 24),
        )


async def seed_demo(services: Services, *, max_memories: int = 2_400) -> None:
    """Fill an empty database with the demo: memories, conversations, and one that is gone, and the
    demo people as seen with their names, so the pages name them before anyone logs in. Max, whose
    page shows a person with many memories, gets `max_memories` of them."""
    await services.provider.add([*demo_records(), *_many_for_max(max_memories)])
    for person in DEMO_PEOPLE:  # each is known by name, so support may preview them before they sign in
        await services.people.note(Actor(person.sub, person.tenant, person.roles), name=person.name)
    for thread in ("thr_q3_report", "thr_intro", "thr_rota", "thr_gone"):
        await services.registry.register_run(f"{thread}-run-1", thread, "ada")
    await services.registry.delete_thread("thr_gone")
    await services.registry.register_run("thr_lena_dispatch-run-1", "thr_lena_dispatch", "lena")


class DemoRefusedError(Exception):
    """The demo cannot start; the message says why in one line. Nothing was touched."""


def refuse_ports_in_use(ports: Mapping[str, int]) -> None:
    """Refuse, naming the first port (by what it is for) that nothing could listen on at 127.0.0.1:
    a port already taken (often an earlier demo still running, whose database a second demo would
    replace) or one this user may not open."""
    for what, port in ports.items():
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
            # as uvicorn binds: a port an earlier server just closed (TIME_WAIT) is free, one in use is not
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(("127.0.0.1", port))
            except OSError as error:
                msg = f"cannot listen on 127.0.0.1:{port} for the {what} ({error.strerror}); is a demo already running?"
                if what == "dashboard":
                    msg += " Choose another port with --port."
                raise DemoRefusedError(msg) from None


def demo_secret() -> str:
    return secrets.token_urlsafe(32)


def demo_database(folder: Path) -> str:
    """A fresh demo database file under `folder` (an earlier demo's is replaced)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "demo.sqlite3"
    for leftover in folder.glob("demo.sqlite3*"):
        leftover.unlink()
    return f"sqlite+aiosqlite:///{path}"


async def render_demo(text: str = "") -> str:
    """Two turns for Ada (Berlin): the block she gets, a `remember` call, and the next turn's block."""
    provider = InMemoryMemoryProvider(demo_records(), clock=lambda: DEMO_NOW)
    config = MemoryConfig(provider=provider)
    ctx = ScopeContext(actor=ADA, thread_id="thr_demo")
    first = await memory_for_turn(config, ctx, run_id="run_demo_1", query=text)
    too_long = await write_memory(
        config, first.digest, key="lunch", fact="takes lunch at noon " * 14, ctx=ctx, run_id="run_demo_1"
    )
    saved = await write_memory(
        config, first.digest, key="lunch", fact="takes lunch at noon", ctx=ctx, run_id="run_demo_1"
    )
    second = await memory_for_turn(config, ctx, run_id="run_demo_2", query=text)
    return "\n".join(
        [
            f"Turn 1 for {ADA.id} (scopes: {', '.join(first.digest.scopes)})",
            "",
            first.block,
            "",
            "The model calls remember with an essay; it is told:",
            f"  {too_long.error}",
            "It tries again with one line; stored:",
            f"  {saved.record.scope} {saved.record.key}: {saved.record.text}" if saved.record else f"  {saved.error}",
            "",
            "Turn 2:",
            "",
            second.block,
        ]
    )
