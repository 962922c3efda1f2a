"""The JSON shapes more than one audience answers with or takes: a refusal (`ProblemOut`), a memory
record (`RecordOut`), a digest (`DigestIn` in, `DigestOut` out), and the rule every id in them is held to.
A record, an entry and a digest are the store's one wire shape of each (`store.domain.wire`), which the
SDK reads and the run journal stores, under the names the API documents.

The agent API answers a turn's digest in these shapes, the support preview answers its preview in the
same shape (byte-identical block), and the elevated area's JSON endpoints answer records as they do.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any

import msgspec
from litestar.openapi import ResponseSpec
from litestar.openapi.spec import Example

from store import MemoryDigest
from store.domain.identifiers import MAX_ID_CHARS, MAX_ROLES, id_problem
from store.domain.relevance import MAX_TURN_CHARS
from store.domain.wire import DigestWire, digest_wire, run_digest_wire
from store.domain.wire import EntryWire as EntryOut
from store.domain.wire import OriginWire as OriginOut
from store.domain.wire import OverrideWire as OverrideOut
from store.domain.wire import RecordWire as RecordOut
from store.domain.wire import RunDigestWire as DigestOut
from web.kit.errors import DATABASE_UNAVAILABLE
from web.kit.json_bodies import NOT_JSON_TYPE

__all__ = (
    "DIGEST_ANSWER_EXAMPLE",
    "DIGEST_EXAMPLE",
    "EXAMPLE_RECORD",
    "ID_RULE",
    "NOT_JSON",
    "UNAVAILABLE",
    "ActorIn",
    "AddressId",
    "DigestIn",
    "DigestOut",
    "EntryOut",
    "Id",
    "OriginOut",
    "OverrideOut",
    "ProblemOut",
    "RecordOut",
    "digest_off",
    "digest_out",
    "refusal",
    "require_plain_ids",
)

ID_RULE = (
    "1–200 characters of plain visible text: no control, invisible or text-direction character, no space at "
    "either end, no U+FFFD."
)
Id = Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_ID_CHARS, description=ID_RULE)]
AddressId = Annotated[
    str, msgspec.Meta(min_length=1, max_length=MAX_ID_CHARS, description=f"{ID_RULE} No '/': it goes into addresses.")
]


def require_plain_ids(name: str, *values: str | None, in_address: bool = False) -> None:
    """Ids are plain visible text (`store.domain.identifiers`): a control character (a NUL above all,
    which PostgreSQL cannot even compare), an invisible one or a text-direction control names nothing
    OnFile should store or show. Raised here, it is a 400 naming the field."""
    for value in values:
        problem = None if value is None else id_problem(name, value, in_address=in_address)
        if problem is not None:
            raise ValueError(problem)


class ActorIn(msgspec.Struct, rename="camel", forbid_unknown_fields=True):
    id: Id
    tenant_ref: Id | None = None
    roles: Annotated[list[Id], msgspec.Meta(max_length=MAX_ROLES)] | None = msgspec.field(default_factory=list)
    """null is none, as leaving it out is."""

    def __post_init__(self) -> None:
        require_plain_ids("actor.id", self.id)
        require_plain_ids("actor.tenantRef", self.tenant_ref)
        require_plain_ids("actor.roles", *(self.roles or ()))


class DigestIn(msgspec.Struct, rename="camel", forbid_unknown_fields=True):
    actor: ActorIn
    thread_id: AddressId | None = None
    text: Annotated[str, msgspec.Meta(max_length=MAX_TURN_CHARS)] | None = ""
    """null is no text, as leaving it out is."""

    def __post_init__(self) -> None:
        require_plain_ids("threadId", self.thread_id, in_address=True)


class ProblemOut(msgspec.Struct):
    error: str


def digest_off() -> DigestOut:
    """The digest while memory is switched off: no scopes, no entries, an empty block, nothing writable."""
    nothing = DigestWire(scopes=[], entries=[], omitted=0, pinned_omitted=0, recalled=False)
    return run_digest_wire(nothing, block="", writable=False, tools=[], memory="off")


def digest_out(digest: MemoryDigest, *, block: str, writable: bool, tools: Sequence[dict[str, Any]]) -> DigestOut:
    """A digest and its block as the API answers them; the support preview answers in the same shape."""
    return run_digest_wire(digest_wire(digest), block=block, writable=writable, tools=list(tools))


def refusal(description: str, example: str) -> ResponseSpec:
    """A refusal's documented answer: `{"error"}` with `example` as its text (and no made-up one beside it)."""
    return ResponseSpec(
        ProblemOut, description=description, examples=[Example(value={"error": example})], generate_examples=False
    )


UNAVAILABLE = refusal(
    "The database cannot be reached; the answer carries Retry-After: 5, and nothing was changed",
    DATABASE_UNAVAILABLE,
)
"""503, for every route that reads or writes the database."""


NOT_JSON = refusal("The body was not sent as JSON", f"{NOT_JSON_TYPE}; this one came as text/plain.")
"""415, for every route that takes a JSON body."""

EXAMPLE_RECORD: dict[str, Any] = {
    "id": "mem_01HZX3",
    "key": "units",
    "text": "report distances in kilometres",
    "scope": "actor:u1",
    "pinned": False,
    "origin": {"author": "agent", "threadId": "thr_41", "runId": "run_40", "actorRef": "u1", "promotedFrom": None},
    "updatedAt": "2026-12-01T09:00:00+00:00",
}
"""A record as the agent API answers it, for the documented examples."""
DIGEST_ANSWER_EXAMPLE: dict[str, Any] = {
    "memory": "on",
    "scopes": ["actor:u1", "tenant:berlin", "global"],
    "entries": [{**EXAMPLE_RECORD, "overrides": [], "recordPinned": False}],
    "omitted": 0,
    "pinnedOmitted": 0,
    "recalled": False,
    "block": "<memory>\n…\n- [actor:u1] units: report distances in kilometres\n</memory>",
    "writable": True,
    "tools": [{"name": "remember", "description": "…", "parameters": {"type": "object"}}],
}
"""A digest's answer (a turn whose one memory fits, so nothing was ranked), for the documented examples."""
DIGEST_EXAMPLE = {
    "actor": {"id": "u1", "tenantRef": "berlin", "roles": ["staff"]},
    "threadId": "thr_42",
    "text": "How far is the Spandau depot from Potsdam?",
}
