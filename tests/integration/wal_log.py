"""Looking at a SQLite database's write-ahead log from outside, without taking part in it."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.engine import make_url

_HEADER = 48
_FRAME_HEADER = 24
_LOG_HEADER = 32


@dataclass(frozen=True, slots=True)
class LogState:
    frames: int
    """Frames in the log since it last started over."""
    copied: int
    """How many of them a checkpoint has copied into the database file."""

    @property
    def behind(self) -> int:
        """What a checkpoint would still have to copy (what a commit pays should it checkpoint)."""
        return max(self.frames - self.copied, 0)


def database_path(database_url: str) -> Path:
    return Path(make_url(database_url).database or "")


def log_state(database: Path) -> LogState:
    """The log's state from its wal-index, the `-shm` file, read as a reader of another process would
    (https://www.sqlite.org/walformat.html: two copies of the 48-byte header, `mxFrame` at byte 16,
    then the checkpoint information, `nBackfill` at byte 96; native byte order). Unlike
    `PRAGMA wal_checkpoint`, reading it copies nothing. The two copies differ while a writer updates
    them: read again."""
    shm = Path(f"{database}-shm")
    for _ in range(1_000):
        data = shm.read_bytes()[: 2 * _HEADER + 8] if shm.exists() else b""
        if len(data) < 2 * _HEADER + 8:
            return LogState(0, 0)
        if data[:_HEADER] == data[_HEADER : 2 * _HEADER]:
            frames = struct.unpack_from("=I", data, 16)[0]
            copied = struct.unpack_from("=I", data, 2 * _HEADER)[0]
            return LogState(frames, copied)
    raise AssertionError("the wal-index header never read the same twice")


def log_file_frames(database: Path, page_size: int = 4096) -> int:
    """How many frames the `-wal` file has room for: its size only grows (a log that starts over is
    overwritten from the beginning), so this is the most the log ever held."""
    wal = Path(f"{database}-wal")
    size = wal.stat().st_size if wal.exists() else 0
    return max(size - _LOG_HEADER, 0) // (page_size + _FRAME_HEADER)
