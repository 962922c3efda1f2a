"""Where memory sits in the system prompt, and the remember tool in the model vendors' formats.

Five things write the system block, in a fixed order, most durable first: the agent's base prompt
(the same for everyone), each contributor's section, memory (the same for this person, every turn),
the retrieval block (this question only), and the skills catalog (a menu, so a reader meets
instructions before options). Stable text first keeps the provider's prompt cache warm.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from store.domain.remember import DEFAULT_MAX_FACT_CHARS, remember_tool

__all__ = ("anthropic_remember_tool", "compose_system_prompt", "openai_remember_tool")


def compose_system_prompt(
    base: str,
    contributions: Sequence[str] = (),
    memory: str = "",
    retrieval: str = "",
    skills_catalog: str = "",
) -> str:
    """The system block: the non-empty parts in the fixed order, separated by blank lines."""
    parts = [base, *contributions, memory, retrieval, skills_catalog]
    return "\n\n".join(part.strip("\n") for part in parts if part.strip())


def openai_remember_tool(max_fact_chars: int = DEFAULT_MAX_FACT_CHARS) -> dict[str, Any]:
    """`remember` as an OpenAI function tool."""
    tool = remember_tool(max_fact_chars)
    return {
        "type": "function",
        "function": {"name": tool["name"], "description": tool["description"], "parameters": tool["parameters"]},
    }


def anthropic_remember_tool(max_fact_chars: int = DEFAULT_MAX_FACT_CHARS) -> dict[str, Any]:
    """`remember` as an Anthropic tool."""
    tool = remember_tool(max_fact_chars)
    return {"name": tool["name"], "description": tool["description"], "input_schema": tool["parameters"]}
