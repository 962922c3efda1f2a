"""A small agent loop over OnFile's in-process SDK, with a scripted model instead of an LLM.

The turn: resolve the run's memory, give the model the system prompt, let it call `remember`, then
crash before the turn is finished. The runtime resumes the same run: the block is byte-identical to
the one the first attempt saw, and the remember call returns its recorded outcome instead of
writing again. Run it with:

    .venv/bin/python examples/agent_loop.py
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from store import Actor, MemoryOrigin, MemoryRecord, ScopeContext, compose_system_prompt
from store.embedding import DEFAULT_EMBEDDER
from store.persistence import SqlMemoryProvider, open_engine, upgrade_engine
from store.sdk import OnFile, Run

BASE_PROMPT = "You are the dispatch assistant of a logistics company."
ACTOR = Actor(id="ada", tenant_ref="berlin")
NOW = datetime.now(UTC)


@dataclass(frozen=True)
class ToolCall:
    call_id: str
    key: str
    fact: str


class ScriptedModel:
    """Stands in for an LLM: it reads the system prompt and asks to remember one thing."""

    def __init__(self) -> None:
        self.prompts: list[str] = []

    def respond(self, system: str, user_text: str) -> Iterator[ToolCall]:
        self.prompts.append(system)
        if "miles" in user_text:
            yield ToolCall("call_1", "units", "wants road distances in miles")


class CrashError(Exception):
    """The process dies mid-turn (an out-of-memory kill, a deploy)."""


async def take_turn(onfile: OnFile, model: ScriptedModel, run_id: str, text: str, *, crash: bool) -> Run:
    run = await onfile.begin_run(run_id, actor=ACTOR, thread_id="thr_demo", text=text)
    system = compose_system_prompt(BASE_PROMPT, memory=run.block)
    for call in model.respond(system, text):
        outcome = await run.remember(call.call_id, call.key, call.fact)
        print(f"  remember({call.key!r}) -> ok={outcome.ok}, id={outcome.record.id if outcome.record else None}")
    if crash:
        raise CrashError
    return run


async def seed(database_url: str) -> None:
    engine = open_engine(database_url)
    await upgrade_engine(engine)
    policy = MemoryOrigin(author="human", actor_ref="lena")
    await SqlMemoryProvider(engine, embedder=DEFAULT_EMBEDDER).add(
        [
            MemoryRecord(
                "mem_units", "units", "report distances in kilometres", "tenant:berlin", policy, datetime.now(UTC)
            )
        ]
    )
    await engine.dispose()


async def main(folder: Path) -> int:
    database_url = f"sqlite+aiosqlite:///{folder / 'example.sqlite3'}"
    await seed(database_url)
    model = ScriptedModel()
    text = "Please give me road distances in miles from now on."
    async with await OnFile.open(database_url) as onfile:
        print("First attempt:")
        try:
            await take_turn(onfile, model, "run_1", text, crash=True)
        except CrashError:
            print("  ...the process crashed before the turn finished.")
        print("Replay of the same run:")
        await take_turn(onfile, model, "run_1", text, crash=False)
        print("The next turn:")
        await take_turn(onfile, model, "run_2", "What did I ask about units?", crash=False)
    first, replay, next_turn = model.prompts
    engine = open_engine(database_url)
    stored = await SqlMemoryProvider(engine).list(scopes=["actor:ada"], ctx=ScopeContext(actor=ACTOR))
    await engine.dispose()
    print(f"\nThe replay saw the identical prompt: {first == replay}")
    print(f"Facts stored for ada: {len(stored)} (written once, though remember was called twice)")
    print(f"The next turn carries it:\n{next_turn}")
    return 0 if first == replay and len(stored) == 1 and "miles" in next_turn else 1


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as scratch:
        sys.exit(asyncio.run(main(Path(scratch))))
