"""Secure delete for an embedded store folder: deleted text leaves every file of the folder.

Chroma deletes rows, but SQLite keeps a deleted row's bytes in free pages and in the slack of
pages still in use, and Chroma's write log (the ``embeddings_queue`` table) keeps the original
write of a deleted unit (its text and metadata) until it is purged. After a delete this module:

1. removes from the write log the writes of deleted units that a later delete already cancels
   (the delete entries stay: they carry only the id, and a restart replays them into the vector
   index), and the entries of collections that no longer exist;
2. merges the full-text index (an FTS5 ``optimize``), which drops the deleted rows' terms;
3. rewrites the database file with ``VACUUM`` (``secure_delete`` on, so freed pages are zeroed),
   which leaves no free page and no slack holding old bytes;
4. removes the vector-segment folders of dropped collections (Chroma leaves them behind).

The cost is a rewrite of ``chroma.sqlite3`` per delete call (about the time to copy the file).
A Chroma server's folder is the server's: this runs for embedded folders only.

It runs in a child process (:func:`scrub_in_child`): Chroma's Rust core links its own SQLite, and
two SQLite libraries in one process on one file defeat each other's POSIX locks (closing one
connection drops the other's locks), so the wipe never opens ``chroma.sqlite3`` in-process.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import sqlite3
import subprocess
import sys
import uuid
from typing import Iterable

__all__ = ["scrub_folder", "scrub_in_child"]

log = logging.getLogger("hindsight.storage")

_DB = "chroma.sqlite3"
_BUSY_TIMEOUT_S = 30.0  # Chroma's own connection may be mid-write
_DELETE = 3  # Chroma's operation code for a delete in embeddings_queue
_CHUNK = 500  # ids per SQL statement (under SQLite's variable limit)
_CHILD_TIMEOUT_S = 600.0  # a VACUUM of a very large store takes a while


def _is_uuid(name: str) -> bool:
    try:
        uuid.UUID(name)
        return True
    except ValueError:
        return False


def scrub_folder(path: str, deleted_ids: Iterable[str] = ()) -> None:
    """Make deleted units' bytes unreadable from the files of the store at ``path``.

    Raises:
        sqlite3.Error | OSError: the database could not be rewritten (e.g. no room for VACUUM's
            copy); the delete itself has already happened.
    """
    db = os.path.join(path, _DB)
    if not os.path.isfile(db):
        return
    ids = list(dict.fromkeys(deleted_ids))
    con = sqlite3.connect(db, timeout=_BUSY_TIMEOUT_S, isolation_level=None)
    try:
        con.execute("pragma secure_delete = on")
        tables = {r[0] for r in con.execute("select name from sqlite_master where type in ('table')")}
        con.execute("begin immediate")
        try:
            if "embeddings_queue" in tables:
                for start in range(0, len(ids), _CHUNK):
                    chunk = ids[start:start + _CHUNK]
                    marks = ",".join("?" * len(chunk))
                    con.execute(
                        f"delete from embeddings_queue where operation != {_DELETE} and id in ({marks}) and seq_id < "
                        f"(select max(d.seq_id) from embeddings_queue d where d.id = embeddings_queue.id "
                        f"and d.topic = embeddings_queue.topic and d.operation = {_DELETE})", chunk)
                if "collections" in tables:  # the log of collections that were dropped
                    con.execute("delete from embeddings_queue where substr(topic, -36) not in (select id from collections)")
            con.execute("commit")
        except BaseException:
            con.execute("rollback")
            raise
        if "embedding_fulltext_search" in tables:
            con.execute("insert into embedding_fulltext_search(embedding_fulltext_search) values('optimize')")
        con.execute("vacuum")
        segments = {r[0] for r in con.execute("select id from segments")} if "segments" in tables else None
    finally:
        con.close()
    if segments is None:
        return
    for name in os.listdir(path):
        full = os.path.join(path, name)
        if _is_uuid(name) and name not in segments and os.path.isdir(full):
            shutil.rmtree(full, ignore_errors=True)  # a dropped collection's vector segment


def scrub_in_child(path: str, deleted_ids: Iterable[str] = ()) -> None:
    """Run :func:`scrub_folder` in a fresh interpreter (stdlib only: it starts in milliseconds).

    Raises:
        RuntimeError: the child failed; its last error line is in the message.
    """
    payload = json.dumps({"path": path, "ids": list(deleted_ids)})
    done = subprocess.run([sys.executable, "-I", os.path.abspath(__file__)], input=payload, text=True,
                          capture_output=True, timeout=_CHILD_TIMEOUT_S)
    if done.returncode != 0:
        lines = (done.stderr or "").strip().splitlines()
        raise RuntimeError(lines[-1] if lines else f"exit status {done.returncode}")


if __name__ == "__main__":  # the child of scrub_in_child
    request = json.loads(sys.stdin.read())
    scrub_folder(request["path"], request["ids"])
