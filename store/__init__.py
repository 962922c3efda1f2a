"""OnFile's memory: the rules (`store.domain`), the provider seam, and the turn-level operations."""

from store import diagnostics, domain, in_memory, memory, provider
from store.diagnostics import *
from store.domain import *
from store.domain import prompt
from store.domain.prompt import *
from store.in_memory import *
from store.memory import *
from store.provider import *

# Every name the parts publish, but for those that serve only store's own modules and the web layer. (A list,
# so that mypy reads what is removed; a name each, for the same reason.)
__all__ = []
__all__ += diagnostics.__all__
__all__ += domain.__all__
__all__ += prompt.__all__
__all__ += in_memory.__all__
__all__ += memory.__all__
__all__ += provider.__all__
__all__.remove("ForgetAllReach")
__all__.remove("RestoreVerdict")
__all__.remove("memory_restore_verdict")
__all__.remove("BulkForgettingProvider")
__all__.remove("lookalike_key_refusal")
__all__.remove("prepare_turn")
__all__.remove("prepare_write")
__all__.remove("related_keys")
__all__.remove("select_for_turn")
__all__.remove("PreparingMemoryProvider")
