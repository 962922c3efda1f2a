"""The system prompt's fixed order, and the remember tool in vendor formats."""

from __future__ import annotations

from store.domain.prompt import anthropic_remember_tool, compose_system_prompt, openai_remember_tool


def test_the_parts_come_in_the_fixed_order_most_durable_first() -> None:
    prompt = compose_system_prompt(
        "BASE", ["CONTRIB 1", "CONTRIB 2"], memory="<memory>\nM\n</memory>", retrieval="RAG", skills_catalog="SKILLS"
    )

    assert prompt == "BASE\n\nCONTRIB 1\n\nCONTRIB 2\n\n<memory>\nM\n</memory>\n\nRAG\n\nSKILLS"


def test_empty_parts_leave_no_gaps() -> None:
    assert compose_system_prompt("BASE", ["", "  "], memory="", retrieval="RAG\n") == "BASE\n\nRAG"


def test_no_memory_reads_exactly_as_a_prompt_that_never_had_the_option() -> None:
    assert compose_system_prompt("BASE", ["C"], skills_catalog="S") == compose_system_prompt("BASE", ["C"], "", "", "S")


def test_the_openai_and_anthropic_tools_carry_the_same_schema() -> None:
    openai = openai_remember_tool(100)
    anthropic = anthropic_remember_tool(100)

    assert openai["type"] == "function"
    assert openai["function"]["name"] == anthropic["name"] == "remember"
    assert openai["function"]["parameters"] == anthropic["input_schema"]
    assert anthropic["input_schema"]["properties"]["fact"]["maxLength"] == 100
    assert set(anthropic["input_schema"]["properties"]) == {"key", "fact"}
