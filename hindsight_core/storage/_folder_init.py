"""Creating an embedded store folder so that a kill at any moment leaves a folder that opens.

Chroma creates ``chroma.sqlite3`` and migrates it in many steps; a process killed in between used
to leave a database that later refused to open. Here a new store's database is built in a private
folder inside the store folder (``.hindsight-init-*``) and moved into place with one atomic
rename, so ``chroma.sqlite3`` is either absent or complete. A half-created database left by an
earlier version (only Chroma's tables, no bank in it) is moved aside and built again; stale
``.hindsight-init-*`` folders of killed processes are removed. Callers hold the folder lock.

Read-only folders (or ``read_only=True``) are opened from a private copy, so Chroma's start-up
writes never touch the original; writes then raise a :class:`StorageError` that says so.

:func:`prepare_folder` opens ``chroma.sqlite3`` with Python's SQLite, so it runs only before
Chroma (whose Rust core links another SQLite) has the file open in this process: two SQLite
libraries on one file in one process defeat each other's locks.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import tempfile
import time
import uuid

from hindsight_core.errors import StorageError

__all__ = ["prepare_folder", "is_read_only", "read_only_copy", "DB_NAME"]

DB_NAME = "chroma.sqlite3"
_INIT_PREFIX = ".hindsight-init-"
_REQUIRED = {"collections", "embeddings_queue", "migrations"}


def _chroma_table(name: str) -> bool:
    return name.startswith(("embedding", "sqlite_")) or name in {
        "migrations", "acquire_write", "collection_metadata", "segment_metadata", "tenants", "databases",
        "collections", "maintenance_log", "segments", "max_seq_id"}


def _tables(db: str) -> tuple[set[str], int]:
    """Table names of ``db`` and how many collections it holds (-1: no collections table)."""
    con = sqlite3.connect(db)  # read-write only so SQLite can roll back a killed writer's journal
    try:
        con.execute("pragma query_only = 1")
        tables = {row[0] for row in con.execute("select name from sqlite_master where type='table'")}
        count = con.execute("select count(*) from collections").fetchone()[0] if "collections" in tables else -1
        return tables, count
    finally:
        con.close()


def _build_new(path: str) -> None:
    """Create a complete, empty Chroma database in a private folder, then rename it into place."""
    import chromadb
    from chromadb.config import Settings

    work = os.path.join(path, f"{_INIT_PREFIX}{uuid.uuid4().hex}")
    os.makedirs(work)
    client = chromadb.PersistentClient(path=work, settings=Settings(anonymized_telemetry=False))
    try:
        client.list_collections(limit=1)  # every migration applied
    finally:
        client.close()
    os.replace(os.path.join(work, DB_NAME), os.path.join(path, DB_NAME))  # atomic: absent or complete
    shutil.rmtree(work, ignore_errors=True)


def prepare_folder(path: str) -> None:
    """Make ``path`` hold a complete Chroma database (creating or repairing it), or raise.

    Raises:
        StorageError: ``chroma.sqlite3`` is not an SQLite database, or belongs to another program.
    """
    for name in os.listdir(path):
        if name.startswith(_INIT_PREFIX):  # a creation killed half-way
            shutil.rmtree(os.path.join(path, name), ignore_errors=True)
    db = os.path.join(path, DB_NAME)
    if os.path.isfile(db) and os.path.getsize(db) > 0:
        try:
            tables, collections = _tables(db)
        except sqlite3.Error as exc:
            raise StorageError(
                f"could not open a Chroma store at {path!r}: {db} is not a readable SQLite database ({exc}). "
                "Point `path` to a new folder to start fresh, or restore the folder from a backup."
            ) from None
        if tables and not all(_chroma_table(t) for t in tables):
            raise StorageError(
                f"could not open a Chroma store at {path!r}: {db} is an SQLite database of another program "
                f"(tables {sorted(tables)[:5]}), left untouched. Point `path` to a new folder to start fresh."
            )
        if _REQUIRED <= tables or collections > 0:
            return  # complete (or holding banks: Chroma finishes any migration itself)
        aside = f"{db}.half-created-{int(time.time())}"
        os.replace(db, aside)  # kept, not deleted: it holds no bank, but it is not ours to destroy
    elif os.path.isfile(db):
        os.remove(db)  # an empty file: a creation killed before its first page
    _build_new(path)


def is_read_only(path: str) -> bool:
    """Whether an existing store folder cannot be written by this process."""
    db = os.path.join(path, DB_NAME)
    return os.path.isfile(db) and not (os.access(path, os.W_OK) and os.access(db, os.W_OK))


def read_only_copy(path: str) -> str:
    """A private, writable copy of the store at ``path`` (removed by the caller on close)."""
    if not os.path.isfile(os.path.join(path, DB_NAME)):
        raise StorageError(f"could not open {path!r} read-only: it holds no Chroma store ({DB_NAME} is missing)")
    copy = tempfile.mkdtemp(prefix="hindsight-read-only-")
    try:
        shutil.copytree(path, copy, dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns(".hindsight.lock", f"{_INIT_PREFIX}*"))
    except OSError as exc:
        shutil.rmtree(copy, ignore_errors=True)
        raise StorageError(f"could not read the store at {path!r} to open it read-only: {exc}") from exc
    return copy
