"""Importing a person's own export on both databases: every memory written as stated by the person at
their own scope, in one transaction with its audit entry (the value replaced and the value written); a
shared fact never written; nothing written, nor audited, when a line cannot be."""

from __future__ import annotations

import json

from sqlalchemy.ext.asyncio import AsyncEngine

from store import MemoryConfig, MemoryOrigin
from store.importing import Imports
from store.persistence.audit import AuditTrail
from store.persistence.provider import SqlMemoryProvider
from tests.integration.builders import ADA, agent_origin, ctx

BERLIN = MemoryOrigin(author="human", actor_ref="lena")


async def held(provider: SqlMemoryProvider) -> dict[str, tuple[str, str]]:
    records = await provider.list(scopes=["actor:ada", "tenant:berlin"], ctx=ctx())
    return {f"{r.scope} {r.key}": (r.text, r.origin.author) for r in records}


async def test_an_import_writes_each_line_as_stated_by_the_person_at_their_own_scope(engine: AsyncEngine) -> None:
    provider = SqlMemoryProvider(engine)
    audit = AuditTrail(engine)
    imports = Imports(MemoryConfig(provider=provider), provider, audit)
    await provider.write(key="tone", text="short answers", scope="actor:ada", origin=agent_origin(), ctx=ctx())
    await provider.write(key="manifest", text="printed", scope="tenant:berlin", origin=BERLIN, ctx=ctx())
    document = json.dumps(
        [
            {"key": "tone", "text": "one sentence", "scope": "actor:bob"},
            {"key": "manifest", "text": "never printed", "scope": "tenant:berlin"},
            {"key": "team", "text": "dispatch"},
        ]
    )

    imported = await imports.apply(ADA, document)

    assert imported.written == 2
    assert await held(provider) == {
        "actor:ada tone": ("one sentence", "human"),
        "actor:ada team": ("dispatch", "human"),
        "tenant:berlin manifest": ("printed", "human"),
    }
    audited = {
        entry.key: (entry.who, entry.action, entry.before and entry.before["text"], entry.after["text"])
        for entry in await audit.at_scopes(["actor:ada", "tenant:berlin"])
    }
    assert audited == {
        "tone": ("ada", "import", "short answers", "one sentence"),
        "team": ("ada", "import", None, "dispatch"),
    }


async def test_an_import_with_a_line_in_error_writes_nothing(engine: AsyncEngine) -> None:
    provider = SqlMemoryProvider(engine)
    audit = AuditTrail(engine)
    imports = Imports(MemoryConfig(provider=provider, max_fact_chars=20), provider, audit)
    document = json.dumps([{"key": "team", "text": "dispatch"}, {"key": "essay", "text": "x" * 21}])

    imported = await imports.apply(ADA, document)

    assert imported.written == 0
    assert [line.number for line in imported.plan.errors] == [2]
    assert await held(provider) == {}
    assert await audit.at_scopes(["actor:ada"]) == []
