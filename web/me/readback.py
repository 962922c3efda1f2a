"""The read-back API: everything on file about the logged-in person, and forgetting their own.

`GET /agent/memories` ignores the prompt's ceiling and never searches: showing someone more than the
model sees is harmless; showing them less is the failure this endpoint exists to prevent.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

import msgspec
from litestar import Response, delete, get
from litestar.di import NamedDependency
from litestar.exceptions import ValidationException
from litestar.openapi import ResponseSpec
from litestar.openapi.spec import Example
from litestar.params import PathParameter, QueryParameter

from store.domain.identifiers import id_problem
from store.memory import NOT_ON_FILE
from web.kit.api_errors import JSON_API_EXCEPTIONS
from web.kit.errors import LOG_IN_FIRST
from web.kit.identity.sessions import Viewer
from web.kit.session_api import NO_STORE_JSON
from web.kit.wire import UNAVAILABLE, OriginOut, OverrideOut, ProblemOut, refusal
from web.kit.words import not_theirs_to_change
from web.me.on_file import on_file, origin_of, resolving_origins
from web.services import Services

__all__ = ("MemoryEntryOut", "delete_memory", "list_memories", "read_back")


class MemoryOriginOut(OriginOut, frozen=True, kw_only=True):
    """Where a memory came from, as the agent API's `OriginOut` says it, and whether it still resolves."""

    resolves: bool
    """False when the conversation or the turn it came from is gone; the memory is kept."""


class MemoryEntryOut(msgspec.Struct, rename="camel", frozen=True):
    id: str
    key: str
    text: str
    scope: str
    pinned: bool
    origin: MemoryOriginOut
    updated_at: str
    overrides: list[OverrideOut]
    expires_at: str | None = None
    """When the assistant stops using this memory (the organisation's lifetime for what it concludes,
    from its last write or Keep; past, when it already expired), as UTC ISO 8601; null when never."""


class ForgottenOut(msgspec.Struct, frozen=True):
    forgotten: bool


_INVALID = refusal(
    "An address or query that is not valid", "The request is not valid: the address contains a control character."
)


_NO_SESSION = refusal("No dashboard session", LOG_IN_FIRST)
_READ_BACK = ResponseSpec(
    list[MemoryEntryOut],
    description="Everything that applies to the person, in the order the prompt renders it",
    examples=[
        Example(
            value=[
                {
                    "id": "mem_01HZX3",
                    "key": "units",
                    "text": "report distances in miles",
                    "scope": "actor:u1",
                    "pinned": False,
                    "origin": {
                        "author": "agent",
                        "threadId": "thr_41",
                        "runId": "run_40",
                        "actorRef": "u1",
                        "promotedFrom": None,
                        "resolves": True,
                    },
                    "updatedAt": "2026-12-01T09:00:00Z",
                    "overrides": [{"scope": "global", "text": "report distances in kilometres", "author": "human"}],
                    "expiresAt": None,
                }
            ]
        )
    ],
    generate_examples=False,
)


async def read_back(
    services: NamedDependency[Services], viewer: NamedDependency[Viewer], thread_id: str | None
) -> list[MemoryEntryOut]:
    entries = (await on_file(services, viewer.actor, thread_id)).entries
    origins = [origin_of(e) for e in entries]
    resolving = await resolving_origins(services, entries)
    expiries = await services.expiry.expiries(viewer.actor, [e.record.id for e in entries])
    return [
        MemoryEntryOut(
            id=e.record.id,
            key=e.key,
            text=e.text,
            scope=e.scope,
            pinned=e.pinned,
            origin=MemoryOriginOut(
                author=e.record.origin.author,
                thread_id=e.record.origin.thread_id,
                run_id=e.record.origin.run_id,
                actor_ref=e.record.origin.actor_ref,
                promoted_from=e.record.origin.promoted_from,
                resolves=origin in resolving,
            ),
            updated_at=_utc_text(e.record.updated_at),
            overrides=[OverrideOut(scope=o.scope, text=o.text, author=o.author) for o in e.overrides],
            expires_at=_utc_text(expiries[e.record.id]) if e.record.id in expiries else None,
        )
        for e, origin in zip(entries, origins, strict=True)
    ]


def _utc_text(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


@get(
    "/agent/memories",
    cache_control=NO_STORE_JSON,
    name="read_back",
    summary="Everything on file about me",
    description=(
        "Every memory that applies to the logged-in person, in the order the prompt renders them, with the "
        "wider values each one overrides. No ceiling and no relevance selection. Authenticated by the "
        "dashboard session."
    ),
    tags=["read-back"],
    security=[{"dashboardSession": []}],
    exception_handlers=JSON_API_EXCEPTIONS,
    responses={200: _READ_BACK, 400: _INVALID, 401: _NO_SESSION, 503: UNAVAILABLE},
)
async def list_memories(
    services: NamedDependency[Services],
    viewer: NamedDependency[Viewer],
    thread_id: Annotated[
        str | None, QueryParameter(name="threadId", description="The conversation being viewed.")
    ] = None,
) -> list[MemoryEntryOut]:
    problem = None if thread_id is None else id_problem("threadId", thread_id, in_address=True)
    if problem is not None:
        raise ValidationException(detail=problem)
    return await read_back(services, viewer, thread_id)


@delete(
    "/agent/memories/{memory_id:str}",
    cache_control=NO_STORE_JSON,
    name="forget_memory",
    summary="Forget one of my memories",
    description=(
        "200 when it was yours and is gone; 403 with the reason when you can see it but it is held at a wider "
        "scope (your organisation manages it); 404 with one body for an unknown id, another person's memory and "
        "one beaten by a narrower memory. Needs the X-CSRF-Token header."
    ),
    tags=["read-back"],
    status_code=200,
    security=[{"dashboardSession": [], "csrfToken": []}],
    exception_handlers=JSON_API_EXCEPTIONS,
    responses={
        200: ResponseSpec(
            ForgottenOut, description="It was yours and is gone", examples=[Example(value={"forgotten": True})]
        ),
        400: _INVALID,
        401: _NO_SESSION,
        403: refusal(
            "Held at a wider scope (your organisation manages it), or no valid X-CSRF-Token",
            "Managed by your organisation: only its administrators can change or remove it.",
        ),
        404: refusal("Unknown, another person's, or beaten by a narrower memory: one answer for all", NOT_ON_FILE),
        503: UNAVAILABLE,
    },
)
async def delete_memory(
    services: NamedDependency[Services],
    viewer: NamedDependency[Viewer],
    memory_id: Annotated[str, PathParameter(examples=[Example(value="mem_01HZX3")])],
) -> Response[ForgottenOut | ProblemOut]:
    outcome = await services.personal.forget_by_id(viewer.actor, memory_id)
    if outcome.status == "forgotten":
        return Response(ForgottenOut(forgotten=True), status_code=200)
    if outcome.status == "refused":  # said as the person's page says it, not by the scope's token
        words = not_theirs_to_change(outcome.scope, viewer.actor) if outcome.scope else outcome.reason
        return Response(ProblemOut(error=words), status_code=403)
    return Response(ProblemOut(error=outcome.reason), status_code=404)
