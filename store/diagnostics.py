"""One small in-process hook that memory's diagnostics events are published through.

Later layers attach metrics and logs to it. The events never carry a key or a fact: a key is as
revealing as the fact it names. They are msgspec Structs, like the records: one is made every turn.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import ClassVar

import msgspec

__all__ = ("DIAGNOSTICS", "DiagnosticEvent", "Diagnostics", "MemoryResolved", "MemoryWritten")

logger = logging.getLogger(__name__)


class MemoryResolved(msgspec.Struct, frozen=True):
    """A turn's digest was resolved. `scopes` is how many applied; `prompt_chars` the block's length."""

    name: ClassVar[str] = "memory.resolved"
    run_id: str | None
    scopes: int
    offered: int
    omitted: int
    pinned_omitted: int
    recalled: bool
    prompt_chars: int


class MemoryWritten(msgspec.Struct, frozen=True):
    """The assistant stored a fact of `chars` characters at `scope`."""

    name: ClassVar[str] = "memory.written"
    run_id: str | None
    scope: str
    chars: int


DiagnosticEvent = MemoryResolved | MemoryWritten
Listener = Callable[[DiagnosticEvent], None]


class Diagnostics:
    """Publish/subscribe for diagnostics. A listener that raises is logged and never breaks a turn."""

    def __init__(self) -> None:
        self._listeners: list[Listener] = []

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Attach `listener`; call the returned function to detach it."""
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    def publish(self, event: DiagnosticEvent) -> None:
        for listener in tuple(self._listeners):
            try:
                listener(event)
            except Exception:
                logger.exception("diagnostics listener failed on %s", event.name)


DIAGNOSTICS = Diagnostics()
"""The process's hook, used unless a configuration names another."""
