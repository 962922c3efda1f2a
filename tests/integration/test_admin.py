"""The elevated area's use-cases on SQLite and PostgreSQL: every verdict branch, the pin budget,
the administrative delete, promotion, the preview and the audit trail."""

from __future__ import annotations

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from store import Actor, MemoryConfig, MemoryOrigin, MemoryRecord, ScopeContext
from store.admin import NOT_ADMINISTERED, Administration, Preview
from store.domain.administration import RoleGate
from store.persistence import AuditTrail, ConversationRegistry, KnownPeople, RunJournal, SqlMemoryProvider
from store.runs import MemoryRuns
from tests.builders import T0

LENA = Actor("lena", "berlin", ("onfile-admin",))  # Berlin's administrator
JONAS = Actor("jonas", "hamburg", ("onfile-admin",))  # Hamburg's
GIL = Actor("gil", "berlin", ("onfile-global-admin",))  # administers global only
ADA = Actor("ada", "berlin")  # an end user
SAM = Actor("sam", "berlin", ("onfile-support",))


@pytest.fixture
def admin(engine: AsyncEngine) -> Administration:
    provider = SqlMemoryProvider(engine)
    config = MemoryConfig(provider=provider, max_memories=3)
    return Administration(config, provider, RoleGate(), AuditTrail(engine), KnownPeople(engine))


async def journal_rows(engine: AsyncEngine) -> int:
    async with engine.connect() as connection:
        return int((await connection.execute(text("SELECT count(*) FROM run_journal"))).scalar_one())


def seeded(key: str, text: str, scope: str, *, author: str = "human", pinned: bool = False) -> MemoryRecord:
    origin = MemoryOrigin(author="human" if author == "human" else "agent", actor_ref="x")
    return MemoryRecord(f"mem_{scope}_{key}", key, text, scope, origin, T0, pinned=pinned)


async def test_an_administrator_publishes_at_their_tenant_and_it_is_audited(admin: Administration) -> None:
    outcome = await admin.publish(LENA, scope="tenant:berlin", key="tone", text="  formal  ")

    assert outcome.ok
    assert outcome.record is not None
    assert (outcome.record.scope, outcome.record.text, outcome.record.origin.author) == (
        "tenant:berlin",
        "formal",
        "human",
    )
    assert outcome.record.origin.actor_ref == "lena"
    (entry,) = await admin.audit_entries(LENA)
    assert (entry.who, entry.action, entry.scope, entry.key, entry.before) == (
        "lena",
        "write",
        "tenant:berlin",
        "tone",
        None,
    )
    assert entry.after["text"] == "formal"


@pytest.mark.parametrize(
    ("actor", "scope", "reason"),
    [
        (ADA, "tenant:berlin", "needs someone who administers it"),  # no elevation
        (JONAS, "tenant:berlin", "does not apply to jonas"),  # another tenant's administrator
        (GIL, "tenant:hamburg", "does not apply to gil"),  # a global admin on a tenant that is not theirs
        (GIL, "tenant:berlin", "needs someone who administers it"),  # global is not every tenant
        (LENA, "global", "needs someone who administers it"),
    ],
)
async def test_writes_without_the_right_elevation_are_refused_with_the_verdicts_reason(
    admin: Administration, actor: Actor, scope: str, reason: str
) -> None:
    outcome = await admin.publish(actor, scope=scope, key="k", text="v")

    assert outcome.status == "refused"
    assert reason in outcome.reason
    assert await admin.shared_memories(LENA) == []


async def test_a_global_administrator_publishes_for_everyone(admin: Administration) -> None:
    assert (await admin.publish(GIL, scope="global", key="units", text="kilometres")).ok
    assert await admin.administered_scopes(GIL) == ("global",)
    assert await admin.administered_scopes(LENA) == ("tenant:berlin",)
    assert await admin.administered_scopes(ADA) == ()


async def test_a_fact_that_is_not_one_line_is_invalid(admin: Administration) -> None:
    outcome = await admin.publish(LENA, scope="tenant:berlin", key="k", text="a\nb")

    assert outcome.status == "invalid"
    assert "single line" in outcome.reason


async def test_edit_keeps_id_and_pin_and_records_before_and_after(admin: Administration) -> None:
    published = await admin.publish(LENA, scope="tenant:berlin", key="tone", text="formal", pinned=True)
    assert published.record is not None

    edited = await admin.edit(LENA, published.record.id, text="friendly")

    assert edited.record is not None
    assert (edited.record.id, edited.record.pinned, edited.record.text) == (published.record.id, True, "friendly")
    latest = (await admin.audit_entries(LENA))[0]
    assert (latest.action, latest.before["text"], latest.after["text"]) == ("edit", "formal", "friendly")


async def test_another_tenants_memory_answers_like_an_unknown_one(admin: Administration) -> None:
    hamburg = await admin.publish(JONAS, scope="tenant:hamburg", key="labels", text="customer first")
    assert hamburg.record is not None

    for outcome in (
        await admin.edit(LENA, hamburg.record.id, text="mine now"),
        await admin.retire(LENA, hamburg.record.id),
        await admin.pin(LENA, hamburg.record.id, pinned=True),
        await admin.edit(LENA, "mem_unknown", text="x"),
    ):
        assert (outcome.status, outcome.reason) == ("not_found", NOT_ADMINISTERED)


async def test_the_administrative_delete_removes_a_shared_fact(admin: Administration, engine: AsyncEngine) -> None:
    published = await admin.publish(LENA, scope="tenant:berlin", key="tone", text="formal")
    assert published.record is not None

    retired = await admin.retire(LENA, published.record.id)

    assert retired.ok
    assert await SqlMemoryProvider(engine).get(published.record.id) is None
    assert (await admin.audit_entries(LENA))[0].action == "delete"


async def test_pinning_shows_the_budget_and_warns_past_the_ceiling(admin: Administration) -> None:
    ids = []
    for i in range(4):
        outcome = await admin.publish(LENA, scope="tenant:berlin", key=f"policy-{i}", text="always")
        assert outcome.record is not None
        ids.append(outcome.record.id)

    within = [await admin.pin(LENA, memory_id, pinned=True) for memory_id in ids[:3]]
    over = await admin.pin(LENA, ids[3], pinned=True)
    back = await admin.pin(LENA, ids[3], pinned=False)

    assert within[-1].budget is not None
    assert (within[-1].budget.pinned_keys, within[-1].budget.over) == (3, False)
    assert over.budget is not None
    assert over.budget.over
    assert over.budget.warning is not None
    assert "would stop reaching prompts" in over.budget.warning
    assert back.budget is not None
    assert not back.budget.over
    assert [e.action for e in (await admin.audit_entries(LENA))[:2]] == ["unpin", "pin"]


async def test_promotion_republishes_an_own_entry_wider_as_a_person(admin: Administration, engine: AsyncEngine) -> None:
    provider = SqlMemoryProvider(engine)
    agent_origin = MemoryOrigin("agent", thread_id="thr_1", run_id="run_1", actor_ref="lena")
    mine = await provider.write(
        key="cutoff", text="orders close at 14:00", scope="actor:lena", origin=agent_origin, ctx=ScopeContext(LENA)
    )

    promoted = await admin.promote(LENA, mine.id, scope="tenant:berlin")
    not_mine = await admin.promote(ADA, mine.id, scope="tenant:berlin")
    not_theirs = await admin.promote(LENA, mine.id, scope="global")

    assert promoted.record is not None
    assert promoted.record.scope == "tenant:berlin"
    assert promoted.record.origin == MemoryOrigin(
        "human", thread_id="thr_1", run_id="run_1", actor_ref="lena", promoted_from=mine.id
    )
    assert await provider.get(mine.id) is not None  # the original stays
    assert not_mine.status == "not_found"
    assert not_theirs.status == "refused"
    assert await admin.promotion_targets(LENA) == ("tenant:berlin",)
    entry = (await admin.audit_entries(LENA))[0]
    assert (entry.action, entry.who, entry.scope, entry.key, entry.before) == (
        "promote",
        "lena",
        "tenant:berlin",
        "cutoff",
        None,
    )
    assert entry.after is not None
    assert entry.after["id"] == promoted.record.id
    assert entry.after["text"] == "orders close at 14:00"
    assert entry.after["promotedFrom"]["id"] == mine.id  # the trail names what was promoted


async def test_an_agent_authored_record_can_never_be_published_wider_by_the_agent(engine: AsyncEngine) -> None:
    from store.provider import WriteRefusedError

    with pytest.raises(WriteRefusedError):
        await SqlMemoryProvider(engine).write(
            key="k", text="v", scope="tenant:berlin", origin=MemoryOrigin("agent"), ctx=ScopeContext(LENA)
        )


async def test_the_preview_is_the_agents_block_read_only_and_audited(
    admin: Administration, engine: AsyncEngine
) -> None:
    provider = SqlMemoryProvider(engine)
    await provider.add(
        [
            seeded("manifest", "print the manifest", "tenant:berlin", pinned=True),
            seeded("pallet-labels", "depot code first", "tenant:berlin"),
            seeded("units", "kilometres", "global"),
            seeded("tone", "short", "actor:ada", author="agent"),
            seeded("shift", "early", "actor:ada", author="agent"),
        ]
    )
    config = MemoryConfig(provider=provider, max_memories=3)
    runs = MemoryRuns(config, RunJournal(engine), ConversationRegistry(engine))

    await KnownPeople(engine).note(ADA)
    preview = await admin.preview(SAM, "ada", thread_id="thr_9", text="how do I label a pallet?")
    assert await journal_rows(engine) == 0  # a preview journals nothing
    run = await runs.begin("run_1", actor=ADA, thread_id="thr_9", text="how do I label a pallet?")

    assert isinstance(preview, Preview)
    assert preview.actor == ADA
    assert preview.block == run.block
    assert preview.digest == run.digest
    assert preview.chars == len(run.block)
    assert preview.tokens_estimate > 0
    # the matched key, then the block filled in listed order (narrowest scope first, then by key):
    # "shift" fills the last line, "tone" was chosen but the pinned manifest took its line
    assert [e.key for e in preview.digest.entries] == ["manifest", "pallet-labels", "shift"]
    assert {o.entry.key: o.reason for o in preview.left_out} == {"tone": "budget", "units": "relevance"}
    entry = (await AuditTrail(engine).at_scopes(["tenant:berlin"]))[0]
    assert (entry.who, entry.action, entry.after["actor"]["id"]) == ("sam", "preview", "ada")


async def test_only_support_may_preview(admin: Administration, engine: AsyncEngine) -> None:
    await KnownPeople(engine).note(ADA)
    assert await admin.preview(LENA, "ada", thread_id=None, text="") == "forbidden"
    assert (await admin.people_to_preview(LENA)).people == ()
    assert await admin.may_preview(SAM)


async def test_support_previews_the_person_as_known_never_as_described(
    admin: Administration, engine: AsyncEngine
) -> None:
    people = KnownPeople(engine)
    await people.note(ADA)
    await people.note(Actor("carl", "hamburg"))
    await SqlMemoryProvider(engine).add([seeded("note", "hamburg secret", "actor:carl")])

    assert await admin.preview(SAM, "carl", thread_id=None, text="") == "unknown"  # another organisation's
    assert await admin.preview(SAM, "zoe", thread_id=None, text="") == "unknown"  # never seen: the same answer
    assert (await admin.people_to_preview(SAM)).people == (ADA,)
    assert (await admin.people_to_preview(Actor("sol", None, ("onfile-support",)))).people == ()
    assert await AuditTrail(engine).at_scopes(["global", "tenant:berlin", "tenant:hamburg"]) == []


async def test_support_for_every_organisation_is_a_setting_and_audited_at_both(engine: AsyncEngine) -> None:
    provider = SqlMemoryProvider(engine)
    everywhere = Administration(
        MemoryConfig(provider=provider), provider, RoleGate(), AuditTrail(engine), KnownPeople(engine),
        support_everywhere=True,
    )  # fmt: skip
    await KnownPeople(engine).note(Actor("carl", "hamburg"))
    await KnownPeople(engine).note(ADA)

    preview = await everywhere.preview(SAM, "carl", thread_id=None, text="")

    assert isinstance(preview, Preview)
    assert preview.actor == Actor("carl", "hamburg")
    assert [p.id for p in (await everywhere.people_to_preview(SAM)).people] == ["ada", "carl"]
    for scope in ("global", "tenant:hamburg", "tenant:berlin"):
        (entry,) = await AuditTrail(engine).at_scopes([scope])
        assert (entry.who, entry.action, entry.after["actor"]["id"]) == ("sam", "preview", "carl")


async def test_a_sign_in_with_another_organisation_moves_the_person_audited_at_both(
    admin: Administration, engine: AsyncEngine
) -> None:
    people = KnownPeople(engine)
    assert await admin.signed_in(ADA) is False  # someone new: nothing changed
    assert await admin.signed_in(ADA) is False  # the same organisation again: nothing to audit
    assert await AuditTrail(engine).at_scopes(["global", "tenant:berlin"]) == []

    assert await admin.signed_in(Actor("ada", "hamburg", ("staff",))) is True

    assert await people.find("ada") == Actor("ada", "hamburg", ("staff",))
    for scope in ("tenant:berlin", "tenant:hamburg"):
        (entry,) = await AuditTrail(engine).at_scopes([scope])
        assert (entry.action, entry.after) == (
            "move",
            {"person": "ada", "from": "berlin", "to": "hamburg", "by": "sign-in"},
        )


async def test_an_operator_moves_a_person_audited_at_both(admin: Administration, engine: AsyncEngine) -> None:
    people = KnownPeople(engine)
    await people.note(ADA)

    assert await admin.move_person("ops", "zoe", "hamburg") is None
    assert await admin.move_person("ops", "ada", "berlin") == ADA  # already there: nothing audited
    assert await AuditTrail(engine).at_scopes(["global", "tenant:berlin"]) == []
    moved = await admin.move_person("ops", "ada", None)

    assert moved == Actor("ada", None) == await people.find("ada")
    for scope in ("tenant:berlin", "global"):
        (entry,) = await AuditTrail(engine).at_scopes([scope])
        assert (entry.who, entry.action, entry.after["to"], entry.after["by"]) == ("ops", "move", None, "operator")


async def test_nobody_publishes_or_promotes_at_their_own_scope_here(admin: Administration, engine: AsyncEngine) -> None:
    provider = SqlMemoryProvider(engine)
    mine = await provider.write(
        key="cutoff",
        text="orders close at 14:00",
        scope="actor:lena",
        origin=MemoryOrigin("agent"),
        ctx=ScopeContext(LENA),
    )

    published = await admin.publish(ADA, scope="actor:ada", key="adakey", text="ada private", pinned=True)
    promoted = await admin.promote(LENA, mine.id, scope="actor:lena")

    for outcome in (published, promoted):
        assert outcome.status == "refused"
        assert "needs someone who administers it" in outcome.reason
    assert await provider.at_scope_key("actor:ada", "adakey") is None
    assert await AuditTrail(engine).at_scopes(["actor:ada", "actor:lena", "tenant:berlin"]) == []


class DeletedBeforeThePin(SqlMemoryProvider):
    """A delete that lands between a publish's write and its pin, every time."""

    async def repin(self, id: str, *, scope: str, pinned: bool) -> tuple[MemoryRecord, MemoryRecord] | None:
        await self.retire(id)
        return await super().repin(id, scope=scope, pinned=pinned)


async def test_a_pin_that_was_not_made_is_not_answered_as_done(engine: AsyncEngine) -> None:
    provider = DeletedBeforeThePin(engine)
    admin = Administration(
        MemoryConfig(provider=provider), provider, RoleGate(), AuditTrail(engine), KnownPeople(engine)
    )

    outcome = await admin.publish(LENA, scope="tenant:berlin", key="tone", text="formal", pinned=True)

    assert outcome.status == "not_found"
    assert "was published at tenant:berlin but not made always on" in outcome.reason
    assert [e.action for e in await admin.audit_entries(LENA)] == ["write"]


async def test_every_preview_is_audited_where_a_global_administrator_reads_it(
    admin: Administration, engine: AsyncEngine
) -> None:
    await KnownPeople(engine).note(ADA)
    for person in ("ada", "ada"):
        assert isinstance(await admin.preview(SAM, person, thread_id=None, text=""), Preview)

    assert [(e.action, e.after["actor"]["tenantRef"]) for e in await admin.audit_entries(GIL)] == [
        ("preview", "berlin"),
        ("preview", "berlin"),
    ]
    assert [e.after["actor"]["id"] for e in await admin.audit_entries(LENA)] == ["ada", "ada"]
