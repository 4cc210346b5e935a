"""The engine: one Chroma store, one embedder, many isolated banks.

Example:
    >>> from hindsight_core import MemoryEngine
    >>> from hindsight_core.testing import HashEmbedder
    >>> with MemoryEngine.ephemeral(embedder=HashEmbedder()) as engine:
    ...     _ = engine.bank("alice").capture("Alice prefers tea.")
    ...     engine.banks()
    ['alice']
"""

from __future__ import annotations

import functools
import logging
import os
import threading
from typing import Any, Iterator

from hindsight_core._bank_cache import BankCache, CacheConfig
from hindsight_core.bank import MemoryBank, _async_twin
from hindsight_core.config import BankConfig, validate_options
from hindsight_core.embeddings import Embedder, resolve_embedder
from hindsight_core.errors import InvalidInputError, NotFoundError
from hindsight_core.storage.chroma_store import ChromaStore, validate_bank_id
from hindsight_core.lifecycle.background import BackgroundQueue, WorkerPool
from hindsight_core.lifecycle.reflect import RuleReflector
from hindsight_core.storage.live_index import LiveIndex
from hindsight_core.storage.snapshot import SnapshotDir

__all__ = ["MemoryEngine"]

class MemoryEngine:
    """Long-term memory for agents, embedded in the process.

    Args:
        path: Folder of the embedded, persistent Chroma store (created if missing).
        embedder: ``None`` for the bundled all-MiniLM-L6-v2 (offline), a sentence-transformers model
            name, a LangChain ``Embeddings``, an :class:`~hindsight_core.embeddings.Embedder`, or a
            callable ``list[str] -> list[list[float]]``.
        config: Default :class:`BankConfig` for banks opened without options.
        reflector: What turns ended episodes into lessons: the rule-based
            :class:`~hindsight_core.lifecycle.reflect.RuleReflector` by default, or
            ``LLMReflector(chat_model)``.
        llm: An optional chat model for the lifecycle (contradiction judge, consolidation); without
            one they run on rules and extractive clustering. Settable later: ``engine.llm = model``.
        cache: A :class:`~hindsight_core.CacheConfig`: how many banks (and units) stay
            loaded, the background pool's size and index snapshots. Defaults: 1,000 banks,
            250,000 units, 4 background threads, snapshots on (embedded stores).

    Nothing is opened or loaded until first use, so constructing an engine is free.
    Use :meth:`ephemeral` for an in-memory engine and :meth:`from_http` for a Chroma server.

    Deployment: an embedded folder serves one process (any number of threads); a second process
    opening it gets a :class:`~hindsight_core.errors.StorageError`, because Chroma's embedded
    client is not process-safe. For several processes, run ``chroma run --path DIR`` and give each
    one ``MemoryEngine.from_http(...)``: each process's in-memory index then catches up with what
    the others wrote or deleted before it recalls or counts.
    """

    def __init__(
        self,
        path: str | os.PathLike[str] = "./.hindsight",
        *,
        embedder: Any = None,
        config: BankConfig | None = None,
        reflector: Any = None,
        llm: Any = None,
        cache: CacheConfig | None = None,
        _store_factory: Any = None,
    ) -> None:
        if not isinstance(path, (str, os.PathLike)):
            raise InvalidInputError(f"path must be a folder path, not {type(path).__name__}")
        if config is not None and not isinstance(config, BankConfig):
            raise InvalidInputError("config must be a hindsight_core.BankConfig")
        if cache is not None and not isinstance(cache, CacheConfig):
            raise InvalidInputError("cache must be a hindsight_core.CacheConfig")
        self.path = os.fspath(path)
        self.config = config or BankConfig()
        self.embedder: Embedder = resolve_embedder(embedder)
        self.cache_config = cache or CacheConfig()
        self._store_factory = _store_factory or (lambda: ChromaStore.persistent(self.path))
        self._store: ChromaStore | None = None
        self.reflector = reflector or RuleReflector()
        self.llm = llm
        self._pool = WorkerPool(self.cache_config.workers)
        # loaded banks, bounded (LRU); see _bank_cache.py for when a bank counts as in use
        self._indexes: BankCache[LiveIndex] = BankCache(
            self.cache_config.max_banks, self.cache_config.max_units,
            busy=lambda bank_id: self._pool.busy(bank_id), evicted=self._evicted)
        self._snapshots = (  # embedded folders only: one process owns them
            SnapshotDir(self.path, min_units=self.cache_config.snapshot_min_units, save=self.cache_config.snapshots)
            if _store_factory is None else None)
        self._lock = threading.RLock()

    @classmethod
    def ephemeral(cls, *, embedder: Any = None, config: BankConfig | None = None,
                  reflector: Any = None, llm: Any = None, cache: CacheConfig | None = None) -> "MemoryEngine":
        """An engine whose memory lives only in this process (tests, notebooks, demos)."""
        return cls(":memory:", embedder=embedder, config=config, reflector=reflector, llm=llm, cache=cache,
                   _store_factory=ChromaStore.ephemeral)

    @classmethod
    def from_http(
        cls, host: str = "localhost", port: int = 8000, *, embedder: Any = None, config: BankConfig | None = None,
        reflector: Any = None, cache: CacheConfig | None = None, **client_kwargs: Any,
    ) -> "MemoryEngine":
        """An engine on a Chroma server (``chroma run --path ./data --port 8000``); same behaviour."""
        if not isinstance(port, int) or isinstance(port, bool):
            raise InvalidInputError(f"port must be an int, not {type(port).__name__}")
        return cls(f"http://{host}:{port}", embedder=embedder, config=config, reflector=reflector, cache=cache,
                   _store_factory=lambda: ChromaStore.http(host, port, **client_kwargs))

    def __repr__(self) -> str:
        return f"MemoryEngine({self.path!r})"

    # ---- plumbing -------------------------------------------------------------------------------
    @property
    def store(self) -> ChromaStore:
        with self._lock:
            if self._store is None:
                self._store = self._store_factory()
            return self._store

    def _live_index(self, bank_id: str, *, create: bool = False) -> LiveIndex:
        """The bank's index, loaded from Chroma on first use. Reads of a bank that does not exist
        get an empty, uncached index: only a write (``create=True``) creates the bank."""
        with self._lock:
            index = self._indexes.get(bank_id)
            if index is None:
                try:
                    col = self.store.open_bank(bank_id, embedder=self.embedder.name, dim=self.embedder.dim,
                                               create=create)
                except NotFoundError:
                    return LiveIndex(self.store, None, self.embedder.dim)
                index = LiveIndex(self.store, col, self.embedder.dim).load(
                    None if self._snapshots is None else functools.partial(self._snapshots.restore, bank_id))
                self._indexes.put(bank_id, index)
            return index

    def _evicted(self, bank_id: str, index: LiveIndex) -> None:
        """An idle bank left the cache: keep its derived indexes on disk for a fast reopen."""
        if self._snapshots is not None:
            try:
                self._snapshots.save(bank_id, index)
            except Exception as exc:  # noqa: BLE001 - a snapshot is an optimisation: the next open rebuilds
                logging.getLogger("hindsight.snapshot").warning("could not snapshot bank %r: %s", bank_id, exc)

    def _queue(self, bank_id: str) -> BackgroundQueue:
        """The bank's background queue (its jobs run in order on the engine's shared worker pool)."""
        return self._pool.queue(bank_id)

    def drain(self, timeout: float | None = 60.0) -> bool:
        """Wait for background reflection of every bank to finish. False if it timed out."""
        if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout < 0):
            raise InvalidInputError(f"timeout must be None or a number of seconds >= 0, not {timeout!r}")
        return self._pool.drain(timeout)

    def background_failures(self) -> list[Any]:
        """Background jobs that failed after their retries (each with its error), for every bank."""
        return self._pool.failures()

    # ---- banks ----------------------------------------------------------------------------------
    def bank(self, bank_id: str, **options: Any) -> MemoryBank:
        """A handle on the bank ``bank_id`` (created on first write).

        Keyword options override this engine's :class:`BankConfig` for this handle, e.g.
        ``engine.bank("alice", keep_raw=False)``. Unknown options raise
        :class:`~hindsight_core.errors.UnknownOptionError`.
        """
        validate_bank_id(bank_id)
        config = validate_options(BankConfig, self.config, options) if options else self.config
        return MemoryBank(self, bank_id, config)

    def banks(self) -> list[str]:
        """Ids of every bank in the store, sorted."""
        return self.store.list_banks()

    def delete_bank(self, bank_id: str, *, missing_ok: bool = False) -> None:
        """Hard-delete a bank: every vector, record and index entry of it is removed.

        Raises:
            NotFoundError: the bank does not exist (unless ``missing_ok``).
        """
        validate_bank_id(bank_id)
        self._pool.close_queue(bank_id)  # pending reflections finish first, so nothing writes into a deleted bank
        with self._lock:
            index = self._indexes.pop(bank_id, None)
            if index is not None:
                with index.lock:
                    index.units.clear()
            if self._snapshots is not None:
                self._snapshots.discard(bank_id)
            dropped = self.store.drop_bank(bank_id)
        if not dropped and not missing_ok:
            raise NotFoundError(f"no bank named {bank_id!r}; engine.banks() lists the existing ones")

    adelete_bank = _async_twin(delete_bank)
    abanks = _async_twin(banks)

    # ---- lifecycle ------------------------------------------------------------------------------
    def close(self) -> None:
        """Finish background work and stop its threads, snapshot and release in-memory indexes
        (and an in-memory store's data). The engine stays usable: it reopens what it needs."""
        pool, self._pool = self._pool, WorkerPool(self.cache_config.workers)
        pool.close()
        with self._lock:
            for bank_id, index in self._indexes.clear():
                self._evicted(bank_id, index)
            if self._store is not None:
                self._store.close()
                self._store = None

    def __enter__(self) -> "MemoryEngine":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def iter_banks(self) -> Iterator[MemoryBank]:
        for bank_id in self.banks():
            yield self.bank(bank_id)
