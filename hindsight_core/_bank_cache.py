"""The engine's cache of loaded banks: bounded, least recently used first out, never in use.

A loaded bank is its :class:`~hindsight_core.storage.live_index.LiveIndex` (light records, BM25,
graph, vectors). Without a bound a process serving 10,000 users keeps 10,000 of them for its whole
life. :class:`BankCache` keeps at most :attr:`CacheConfig.max_banks` banks and
:attr:`CacheConfig.max_units` units in all; past either it evicts the least recently used bank
that is idle, and the next use of that bank opens it again from Chroma (or from its snapshot, see
:mod:`hindsight_core.storage.snapshot`), so nothing but latency changes for the caller.

A bank is *in use*, and never evicted, while any of these holds:

* a thread holds the index's lock;
* anything still refers to the index object (a recall or capture in flight keeps it in a local
  variable for its whole call; CPython's reference count says so exactly, see :func:`_refs`);
* its background queue has a job waiting or running (an activity flush or consolidation of it).
  Asking brings waiting jobs forward (a deferred activity write-back included), so a bank the
  cache wants to evict writes its pending counters now and goes at the next insert or use.

So a write can never land in an evicted copy while a fresh copy is loaded beside it: the copy a
caller holds stays the cached one until the caller lets go of it. When every cached bank is in
use the cache grows past its bound rather than block, and shrinks on the next insert.

Example:
    >>> CacheConfig().max_banks, CacheConfig(max_banks=50).max_banks
    (1000, 50)
"""

from __future__ import annotations

import sys
import threading
from collections import OrderedDict
from typing import Callable, Generic, Iterator, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from hindsight_core.lifecycle.background import DEFAULT_WORKERS
from hindsight_core.storage.snapshot import SNAPSHOT_MIN_UNITS

__all__ = ["CacheConfig", "BankCache"]

V = TypeVar("V")

#: Chroma HNSW indexes kept loaded: two per recently written or opened bank (its units and its
#: change log), about 2.6 MB each for a small bank (measured), so about 0.33 GB for small banks.
#: The engine's own cache holds each loaded bank's vectors for search, so Chroma reloads an index
#: (from disk, ms for a small bank) only when a bank is reopened or written after it was evicted.
CHROMA_INDEXES = 128


class CacheConfig(BaseModel):
    """How much of the store one engine keeps in memory, and its background pool.

    The defaults fit a process serving thousands of banks in a few GB: 1,000 loaded banks of any
    size, 250,000 loaded units in all (about 1.5 GB of index at ~6 KB per unit with 384-dim vectors).

    Chroma's own memory is bounded by :attr:`chroma_indexes`: how many collections' HNSW indexes
    Chroma's Rust core keeps loaded in an embedded store (about 2.6 MB each for a small bank; its
    default is ``RLIMIT_NOFILE // 5``). Chroma's ``chroma_segment_cache_policy`` /
    ``chroma_memory_limit_bytes`` settings reach only its legacy Python segment API. Evicting an
    index is safe because every collection is created to write its index on each write; an older
    store whose collections were not keeps Chroma's own bound (see ``storage/_chroma_cache.py``).

    Example:
        >>> from hindsight_core import MemoryEngine
        >>> from hindsight_core.testing import HashEmbedder
        >>> engine = MemoryEngine.ephemeral(embedder=HashEmbedder(), cache=CacheConfig(max_banks=100))
        >>> engine.cache_config.max_banks
        100
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_banks: int = Field(1_000, ge=1, description="Loaded banks kept in memory; the least recently used idle one "
                                                    "is evicted past it.")
    max_units: int = Field(250_000, ge=1, description="Units of all loaded banks together (the memory budget: about "
                                                      "6 KB each with 384-dim vectors); a bank alone may exceed it.")
    workers: int = Field(DEFAULT_WORKERS, ge=1, le=64,
                         description="Threads running background reflection and consolidation for every bank.")
    chroma_indexes: int | None = Field(
        CHROMA_INDEXES, ge=1,
        description="Collections whose HNSW index Chroma keeps loaded in an embedded store (None: Chroma's own bound, "
                    "the open-file limit // 5). The engine searches banks of up to 20,000 hot units in its own "
                    "vectors, so Chroma's index is read mainly when a bank is opened.")
    snapshots: bool = Field(True, description="Persist large banks' derived indexes so they reopen without a rebuild: "
                                              "beside an embedded store (storage/snapshot.py), or in the Chroma "
                                              "server for from_http engines (storage/chroma_snapshot.py).")
    snapshot_min_units: int = Field(SNAPSHOT_MIN_UNITS, ge=0,
                                    description="Banks smaller than this are not snapshotted (they rebuild in ms).")


def _refs(obj: object) -> int:
    return sys.getrefcount(obj)


def _idle_refs() -> int:
    """References an idle cached value has when :meth:`BankCache._idle` looks: measured, not guessed."""
    cache: BankCache[object] = BankCache(1, 1, busy=lambda _k: False, evicted=lambda _k, _v: None)
    probe = threading.RLock()

    class _Probe:
        lock = probe

    cache._entries["probe"] = _Probe()
    return cache._count_refs("probe")


class BankCache(Generic[V]):
    """An LRU map ``bank id -> index`` bounded by bank count and total units; thread-safe.

    Args:
        max_banks: Banks kept at most (idle ones are evicted past it).
        max_units: Units kept at most, summed over banks (``len(value.units)``).
        busy: ``busy(bank_id)`` is True while the bank has background work queued or running.
        evicted: Called with each evicted ``(bank_id, value)``, outside no lock of the value, while
            the value is idle (the engine snapshots it there).
    """

    def __init__(self, max_banks: int, max_units: int, *, busy: Callable[[str], bool],
                 evicted: Callable[[str, V], None]) -> None:
        self.max_banks = max_banks
        self.max_units = max_units
        self._busy = busy
        self._evicted = evicted
        self._entries: OrderedDict[str, V] = OrderedDict()
        self._lock = threading.RLock()
        self._over = False  # the last shrink could not get under the bounds (banks in use)
        self.evictions = 0

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, bank_id: object) -> bool:
        return bank_id in self._entries

    def get(self, bank_id: str) -> V | None:
        """The cached value (now the most recently used), or None."""
        with self._lock:
            value = self._entries.get(bank_id)
            if value is not None:
                self._entries.move_to_end(bank_id)
                if self._over:  # banks that were busy at the last insert may be idle now
                    self._shrink(keep=bank_id)
            return value

    def put(self, bank_id: str, value: V) -> None:
        """Cache ``value`` as the most recently used, then evict idle banks over the bounds."""
        with self._lock:
            self._entries[bank_id] = value
            self._entries.move_to_end(bank_id)
            self._shrink(keep=bank_id)

    def pop(self, bank_id: str, default: V | None = None) -> V | None:
        """Drop a bank without calling ``evicted`` (its index is stale or the bank is gone)."""
        with self._lock:
            return self._entries.pop(bank_id, default)

    def clear(self) -> list[tuple[str, V]]:
        """Drop every bank; returns them (the engine snapshots them on close)."""
        with self._lock:
            items = list(self._entries.items())
            self._entries.clear()
            return items

    def items(self) -> Iterator[tuple[str, V]]:
        with self._lock:
            return iter(list(self._entries.items()))

    def units(self) -> int:
        """Units held by every cached bank together."""
        with self._lock:
            return sum(len(getattr(v, "units", ())) for v in self._entries.values())

    # ---- eviction -----------------------------------------------------------------------------
    def _shrink(self, keep: str) -> None:
        total = self.units()
        for bank_id in list(self._entries):
            if len(self._entries) <= self.max_banks and total <= self.max_units:
                break
            if bank_id == keep or not self._idle(bank_id):
                continue
            value = self._entries.pop(bank_id)
            total -= len(getattr(value, "units", ()))
            self.evictions += 1
            self._evicted(bank_id, value)
        self._over = len(self._entries) > self.max_banks or (total > self.max_units and len(self._entries) > 1)

    def _idle(self, bank_id: str) -> bool:
        if self._busy(bank_id):
            return False
        return self._count_refs(bank_id) <= _IDLE_REFS

    def _count_refs(self, bank_id: str) -> int:
        value = self._entries[bank_id]
        lock = getattr(value, "lock", None)
        if lock is not None and not lock.acquire(blocking=False):
            return sys.maxsize  # a thread is inside it
        try:
            return _refs(value)
        finally:
            if lock is not None:
                lock.release()


_IDLE_REFS = _idle_refs()
