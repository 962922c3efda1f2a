"""A long turn, as the agent runtime sends it: a pasted document of up to 100,000 characters. It is
answered like any turn, its memories ranked, and the server goes on serving others meanwhile."""

from __future__ import annotations

import asyncio
import random

import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from tests.web.admin_builders import shared
from tests.web.conftest import AGENT_TOKEN
from web.services import Services
from web.settings import Settings

AUTH = {"Authorization": f"Bearer {AGENT_TOKEN}"}
ADA = {"id": "ada", "tenantRef": "berlin"}


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return settings.replace(max_memories=2)


def pasted(length: int) -> str:
    """A document of made-up words, the densest text there is for the model: every word its own pieces."""
    chooser = random.Random(5)
    words = (
        "".join(chooser.choice("bcdfghjklmnpqrstvwxz") + chooser.choice("aeiou") for _ in range(4))
        for _ in range(length // 9 + 1)
    )
    return " ".join(words)[:length]


async def test_a_turn_of_100000_characters_is_answered_and_others_are_served_meanwhile(
    client: AsyncTestClient[Litestar], services: Services
) -> None:
    await services.provider.add(
        [
            shared("drink", "prefers tea over coffee", "actor:ada", by="ada"),
            shared("fiscal-year", "the fiscal year starts in October", "actor:ada", by="ada"),
            shared("units", "they report distances in kilometres", "actor:ada", by="ada"),
        ]
    )
    text = "How far is it from the depot? " + pasted(100_000 - 30)
    assert len(text) == 100_000

    long, *short = await asyncio.gather(
        client.post("/agent/runs/run_long/digest", json={"actor": ADA, "text": text}, headers=AUTH),
        *(
            client.post(f"/agent/runs/run_{n}/digest", json={"actor": ADA, "text": "how far?"}, headers=AUTH)
            for n in range(3)
        ),
    )

    assert long.status_code == 200, long.text
    assert (long.json()["recalled"], long.json()["omitted"], len(long.json()["entries"])) == (True, 1, 2)
    assert [answer.status_code for answer in short] == [200, 200, 200]
