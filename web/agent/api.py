"""The API agent runtimes call on every turn: a run's digest, `remember`, and the conversation lifecycle.

Authenticated by bearer service tokens (`ONFILE_AGENT_TOKENS`), never by a cookie; no CSRF, since
no browser credential is accepted. The runtime asserts the actor it runs for.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar

import msgspec
from litestar import Response, Router, delete, post
from litestar.di import NamedDependency
from litestar.enums import MediaType, ScopeType
from litestar.exceptions import NotAuthorizedException, ValidationException
from litestar.openapi import ResponseSpec
from litestar.openapi.spec import Example, SecurityScheme
from litestar.params import Body, PathParameter
from litestar.types import ASGIApp, ExceptionHandlersMap, Receive, Scope, Send

from store import Actor
from store.domain.controls import MEMORY_PAUSED, WAITING_FOR_APPROVAL
from store.domain.identifiers import MAX_ID_CHARS, id_problem
from store.domain.wire import RememberWire
from store.persistence import RunPrunedError, RunsOnAnotherThreadError
from store.runs import (
    PersonInAnotherOrganisationError,
    RememberCallMismatchError,
    RunActorMismatchError,
    RunNotStartedError,
)
from web.kit.api_errors import JSON_API_EXCEPTIONS, TOO_LARGE
from web.kit.security import bearer_presented
from web.kit.wire import (
    DIGEST_ANSWER_EXAMPLE,
    DIGEST_EXAMPLE,
    EXAMPLE_RECORD,
    ID_RULE,
    NOT_JSON,
    UNAVAILABLE,
    AddressId,
    DigestIn,
    DigestOut,
    Id,
    ProblemOut,
    digest_off,
    refusal,
    require_plain_ids,
)
from web.services import Services

__all__ = ("agent_router", "bearer_scheme")


def _addressed(name: str, value: str) -> None:
    """A run or thread id from the address, held to the same rule as one in a body."""
    problem = id_problem(name, value, in_address=True)
    if problem is not None:
        raise ValidationException(detail=problem)


PathId = Annotated[
    str,
    PathParameter(
        description=f"{ID_RULE} No '/'; encode '?', '#', '%'.",
        # documented here, held by `_addressed`, whose refusal names the id as the API does (`runId`)
        schema_extra={"minLength": 1, "maxLength": MAX_ID_CHARS},
    ),
]
MEMORY_OFF = "Memory is switched off on this OnFile: no digest is resolved, nothing is written or journaled."


class RememberIn(msgspec.Struct, rename="camel", forbid_unknown_fields=True):
    call_id: Id
    key: str  # the model's, of any length: too long is an ok=false it can correct (the body's size is capped)
    fact: str

    MODEL_TEXT: ClassVar[tuple[str, ...]] = ("key", "fact")
    """Half of a character in the key or fact (a cut emoji) is the model's to correct, like any of its
    mistakes there: the body is decoded with it kept (`web.kit.json_bodies`); anywhere else it is a 400."""

    def __post_init__(self) -> None:
        require_plain_ids("callId", self.call_id)  # the key and the fact are the model's: refused as ok=false


RememberOut = RememberWire
"""The outcome of a remember call, in the store's one wire shape of it."""


class DroppedRunsIn(msgspec.Struct, rename="camel", forbid_unknown_fields=True):
    run_ids: Annotated[list[AddressId], msgspec.Meta(min_length=1, max_length=10_000)]

    def __post_init__(self) -> None:
        require_plain_ids("runIds", *self.run_ids, in_address=True)


class ThreadOut(msgspec.Struct, rename="camel"):
    thread_id: str
    memories_kept: bool = True


def bearer_middleware(app: ASGIApp) -> ASGIApp:
    """Every agent call presents one of the configured tokens (several at once, for rotation),
    compared in constant time against each of them; anything else is a 401 before the handler runs.

    A middleware, not a guard: Litestar copies the route handler for every guard call, which costs a
    replayed digest more than checking the token."""

    async def checked(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == ScopeType.HTTP:
            _check_bearer(scope)
        await app(scope, receive, send)

    return checked


def _check_bearer(scope: Scope) -> None:
    services: Services = scope["litestar_app"].state.services
    if not bearer_presented(scope["headers"], services.settings.agent_token_list):
        raise NotAuthorizedException(
            detail="Agent calls need an Authorization: Bearer header with one of ONFILE_AGENT_TOKENS.",
            headers={"WWW-Authenticate": 'Bearer realm="onfile-agent"'},
        )


def _problem(error: Exception, status: int) -> Response[Any]:
    """A refusal, in the documented `{"error"}` shape (kept apart from the 200 answer's schema, so
    that `{"ok": false, "error"}` is one thing, not two)."""
    return Response(ProblemOut(str(error)), status_code=status)


AGENT_EXCEPTIONS: ExceptionHandlersMap = JSON_API_EXCEPTIONS


def _refusals(invalid: str, *, body: bool = True) -> dict[int, ResponseSpec]:
    """The refusals every agent route can answer, with `invalid` as the 400's example (each route's
    own kind of mistake); a 413 only for a route that takes a body."""
    refused = {
        400: refusal(
            "The body or an id in the address is not valid; every problem is named"
            if body
            else "The id in the address is not valid",
            invalid,
        ),
        401: refusal(
            "No Authorization: Bearer header with one of ONFILE_AGENT_TOKENS",
            "Agent calls need an Authorization: Bearer header with one of ONFILE_AGENT_TOKENS.",
        ),
        503: UNAVAILABLE,
    }
    return {**refused, 413: refusal("The body is larger than OnFile accepts", TOO_LARGE)} if body else refused


_REFUSALS_OF_A_DIGEST = _refusals(
    "The request is not valid: actor.id contains an invisible or control character (U+202E); ids are plain "
    "visible text."
)
_REFUSALS_OF_A_REMEMBER = _refusals(
    "The request is not valid: callId contains an invisible or control character (U+202E); ids are plain visible text."
)
_REFUSALS_OF_A_DELETION = _refusals("threadId is 201 characters long; the limit is 200.", body=False)
_REFUSALS_OF_A_DROP = _refusals(
    "The request is not valid: runIds contains '/', which an address cannot carry inside one segment; use another "
    "separator."
)
_CONFLICT = refusal(
    "Another actor's run, or a person known in another organisation",
    "u1 is known in organisation berlin, but this call names organisation hamburg: an agent call cannot move a "
    "person between organisations, so nothing was resolved or written. Send the organisation OnFile knows; a "
    "real move is made by the person signing in, or by an operator (onfile people move).",
)
_CALL_CONFLICT = refusal(
    "No digest recorded for the run yet, or the callId was used with another key or fact",
    "Call call_1 of run run_42 was already carried out with another key or fact; nothing was written. Give each "
    "remember call its own callId.",
)
_GONE = refusal(
    "The run's journal was deleted (its retention ended, a memory it named expired, or its person was erased): "
    "start a new run",
    "Run run_42's journal was deleted (its retention ended, a memory it named expired, or the person it was for "
    "was erased): its memory can no longer be replayed. Start a new run.",
)
_DIGEST_ANSWER = ResponseSpec(
    DigestOut,
    description="The run's memory: recorded on the first call, the same bytes on every later one",
    examples=[Example(summary="A turn with one memory", value=DIGEST_ANSWER_EXAMPLE)],
    generate_examples=False,
)
_REMEMBER_ANSWER = ResponseSpec(
    RememberOut,
    description=(
        "The call's outcome: the record written, the note kept waiting for the person's approval (their "
        "organisation requires it), or why nothing was saved (a mistake the model can act on, or the person "
        "paused memory)"
    ),
    examples=[
        Example(summary="Written", value={"ok": True, "record": EXAMPLE_RECORD}),
        Example(
            summary="Waiting for the person's approval",
            value={
                "ok": True,
                "pending": {
                    "id": "pend_01HZX4",
                    "personId": "u1",
                    "key": "units",
                    "text": "report distances in kilometres",
                    "threadId": "thr_41",
                    "runId": "run_40",
                    "concludedAt": "2026-12-01T09:00:00Z",
                    "message": WAITING_FOR_APPROVAL,
                },
            },
        ),
        Example(summary="Memory paused by the person", value={"ok": False, "error": MEMORY_PAUSED}),
        Example(
            summary="A model's mistake",
            value={"ok": False, "error": "The fact contains a line break. It must be a single line of plain text."},
        ),
    ],
)
_THREAD_ANSWER = ResponseSpec(
    ThreadOut,
    description="Done: memories are kept",
    examples=[Example(value={"threadId": "thr_41", "memoriesKept": True})],
)


@post(
    "/runs/{run_id:str}/digest",
    summary="Resolve a run's memory (once)",
    description=(
        "The first call resolves the actor's scopes, chooses the memories (all of them when they fit under the "
        "ceiling; otherwise ranked by the turn text's words and meaning), renders the block and records it all "
        "as the run's memory:digest checkpoint, and registers the run with its thread. Every later call "
        "for the run returns the recorded digest and the byte-identical block. A later call naming a different "
        "actor is refused with 409, and so is a new run naming a person OnFile knows in another organisation "
        "than `actor.tenantRef` says (nothing is resolved, journaled or changed: a person changes organisation "
        "only by signing in, or by an operator's `onfile people move`)."
    ),
    status_code=200,
    responses={200: _DIGEST_ANSWER, **_REFUSALS_OF_A_DIGEST, 409: _CONFLICT, 410: _GONE, 415: NOT_JSON},
)
async def run_digest(
    services: NamedDependency[Services],
    run_id: PathId,
    data: Annotated[DigestIn, Body(examples=[Example(summary="A turn", value=DIGEST_EXAMPLE)])],
) -> Response[DigestOut] | Response[bytes]:
    _addressed("runId", run_id)
    if not services.settings.memory_enabled:
        return Response(digest_off())
    actor = Actor(id=data.actor.id, tenant_ref=data.actor.tenant_ref, roles=tuple(data.actor.roles or ()))
    try:
        run = await services.runs.begin_answered(run_id, actor=actor, thread_id=data.thread_id, text=data.text or "")
    except (RunActorMismatchError, PersonInAnotherOrganisationError) as error:
        return _problem(error, 409)
    except RunPrunedError as error:
        return _problem(error, 410)
    return Response(run.answer, media_type=MediaType.JSON)


@post(
    "/runs/{run_id:str}/remember",
    summary="Carry out the model's remember call (once per callId)",
    description=(
        "Writes the fact at the run's actor's own scope, authorised against the run's recorded scopes. Executed "
        "once per (runId, callId): a retry or a replay returns the recorded outcome and writes nothing. A model's "
        "mistake (empty, too long, more than one line) is ok=false with an error the model can act on. A run "
        "with no recorded digest is 409, and so is a callId already carried out with another key or fact."
    ),
    status_code=200,
    responses={200: _REMEMBER_ANSWER, **_REFUSALS_OF_A_REMEMBER, 409: _CALL_CONFLICT, 410: _GONE, 415: NOT_JSON},
)
async def run_remember(
    services: NamedDependency[Services],
    run_id: PathId,
    data: Annotated[
        RememberIn,
        Body(
            examples=[
                Example(value={"callId": "call_1", "key": "fiscal-year", "fact": "they report on the calendar year"})
            ]
        ),
    ],
) -> Response[RememberOut]:
    _addressed("runId", run_id)
    if not services.settings.memory_enabled:
        return Response(RememberOut(ok=False, error=MEMORY_OFF))
    try:
        outcome = await services.runs.remember(run_id, call_id=data.call_id, key=data.key, fact=data.fact)
    except (RunNotStartedError, RememberCallMismatchError) as error:
        return _problem(error, 409)
    except RunPrunedError as error:
        return _problem(error, 410)
    return Response(outcome.to_wire())


@delete(
    "/threads/{thread_id:str}",
    summary="A conversation was deleted",
    description="Memories concluded in it are kept; their origins stop resolving and the dashboard marks them.",
    status_code=200,
    responses={200: _THREAD_ANSWER, **_REFUSALS_OF_A_DELETION},
)
async def thread_deleted(services: NamedDependency[Services], thread_id: PathId) -> ThreadOut:
    _addressed("threadId", thread_id)
    await services.registry.delete_thread(thread_id)
    return ThreadOut(thread_id=thread_id)


@post(
    "/threads/{thread_id:str}/dropped-runs",
    summary="Turns were dropped from a conversation's history",
    description=(
        "The history ceiling dropped these runs: memories are kept; their origins stop resolving. A run "
        "registered on another thread is refused with 409, and then nothing in the call is marked."
    ),
    status_code=200,
    responses={
        200: _THREAD_ANSWER,
        **_REFUSALS_OF_A_DROP,
        409: refusal(
            "A named run belongs to another thread",
            "Nothing was marked: these runs belong to another thread than “thr_41”, so they cannot have been "
            "dropped from its history: “run_7”.",
        ),
        415: NOT_JSON,
    },
)
async def runs_dropped(
    services: NamedDependency[Services],
    thread_id: PathId,
    data: Annotated[DroppedRunsIn, Body(examples=[Example(value={"runIds": ["run_1", "run_2"]})])],
) -> Response[ThreadOut]:
    _addressed("threadId", thread_id)
    try:
        await services.registry.drop_runs(thread_id, data.run_ids)
    except RunsOnAnotherThreadError as error:
        return _problem(error, 409)
    return Response(ThreadOut(thread_id=thread_id))


bearer_scheme = SecurityScheme(type="http", scheme="bearer", description="One of ONFILE_AGENT_TOKENS.")

agent_router = Router(
    path="/agent",
    route_handlers=[run_digest, run_remember, thread_deleted, runs_dropped],
    middleware=[bearer_middleware],
    security=[{"agentToken": []}],
    tags=["agent runtime"],
    exception_handlers=AGENT_EXCEPTIONS,
)
