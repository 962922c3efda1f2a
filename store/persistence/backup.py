"""A consistent copy of a SQLite database while OnFile keeps serving it (`onfile db backup`).

Copying the file itself is not a backup: in write-ahead-log mode the latest commits sit in the log
beside it (`-wal`) until a checkpoint moves them, so a plain copy misses them, and one taken during
a checkpoint may be torn. SQLite's online backup copies the database as one reader sees it, the log
included, in one pass under a read transaction: writers go on meanwhile and are not in the copy.

PostgreSQL has its own tools (`pg_dump`); OnFile does not wrap them.
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

__all__ = ("SIDE_FILE_SUFFIXES", "BackupMade", "TargetExistsError", "backup_sqlite")

SIDE_FILE_SUFFIXES = ("-wal", "-shm", "-journal")
"""What SQLite names the files it keeps beside a database: a backup never takes such a name, and never
goes where such files of its own name are already."""


class TargetExistsError(FileExistsError):
    """The backup's file is there already: a backup never overwrites one."""


@dataclass(frozen=True, slots=True)
class BackupMade:
    target: Path
    memories: int
    people: int
    size_bytes: int


def backup_sqlite(source: Path, target: Path) -> BackupMade:
    """Copy the SQLite database at `source` (which must exist) into a new file at `target`, checked
    whole (`PRAGMA quick_check`); what the copy holds. The target's folder must exist; a target that
    exists already is `TargetExistsError`, and a copy that fails leaves no file behind."""
    beside = [target.with_name(f"{target.name}{suffix}") for suffix in SIDE_FILE_SUFFIXES]
    for taken in (target, *beside):
        if taken.exists():
            msg = f"{taken} exists already: a backup never overwrites a file; name a new one"
            raise TargetExistsError(msg)
    try:
        with (
            closing(sqlite3.connect(f"{source.absolute().as_uri()}?mode=rw", uri=True, timeout=10)) as reader,
            closing(sqlite3.connect(target)) as copy,
        ):
            reader.backup(copy)
            checked = copy.execute("PRAGMA quick_check").fetchone()[0]
            if checked != "ok":
                msg = f"the copy at {target} did not check whole: {checked}"
                raise sqlite3.DatabaseError(msg)
            memories = copy.execute("SELECT count(*) FROM agent_memory").fetchone()[0]
            people = copy.execute("SELECT count(*) FROM known_person").fetchone()[0]
    except BaseException:
        for leftover in (target, *beside):
            leftover.unlink(missing_ok=True)
        raise
    return BackupMade(target, int(memories), int(people), target.stat().st_size)
