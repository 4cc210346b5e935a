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
import weakref
from typing import Any, Iterator

from hindsight_core._bank_cache import BankCache, CacheConfig
from hindsight_core.bank import MemoryBank, _async_twin
from hindsight_core.config import BankConfig, validate_options
from hindsight_core.embeddings import Embedder, resolve_embedder
from hindsight_core.errors import HindsightError, InvalidInputError, NotFoundError, StorageError
from hindsight_core.storage.chroma_store import ChromaStore, validate_bank_id
from hindsight_core.lifecycle.background import BackgroundQueue, WorkerPool
from hindsight_core.lifecycle.reflect import RuleReflector
from hindsight_core.read_priority import ReadPriority
from hindsight_core.storage.chroma_snapshot import ChromaSnapshots
from hindsight_core.storage.live_index import LiveIndex
from hindsight_core.storage.snapshot import SnapshotDir
from hindsight_core.storage.unit_store import StoreHost

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
        read_only: ``None`` (default) opens a folder this process cannot write read-only; ``True``
            always opens it read-only (recall, get and export work; writes raise ``StorageError``).
        cache: A :class:`~hindsight_core.CacheConfig`: how many banks (and units) stay
            loaded, the background pool's size and index snapshots. Defaults: 1,000 banks,
            250,000 units, 4 background threads, snapshots on (beside an embedded folder; on a
            server, stored in the server so every process opens large banks from them).
        secure_delete: After ``delete``/``delete_bank`` wipe the deleted bytes from every file of
            the folder (default). It rewrites ``chroma.sqlite3`` per delete call (seconds for a
            store of many thousand units); ``False`` leaves them in SQLite's free pages until reused.

    Nothing is opened or loaded until first use, so constructing an engine is free.
    Use :meth:`ephemeral` for an in-memory engine and :meth:`from_http` for a Chroma server.

    Deployment: an embedded folder serves one process (any number of threads); a second process
    opening it gets a :class:`~hindsight_core.errors.StorageError`, because Chroma's embedded
    client is not process-safe. For several processes, serve a folder no process holds with
    ``chroma run --path DIR`` and give each one ``MemoryEngine.from_http(...)``: every write is
    recorded in the bank's change log in Chroma, so each process's next recall sees what the
    others added, superseded, invalidated, archived or deleted, and a bank dropped and created
    again elsewhere is opened afresh.

    Threads: one documented lock order (``storage/rwlock.py``). Recalls of a bank share its read
    lock; a capture embeds before it takes the write lock; loading a bank holds only that bank's
    load lock; ``delete_bank`` during captures returns, and later captures get a fresh bank.
    """

    def __init__(
        self,
        path: str | os.PathLike[str] = "./.hindsight",
        *,
        embedder: Any = None,
        config: BankConfig | None = None,
        reflector: Any = None,
        llm: Any = None,
        read_only: bool | None = None,
        cache: CacheConfig | None = None,
        secure_delete: bool = True,
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
        if read_only is not None and not isinstance(read_only, bool):
            raise InvalidInputError(f"read_only must be True, False or None, not {read_only!r}")
        self.cache_config = cache or CacheConfig()
        if not isinstance(secure_delete, bool):
            raise InvalidInputError(f"secure_delete must be True or False, not {secure_delete!r}")
        self._store_factory = _store_factory or (lambda: ChromaStore.persistent(
            self.path, read_only=read_only, secure_delete=secure_delete, hnsw_cache=self.cache_config.chroma_indexes))
        self._store: ChromaStore | None = None
        self.reflector = reflector or RuleReflector()
        self.llm = llm
        self._pool = WorkerPool(self.cache_config.workers)
        # loaded banks, bounded (LRU); see _bank_cache.py for when a bank counts as in use
        self._indexes: BankCache[LiveIndex] = BankCache(
            self.cache_config.max_banks, self.cache_config.max_units,
            busy=lambda bank_id: self._pool.busy(bank_id, hurry=True), evicted=self._evicted)
        self._snapshots: SnapshotDir | ChromaSnapshots | None = (  # a folder: files beside it (from_http: in the server)
            SnapshotDir(self.path, min_units=self.cache_config.snapshot_min_units, save=self.cache_config.snapshots)
            if _store_factory is None else None)
        # Lock order (see storage/rwlock.py): a bank's lock, then ``_lock``. ``_lock`` is a leaf held
        # only for dict look-ups; opening the store and loading a bank run under their own locks.
        self._lock = threading.RLock()
        self._store_lock = threading.Lock()
        # One per bank being loaded, gone when no thread holds it (not one per bank ever touched).
        self._load_locks: weakref.WeakValueDictionary[str, threading.Lock] = weakref.WeakValueDictionary()
        self._host: StoreHost | None = None
        self._reads = ReadPriority()  # recalls in flight on any bank: writes' heavy steps let them go first

    @classmethod
    def ephemeral(cls, *, embedder: Any = None, config: BankConfig | None = None,
                  reflector: Any = None, llm: Any = None, cache: CacheConfig | None = None) -> "MemoryEngine":
        """An engine whose memory lives only in this process (tests, notebooks, demos).

        Its Chroma store sits in a private folder in RAM (``/dev/shm``) that is removed when the
        engine closes, so its memory is bounded like a folder's and given back at close; where no
        RAM file system has room, Chroma's in-memory client (``storage/_ram_folder.py``).
        """
        engine = cls(":memory:", embedder=embedder, config=config, reflector=reflector, llm=llm, cache=cache,
                     _store_factory=lambda: ChromaStore.ephemeral(hnsw_cache=engine.cache_config.chroma_indexes))
        return engine

    @classmethod
    def from_http(
        cls, host: str = "localhost", port: int = 8000, *, embedder: Any = None, config: BankConfig | None = None,
        reflector: Any = None, cache: CacheConfig | None = None, **client_kwargs: Any,
    ) -> "MemoryEngine":
        """An engine on a Chroma server (``chroma run --path ./data --port 8000``); same behaviour."""
        if not isinstance(port, int) or isinstance(port, bool):
            raise InvalidInputError(f"port must be an int, not {type(port).__name__}")
        engine = cls(f"http://{host}:{port}", embedder=embedder, config=config, reflector=reflector, cache=cache,
                     _store_factory=lambda: ChromaStore.http(host, port, **client_kwargs))
        if engine.cache_config.snapshots:  # kept in the server, where every process reads them
            engine._snapshots = ChromaSnapshots(min_units=engine.cache_config.snapshot_min_units)
        return engine

    def __repr__(self) -> str:
        return f"MemoryEngine({self.path!r})"

    @property
    def read_only(self) -> bool:
        """Whether the store was opened read-only (writes raise :class:`StorageError`)."""
        return self.store.read_only

    # ---- plumbing -------------------------------------------------------------------------------
    @property
    def store(self) -> ChromaStore:
        store = self._store
        if store is not None:
            return store
        with self._store_lock:  # opening a folder takes a while: not under the registry lock
            if self._store is None:
                self._store = self._store_factory()
            return self._store

    def _live_index(self, bank_id: str, *, create: bool = False) -> LiveIndex:
        """The bank's index, loaded from Chroma on first use. Reads of a bank that does not exist
        get an empty, uncached index: only a write (``create=True``) creates the bank.

        Loading holds only this bank's load lock, so other banks' calls never wait for it; the
        registry lock ``_lock`` is held for dict look-ups alone (it is safe under a bank lock).
        """
        index = self._indexes.get(bank_id)  # the cache has its own lock
        if index is not None:
            return index
        with self._load_lock(bank_id):
            index = self._indexes.get(bank_id)
            if index is not None:  # another thread loaded it while this one waited
                return index
            try:
                col = self.store.open_bank(bank_id, embedder=self.embedder.name, dim=self.embedder.dim,
                                           create=create)
            except NotFoundError:
                return LiveIndex(self.store, None, self.embedder.dim)
            what = f"bank {bank_id!r}"
            self.store.ensure_readable(col, what, self.embedder.embed)  # a crash may have torn its vector files
            restore = None if self._snapshots is None else functools.partial(self._snapshots.restore, bank_id)
            try:
                index = LiveIndex(self.store, col, self.embedder.dim).load(restore)
            except StorageError as exc:  # records without vectors: a repair cut off by a crash
                if not self.store.ensure_readable(col, what, self.embedder.embed, failed=exc):
                    raise
                index = LiveIndex(self.store, col, self.embedder.dim).load()
            self._indexes.put(bank_id, index)
        return index

    def _store_host(self) -> StoreHost:
        """What every bank's :class:`UnitStore` needs from this engine, as plain callables."""
        if self._host is None:
            from hindsight_core._lifecycle_ops import after_capture

            self._host = StoreHost(
                open_index=lambda bank_id, create: self._live_index(bank_id, create=create),
                forget_index=self._forget_index,
                embedder=lambda: self.embedder,
                submit=lambda bank_id, key, job, block_s, delay_s=None: self._queue(bank_id).submit(
                    key, job, delay_s=delay_s, **({} if block_s is None else {"block_s": block_s})),
                llm=lambda: self.llm,
                reflector=lambda: self.reflector,
                after_write=after_capture,
                reads=self._reads,
            )
        return self._host

    def _evicted(self, bank_id: str, index: LiveIndex) -> None:
        """An idle bank left the cache: keep its derived indexes for a fast reopen (on disk beside an
        embedded folder; in the server, uploaded by the background pool so the evicting call never waits)."""
        if self._snapshots is None:
            return
        if isinstance(self._snapshots, ChromaSnapshots) and not index.dropped:
            try:
                self._queue(bank_id).submit("snapshot", lambda: self._save_snapshot(bank_id, index), block_s=0.0)
                return
            except HindsightError:  # the pool is closing or the queue full: save it here
                pass
        self._save_snapshot(bank_id, index)

    def _save_snapshot(self, bank_id: str, index: LiveIndex) -> None:
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
        bank_id = validate_bank_id(bank_id)  # the one normal form: look-alike spellings are one bank
        config = validate_options(BankConfig, self.config, options) if options else self.config
        return MemoryBank(self, bank_id, config)

    def banks(self) -> list[str]:
        """Ids of every bank in the store, sorted."""
        return self.store.list_banks()

    def delete_bank(self, bank_id: str, *, missing_ok: bool = False) -> None:
        """Hard-delete a bank: every vector, record and index entry of it is removed, also under old,
        unnormalised spellings of the id that a store written by an earlier release may hold.

        Raises:
            NotFoundError: the bank does not exist (unless ``missing_ok``).
        """
        bank_id = validate_bank_id(bank_id)
        from hindsight_core.storage.bank_ids import legacy_aliases

        dropped = False
        for name in [bank_id, *legacy_aliases(self.store, bank_id)]:  # old spellings (" alice", NFD...) too
            self._pool.close_queue(name)  # pending reflections finish first, so nothing writes into a deleted bank
            with self._load_lock(name):  # no load of this bank starts until it is dropped
                index = self._indexes.get(name)
                if index is not None:
                    with index.lock:  # waits for a write in progress; order: bank lock, then _lock
                        index.dropped = True  # writers holding a reference start again on a fresh bank
                        self._indexes.pop(name)
                        dropped = self.store.drop_bank(name) or dropped
                        index.clear()
                else:
                    dropped = self.store.drop_bank(name) or dropped
                if self._snapshots is not None:
                    self._snapshots.discard(name)
        if not dropped and not missing_ok:
            raise NotFoundError(f"no bank named {bank_id!r}; engine.banks() lists the existing ones")

    def _forget_index(self, bank_id: str, index: LiveIndex | None) -> None:
        """Drop ``index`` (None: whatever is loaded) from the registry if still registered: the next call
        loads the bank again from Chroma."""
        with self._lock:
            loaded = self._indexes.get(bank_id)
            if loaded is not None and (index is None or loaded is index):
                self._indexes.pop(bank_id)

    def _load_lock(self, bank_id: str) -> threading.Lock:
        with self._lock:
            return self._load_locks.setdefault(bank_id, threading.Lock())

    adelete_bank = _async_twin(delete_bank)
    abanks = _async_twin(banks)

    # ---- lifecycle ------------------------------------------------------------------------------
    def close(self) -> None:
        """Finish background work and stop its threads, snapshot and release in-memory indexes
        (and an in-memory store's data). The engine stays usable: it reopens what it needs."""
        pool, self._pool = self._pool, WorkerPool(self.cache_config.workers)
        pool.close()
        for bank_id, index in self._indexes.clear():
            with index.lock:  # a write in progress finishes first; later ones find the bank dropped
                index.dropped = True
                self._evicted(bank_id, index)
        with self._store_lock:
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
