"""OnFile for Python agents: in-process over the database, or over HTTP, with one shape.

    async with await OnFile.open("sqlite+aiosqlite:///onfile.sqlite3") as onfile:
        run = await onfile.begin_run("run_1", actor=Actor("u1", "berlin"), thread_id="thr_1", text=turn_text)
        system = compose_system_prompt(BASE_PROMPT, memory=run.block)
        ... the model calls remember(key, fact) as tool call "call_7" ...
        outcome = await run.remember("call_7", key, fact)

`OnFileClient(base_url, token)` has the same `begin_run` and `Run.remember`, calling the service's
agent API. Either way the run is journaled in the service's tables with the same guarantees: the
digest is resolved once per run and replayed byte for byte, and each remember call runs once.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Protocol, Self
from urllib.parse import quote

import httpx
import msgspec

from store.domain.identifiers import MAX_ROLES, id_problem
from store.domain.precedence import DEFAULT_MAX_MEMORIES
from store.domain.relevance import MAX_TURN_CHARS
from store.domain.remember import DEFAULT_MAX_FACT_CHARS
from store.domain.scopes import DefaultScopeResolver, ScopeResolver
from store.domain.types import Actor, MemoryDigest
from store.domain.wire import RememberWire, RunDigestWire, digest_of
from store.embedding import DEFAULT_EMBEDDER, Embedder
from store.memory import MemoryConfig, WriteOutcome
from store.persistence import (
    ConversationRegistry,
    KnownPeople,
    MemoryControlStore,
    RunJournal,
    RunPrunedError,
    RunsOnAnotherThreadError,
    SqlMemoryProvider,
    open_engine,
    upgrade_engine,
)
from store.runs import (
    MemoryRuns,
    PersonInAnotherOrganisationError,
    RememberCallMismatchError,
    RunActorMismatchError,
    RunMemory,
    RunNotStartedError,
)

__all__ = ("OnFile", "OnFileClient", "OnFileError", "Run")


class OnFileError(RuntimeError):
    """OnFile refused a call: `status` is the HTTP status the agent API answers it with, in-process
    too — 400 an id that cannot be one, or a turn text or list of roles over its limit; 401 a bad
    token; 409 another actor's run, a remember call before the digest or a reused call id with other
    arguments, or runs of another thread; 410 a run whose journal was deleted (its retention ended, a
    memory it named expired, or its person was erased)."""

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


def _check_ids(
    *,
    run_id: str | None = None,
    thread_id: str | None = None,
    call_id: str | None = None,
    actor: Actor | None = None,
    run_ids: Sequence[str] = (),
) -> None:
    """The agent API's rule for ids (`store.domain.identifiers`), applied before anything is asked,
    in-process and over HTTP alike: an `OnFileError` with status 400 naming the first problem."""
    named: list[tuple[str, str | None, bool]] = [
        ("runId", run_id, True),
        ("threadId", thread_id, True),
        ("callId", call_id, False),
        *(("runIds", each, True) for each in run_ids),
    ]
    if actor is not None:
        named += [("actor.id", actor.id, False), ("actor.tenantRef", actor.tenant_ref, False)]
        named += [("actor.roles", role, False) for role in actor.roles]
    for name, value, in_address in named:
        problem = None if value is None else id_problem(name, value, in_address=in_address)
        if problem is not None:
            raise OnFileError(problem, status=400)


def _checked_turn(text: str | None, actor: Actor) -> str:
    """A run's turn text (None is none), held to the agent API's limits on it and on the actor's
    roles, in-process and over HTTP alike: an `OnFileError` with status 400 naming what is over."""
    if len(actor.roles) > MAX_ROLES:
        raise OnFileError(f"actor.roles holds {len(actor.roles)} roles; the limit is {MAX_ROLES}.", status=400)
    turn = text or ""
    if len(turn) > MAX_TURN_CHARS:
        raise OnFileError(f"text is {len(turn):,} characters long; the limit is {MAX_TURN_CHARS:,}.", status=400)
    return turn


class _Remembers(Protocol):
    async def __call__(self, run_id: str, call_id: str, key: str, fact: str) -> WriteOutcome: ...


@dataclass(frozen=True)
class Run:
    """One run's memory: what goes into the system prompt, the tools to offer, and `remember`."""

    run_id: str
    block: str
    digest: MemoryDigest
    tools: tuple[dict[str, Any], ...]
    writable: bool
    _remember: _Remembers = field(repr=False)

    async def remember(self, call_id: str, key: str, fact: str) -> WriteOutcome:
        """Carry out the model's remember tool call `call_id`; a retry or replay returns the recorded outcome."""
        return await self._remember(self.run_id, call_id, key, fact)


class _Closing(ABC):
    """`async with` closes what it opened."""

    @abstractmethod
    async def close(self) -> None: ...

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        await self.close()


class OnFile(_Closing):
    """OnFile in-process, over its own database (the same tables the service uses)."""

    def __init__(self, runs: MemoryRuns, registry: ConversationRegistry, close: Any) -> None:
        self._runs = runs
        self._registry = registry
        self._close = close

    @classmethod
    async def open(
        cls,
        database_url: str,
        *,
        scopes: ScopeResolver | None = None,
        max_memories: int = DEFAULT_MAX_MEMORIES,
        max_fact_chars: int = DEFAULT_MAX_FACT_CHARS,
        migrate: bool = True,
        embedder: Embedder | None = DEFAULT_EMBEDDER,
        approval_by_default: bool = False,
    ) -> OnFile:
        """OnFile over the database at `database_url`, ranking and embedding as the service does
        (`embedder=None`: by words alone, and nothing embedded). A person's pause and their
        organisation's approval setting hold here as in the service; `approval_by_default` is what an
        organisation that never chose gets (the service's `ONFILE_APPROVAL_REQUIRED`)."""
        engine = open_engine(database_url)
        if migrate:
            await upgrade_engine(engine)
        config = MemoryConfig(
            provider=SqlMemoryProvider(engine, embedder=embedder),
            scopes=scopes or DefaultScopeResolver(),
            max_memories=max_memories,
            max_fact_chars=max_fact_chars,
        )
        registry = ConversationRegistry(engine)
        controls = MemoryControlStore(engine, approval_by_default=approval_by_default)
        runs = MemoryRuns(config, RunJournal(engine), registry, KnownPeople(engine), controls)
        return cls(runs, registry, engine.dispose)

    async def close(self) -> None:
        await self._close()

    async def begin_run(self, run_id: str, *, actor: Actor, thread_id: str | None, text: str | None) -> Run:
        """The run's memory, resolved on the first call and read back on every later one."""
        _check_ids(run_id=run_id, thread_id=thread_id, actor=actor)
        turn = _checked_turn(text, actor)
        try:
            recorded = await self._runs.begin(run_id, actor=actor, thread_id=thread_id, text=turn)
        except (RunActorMismatchError, PersonInAnotherOrganisationError) as error:
            raise OnFileError(str(error), status=409) from None
        except RunPrunedError as error:
            raise OnFileError(str(error), status=410) from None
        return self._run(recorded)

    async def thread_deleted(self, thread_id: str) -> None:
        _check_ids(thread_id=thread_id)
        await self._registry.delete_thread(thread_id)

    async def runs_dropped(self, thread_id: str, run_ids: Sequence[str]) -> None:
        _check_ids(thread_id=thread_id, run_ids=run_ids)
        try:
            await self._registry.drop_runs(thread_id, run_ids)
        except RunsOnAnotherThreadError as error:
            raise OnFileError(str(error), status=409) from None

    def _run(self, recorded: RunMemory) -> Run:
        async def remember(run_id: str, call_id: str, key: str, fact: str) -> WriteOutcome:
            _check_ids(call_id=call_id)
            try:
                return await self._runs.remember(run_id, call_id=call_id, key=key, fact=fact)
            except (RunNotStartedError, RememberCallMismatchError) as error:
                raise OnFileError(str(error), status=409) from None
            except RunPrunedError as error:
                raise OnFileError(str(error), status=410) from None

        return Run(recorded.run_id, recorded.block, recorded.digest, recorded.tools, recorded.writable, remember)


class OnFileClient(_Closing):
    """The same shape over the service's agent API (`/agent/runs/...`), with a bearer token."""

    def __init__(self, base_url: str, token: str, *, http: httpx.AsyncClient | None = None) -> None:
        self._http = http or httpx.AsyncClient(base_url=base_url.rstrip("/"), timeout=30)
        self._headers = {"Authorization": f"Bearer {token}"}

    async def close(self) -> None:
        await self._http.aclose()

    async def begin_run(self, run_id: str, *, actor: Actor, thread_id: str | None, text: str | None) -> Run:
        _check_ids(run_id=run_id, thread_id=thread_id, actor=actor)
        body = {
            "actor": {"id": actor.id, "tenantRef": actor.tenant_ref, "roles": list(actor.roles)},
            "threadId": thread_id,
            "text": _checked_turn(text, actor),
        }
        data = await self._call("POST", f"/agent/runs/{_segment(run_id)}/digest", body)
        answer = msgspec.convert(data, RunDigestWire)
        return Run(run_id, answer.block, digest_of(answer), tuple(answer.tools), answer.writable, self._remember)

    async def thread_deleted(self, thread_id: str) -> None:
        _check_ids(thread_id=thread_id)
        await self._call("DELETE", f"/agent/threads/{_segment(thread_id)}", None)

    async def runs_dropped(self, thread_id: str, run_ids: Sequence[str]) -> None:
        _check_ids(thread_id=thread_id, run_ids=run_ids)
        await self._call("POST", f"/agent/threads/{_segment(thread_id)}/dropped-runs", {"runIds": list(run_ids)})

    async def _remember(self, run_id: str, call_id: str, key: str, fact: str) -> WriteOutcome:
        _check_ids(call_id=call_id)
        body = {"callId": call_id, "key": key, "fact": fact}
        data = await self._call("POST", f"/agent/runs/{_segment(run_id)}/remember", body)
        return WriteOutcome.from_wire(msgspec.convert(data, RememberWire))

    async def _call(self, method: str, path: str, body: dict[str, Any] | None) -> Any:
        response = await self._http.request(method, path, json=body, headers=self._headers)
        if response.status_code >= 400:
            try:
                detail = response.json().get("error") or response.json().get("detail")
            except ValueError:
                detail = response.text
            msg = f"OnFile answered {response.status_code} to {method} {path}: {detail}"
            raise OnFileError(msg, status=response.status_code)
        return response.json()


def _segment(id_: str) -> str:
    """An id as one segment of an address: every character that could end or escape it encoded
    (`?` would start a query, `#` a fragment, `%` an escape), so the call acts on that id and no other.
    An id of dots alone has them encoded too: an HTTP client reads `.` and `..` as "this folder" and
    "the folder above", and would send the call to another address."""
    segment = quote(id_, safe="")
    return segment.replace(".", "%2E") if segment in {".", ".."} else segment
