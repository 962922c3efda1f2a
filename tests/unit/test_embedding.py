"""The embedding seam: the default model offline, a service over HTTP, and ranking by stored vectors."""

from __future__ import annotations

import asyncio
import json
import threading

import httpx
import numpy as np
import pytest

from store.embedding import (
    INLINE_EMBED_CHARS_AT_MOST,
    VECTOR_DTYPE,
    EmbedderError,
    HttpEmbedder,
    UniversalSentenceEncoderEmbedder,
    embedding_text,
    nearest_keys,
    vector_bytes,
)


async def test_the_default_model_puts_a_question_nearest_the_memory_that_answers_it() -> None:
    embedder = UniversalSentenceEncoderEmbedder()
    memories = {
        "distance-units": "they report distances in kilometres",
        "fiscal-year": "the fiscal year starts in October",
        "drink": "prefers tea over coffee",
    }
    keys = list(memories)
    stored = vector_bytes(await embedder.embed([embedding_text(k, t) for k, t in memories.items()]))
    turn = (await embedder.embed(["how far is it to the depot?"]))[0]

    assert nearest_keys(turn, keys, stored, 3)[0] == "distance-units"
    assert embedder.name == "use-multilingual-v3-512"
    assert (await embedder.embed([])).shape == (0, 512)


def test_a_stored_vector_is_a_byte_per_dimension_its_largest_component_at_127() -> None:
    stored = vector_bytes(np.array([[3.0, -4.0], [0.0, 0.0]], dtype=np.float32))

    assert [np.frombuffer(b, dtype=VECTOR_DTYPE).tolist() for b in stored] == [[95, -127], [0, 0]]


def test_nearest_keys_rank_a_key_by_its_nearest_vector_and_skip_other_models_vectors() -> None:
    query = np.array([1.0, 0.0], dtype=np.float32)
    near, far, other = vector_bytes(np.array([[1.0, 0.1], [0.0, 1.0], [1.0, 0.0]], dtype=np.float32))
    foreign = np.zeros(3, dtype=VECTOR_DTYPE).tobytes()
    zero = np.zeros(2, dtype=VECTOR_DTYPE).tobytes()

    assert nearest_keys(query, ["b", "a", "b", "c"], [far, near, foreign, far], 5) == ["a", "b", "c"]
    assert nearest_keys(query, ["b", "a"], [far, near], 1) == ["a"]
    assert nearest_keys(query, ["b", "a"], [far, other], 2) == ["a", "b"]
    assert nearest_keys(query, ["z", "b"], [zero, far], 2) == ["z", "b"]  # equal scores keep the given order
    assert nearest_keys(query, ["a"], [foreign], 2) == []
    assert nearest_keys(query, [], [], 2) == []
    assert nearest_keys(query, ["a"], [near], 0) == []


def test_nearest_keys_look_past_the_first_rows_when_a_few_keys_hold_them_all() -> None:
    query = np.array([1.0, 0.0], dtype=np.float32)
    rows = np.array([[1.0, 0.01 * n] for n in range(12)] + [[0.0, 1.0]], dtype=np.float32)
    keys = ["a"] * 6 + ["b"] * 6 + ["c"]

    assert nearest_keys(query, keys, vector_bytes(rows), 3) == ["a", "b", "c"]


def test_nearest_keys_agree_with_exact_cosine_on_the_best_of_many() -> None:
    generator = np.random.default_rng(3)
    rows = generator.standard_normal((3_000, 256)).astype(np.float32)
    query = generator.standard_normal(256).astype(np.float32)
    exact = np.argsort(-(rows @ query / np.linalg.norm(rows, axis=1)))[:50]

    found = nearest_keys(query, [f"k{n}" for n in range(3_000)], vector_bytes(rows), 50)

    assert len(set(found) & {f"k{n}" for n in exact}) >= 45


def test_a_memory_is_embedded_as_its_keys_words_then_its_fact() -> None:
    assert embedding_text("fiscal-year_start", "October") == "fiscal year start: October"


def _service(answer: httpx.Response | None = None) -> tuple[HttpEmbedder, list[dict[str, object]]]:
    seen: list[dict[str, object]] = []

    def handle(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        seen.append(body)
        if answer is not None:
            return answer
        return httpx.Response(200, json={"data": [{"embedding": [float(len(t)), 1.0]} for t in body["input"]]})

    url = "http://embeddings.test/v1/embeddings"
    return HttpEmbedder(url, model="small", transport=httpx.MockTransport(handle)), seen


async def test_an_embedding_service_is_asked_for_every_text_in_order() -> None:
    embedder, seen = _service()

    vectors = await embedder.embed(["ab", "abcd"])

    assert vectors.tolist() == [[2.0, 1.0], [4.0, 1.0]]
    assert seen == [{"input": ["ab", "abcd"], "model": "small"}]
    assert embedder.name == "http:http://embeddings.test/v1/embeddings#small"
    await embedder.close()


@pytest.mark.parametrize(
    "answer",
    [
        httpx.Response(503, text="down"),
        httpx.Response(200, text="not json"),
        httpx.Response(200, json={"vectors": []}),
        httpx.Response(200, json={"data": [{"embedding": [1.0]}]}),
    ],
)
async def test_an_embedding_service_that_fails_or_answers_wrongly_raises_embedder_error(
    answer: httpx.Response,
) -> None:
    embedder, _ = _service(answer)

    with pytest.raises(EmbedderError, match="embedding service"):
        await embedder.embed(["one", "two"])
    await embedder.close()


async def test_the_default_model_finds_the_memory_in_another_language_than_the_turn() -> None:
    embedder = UniversalSentenceEncoderEmbedder()
    memories = {
        "distance-units": "ils mesurent les distances en kilomètres",
        "fiscal-year": "das Geschäftsjahr beginnt im Oktober",
        "drink": "prefers tea over coffee",
    }
    stored = vector_bytes(await embedder.embed([embedding_text(k, t) for k, t in memories.items()]))
    turn = (await embedder.embed(["when does our accounting year begin?"]))[0]

    assert nearest_keys(turn, list(memories), stored, 3)[0] == "fiscal-year"


def test_an_embedding_services_name_never_carries_its_credentials() -> None:
    embedder = HttpEmbedder("https://user:secret@embed.example:8443/v1/embeddings", model="m")

    assert embedder.name == "http:https://embed.example:8443/v1/embeddings#m"


class _Watched:
    """A stand-in for the default model: notes which thread encodes, and for a long text waits until
    the event loop has run something else, which it can only do if the encoding is not on its thread."""

    def __init__(self, loop_ran: threading.Event) -> None:
        self.loop_ran = loop_ran
        self.threads: list[int] = []

    def encode(self, texts: list[str]) -> np.ndarray:
        self.threads.append(threading.get_ident())
        if sum(map(len, texts)) > INLINE_EMBED_CHARS_AT_MOST:
            assert self.loop_ran.wait(timeout=10), "the event loop did not run while a long text was embedded"
        return np.ones((len(texts), 512), dtype=np.float32)


async def test_the_default_model_embeds_a_short_text_inline_and_a_long_one_while_the_loop_goes_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    loop_ran = threading.Event()
    watched = _Watched(loop_ran)
    monkeypatch.setattr(UniversalSentenceEncoderEmbedder, "_model", watched)
    embedder = UniversalSentenceEncoderEmbedder()

    async def meanwhile() -> None:
        await asyncio.sleep(0)
        loop_ran.set()

    await embedder.embed(["x" * INLINE_EMBED_CHARS_AT_MOST])
    vectors, _ = await asyncio.gather(embedder.embed(["x" * (INLINE_EMBED_CHARS_AT_MOST + 1)]), meanwhile())

    assert vectors.shape == (1, 512)
    assert watched.threads[0] == threading.get_ident()
    assert watched.threads[1] != threading.get_ident()
