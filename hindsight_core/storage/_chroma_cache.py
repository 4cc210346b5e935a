"""Bounding Chroma's own memory in an embedded store that holds many banks.

What Chroma offers (chromadb 1.5.9, read in site-packages): ``Settings.chroma_segment_cache_policy="LRU"``
with ``chroma_memory_limit_bytes`` is read only by the legacy Python segment manager
(``chromadb/segment/impl/manager/local.py``). The default embedded client is
``chromadb.api.rust.RustBindingsAPI``, whose one bound is ``hnsw_cache_size``: how many collections'
HNSW indexes the Rust core keeps loaded (an LRU), set to ``RLIMIT_NOFILE // 5``. Measured here: about
2.6 MB of RSS per loaded 20-vector, 384-dim collection, and with a bound of 16 the RSS of 1,500 such
collections levelled off at about 230 MB instead of growing by 2.6 MB each.

Why lowering that bound needs care (measured with chromadb 1.5.9, 60 small collections, a bound of 8):
a collection's HNSW index is written to disk only every ``hnsw:sync_threshold`` records (1,000 by
default), and Chroma's LRU drops an evicted index without writing it. Reading the collection
again then fails with "Error creating hnsw segment reader: Nothing found on disk" when nothing was
ever written (20-24 of 60 collections, whether the first read was a query, a count or a get), or
with "Error finding id" when part of it was (33-37 of 60 with ``sync_threshold`` 2 or 3). The same
happens at Chroma's default bound once more collections than it are read. Known upstream: chroma-core/chroma#6975 and #7463 (the index stays log-only until
``sync_threshold``); later Chroma sources check the checkpoint before dropping the log, 1.5.9 does not.

The fix used here: every collection this package creates has ``sync_threshold=1`` and
``batch_size=1`` (:data:`PERSIST_EVERY_WRITE`), so its index on disk is always whole when Chroma
evicts it. Chroma writes only the changed vectors, so this costs little: adding two records and
reading them back took 2-3 ms on a 20,000-vector collection either way, and filling it took 79 s
against 73 s. What it does cost is SQLite commits: counted with strace, a 20-record upsert into a
new collection commits 5 transactions (20 fsyncs) with it against 3 (12) without, whatever
``batch_size``; each fsync took about 4 ms on the shared 2-core machine, and Chroma's embedded
bindings hold the GIL through the whole call (a pure-Python loop beside a thread of upserts ran at
0.17 CPU/wall). This is why the engine keeps Chroma writes per bank few: no change log while no
other engine can read the store (``chroma_store.ChromaStore._record``) and activity counters written
back once per bank per 30 s, between foreground calls (``_bank_state.ACTIVITY_WRITE_BACK_S``). With it, 60 collections under a bound of 8 survived three rounds of
read, query, add, update and delete after eviction with no error and no lost record.
``collection.modify`` cannot switch an existing collection over (measured: still 20 of 60 failed), so
:func:`bound_hnsw_cache` lowers the bound only when every collection of the store was created this
way (checked in the folder's ``chroma.sqlite3``); an older store keeps Chroma's default bound.
"""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path
from typing import Any

__all__ = ["PERSIST_EVERY_WRITE", "bound_hnsw_cache", "collection_names", "store_is_evictable"]

log = logging.getLogger("hindsight.storage")

#: HNSW settings of every collection this package creates: the index on disk is whole after each
#: write, so Chroma may evict it (see the module docstring).
PERSIST_EVERY_WRITE = {"sync_threshold": 1, "batch_size": 1}

_SAFE_MARK = '"sync_threshold":1,'  # how chroma.sqlite3's schema_str spells PERSIST_EVERY_WRITE


def store_is_evictable(folder: str | Path) -> bool:
    """Whether every collection in the embedded store at ``folder`` persists its index on each write.

    False when any collection was made otherwise (an older release, another program) or when the
    folder's ``chroma.sqlite3`` cannot be read as expected: the safe answer is to keep Chroma's bound.
    """
    db = Path(folder) / "chroma.sqlite3"
    if not db.exists():
        return True
    try:
        con = sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True, timeout=5.0)
        try:
            rows = con.execute("SELECT schema_str FROM collections").fetchall()
        finally:
            con.close()
    except (sqlite3.Error, OSError, ValueError):
        return False
    return all(s and _SAFE_MARK in s.replace(" ", "") for (s,) in rows)


def collection_names(folder: str | Path) -> list[str] | None:
    """Names of every collection in the embedded store at ``folder`` ([] for a new folder), read
    before Chroma opens it; None when ``chroma.sqlite3`` cannot be read as expected."""
    db = Path(folder) / "chroma.sqlite3"
    if not db.exists():
        return []
    try:
        con = sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True, timeout=5.0)
        try:
            return [name for (name,) in con.execute("SELECT name FROM collections")]
        finally:
            con.close()
    except (sqlite3.Error, OSError, ValueError):
        return None


def bound_hnsw_cache(client: Any, size: int) -> int | None:
    """Make ``client`` keep at most ``size`` collections' HNSW indexes loaded; returns the bound in force.

    Restarts the client's Rust bindings with the smaller bound, so call it before any collection is
    opened and only when no other client of this process shares the folder. Never raises Chroma's
    own bound (the open-file limit); another API implementation is left alone (None, with a warning).
    """
    server = getattr(client, "_server", None)
    current = getattr(server, "hnsw_cache_size", None)
    if current is None or not hasattr(server, "start") or not hasattr(server, "stop"):
        log.warning("cannot bound Chroma's HNSW cache: %s has no hnsw_cache_size", type(server).__name__)
        return None
    if current <= size:
        return int(current)
    server.stop()
    server.hnsw_cache_size = size
    server.start()
    return size
