"""`onfile db reembed`: gives every memory a vector of the configured embedder, with a progress bar."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from store.persistence import DATABASE_URL_VARIABLE, SqlMemoryProvider, open_engine
from tests.integration.builders import make_record
from web.cli import main


class Tiny:
    """A deployment's own embedder: four dimensions, the same vector for everything."""

    name = "tiny"

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        return np.ones((len(texts), 4), dtype=np.float32)


def _stored_without_vectors(path: Path, count: int) -> None:
    async def store() -> None:
        engine = open_engine(f"sqlite+aiosqlite:///{path}")
        try:
            await SqlMemoryProvider(engine).add([make_record(f"k{n}", f"fact {n}", "actor:ada") for n in range(count)])
        finally:
            await engine.dispose()

    asyncio.run(store())


def _embedders(path: Path) -> list[tuple[str | None, int | None]]:
    with sqlite3.connect(path) as connection:
        return connection.execute("SELECT embedder, length(embedding) FROM agent_memory ORDER BY key").fetchall()


@pytest.fixture
def database(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "onfile.sqlite3"
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(DATABASE_URL_VARIABLE, f"sqlite+aiosqlite:///{path}")
    assert main(["db", "upgrade"]) == 0
    return path


def test_reembed_fills_every_missing_vector_and_draws_its_progress(
    database: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _stored_without_vectors(database, 300)
    capsys.readouterr()

    assert main(["db", "reembed"]) == 0

    out, err = capsys.readouterr()
    assert "300 memories have a new vector (use-multilingual)" in out
    assert "] 256/300 memories" in err
    assert err.endswith("] 300/300 memories\n")
    assert set(_embedders(database)) == {("use-multilingual-v3-512", 512)}


def test_reembed_again_has_nothing_to_do_unless_asked_to_rebuild_all(
    database: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _stored_without_vectors(database, 3)
    assert main(["db", "reembed"]) == 0
    capsys.readouterr()

    assert main(["db", "reembed"]) == 0
    assert "0 memories have a new vector" in capsys.readouterr().out
    monkeypatch.setenv("ONFILE_EMBEDDER", "tests.integration.test_cli_reembed:Tiny")
    assert main(["db", "reembed"]) == 0
    assert "3 memories have a new vector (tests.integration.test_cli_reembed:Tiny)" in capsys.readouterr().out
    assert set(_embedders(database)) == {("tiny", 4)}
    assert main(["db", "reembed", "--all"]) == 0
    assert "3 memories have a new vector" in capsys.readouterr().out


def test_reembed_with_no_embedder_says_so_and_changes_nothing(
    database: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _stored_without_vectors(database, 2)
    monkeypatch.setenv("ONFILE_EMBEDDER", "none")

    assert main(["db", "reembed"]) == 0

    assert "memories are found by their words only" in capsys.readouterr().out
    assert _embedders(database) == [(None, None), (None, None)]


def test_reembed_when_the_embedding_service_is_down_stops_with_one_line(
    database: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _stored_without_vectors(database, 2)
    monkeypatch.setenv("ONFILE_EMBEDDER", "http://127.0.0.1:9/v1/embeddings")  # discard port: nothing answers

    with pytest.raises(SystemExit) as stopped:
        main(["db", "reembed"])

    assert stopped.value.code == 1
    assert "onfile: reembedding stopped: the embedding service at http://127.0.0.1:9" in capsys.readouterr().err
    assert _embedders(database) == [(None, None), (None, None)]
