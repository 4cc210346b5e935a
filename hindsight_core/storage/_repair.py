"""Recovery of a bank whose vector index a crash left torn.

Chroma writes a collection's HNSW files (``<segment id>/index_metadata.pickle`` beside the
``*.bin`` files) in place, with no rename. A process killed while it writes them leaves a file
cut short, and from then on every call on that collection fails, even ``count()``:
``Error constructing hnsw segment reader: ... Error deserializing pickle file: ... EOF``. The
records themselves are safe: documents and metadata live in SQLite, which commits atomically.

The vector index holds nothing the records do not: each stored vector is the bank's embedder run
on the unit's text. So an embedded folder recovers in two steps:

1. Before Chroma opens the folder, :func:`reset_torn_segments` checks each vector segment's files
   (the pickle ends with pickle's STOP opcode and counts as many elements as ``header.bin``; the
   ``*.bin`` files are as long as ``header.bin`` says) and resets a torn one: its folder and its
   replay position (``max_seq_id``) go, so Chroma starts it afresh and replays the write log it
   still holds. Files that fail a check Chroma runs while loading are reset the same way, in a
   child process (:func:`reset_in_child`: the reason is the one in ``storage/_scrub.py``, two
   SQLite libraries on one file in one process defeat each other's locks). A segment Chroma has *loaded* is never reset or written from this process: its
   in-memory copy would outlive the files (writes into a torn copy can crash the process).
2. When the bank opens, every record is written back with its vector embedded again
   (:func:`restore_vectors`).

Nothing acknowledged is lost: a write was acknowledged only after SQLite committed it. A Chroma
server owns its files; this runs for embedded folders only.
"""

from __future__ import annotations

import io
import json
import logging
import os
import pickletools
import shutil
import sqlite3
import struct
import subprocess
import sys
from typing import Any, Callable, Sequence

__all__ = ["CLOSED_MARK", "check_on_open", "mark_closed", "is_unloadable", "is_missing_vectors", "torn_files",
           "reset_torn_segments", "reset_vector_segment", "reset_in_child", "restore_vectors"]

log = logging.getLogger("hindsight.storage")

_DB = "chroma.sqlite3"
_BUSY_TIMEOUT_S = 30.0  # Chroma's own connection may be mid-write
_CHILD_TIMEOUT_S = 120.0
_BATCH = 256  # records embedded and written back per call
#: How Chroma's message reads when a collection's HNSW files cannot be loaded: every call fails,
#: even ``count()``, as the reader is built first. Nothing was loaded, so the segment can be reset.
_UNLOADABLE = "hnsw segment reader"
#: How it reads when a record has no vector in a segment that loaded, as after a reset, until the
#: records are written back.
_MISSING = "error finding id"
#: Left in a folder by a clean close: the next open skips the check of every segment's files.
CLOSED_MARK = ".hindsight-closed"
_PICKLE_HEAD = 256  # bytes read to find total_elements_added: Chroma writes it second, after dimensionality
_STOP = b"."  # pickle's last opcode: a pickle cut short almost never ends with it
_HEADER = struct.Struct("<iQQQQ")  # hnswlib's header.bin: version, level-0 offset, capacity, count, bytes per element
_HEADER_VERSION = 1  # the only layout this check knows; other versions are left to Chroma


def _messages(exc: BaseException | None) -> str:
    text = ""
    while exc is not None:
        text += " " + str(exc).lower()
        exc = exc.__cause__ or exc.__context__
    return text


def is_unloadable(exc: BaseException) -> bool:
    """Whether ``exc`` (or an exception it was raised from) says a collection's HNSW files cannot be loaded."""
    return _UNLOADABLE in _messages(exc)


def is_missing_vectors(exc: BaseException) -> bool:
    """Whether ``exc`` says a record has no vector in its collection's (whole) vector segment."""
    return _MISSING in _messages(exc)


def torn_files(folder: str) -> str | None:
    """Why the HNSW files in segment folder ``folder`` are torn, or None when they look whole."""
    names = set(os.listdir(folder)) if os.path.isdir(folder) else set()
    if not names:
        return None
    if "index_metadata.pickle" not in names:
        return "index_metadata.pickle is missing"
    with open(os.path.join(folder, "index_metadata.pickle"), "rb") as f:
        f.seek(0, os.SEEK_END)
        if f.tell() == 0:
            return "index_metadata.pickle is empty"
        f.seek(-1, os.SEEK_END)
        if f.read(1) != _STOP:
            return "index_metadata.pickle is cut short"
    try:
        with open(os.path.join(folder, "header.bin"), "rb") as f:
            header = f.read(_HEADER.size)
    except FileNotFoundError:
        return "header.bin is missing"
    if len(header) < _HEADER.size:
        return "header.bin is cut short"
    version, _, capacity, count, per_element = _HEADER.unpack(header)
    if version != _HEADER_VERSION:
        return None
    if count > capacity:
        return "header.bin is inconsistent"
    added = _elements_added(os.path.join(folder, "index_metadata.pickle"))
    if added is not None and added != count:  # one file written, the other not: Chroma cannot replay its log
        return f"index_metadata.pickle counts {added} elements, header.bin {count}"
    for name, size in (("data_level0.bin", count * per_element), ("length.bin", count * 4)):
        try:
            if os.path.getsize(os.path.join(folder, name)) < size:
                return f"{name} is cut short"
        except FileNotFoundError:
            return f"{name} is missing"
    return None


def check_on_open(path: str) -> dict[str, str] | None:
    """:func:`reset_torn_segments`, skipped (None) when the folder's last process closed it cleanly.

    A clean close leaves :data:`CLOSED_MARK`; it is removed here, durably, before any write, so a
    crash from now on leaves no mark and the next open checks (about 0.1 ms per bank).
    """
    mark = os.path.join(path, CLOSED_MARK)
    try:
        os.remove(mark)
    except FileNotFoundError:
        return reset_torn_segments(path)
    _sync_folder(path)
    return None


def mark_closed(path: str) -> None:
    """Leave :data:`CLOSED_MARK`: every vector file of the folder was whole when its last engine closed."""
    with open(os.path.join(path, CLOSED_MARK), "wb"):
        pass
    _sync_folder(path)


def _sync_folder(path: str) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    except OSError:  # not every file system syncs a folder; the mark is a shortcut, not a promise
        pass
    finally:
        os.close(fd)


def _elements_added(pickle_path: str) -> int | None:
    """``total_elements_added`` from the head of Chroma's pickle, read opcode by opcode (nothing is
    unpickled, so a crafted file runs no code); None when the head is not the expected layout."""
    with open(pickle_path, "rb") as f:
        head = f.read(_PICKLE_HEAD)
    previous = None
    try:
        for opcode, arg, _ in pickletools.genops(io.BytesIO(head)):
            if previous == "total_elements_added":
                return arg if isinstance(arg, int) and opcode.name.startswith(("BININT", "LONG")) else None
            previous = arg if isinstance(arg, str) else None
    except ValueError:  # the head ends mid-opcode before the field
        pass
    return None


def reset_torn_segments(path: str) -> dict[str, str]:
    """Reset the torn vector segments of the store at ``path``: ``{collection id: why}``.

    Run it before Chroma opens the folder in this process (it opens ``chroma.sqlite3`` itself).
    """
    db = os.path.join(path, _DB)
    if not os.path.isfile(db):
        return {}
    con = sqlite3.connect(db, timeout=_BUSY_TIMEOUT_S)
    try:
        segments = list(con.execute("select id, collection from segments where scope = 'VECTOR'"))
    except sqlite3.Error:
        return {}  # not a store this check knows: Chroma will say what is wrong with it
    finally:
        con.close()
    torn: dict[str, str] = {}
    for segment, collection in segments:
        why = torn_files(os.path.join(path, segment))
        if why is not None:
            reset_vector_segment(path, collection)
            torn[collection] = why
    return torn


def reset_vector_segment(path: str, collection_id: str) -> list[str]:
    """Forget the vector segments of collection ``collection_id`` in the store at ``path``.

    Removes each segment's folder and its replay position (``max_seq_id``), so Chroma builds the
    segment again from nothing. Returns the segment ids reset. Never run this in a process that
    has the folder open through Chroma (see the module docstring).
    """
    db = os.path.join(path, _DB)
    con = sqlite3.connect(db, timeout=_BUSY_TIMEOUT_S, isolation_level=None)
    try:
        segments = [r[0] for r in con.execute(
            "select id from segments where collection = ? and scope = 'VECTOR'", (collection_id,))]
        con.execute("begin immediate")
        try:
            for segment in segments:
                con.execute("delete from max_seq_id where segment_id = ?", (segment,))
            con.execute("commit")
        except BaseException:
            con.execute("rollback")
            raise
    finally:
        con.close()
    for segment in segments:
        shutil.rmtree(os.path.join(path, segment), ignore_errors=True)
    return segments


def reset_in_child(path: str, collection_id: str) -> list[str]:
    """Run :func:`reset_vector_segment` in a fresh interpreter (stdlib only: it starts in milliseconds).

    Raises:
        RuntimeError: the child failed; its last error line is in the message.
    """
    payload = json.dumps({"path": path, "collection": collection_id})
    done = subprocess.run([sys.executable, "-I", os.path.abspath(__file__)], input=payload, text=True,
                          capture_output=True, timeout=_CHILD_TIMEOUT_S)
    if done.returncode != 0:
        lines = (done.stderr or "").strip().splitlines()
        raise RuntimeError(lines[-1] if lines else f"exit status {done.returncode}")
    return json.loads(done.stdout or "[]")


def restore_vectors(col: Any, embed: Callable[[Sequence[str]], Any]) -> int:
    """Write every record of ``col`` back with its vector, ``embed(texts)`` (the bank's embedder).

    Run after :func:`reset_in_child`: the records are read from SQLite (which never needs the
    vectors) and upserted unchanged. Returns how many records were written.
    """
    import numpy as np

    from hindsight_core.storage.codec import record_text  # here: the child process runs this file alone

    total = col.count()
    written = 0
    for offset in range(0, total, _BATCH):
        res = col.get(include=["documents", "metadatas"], limit=_BATCH, offset=offset)
        if not res["ids"]:
            break
        documents = res["documents"]
        vectors = np.asarray(embed([record_text(d, m) for d, m in zip(documents, res["metadatas"])]),
                             dtype=np.float32)
        col.upsert(ids=res["ids"], metadatas=res["metadatas"], embeddings=vectors,
                   **({"documents": documents} if all(d is not None for d in documents) else {}))
        written += len(res["ids"])
    return written


if __name__ == "__main__":  # the child of reset_in_child
    request = json.loads(sys.stdin.read())
    print(json.dumps(reset_vector_segment(request["path"], request["collection"])))
