"""Memory's diagnostics as Prometheus metrics and structured log lines. Never a key or a fact.

Counters are per process, as Prometheus expects: scrape every worker. The one to alert on is
`onfile_memory_pinned_omitted_total`: a non-zero rate means always-on facts stopped reaching prompts.
"""

from __future__ import annotations

import json
import logging
import threading
from collections import Counter

from store import DiagnosticEvent, MemoryResolved, scope_kind

__all__ = ("MemoryMetrics",)

logger = logging.getLogger("onfile.memory")

_HELP = {
    "onfile_memory_resolved_total": (
        "Turns whose memory digest was resolved (each run once: replays and racers that lost are not counted)."
    ),
    "onfile_memory_offered_total": "Memories offered to the model, summed over resolved turns.",
    "onfile_memory_omitted_total": "Applicable memories left out by the ceiling, summed over resolved turns.",
    "onfile_memory_pinned_omitted_total": "Always-on memories left out by the ceiling: alert on any increase.",
    "onfile_memory_recalled_total": "Turns whose memories were selected by relevance search.",
    "onfile_memory_prompt_chars_total": "Characters of memory block put into prompts.",
    "onfile_memory_written_total": "Facts the assistant stored, by scope kind.",
    "onfile_memory_written_chars_total": "Characters of facts the assistant stored, by scope kind.",
}


class MemoryMetrics:
    """A diagnostics listener that counts, logs, and renders the Prometheus text format."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._totals: Counter[str] = Counter()
        self._by_kind: dict[str, Counter[str]] = {
            "onfile_memory_written_total": Counter(),
            "onfile_memory_written_chars_total": Counter(),
        }

    def __call__(self, event: DiagnosticEvent) -> None:
        with self._lock:
            if isinstance(event, MemoryResolved):
                self._totals["onfile_memory_resolved_total"] += 1
                self._totals["onfile_memory_offered_total"] += event.offered
                self._totals["onfile_memory_omitted_total"] += event.omitted
                self._totals["onfile_memory_pinned_omitted_total"] += event.pinned_omitted
                self._totals["onfile_memory_recalled_total"] += int(event.recalled)
                self._totals["onfile_memory_prompt_chars_total"] += event.prompt_chars
                fields = {
                    "runId": event.run_id,
                    "scopes": event.scopes,
                    "offered": event.offered,
                    "omitted": event.omitted,
                    "pinnedOmitted": event.pinned_omitted,
                    "recalled": event.recalled,
                    "promptChars": event.prompt_chars,
                }
            else:
                kind = scope_kind(event.scope)
                self._by_kind["onfile_memory_written_total"][kind] += 1
                self._by_kind["onfile_memory_written_chars_total"][kind] += event.chars
                fields = {"runId": event.run_id, "scopeKind": kind, "chars": event.chars}
        level = logging.WARNING if isinstance(event, MemoryResolved) and event.pinned_omitted else logging.INFO
        logger.log(level, "%s %s", event.name, json.dumps(fields, sort_keys=True))

    def render(self) -> str:
        """The Prometheus text exposition format (version 0.0.4)."""
        lines: list[str] = []
        with self._lock:
            for name, help_text in _HELP.items():
                lines += [f"# HELP {name} {help_text}", f"# TYPE {name} counter"]
                if name in self._by_kind:
                    lines += [f'{name}{{scope_kind="{k}"}} {v}' for k, v in sorted(self._by_kind[name].items())]
                else:
                    lines.append(f"{name} {self._totals[name]}")
        return "\n".join(lines) + "\n"
