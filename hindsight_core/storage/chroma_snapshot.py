"""Index snapshots kept in Chroma itself, so engines on a Chroma server open large banks without a rebuild.

An embedded store keeps a bank's snapshot in a file beside its folder (:mod:`.snapshot`). On a
server there is no shared folder, so the same bytes (:func:`.snapshot.encode`) are stored in the
server, in one collection per bank named after it (:func:`~.chroma_store.snapshot_name`)::

    hsnap-<bank collection suffix>
        "head"            metadata {snapshot, chunks, since, revision}: which chunks make the snapshot
        "<snapshot>-<k>"  metadata {d: base64 of bytes k*CHUNK..}: the snapshot's bytes, in order

Every process that reaches the server reads it; nothing is written on the capture path. A snapshot
is written where the embedded one is: when a bank of at least ``CacheConfig.snapshot_min_units``
units leaves an engine's cache (on the engine's background pool, so the call that evicted it does not
wait for the upload) and when the engine closes. ``delete_bank`` deletes the collection with the
bank (``ChromaStore.drop_bank``), whichever process deletes it, and deleting units of a bank deletes
its snapshot too (it holds their text; a save that overlaps such a delete drops what it uploaded). Unlike a file beside an embedded
folder, a stored snapshot is not consumed when opened (other processes open from it too), and a
close that finds it still fresh does not upload it again.

**When a snapshot is used.** The embedded rule is "the header's revision equals Chroma's write-log
position now". A server shows no write-log position, so the revision here is read from the bank's
own change log (the ``hslog-`` collection every write on a server is recorded in, which is how running
processes catch up with each other, see ``LiveIndex.catch_up``) and the bank itself:

* the bank's record count (a unit written without its log entry, as by a writer that died between
  the two, changes it);
* the change log's entry count (one entry per unit ever written or deleted);
* a SHA-256 of every log entry ``(unit id, time, op)`` newer than the snapshot's position minus the log
  window (``LOG_WINDOW_NS``, the clock skew catch-up already tolerates): any write or delete since the
  snapshot adds or re-times an entry there.

A snapshot whose revision still matches is installed as it is. One that is older (another process
wrote since: a capture, an invalidate, recall activity written back) is installed and then caught up
from the change log, every entry from its position on (``LiveIndex.catch_up_since``: the mechanism a
running process relies on before every recall), and kept only when the bank then holds exactly
Chroma's record count; otherwise (a write without its log entry) it is dropped and the bank rebuilt.
A torn (a chunk missing: a save in progress, or a concurrent one) or corrupted snapshot (CRC, base64,
versions, collection id, dimension) is never used: the bank is rebuilt from Chroma, and a debug log
says why. A snapshot is taken only when the saving engine's index holds exactly the bank's record
count after catching up, and the log is read *before* the index is exported: a write landing in
between makes the snapshot look older than it is (caught up again next time), never newer. The same
limit as catch-up applies: a writer whose clock is behind by more than the log window, and who only
rewrites existing units, is not seen.

Example:
    >>> from hindsight_core.storage.chroma_store import snapshot_name
    >>> snapshot_name("hs-k-" + "0" * 40)[:10]
    'hsnap-k-00'
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import time
import uuid
from typing import TYPE_CHECKING, Any

from hindsight_core.storage.chroma_store import LOG_WINDOW_NS, placeholder_vectors
from hindsight_core.storage.snapshot import SNAPSHOT_MIN_UNITS, encode, install

if TYPE_CHECKING:
    from hindsight_core.storage.live_index import LiveIndex

__all__ = ["ChromaSnapshots", "CHUNK_CHARS"]

log = logging.getLogger("hindsight.snapshot")

#: Base64 characters per chunk record (3 MB of snapshot): one upsert each, small enough for a
#: server's request limits, large enough that a 20,000-unit bank (about 40 MB at 384 dims) is ~13
#: requests. Kept in metadata, not documents: Chroma full-text indexes documents (measured: 30 MB
#: written as documents took 28 s and grew the server's folder by ~700 MB; as metadata, 5 s).
CHUNK_CHARS = 4 * 2**20
_HEAD = "head"


def _revision(store: Any, col: Any, since: int, changes: list[tuple[str, int, str, str]] | None = None
              ) -> dict[str, Any]:
    """The bank's state as a snapshot names it (see the module docstring); ``changes``: the change
    log's entries since ``since`` when the caller has read them already."""
    recent = sorted((i, ts, op) for i, ts, op, _ in (store.changes(col, since) if changes is None else changes))
    digest = hashlib.sha256("\n".join(f"{i}\t{ts}\t{op}" for i, ts, op in recent).encode()).hexdigest()
    return {"units": store.count(col), "log": store.log_size(col), "since": since, "recent": digest}


def _deleted(changes: list[tuple[str, int, str, str]]) -> set[str]:
    """Units whose deletion these change-log entries record."""
    return {i for i, _, op, _ in changes if op == "delete"}


class ChromaSnapshots:
    """Banks' snapshots in a Chroma server: :meth:`save`, :meth:`restore` (same calls as ``SnapshotDir``).

    Counters (this engine's, for tests and benchmarks): :attr:`restored` (opened from a snapshot),
    :attr:`caught_up` (of those, the ones that were older than the bank and caught up from its change
    log), :attr:`refused` (a snapshot was there but not used: rebuilt) and :attr:`saved`.
    """

    def __init__(self, *, min_units: int = SNAPSHOT_MIN_UNITS, save: bool = True) -> None:
        self.min_units = min_units
        self.saves = save
        self.restored = 0
        self.refused = 0
        self.saved = 0
        self.caught_up = 0

    def discard(self, bank_id: str) -> None:
        """Nothing to do: ``ChromaStore.drop_bank`` deletes the snapshot collection with the bank."""

    def save(self, bank_id: str, index: "LiveIndex") -> bool:
        """Store ``index``'s snapshot in the server (True also when the stored one is still fresh); False
        when the bank is too small or the index not exactly in step with Chroma (the next open then uses
        the stored snapshot, caught up, or rebuilds)."""
        col = index.collection
        if not self.saves or col is None or len(index.units) < self.min_units:
            return False
        store = index.store
        since = time.time_ns() - LOG_WINDOW_NS
        changes = store.changes(col, since)
        revision = _revision(store, col, since, changes)  # read before the export: see the module docstring
        deleted = _deleted(changes)
        index.catch_up()
        if len(index.units) != revision["units"]:
            log.debug("bank %r not snapshotted: its index holds %d units, Chroma %d", bank_id, len(index.units),
                      revision["units"])
            return False
        target = store.snapshot_collection(col, create=True)
        head = target.get(ids=[_HEAD], include=["metadatas"])["metadatas"]
        if head and head[0].get("revision") == json.dumps(_revision(store, col, int(head[0]["since"]))):
            return True  # the stored snapshot is still fresh (the bank was opened from it and not changed)
        text = base64.b64encode(b"".join(encode(index, revision))).decode("ascii")
        chunks = [text[at:at + CHUNK_CHARS] for at in range(0, len(text), CHUNK_CHARS)]
        snap_id = uuid.uuid4().hex
        for k, chunk in enumerate(chunks):
            chunk_id = [f"{snap_id}-{k}"]
            target.upsert(ids=chunk_id, embeddings=placeholder_vectors(chunk_id), metadatas=[{"d": chunk}])
        target.upsert(ids=[_HEAD], embeddings=placeholder_vectors([_HEAD]), metadatas=[{
            "snapshot": snap_id, "chunks": len(chunks), "since": since, "revision": json.dumps(revision)}])
        if not store.bank_alive(col):  # deleted by another process meanwhile: it dropped the bank first,
            try:  # so drop what was just written (unless its later delete of the snapshot already did)
                store.client.delete_collection(target.name)
            except Exception:  # noqa: BLE001
                log.debug("snapshot collection %s already gone", target.name)
            return False
        if _deleted(store.changes(col, since)) - deleted:  # units deleted during the upload (their delete dropped
            self._drop_mine(target, snap_id)  # the stored snapshot): do not leave their text behind in this one
            return False
        head = target.get(ids=[_HEAD], include=["metadatas"])["metadatas"]
        keep = f"{head[0]['snapshot']}-" if head else f"{snap_id}-"
        old = [i for i in target.get(include=[])["ids"] if i != _HEAD and not i.startswith(keep)]
        if old:  # earlier snapshots' chunks (and a concurrent saver's, whose head then reads as torn)
            target.delete(ids=old)
        self.saved += 1
        return True

    @staticmethod
    def _drop_mine(target: Any, snap_id: str) -> None:
        """Delete the chunks of snapshot ``snap_id`` (and the head, while it names them)."""
        try:
            head = target.get(ids=[_HEAD], include=["metadatas"])["metadatas"]
            mine = [i for i in target.get(include=[])["ids"] if i.startswith(f"{snap_id}-")]
            if head and head[0].get("snapshot") == snap_id:
                mine.append(_HEAD)
            if mine:
                target.delete(ids=mine)
        except Exception as exc:  # noqa: BLE001 - gone already (the bank or its snapshot was deleted)
            log.debug("could not drop snapshot %s (%s)", snap_id, exc)

    def restore(self, bank_id: str, index: "LiveIndex") -> bool:
        """Fill ``index`` from the bank's snapshot when it is whole, and fresh or caught up from the change
        log; False: the caller rebuilds from Chroma (``index`` is left empty)."""
        col = index.collection
        if col is None:
            return False
        try:
            source = index.store.snapshot_collection(col, create=False)
            if source is None:
                return False
            head = source.get(ids=[_HEAD], include=["metadatas"])["metadatas"]
            if not head:
                return False
            snap_id, count, since = head[0]["snapshot"], int(head[0]["chunks"]), int(head[0]["since"])
            stored = json.loads(head[0]["revision"])
            fresh = stored == _revision(index.store, col, since)
            ids = [f"{snap_id}-{k}" for k in range(count)]
            got = source.get(ids=ids, include=["metadatas"])
            parts = dict(zip(got["ids"], got["metadatas"]))
            if len(parts) != count:
                return self._refuse(bank_id, f"torn: {len(parts)} of its {count} chunks are there")
            data = bytearray(base64.b64decode("".join(parts[i]["d"] for i in ids), validate=True))
        except Exception as exc:  # noqa: BLE001 - an unreadable snapshot means: rebuild
            return self._refuse(bank_id, f"unreadable ({type(exc).__name__}: {exc})")
        reason = install(index, data, stored)
        if reason is None and not fresh:
            reason = self._catch_up(bank_id, index, since)
        if reason is not None:
            return self._refuse(bank_id, reason)
        self.restored += 1
        return True

    def _catch_up(self, bank_id: str, index: "LiveIndex", since: int) -> str | None:
        """Bring an index restored from an older snapshot up to date from the change log (what a running
        process does on every recall); None when it then matches Chroma, else why it is dropped."""
        try:
            changed = index.catch_up_since(since)
            units = index.store.count(index.collection)
        except Exception as exc:  # noqa: BLE001 - the caller rebuilds
            changed, units = -1, -1
            reason = f"catching up failed ({type(exc).__name__}: {exc})"
        else:
            reason = None if len(index.units) == units else (
                f"after catching up on {changed} changed units it holds {len(index.units)} units, Chroma {units} "
                "(a write without its change-log entry)")
        if reason is not None:
            with index.lock:
                index.clear()
                index.next_seq = 0
            return reason
        self.caught_up += 1
        log.debug("index snapshot of bank %r in Chroma used after catching up on %d changed units", bank_id, changed)
        return None

    def _refuse(self, bank_id: str, reason: str) -> bool:
        self.refused += 1
        log.debug("index snapshot of bank %r in Chroma not used (%s); rebuilding from Chroma", bank_id, reason)
        return False
