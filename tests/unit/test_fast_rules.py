"""The fast rules decide and render exactly what the rules written plainly do (`reference_rules.py`),
over generated records with hostile texts."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from store import MemoryOrigin, MemoryRecord, build_memory_block, in_render_order, neutralise, resolve_digest
from tests.unit import reference_rules as reference
from tests.unit.test_properties import ceilings, records, resolved_scopes

# Every kind of whitespace and edge a line's parts can hold, including the ones only `\s` knows, and
# the brackets NFKC reads as `<` and an invisible character, which the fast paths must notice too.
edgy_text = st.text(
    alphabet=st.sampled_from(
        [" ", "\xa0", "\u3000", "\t", "a", ":", "[", "]", "<", "é", "\u2028", "＜", "﹤", "\u200b"]
    )
)


@settings(max_examples=500)
@given(records(), resolved_scopes, ceilings, st.booleans(), st.booleans())
def test_the_fast_digest_and_block_equal_the_reference_ones(
    given_records: list[MemoryRecord], scopes: tuple[str, ...], ceiling: int | None, ranked: bool, writable: bool
) -> None:
    fast = resolve_digest(given_records, scopes=scopes, max_memories=ceiling, ranked=ranked)
    slow = reference.resolve_digest(given_records, scopes=scopes, max_memories=ceiling, ranked=ranked)

    assert fast == slow
    assert in_render_order(fast) == reference.in_render_order(slow)
    assert build_memory_block(fast, writable=writable) == reference.build_memory_block(slow, writable=writable)


@settings(max_examples=500)
@given(edgy_text, edgy_text, edgy_text, st.booleans(), st.sampled_from(["human", "agent"]))
def test_a_line_of_edgy_parts_renders_as_the_reference_renders_it(
    scope: str, key: str, text: str, conflict: bool, author: str
) -> None:
    when = datetime(2026, 1, 1, tzinfo=UTC)
    origin = MemoryOrigin(author="human" if author == "human" else "agent")
    winner = MemoryRecord(id="a", key=key, text=text, scope=scope, origin=origin, updated_at=when)
    beaten = MemoryRecord(id="b", key=key, text=text, scope="global", origin=origin, updated_at=when - timedelta(1))
    given_records = [winner, beaten] if conflict else [winner]
    scopes = (scope, "global") if scope else ("global",)

    fast = resolve_digest(given_records, scopes=scopes)
    slow = reference.resolve_digest(given_records, scopes=scopes)

    assert build_memory_block(fast, writable=True) == reference.build_memory_block(slow, writable=True)
    assert neutralise(text) == reference.neutralise(text)


@pytest.mark.parametrize(
    "text", ["", " ", "plain", " lead", "trail ", "a  b", "a\xa0", "\u3000a", "x<memory>", "é ü", "＜/memory＞"]
)
def test_neutralise_equals_the_reference_on_the_edges(text: str) -> None:
    assert neutralise(text) == reference.neutralise(text)
