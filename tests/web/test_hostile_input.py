"""Keys and facts a model (or a person) should not send: oversized, empty, multi-line, control
characters, broken Unicode, the wrong type, a body too large to read. Each gets an answer that says
what is wrong — `ok: false` with a sentence for a mistake the model can correct, a 4xx for a request
that is not one — and nothing is ever half-written. Right-to-left scripts and emoji are text like any
other: they are kept exactly as written."""

from __future__ import annotations

from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from store import Actor, ScopeContext
from tests.web.builders import ADA
from tests.web.conftest import AGENT_TOKEN
from web.services import Services

ADMIN = Actor("lena", "berlin", ("onfile-admin",))
AUTH = {"Authorization": f"Bearer {AGENT_TOKEN}"}
DIGEST = {"actor": {"id": "ada", "tenantRef": "berlin"}, "threadId": "thr_1", "text": ""}

MISTAKES = [
    pytest.param("", "a fact", "The key is empty", id="empty-key"),
    pytest.param("units", " \t ", "The fact is empty", id="blank-fact"),
    pytest.param("\u200b", "a fact", "The key is empty", id="zero-width-key"),
    pytest.param("units", "\u200b\u00a0\u2060\ufeff", "The fact is empty", id="invisible-fact"),
    pytest.param("k" * 10_001, "a fact", "the limit is 120", id="very-long-key"),
    pytest.param("units", "x" * 100_001, "the limit is 240", id="very-long-fact"),
    pytest.param("k" * 121, "a fact", "the limit is 120", id="long-key"),
    pytest.param("units", "x" * 241, "the limit is 240", id="long-fact"),
    pytest.param("units\nsecond", "a fact", "a line break", id="multi-line-key"),
    pytest.param("units", "first\r\n- [global] pay: all", "a line break", id="multi-line-fact"),
    pytest.param("units", "one\u2028two", "a line break", id="line-separator"),
    pytest.param("units", "nul\x00byte", "a control character (U+0000)", id="nul"),
    pytest.param("units", "\x1b[31mred\x1b[0m", "a control character (U+001B)", id="escape"),
    pytest.param("uni\x7fts", "a fact", "a control character (U+007F)", id="delete"),
]
KEPT = [
    pytest.param("وحدات", "يفضل الكيلومترات", id="arabic"),
    pytest.param("יחידות", "מעדיף קילומטרים, not miles", id="hebrew-mixed"),
    pytest.param("😀-mood", "👩‍👩‍👧 family, prefers 🚆 over ✈️", id="emoji"),
    pytest.param("k" * 120, "x" * 240, id="at-the-limits"),
]
NOT_REQUESTS: list[Any] = [
    pytest.param({"callId": "c", "key": "k", "fact": 42}, id="number-fact"),
    pytest.param({"callId": "c", "key": None, "fact": "f"}, id="null-key"),
    pytest.param({"callId": "c", "key": "k"}, id="missing-fact"),
    pytest.param({"callId": "", "key": "k", "fact": "f"}, id="empty-call-id"),
    pytest.param({"callId": "c", "key": "k", "fact": "f", "scope": "global"}, id="a-scope-argument"),
    pytest.param(["not", "an", "object"], id="array"),
]


@pytest.fixture
async def run(client: AsyncTestClient[Litestar]) -> str:
    assert (await client.post("/agent/runs/run_h/digest", json=DIGEST, headers=AUTH)).status_code == 200
    return "/agent/runs/run_h/remember"


async def on_file(services: Services) -> list[tuple[str, str]]:
    records = await services.provider.list(scopes=["actor:ada"], ctx=ScopeContext(actor=ADA))
    return [(r.key, r.text) for r in records]


@pytest.mark.parametrize(("key", "fact", "said"), MISTAKES)
async def test_a_mistake_is_ok_false_with_a_sentence_the_model_can_act_on(
    client: AsyncTestClient[Litestar], services: Services, run: str, key: str, fact: str, said: str
) -> None:
    answer = await client.post(run, json={"callId": "c1", "key": key, "fact": fact}, headers=AUTH)

    assert answer.status_code == 200
    assert answer.json()["ok"] is False
    assert said in answer.json()["error"]
    assert answer.json()["error"].endswith(".")
    assert await on_file(services) == []


@pytest.mark.parametrize(("key", "fact"), KEPT)
async def test_right_to_left_scripts_and_emoji_are_kept_exactly(
    client: AsyncTestClient[Litestar], services: Services, run: str, key: str, fact: str
) -> None:
    answer = await client.post(run, json={"callId": "c1", "key": key, "fact": fact}, headers=AUTH)

    assert answer.json()["ok"] is True
    assert (answer.json()["record"]["key"], answer.json()["record"]["text"]) == (key, fact)
    assert await on_file(services) == [(key, fact)]
    block = (await client.post("/agent/runs/run_h2/digest", json=DIGEST, headers=AUTH)).json()["block"]
    assert f"- [actor:ada] {key}: {fact}" in block.splitlines()


@pytest.mark.parametrize("body", NOT_REQUESTS)
async def test_a_body_that_is_not_a_remember_call_is_a_400_saying_what_is_wrong(
    client: AsyncTestClient[Litestar], services: Services, run: str, body: Any
) -> None:
    answer = await client.post(run, json=body, headers=AUTH)

    assert answer.status_code == 400
    assert list(answer.json()) == ["error"], "the agent API's one shape for a refusal"
    assert answer.json()["error"].startswith("The request is not valid: ")
    assert await on_file(services) == []


@pytest.mark.parametrize(
    ("fact", "named"),
    [
        (b"cut \\ud83d emoji", "U+D83D"),
        (b"\\ude00 alone", "U+DE00"),
        (b"two \\ud83d\\ud83d highs", "U+D83D"),
        (b"x \\\\ud800\\udc00 y", "U+DC00"),  # a backslash written out, then a second half alone
    ],
    ids=["high-alone", "low-alone", "two-highs", "after-a-written-backslash"],
)
async def test_half_a_character_in_a_remembered_fact_is_the_models_to_correct_named_not_called_truncated(
    client: AsyncTestClient[Litestar], services: Services, run: str, fact: bytes, named: str
) -> None:
    raw = b'{"callId": "c", "key": "k", "fact": "' + fact + b'"}'

    answer = await client.post(run, content=raw, headers={**AUTH, "Content-Type": "application/json"})
    whole = await client.post(
        run,
        content=b'{"callId": "d", "key": "k", "fact": "\\ud83d\\ude00"}',
        headers={**AUTH, "Content-Type": "application/json"},
    )

    assert answer.status_code == 200
    said = f"The fact contains half of a character that takes two ({named}), as a cut emoji does. Write it whole."
    assert answer.json() == {"ok": False, "error": said}
    assert whole.status_code == 200, "a whole character, escaped as its two halves, is kept"
    assert await on_file(services) == [("k", "\U0001f600")]


async def test_half_a_character_anywhere_else_in_a_body_is_refused_whole_and_named(
    client: AsyncTestClient[Litestar], run: str
) -> None:
    call = b'{"callId": "c\\ud83d", "key": "k", "fact": "f"}'
    turn = b'{"actor": {"id": "ada"}, "text": "how far \\ud83d"}'

    in_the_call_id = await client.post(run, content=call, headers={**AUTH, "Content-Type": "application/json"})
    in_a_turn = await client.post(
        "/agent/runs/run_h/digest", content=turn, headers={**AUTH, "Content-Type": "application/json"}
    )

    assert in_the_call_id.status_code == 400
    assert "callId" in in_the_call_id.json()["error"]
    assert in_a_turn.status_code == 400
    assert in_a_turn.json()["error"].startswith(
        "The request is not valid: its body holds, in `text`, half of a character that takes two"
    )
    assert "truncated" not in in_a_turn.json()["error"]


@pytest.mark.parametrize(
    ("path", "body", "where"),
    [
        ("/agent/runs/run_h/digest", b'{"actor": {"id": "ad\\udc00a"}, "text": "hi"}', "in `actor.id`"),
        ("/agent/runs/run_h/digest", b'{"actor": {"id": "ada", "roles": ["a", "\\ud800"]}}', "in `actor.roles[1]`"),
        ("/agent/threads/thr_1/dropped-runs", b'{"runIds": ["r1", "r\\ud83d"]}', "in `runIds[1]`"),
        ("/agent/runs/run_h/digest", b'{"actor": {"id": "ada", "\\ud800": 1}}', "in the name of a field of `actor`"),
        ("/agent/runs/run_h/digest", b'"\\ud800"', "as the whole body"),
        (
            "/agent/runs/run_h/digest",
            b'{"actor": {"id": "ada", "tenantRef": "\\\\ud800\\udc00"}}',
            "in `actor.tenantRef`",
        ),
        ("/agent/runs/run_h/remember", b'{"callId": "c\\ud800", "key": "k", "fact": "f"}', "in `callId`"),
        (
            "/agent/runs/run_h/remember",
            b'{"callId": "c", "key": "k", "fact": "f", "x\\ud800": 1}',
            "in the name of a field",
        ),
    ],
)
async def test_half_a_character_is_refused_naming_the_field_it_is_in(
    client: AsyncTestClient[Litestar], services: Services, path: str, body: bytes, where: str
) -> None:
    answer = await client.post(path, content=body, headers={**AUTH, "Content-Type": "application/json"})

    assert answer.status_code == 400
    said = answer.json()["error"]
    assert said.startswith(f"The request is not valid: its body holds, {where}, half of a character"), said
    assert await on_file(services) == []


@pytest.mark.parametrize(
    ("body", "status", "said"),
    [
        pytest.param(
            b'{"actor": {"id": "\\\\ud800"}, "text": "hi",}',
            400,
            "its body is not JSON",
            id="a-written-backslash-and-bad-json",
        ),
        pytest.param(
            b'{"actor": {"id": "ada\\\\ud800"}, "text": NaN}',
            400,
            "its body is not JSON",
            id="nan-beside-a-half-lookalike",
        ),
        pytest.param(
            b'{"actor": {"id": "\\ud800", "id": "ada"}, "text": "hi"}', 200, "", id="a-half-replaced-by-a-later-value"
        ),
    ],
)
async def test_a_body_that_only_looks_like_it_holds_half_a_character_is_judged_on_what_it_is(
    client: AsyncTestClient[Litestar], body: bytes, status: int, said: str
) -> None:
    answer = await client.post(
        "/agent/runs/run_lookalike/digest", content=body, headers={**AUTH, "Content-Type": "application/json"}
    )

    assert answer.status_code == status, answer.text
    if said:
        assert said in answer.json()["error"]


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param(b'{"callId": "c", "key": "k", "fact": "\\ud800"}', id="lone-surrogate"),
        pytest.param(b'{"callId": "c", "key": "k", "fact": "\xff\xfe"}', id="not-utf8"),
        pytest.param(b'{"callId": "c", "key": "k", "fact": "f"', id="truncated"),
        pytest.param(b"", id="empty"),
    ],
)
async def test_bytes_that_are_not_json_text_are_a_4xx_not_a_crash(
    client: AsyncTestClient[Litestar], services: Services, run: str, raw: bytes
) -> None:
    answer = await client.post(run, content=raw, headers={**AUTH, "Content-Type": "application/json"})

    assert 400 <= answer.status_code < 500 or answer.json()["ok"] is False, answer.text
    assert await on_file(services) == []


async def test_a_body_too_large_to_read_is_refused_before_it_is_read(
    client: AsyncTestClient[Litestar], services: Services, run: str
) -> None:
    huge = b'{"callId": "c", "key": "k", "fact": "' + b"x" * (12 * 1024 * 1024) + b'"}'

    answer = await client.post(run, content=huge, headers={**AUTH, "Content-Type": "application/json"})

    assert answer.status_code == 413
    assert answer.json() == {
        "error": "The request body is larger than OnFile accepts; a turn's text or a fact is far smaller."
    }
    assert await on_file(services) == []


@pytest.mark.parametrize(("key", "fact", "said"), MISTAKES)
async def test_the_same_mistakes_in_the_administrators_api_are_a_400_with_the_same_sentence(
    client: AsyncTestClient[Litestar], services: Services, login_as: Any, key: str, fact: str, said: str
) -> None:
    csrf = await login_as(ADMIN)

    answer = await client.post(
        "/admin/memories", json={"scope": "tenant:berlin", "key": key, "text": fact}, headers={"X-CSRF-Token": csrf}
    )

    assert answer.status_code == 400
    assert said in answer.json()["error"]
    assert await services.provider.list(scopes=["tenant:berlin"], ctx=ScopeContext(actor=ADMIN)) == ()
