"""Search by word in scripts written without spaces, on the reference provider and both databases."""

from __future__ import annotations

import pytest

from store.domain.scopes import GLOBAL_SCOPE
from tests.integration.builders import ADA, Provider, ctx, keys_in_order, make_record, scopes_of, seed

ADA_SCOPES = scopes_of(ADA)

STORED = [
    make_record("units-zh", "他们用公里报告距离", GLOBAL_SCOPE),
    make_record("depot-zh", "我们的仓库在柏林", "tenant:berlin"),
    make_record("label-ja", "日本語のラベルは倉庫の入口にあります", GLOBAL_SCOPE),
    make_record("hours-ja", "東京の倉庫は六時に開きます", "actor:ada"),
    make_record("units-th", "รายงานระยะทางเป็นกิโลเมตร", GLOBAL_SCOPE),
    make_record("hours-th", "คลังสินค้าเปิดหกโมงเช้า", "tenant:berlin"),
    make_record("units", "report distances in kilometres", GLOBAL_SCOPE),
]


async def _search(provider: Provider, query: str) -> list[str]:
    found = await provider.search(scopes=ADA_SCOPES, query=query, limit=5, ctx=ctx())
    return keys_in_order(found)


@pytest.mark.parametrize(
    ("turn", "keys"),
    [
        pytest.param("距离是多少？", ["units-zh"], id="chinese"),
        pytest.param("柏林在哪里", ["depot-zh"], id="chinese-other-record"),
        pytest.param("ラベルはどこですか", ["label-ja", "hours-ja"], id="japanese-katakana-and-particle"),
        pytest.param("東京", ["hours-ja"], id="japanese-kanji"),
        pytest.param("ระยะทางเท่าไร", ["units-th"], id="thai"),
        pytest.param("คลังสินค้าเปิดกี่โมง", ["hours-th"], id="thai-other-record"),
    ],
)
async def test_a_memory_written_without_spaces_is_found_by_a_turn_holding_one_of_its_words(
    provider: Provider, turn: str, keys: list[str]
) -> None:
    await seed(provider, STORED)

    assert await _search(provider, turn) == keys


async def test_a_word_shared_by_memories_in_two_scripts_finds_both_and_nothing_else(provider: Provider) -> None:
    await seed(provider, STORED)

    found = await _search(provider, "倉庫")

    assert sorted(found) == ["hours-ja", "label-ja"]


async def test_a_turn_mixing_scripts_finds_a_memory_by_each_of_its_words(provider: Provider) -> None:
    await seed(provider, STORED)

    found = await _search(provider, "distances用公里?")

    assert sorted(found) == ["units", "units-zh"]


async def test_a_rewritten_chinese_memory_is_found_by_its_new_words_only(provider: Provider) -> None:
    origin = make_record("x", "x", GLOBAL_SCOPE).origin
    await provider.write(key="depot", text="我们的仓库在柏林", scope="actor:ada", origin=origin, ctx=ctx())
    await provider.write(key="depot", text="我们的仓库在汉堡", scope="actor:ada", origin=origin, ctx=ctx())

    assert await _search(provider, "汉堡") == ["depot"]
    assert await _search(provider, "柏林") == []
