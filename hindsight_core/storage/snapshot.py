"""Persisted snapshots of a bank's derived indexes, so a large bank opens without a rebuild.

Opening a bank used to read every record (documents, metadata, vectors) from Chroma and rebuild
the light records, BM25 postings and graph from them: about 6 s for 20,000 units. A snapshot keeps
that derived state in one file per bank, beside the Chroma folder it came from::

    <store folder>/hindsight-index/<sha256 of the bank id>.snap

written atomically (temp file, fsync, rename) when a bank leaves the engine's cache or the engine
closes, and read back on the next open. Chroma stays the source of truth: a snapshot is used only
when every check passes, otherwise it is deleted and the bank is rebuilt from Chroma:

* the file starts with :data:`MAGIC` and its JSON header names this :data:`SNAPSHOT_VERSION` and
  the record schema (``models.SCHEMA_VERSION``): another version is ignored;
* the header's collection id, vector dimension, unit count and **revision** match the live Chroma
  collection. The revision is the highest sequence number of Chroma's write log for the collection
  (:func:`chroma_revision`): every upsert, update and delete of the bank raises it, whoever made it,
  so a snapshot of an older state of the bank is never used;
* the payload's checksum matches (a torn or corrupted file is rebuilt);
* **a snapshot is consumed when it is opened**: the file is deleted as the bank loads, whether it was
  used or not, and written again only when the bank next leaves memory. So a snapshot on disk always
  describes the bank as it was last closed by this engine; a crash while the bank was open leaves no
  snapshot, and the next open rebuilds.

This module's files serve the embedded store (one process owns the folder, see
``storage/_folder_lock.py``), because the revision is read from the folder's ``chroma.sqlite3``
(read-only; a Chroma without that log layout gives no revision and snapshots are simply not used).
On a Chroma server the same bytes (:func:`encode`, checked by :func:`install`) are stored in the
server itself, with a revision read from the bank's change log: see ``storage/chroma_snapshot.py``.

The payload is a small JSON document (ids, texts, vocabularies) and flat numpy arrays (vectors,
postings, graph edges as unit numbers), written as raw little-endian bytes after a table of their
dtypes and shapes, and read back as views with :func:`numpy.frombuffer`: no per-unit Python objects
are stored, only plain numeric dtypes are accepted (nothing in the file can name code), and loading
costs a few bulk conversions (see :meth:`LiveIndex.export_columns`). A CRC-32 of the payload catches
torn or corrupted files. Version 1 files (pickles) are ignored and rebuilt like any other version.
The bank's keyword-expansion vocabulary (its words' vectors, ``retrieval/expansion.py``) rides
along as optional ``vocabulary`` parts: a file without them opens with an empty vocabulary, and
one whose vocabulary does not fit opens without it (see :func:`_install_vocabulary`).

Example:
    >>> import tempfile
    >>> SnapshotDir(tempfile.mkdtemp()).path_for("alice").name
    '2bd806c97f0e00af1a1fc3328fa763a9269723c8db8fac4f93af71db186d6e90.snap'

"""

from __future__ import annotations

import gc
import hashlib
import json
import logging
import os
import sqlite3
import struct
import tempfile
import zlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from hindsight_core.models import SCHEMA_VERSION

if TYPE_CHECKING:
    from hindsight_core.storage.live_index import LiveIndex

__all__ = ["SnapshotDir", "SNAPSHOT_VERSION", "MAGIC", "SNAPSHOT_MIN_UNITS", "encode", "install"]

log = logging.getLogger("hindsight.snapshot")

MAGIC = b"HSNAP\n"
#: Bump when the layout of LiveIndex's derived state changes; older files are then rebuilt.
SNAPSHOT_VERSION = 4  # 3: derived units left out of the session chains; 4: gloss vectors
#: Banks smaller than this are not snapshotted: they rebuild from Chroma in tens of milliseconds,
#: and a deployment with 10,000 small banks should not keep 10,000 extra files.
SNAPSHOT_MIN_UNITS = 1_000
_FOLDER = "hindsight-index"
_HEADER = struct.Struct(">I")
#: The array types a snapshot holds (little-endian numbers and booleans; never objects).
_DTYPES = frozenset({"<i8", "<f8", "<f4", "|b1"})
_ALIGN = 64  # bytes: arrays start on this boundary of the file (a cache line)


def chroma_revision(store_folder: str | os.PathLike[str], collection_id: str) -> int | None:
    """The highest write-log sequence number Chroma recorded for a collection (None if unknown).

    Reads the embedded store's ``chroma.sqlite3`` read-only: the collection's rows of
    ``embeddings_queue`` (every write is logged there first) and its segments' ``max_seq_id``
    (what survives a purge of the log). Sequence numbers only grow, so any write changes it.
    """
    db = Path(store_folder) / "chroma.sqlite3"
    try:
        con = sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True, timeout=5.0)
        try:
            queued = con.execute("select max(seq_id) from embeddings_queue where topic like ?",
                                 (f"%/{collection_id}",)).fetchone()[0]
            applied = con.execute("select max(m.seq_id) from max_seq_id m join segments s on s.id = m.segment_id "
                                  "where s.collection = ?", (collection_id,)).fetchone()[0]
        finally:
            con.close()
    except (sqlite3.Error, OSError, ValueError):
        return None
    values = [v for v in (queued, applied) if v is not None]
    if not all(isinstance(v, int) for v in values):
        return None  # a layout this code does not know: no snapshot is trusted
    return max(values, default=0)


class SnapshotDir:
    """Where an embedded store's snapshots live, and how they are written, checked and read."""

    def __init__(self, store_folder: str | os.PathLike[str], *, min_units: int = SNAPSHOT_MIN_UNITS,
                 save: bool = True) -> None:
        self.store_folder = Path(store_folder)
        self.folder = self.store_folder / _FOLDER
        self.min_units = min_units
        self.saves = save  # False: never write one (but still consume and check what is there)

    def path_for(self, bank_id: str) -> Path:
        return self.folder / f"{hashlib.sha256(bank_id.encode()).hexdigest()}.snap"

    def discard(self, bank_id: str) -> None:
        """Delete a bank's snapshot (the bank was deleted, or its index is known stale)."""
        try:
            self.path_for(bank_id).unlink()
        except FileNotFoundError:
            pass

    def save(self, bank_id: str, index: "LiveIndex") -> bool:
        """Write ``index``'s derived state atomically; False when the bank is too small to bother.

        The caller makes sure no one changes the bank meanwhile (the engine saves banks it evicts
        or closes, which no thread is using).
        """
        col = index.collection
        if not self.saves or col is None or len(index.units) < self.min_units:
            return False
        revision = chroma_revision(self.store_folder, str(col.id))
        if revision is None:
            return False
        parts = encode(index, revision)
        self.folder.mkdir(parents=True, exist_ok=True)
        target = self.path_for(bank_id)
        fd, tmp = tempfile.mkstemp(dir=self.folder, prefix=".tmp-", suffix=".snap")
        try:
            with os.fdopen(fd, "wb") as out:
                for part in parts:
                    out.write(part)
                out.flush()
                os.fsync(out.fileno())
            os.replace(tmp, target)  # readers see the old file or the whole new one, never half
        except BaseException:
            try:
                os.unlink(tmp)
            except FileNotFoundError:
                pass
            raise
        return True

    def restore(self, bank_id: str, index: "LiveIndex") -> bool:
        """Fill ``index`` from its bank's snapshot if one exists and every check passes.

        The file is deleted either way (see the module docstring: a snapshot is consumed on open).
        Returns False when the caller must rebuild from Chroma.
        """
        col = index.collection
        if col is None:
            return False
        path = self.path_for(bank_id)
        try:
            with open(path, "rb") as f:  # into a mutable buffer: the arrays read from it are writable in place
                data = np.empty(os.fstat(f.fileno()).st_size, dtype=np.uint8)  # not zero-filled first
                if f.readinto(memoryview(data)) != len(data):
                    raise OSError("the file shrank while it was read")
        except FileNotFoundError:
            return False
        except OSError as exc:
            log.warning("could not read index snapshot %s (%s); rebuilding from Chroma", path, exc)
            return False
        finally:
            self.discard(bank_id)
        reason = install(index, data, chroma_revision(self.store_folder, str(col.id)))
        if reason is not None:
            log.info("index snapshot %s not used (%s); rebuilding from Chroma", path.name, reason)
            return False
        return True


def encode(index: "LiveIndex", revision: object) -> list[bytes | memoryview]:
    """A snapshot of ``index`` as pieces of bytes to write one after another: :data:`MAGIC`, the JSON
    header (versions, collection id, dimension, unit count, ``revision``: what the store's state was
    when the caller read it, and the payload's CRC-32), then the payload. Takes ``index.lock``."""
    col = index.collection
    with index.lock:
        meta, arrays = index.export_columns()
        count = len(index.units)
        _add_vocabulary(index, meta, arrays)
    parts = _pack_parts(meta, arrays)
    crc = 0
    for part in parts:
        crc = zlib.crc32(part, crc)
    header = json.dumps({"snapshot_version": SNAPSHOT_VERSION, "schema_version": SCHEMA_VERSION,
                         "collection_id": str(col.id), "dim": index.dim, "count": count, "revision": revision,
                         "crc32": crc}).encode()
    header += b" " * (-(len(MAGIC) + _HEADER.size + len(header)) % _ALIGN)  # the payload starts aligned
    return [MAGIC + _HEADER.pack(len(header)) + header, *parts]


def install(index: "LiveIndex", buffer: Any, revision: object) -> str | None:
    """Install a snapshot's bytes ``buffer`` (what :func:`encode` gave, joined) into ``index`` when
    every check passes (its header names ``revision``, the store's state now); otherwise say why not
    and leave ``index`` as it was."""
    data = memoryview(buffer).cast("B")
    if len(data) < len(MAGIC) + _HEADER.size or bytes(data[:len(MAGIC)]) != MAGIC:
        return "not a snapshot file"
    at = len(MAGIC)
    (size,) = _HEADER.unpack_from(data, at)
    at += _HEADER.size
    try:
        header = json.loads(bytes(data[at:at + size]))
    except ValueError:
        return "unreadable header"
    payload = data[at + size:]
    expected = {"snapshot_version": SNAPSHOT_VERSION, "schema_version": SCHEMA_VERSION,
                "collection_id": str(index.collection.id), "dim": index.dim, "revision": revision}
    if revision is None:
        return "Chroma's write log revision cannot be read"
    for key, want in expected.items():
        if not isinstance(header, dict) or header.get(key) != want:
            return f"{key} is {header.get(key) if isinstance(header, dict) else None!r}, not {want!r}"
    if zlib.crc32(payload) != header.get("crc32"):
        return "checksum mismatch (torn or corrupted file)"
    # No count is asked of Chroma: the revision already changes with every write, and the
    # collection's first read costs as much as the rest of a 20,000-unit open.
    stored = header.get("count")
    gc_was_on = gc.isenabled()
    gc.disable()  # many small objects at once: the cyclic GC would rescan them on every batch of allocations
    try:
        meta, arrays = _unpack(payload)
        if len(meta.get("units", {}).get("id", ())) != stored:
            return "payload does not match its header"
        with index.lock:
            index.import_columns(meta, arrays)
            _install_vocabulary(index, meta, arrays)
    except Exception as exc:  # noqa: BLE001 - any bad payload means: rebuild
        return f"unreadable payload ({type(exc).__name__}: {exc})"
    finally:
        if gc_was_on:
            gc.enable()
    return None


def _add_vocabulary(index: "LiveIndex", meta: dict[str, Any], arrays: dict[str, np.ndarray]) -> None:
    """Add the bank's keyword-expansion vocabulary (``retrieval/expansion.py``: its words' vectors,
    which cost a model call per word to learn again) to an exported state, when it has one."""
    from hindsight_core.retrieval.expansion import vocabulary_of

    vocab = vocabulary_of(index)
    if len(vocab):
        part, columns = vocab.export_columns(meta["units"]["id"])
        meta["vocabulary"] = part
        arrays.update((f"vocabulary.{name}", value) for name, value in columns.items())


def _install_vocabulary(index: "LiveIndex", meta: dict[str, Any], arrays: dict[str, np.ndarray]) -> None:
    """Install the vocabulary :func:`_add_vocabulary` saved, if any: a snapshot without one (or with
    one that does not fit) opens with an empty vocabulary, which the bank's background queue fills."""
    if "vocabulary" not in meta:
        return
    from hindsight_core.retrieval.expansion import vocabulary_of

    columns = {k[len("vocabulary."):]: v for k, v in arrays.items() if k.startswith("vocabulary.")}
    try:
        vocabulary_of(index).import_columns(meta["vocabulary"], columns, meta["units"]["id"], index.dim)
    except (KeyError, TypeError, ValueError) as exc:
        log.info("index snapshot's vocabulary not used (%s); it is learnt again", exc)


def _pack(meta: dict[str, Any], arrays: dict[str, np.ndarray]) -> bytes:
    """``meta`` as JSON and ``arrays`` as raw little-endian bytes, after a table naming each one's
    dtype and shape: ``<table length><table JSON><meta JSON><array bytes>...``."""
    return b"".join(_pack_parts(meta, arrays))


def _pack_parts(meta: dict[str, Any], arrays: dict[str, np.ndarray]) -> list[bytes | memoryview]:
    """:func:`_pack`'s bytes as pieces (the arrays' own memory, not copies), to write one by one."""
    table, blobs = [], []
    for name, value in arrays.items():
        value = np.ascontiguousarray(value)
        dtype = value.dtype.newbyteorder("<") if value.dtype.byteorder == ">" else value.dtype
        if dtype.str not in _DTYPES:
            raise ValueError(f"array {name!r} has dtype {dtype.str}, which a snapshot does not store")
        table.append([name, dtype.str, list(value.shape)])
        blobs.append(memoryview(value.astype(dtype, copy=False).reshape(-1).view(np.uint8)))
    text = json.dumps(meta, ensure_ascii=False, separators=(",", ":")).encode()
    head = json.dumps({"meta": len(text), "arrays": table}).encode()
    parts: list[bytes | memoryview] = [_HEADER.pack(len(head)), head, text]
    size = _HEADER.size + len(head) + len(text)
    for blob in blobs:  # each array starts on an _ALIGN boundary (vectorised numpy wants aligned rows)
        parts += [b"\0" * (-size % _ALIGN), blob]
        size += -size % _ALIGN + len(blob)
    return parts


def _unpack(payload: bytes | memoryview) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """What :func:`_pack` wrote. Arrays are views of ``payload`` (writable when it is a ``bytearray``);
    only plain numeric dtypes are accepted, so nothing in the file is ever turned into code."""
    view = memoryview(payload)
    (size,) = _HEADER.unpack_from(view, 0)
    at = _HEADER.size
    head = json.loads(view[at:at + size].tobytes())
    at += size
    meta = json.loads(view[at:at + head["meta"]].tobytes())
    at += head["meta"]
    if not isinstance(meta, dict):
        raise ValueError("snapshot metadata is not an object")
    arrays: dict[str, np.ndarray] = {}
    for name, dtype, shape in head["arrays"]:
        if dtype not in _DTYPES:
            raise ValueError(f"array {name!r} has dtype {dtype!r}, which a snapshot never stores")
        count = int(np.prod(shape, dtype=np.int64))
        at += -at % _ALIGN
        arrays[name] = np.frombuffer(view, dtype=np.dtype(dtype), count=count, offset=at).reshape(shape)
        at += arrays[name].nbytes
    if at != len(view):
        raise ValueError(f"payload has {len(view) - at} bytes after its last array")
    return meta, arrays
