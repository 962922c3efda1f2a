"""The elevated area's JSON endpoints, for automation: the same acts as the pages, the same checks.

Authenticated by the dashboard session, with the `X-CSRF-Token` header on every call (like the
read-back API). Answers: the record (201 when published); 403 with `{"error": reason}` when refused —
the verdict's reason, or that the caller administers nothing; 404 with one body for an id that is
unknown or held at a scope the caller does not administer; 400 for invalid input (empty, too long,
not one line), with a message saying which.

Every endpoint takes `elevation`, which the router provides only to someone who administers a scope
(`administrators_only`; `web.kit.session_api` answers anyone else). Publishing asks less
(`confirmed_roles_only`): a scope the person does not administer is refused by the store's verdict,
which names it.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Annotated, Any

import msgspec
from litestar import Response, Router, delete, get, post, put
from litestar.di import NamedDependency, Provide
from litestar.openapi import ResponseSpec
from litestar.openapi.spec import Example, OpenAPIHeader, OpenAPIResponse, OpenAPIType, Operation, Schema
from litestar.params import Body, HeaderParameter, PathParameter

from store import MemoryRecord
from store.admin import NOT_ADMINISTERED, AdminOutcome
from store.domain.administration import PinBudget
from store.domain.wire import record_wire
from store.restating import StillAsRead
from web.kit.api_errors import TOO_LARGE
from web.kit.identity.elevation import administrators_only, confirmed_roles_only
from web.kit.identity.visit import Visit
from web.kit.session_api import API_EXCEPTIONS, INVALID, NO_SESSION, NO_STORE_JSON, SESSION_SECURITY
from web.kit.wire import NOT_JSON, UNAVAILABLE, ProblemOut, RecordOut, refusal

__all__ = (
    "CHANGED_SINCE",
    "BudgetOut",
    "SharedMemoryOut",
    "admin_api_router",
)

MemoryId = Annotated[str, PathParameter(min_length=1, max_length=200, examples=[Example(value="mem_01HZX3")])]
_EXAMPLE_RECORD = {
    "id": "mem_01HZX3",
    "key": "manifest-required",
    "text": "never dispatch a pallet without a printed manifest",
    "scope": "tenant:berlin",
    "pinned": True,
    "origin": {"author": "human", "threadId": None, "runId": None, "actorRef": "lena", "promotedFrom": None},
    "updatedAt": "2026-12-01T09:00:00+00:00",
}
_EXAMPLE_BUDGET = {"scope": "tenant:berlin", "pinnedKeys": 3, "maxMemories": 20, "over": False}


class SharedMemoryIn(msgspec.Struct, rename="camel", forbid_unknown_fields=True):
    scope: Annotated[str, msgspec.Meta(max_length=1_000)]
    key: str  # any length: too long is refused with the limit named (the body's size is capped)
    text: str
    pinned: bool = False


class TextIn(msgspec.Struct, rename="camel", forbid_unknown_fields=True):
    text: str


class PinIn(msgspec.Struct, rename="camel", forbid_unknown_fields=True):
    pinned: bool


class BudgetOut(msgspec.Struct, rename="camel", omit_defaults=True):
    """Keys always on at the scope against what one prompt carries; `warning` when some would stop
    reaching prompts."""

    scope: str
    pinned_keys: int
    max_memories: int
    over: bool
    warning: str | None = None


class SharedMemoryOut(msgspec.Struct, rename="camel", omit_defaults=True):
    record: RecordOut
    budget: BudgetOut | None = None


class DeletedOut(msgspec.Struct, rename="camel"):
    deleted: bool
    record: RecordOut


class SharedMemoriesOut(msgspec.Struct, rename="camel"):
    records: list[RecordOut]


IfMatch = Annotated[
    str | None,
    HeaderParameter(
        name="If-Match",
        required=False,
        description=(
            "The fact's `ETag` as you read it: the call changes nothing, and answers 412, if the fact was "
            "changed since (its text, its pin). Without it the call acts on the fact as it is."
        ),
    ),
]


def version_of(record: MemoryRecord) -> str:
    """The record's version as an entity tag: a change of its text, its pin or its date changes it."""
    made = f"{record.id}\n{record.updated_at.isoformat()}\n{record.pinned}\n{record.text}"
    return '"' + hashlib.sha256(made.encode("utf-8", "surrogatepass")).hexdigest()[:24] + '"'


def _version_matches(if_match: str, version: str) -> bool:
    """RFC 9110's If-Match, strongly compared: `*`, or a list of tags one of which is `version`."""
    tags = [tag.strip() for tag in if_match.split(",")]
    return "*" in tags or version in tags


CHANGED_SINCE = (
    "Nothing was changed: the fact was changed since the version you sent (If-Match). Read it again "
    "(GET /admin/memories/{id}, whose ETag is its version now) and decide on what it says now."
)


def _still(if_match: str | None) -> StillAsRead | None:
    """What the store checks a fact against under its lock when the call sends `If-Match`."""
    if if_match is None:
        return None
    return lambda record: _version_matches(if_match, version_of(record))


def _budget_out(budget: PinBudget | None) -> BudgetOut | None:
    if budget is None:
        return None
    return BudgetOut(budget.scope, budget.pinned_keys, budget.max_memories, budget.over, budget.warning)


def _answer(outcome: AdminOutcome, status: int = 200) -> Response[Any]:
    if outcome.ok and outcome.record is not None:
        record = record_wire(outcome.record)
        answer = SharedMemoryOut(record=record, budget=_budget_out(outcome.budget))
        return Response(answer, status_code=status, headers={"ETag": version_of(outcome.record)})
    if outcome.status == "changed" and outcome.record is not None:
        said = CHANGED_SINCE.replace("{id}", outcome.record.id)
        return Response(ProblemOut(said), status_code=412, headers={"ETag": version_of(outcome.record)})
    code = {"refused": 403, "invalid": 400}.get(outcome.status, 404)
    return Response(ProblemOut(outcome.reason or NOT_ADMINISTERED), status_code=code)


_REFUSED = refusal(
    "Refused, with the verdict's reason", "Writing at tenant:berlin needs someone who administers it; ada does not."
)
_NOT_FOUND = refusal("Unknown, or not at a scope you administer", NOT_ADMINISTERED)
_TOO_LARGE = refusal("The body is larger than OnFile accepts", TOO_LARGE)
_BAD_ADDRESS = refusal(
    "An address that is not valid", "The request is not valid: the address contains a control character."
)
_BAD_PIN = refusal(
    "A body that does not parse or match its schema", "The request is not valid: pinned: Expected `bool`, got `str`"
)
_WRITTEN = [Example(value={"record": _EXAMPLE_RECORD, "budget": _EXAMPLE_BUDGET})]
_CHANGED = refusal("The fact was changed since the version in If-Match", CHANGED_SINCE.replace("{id}", "mem_01HZX3"))
_ADMINISTERS_NOTHING = refusal(
    "The caller administers no scope",
    "ada administers no scope: changing shared facts needs someone who administers the scope they are held at.",
)
_ETAG = OpenAPIHeader(
    schema=Schema(type=OpenAPIType.STRING),
    description="The fact's version: send it back as If-Match to act only on this version.",
)


@dataclass
class _AnsweringAVersion(Operation):
    """The API document's operation for a route whose success answers carry the fact's `ETag` (a
    documented answer of a route's own replaces the one that would list its headers)."""

    def __post_init__(self) -> None:
        for status, answer in (self.responses or {}).items():
            if status.startswith("2") and isinstance(answer, OpenAPIResponse):
                answer.headers = {**(answer.headers or {}), "ETag": _ETAG}


PUBLISH_TAKES_NO_VERSION = (
    "The request is not valid: a publish takes no If-Match or If-None-Match (it writes the key whatever it "
    "holds). To change a fact only if it is the version you read, PUT /admin/memories/{id} with If-Match."
)


@get(
    "/",
    summary="The shared facts you administer",
    description="Every fact at the scopes the logged-in person administers, by scope then key: no cap.",
    responses={
        200: ResponseSpec(
            SharedMemoriesOut,
            description="The shared facts",
            examples=[Example(value={"records": [_EXAMPLE_RECORD]})],
            generate_examples=False,
        ),
        401: NO_SESSION,
        403: _ADMINISTERS_NOTHING,
        503: UNAVAILABLE,
    },
)
async def list_shared(visit: NamedDependency[Visit]) -> SharedMemoriesOut:
    records = await visit.services.admin.shared_memories(visit.viewer.actor)
    ordered = sorted(records, key=lambda r: (r.scope, r.key, r.id))
    return SharedMemoriesOut(records=[record_wire(r) for r in ordered])


@get(
    "/{memory_id:str}",
    summary="One shared fact",
    description="The fact, with its version in the `ETag` header: send it back as `If-Match` to edit, pin or "
    "delete only that version.",
    responses={
        200: ResponseSpec(
            SharedMemoryOut,
            description="The fact",
            examples=[Example(value={"record": _EXAMPLE_RECORD})],
            generate_examples=False,
        ),
        400: _BAD_ADDRESS,
        401: NO_SESSION,
        403: _ADMINISTERS_NOTHING,
        404: _NOT_FOUND,
        503: UNAVAILABLE,
    },
    operation_class=_AnsweringAVersion,
)
async def read_shared(visit: NamedDependency[Visit], memory_id: MemoryId) -> Response[SharedMemoryOut | ProblemOut]:
    record = await visit.services.admin.shared_memory(visit.viewer.actor, memory_id)
    if record is None:
        return Response(ProblemOut(NOT_ADMINISTERED), status_code=404)
    return Response(SharedMemoryOut(record=record_wire(record)), headers={"ETag": version_of(record)})


@post(
    "/",
    summary="Publish a shared fact",
    description=(
        "Writes `key` at `scope` as the logged-in person (a new key, or a new text for an existing one), "
        "optionally always on. The scope must be one they administer (never their own: their own notes are "
        "written by their assistant and forgotten on their own page); any other is 403 with the reason. 201 with "
        "the record and, when pinned, the scope's pin budget (its `warning` says when always-on facts would stop "
        "reaching prompts)."
    ),
    status_code=201,
    responses={
        201: ResponseSpec(SharedMemoryOut, description="Published", examples=_WRITTEN, generate_examples=False),
        400: INVALID,
        401: NO_SESSION,
        403: _REFUSED,
        413: _TOO_LARGE,
        415: NOT_JSON,
        503: UNAVAILABLE,
    },
    dependencies={"elevation": Provide(confirmed_roles_only)},
    operation_class=_AnsweringAVersion,
)
async def create_shared(
    visit: NamedDependency[Visit],
    data: Annotated[
        SharedMemoryIn,
        Body(
            examples=[
                Example(
                    summary="An always-on policy for one organisation",
                    value={
                        "scope": "tenant:berlin",
                        "key": "manifest-required",
                        "text": "never dispatch a pallet without a printed manifest",
                        "pinned": True,
                    },
                )
            ]
        ),
    ],
    if_match: Annotated[str | None, HeaderParameter(name="If-Match", required=False, include_in_schema=False)] = None,
    if_none_match: Annotated[
        str | None, HeaderParameter(name="If-None-Match", required=False, include_in_schema=False)
    ] = None,
) -> Response[SharedMemoryOut | ProblemOut]:
    if if_match is not None or if_none_match is not None:  # never ignored in silence: a condition it cannot keep
        return Response(ProblemOut(PUBLISH_TAKES_NO_VERSION), status_code=400)
    outcome = await visit.services.admin.publish(
        visit.viewer.actor, scope=data.scope, key=data.key, text=data.text, pinned=data.pinned
    )
    return _answer(outcome, 201)


@put(
    "/{memory_id:str}",
    summary="Edit a shared fact",
    description=(
        "A new text for the fact; its id, key, scope and pin stay. With `If-Match` (the `ETag` a read or a "
        "write answered), only that version is edited: 412 if it changed since."
    ),
    responses={
        200: ResponseSpec(
            SharedMemoryOut,
            description="Edited",
            examples=[Example(value={"record": {**_EXAMPLE_RECORD, "text": "print the manifest before loading"}})],
            generate_examples=False,
        ),
        400: INVALID,
        401: NO_SESSION,
        403: _REFUSED,
        404: _NOT_FOUND,
        412: _CHANGED,
        413: _TOO_LARGE,
        415: NOT_JSON,
        503: UNAVAILABLE,
    },
    operation_class=_AnsweringAVersion,
)
async def edit_shared(
    visit: NamedDependency[Visit],
    memory_id: MemoryId,
    data: Annotated[TextIn, Body(examples=[Example(value={"text": "answer formally, in full sentences"})])],
    if_match: IfMatch = None,
) -> Response[SharedMemoryOut | ProblemOut]:
    return _answer(
        await visit.services.admin.edit(visit.viewer.actor, memory_id, text=data.text, still=_still(if_match))
    )


@delete(
    "/{memory_id:str}",
    summary="Delete a shared fact",
    description=(
        "The administrative delete the personal page refuses. Answers the record as it was. With `If-Match`, "
        "only that version is deleted: 412 if it changed since."
    ),
    status_code=200,
    responses={
        200: ResponseSpec(
            DeletedOut,
            description="Deleted: the record as it was",
            examples=[Example(value={"deleted": True, "record": _EXAMPLE_RECORD})],
            generate_examples=False,
        ),
        400: _BAD_ADDRESS,
        401: NO_SESSION,
        403: _REFUSED,
        404: _NOT_FOUND,
        412: _CHANGED,
        503: UNAVAILABLE,
    },
)
async def delete_shared(
    visit: NamedDependency[Visit],
    memory_id: MemoryId,
    if_match: IfMatch = None,
) -> Response[DeletedOut | ProblemOut]:
    outcome = await visit.services.admin.retire(visit.viewer.actor, memory_id, still=_still(if_match))
    if not outcome.ok or outcome.record is None:
        return _answer(outcome)
    return Response(DeletedOut(deleted=True, record=record_wire(outcome.record)))


@post(
    "/{memory_id:str}/pin",
    summary="Make a shared fact always on, or not",
    description=(
        "Answers the record and the scope's pin budget after the change; its `warning` says when the scope's "
        "always-on keys exceed what one prompt carries, so some would stop reaching prompts. With `If-Match`, "
        "only that version: 412 if it changed since."
    ),
    status_code=200,
    responses={
        200: ResponseSpec(
            SharedMemoryOut,
            description="Pinned or unpinned",
            examples=_WRITTEN,
            generate_examples=False,
        ),
        400: _BAD_PIN,
        401: NO_SESSION,
        403: _REFUSED,
        404: _NOT_FOUND,
        412: _CHANGED,
        413: _TOO_LARGE,
        415: NOT_JSON,
        503: UNAVAILABLE,
    },
    operation_class=_AnsweringAVersion,
)
async def pin_shared(
    visit: NamedDependency[Visit],
    memory_id: MemoryId,
    data: Annotated[PinIn, Body(examples=[Example(value={"pinned": True})])],
    if_match: IfMatch = None,
) -> Response[SharedMemoryOut | ProblemOut]:
    return _answer(
        await visit.services.admin.pin(visit.viewer.actor, memory_id, pinned=data.pinned, still=_still(if_match))
    )


admin_api_router = Router(
    path="/admin/memories",
    route_handlers=[list_shared, read_shared, create_shared, edit_shared, delete_shared, pin_shared],
    tags=["administration"],
    security=SESSION_SECURITY,
    dependencies={"elevation": Provide(administrators_only)},
    exception_handlers=API_EXCEPTIONS,
    cache_control=NO_STORE_JSON,
)
