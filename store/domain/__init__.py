"""The rules of memory, pure: data in, decisions with reasons out. No I/O, no clock, no framework."""

from store.domain.authority import (
    ForgetAllReach,
    RestoreVerdict,
    Verdict,
    forget_all_reach,
    memory_forget_verdict,
    memory_restore_verdict,
    memory_write_verdict,
)
from store.domain.block import build_memory_block, in_render_order, neutralise
from store.domain.precedence import DEFAULT_MAX_MEMORIES, resolve_digest, resolve_shortlist
from store.domain.remember import (
    DEFAULT_MAX_FACT_CHARS,
    DIRECTION_CONTROLS,
    MAX_KEY_CHARS,
    REMEMBER_TOOL,
    MemoryInput,
    check_memory_input,
    remember_tool,
)
from store.domain.scopes import (
    GLOBAL_SCOPE,
    DefaultScopeResolver,
    ScopeResolver,
    normalise_scopes,
    own_scope,
    scope_kind,
)
from store.domain.types import (
    Actor,
    Author,
    DigestEntry,
    MemoryDigest,
    MemoryOrigin,
    MemoryRecord,
    Override,
    ScopeContext,
    Shortlist,
)

__all__ = (
    "DEFAULT_MAX_FACT_CHARS",
    "DEFAULT_MAX_MEMORIES",
    "DIRECTION_CONTROLS",
    "GLOBAL_SCOPE",
    "MAX_KEY_CHARS",
    "REMEMBER_TOOL",
    "Actor",
    "Author",
    "DefaultScopeResolver",
    "DigestEntry",
    "ForgetAllReach",
    "MemoryDigest",
    "MemoryInput",
    "MemoryOrigin",
    "MemoryRecord",
    "Override",
    "RestoreVerdict",
    "ScopeContext",
    "ScopeResolver",
    "Shortlist",
    "Verdict",
    "build_memory_block",
    "check_memory_input",
    "forget_all_reach",
    "in_render_order",
    "memory_forget_verdict",
    "memory_restore_verdict",
    "memory_write_verdict",
    "neutralise",
    "normalise_scopes",
    "own_scope",
    "remember_tool",
    "resolve_digest",
    "resolve_shortlist",
    "scope_kind",
)
