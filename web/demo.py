"""The demo's people and what is on file about them, and a scripted turn over them.

Until the dashboard exists, `onfile demo` prints what the assistant would be told on two turns for
one person, with a `remember` call between them.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

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

__all__ = ("DEMO_NOW", "demo_records", "render_demo")

DEMO_NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)

ADA = Actor(id="ada", tenant_ref="berlin")
ADMIN = MemoryOrigin(author="human", actor_ref="lena")


def demo_records() -> list[MemoryRecord]:
    """Two organisations' policies, everyone's default, and Ada's own notes (some overriding them)."""

    def at(days_ago: int) -> datetime:
        return DEMO_NOW - timedelta(days=days_ago)

    def agent(thread: str) -> MemoryOrigin:
        return MemoryOrigin(author="agent", thread_id=thread, run_id=f"{thread}-run-1", actor_ref="ada")

    return [
        MemoryRecord("mem_g1", "units", "report distances in kilometres", "global", ADMIN, at(90)),
        MemoryRecord("mem_g2", "fiscal-year", "the fiscal year starts in October", "global", ADMIN, at(90)),
        MemoryRecord(
            "mem_b1",
            "manifest-required",
            "never dispatch a pallet without a printed manifest",
            "tenant:berlin",
            ADMIN,
            at(30),
            pinned=True,
        ),
        MemoryRecord(
            "mem_b2", "pallet-labels", "pallet labels carry the depot code first", "tenant:berlin", ADMIN, at(20)
        ),
        MemoryRecord(
            "mem_h1", "pallet-labels", "pallet labels start with the customer number", "tenant:hamburg", ADMIN, at(5)
        ),
        MemoryRecord(
            "mem_a1", "fiscal-year", "they report on the calendar year", "actor:ada", agent("thr_q3_report"), at(7)
        ),
        MemoryRecord(
            "mem_a2",
            "units",
            "she wants road distances in miles for the UK depots",
            "actor:ada",
            MemoryOrigin(author="human", actor_ref="ada"),
            at(3),
        ),
        MemoryRecord(
            "mem_a3", "tone", "prefers short answers with the number first", "actor:ada", agent("thr_intro"), at(40)
        ),
    ]


async def render_demo(text: str = "") -> str:
    """Two turns for Ada (Berlin): the block she gets, a `remember` call, and the next turn's block."""
    provider = InMemoryMemoryProvider(demo_records(), clock=lambda: DEMO_NOW)
    config = MemoryConfig(provider=provider)
    ctx = ScopeContext(actor=ADA, thread_id="thr_demo")
    first = await memory_for_turn(config, ctx, run_id="run_demo_1", query=text)
    too_long = await write_memory(
        config, first.digest, key="depot", fact="works at the Spandau depot " * 12, ctx=ctx, run_id="run_demo_1"
    )
    saved = await write_memory(
        config, first.digest, key="depot", fact="works at the Spandau depot", ctx=ctx, run_id="run_demo_1"
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
