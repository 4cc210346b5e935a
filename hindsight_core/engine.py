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

import os
import threading
from typing import Any, Iterator

from hindsight_core.bank import MemoryBank, _async_twin
from hindsight_core.config import BankConfig, validate_options
from hindsight_core.embeddings import Embedder, resolve_embedder
from hindsight_core.errors import InvalidInputError, NotFoundError
from hindsight_core.storage.chroma_store import ChromaStore, validate_bank_id
from hindsight_core.lifecycle.background import BackgroundQueue
from hindsight_core.lifecycle.reflect import RuleReflector
from hindsight_core.storage.live_index import LiveIndex

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
        secure_delete: bool = True,
        _store_factory: Any = None,
    ) -> None:
        if not isinstance(path, (str, os.PathLike)):
            raise InvalidInputError(f"path must be a folder path, not {type(path).__name__}")
        if config is not None and not isinstance(config, BankConfig):
            raise InvalidInputError("config must be a hindsight_core.BankConfig")
        self.path = os.fspath(path)
        self.config = config or BankConfig()
        self.embedder: Embedder = resolve_embedder(embedder)
        if read_only is not None and not isinstance(read_only, bool):
            raise InvalidInputError(f"read_only must be True, False or None, not {read_only!r}")
        if not isinstance(secure_delete, bool):
            raise InvalidInputError(f"secure_delete must be True or False, not {secure_delete!r}")
        self._store_factory = _store_factory or (lambda: ChromaStore.persistent(
            self.path, read_only=read_only, secure_delete=secure_delete))
        self._store: ChromaStore | None = None
        self.reflector = reflector or RuleReflector()
        self.llm = llm
        self._indexes: dict[str, LiveIndex] = {}
        self._queues: dict[str, BackgroundQueue] = {}
        # Lock order (see storage/rwlock.py): a bank's lock, then ``_lock``. ``_lock`` is a leaf held
        # only for dict look-ups; opening the store and loading a bank run under their own locks.
        self._lock = threading.RLock()
        self._store_lock = threading.Lock()
        self._load_locks: dict[str, threading.Lock] = {}

    @classmethod
    def ephemeral(cls, *, embedder: Any = None, config: BankConfig | None = None,
                  reflector: Any = None, llm: Any = None) -> "MemoryEngine":
        """An engine whose memory lives only in this process (tests, notebooks, demos)."""
        return cls(":memory:", embedder=embedder, config=config, reflector=reflector, llm=llm,
                   _store_factory=ChromaStore.ephemeral)

    @classmethod
    def from_http(
        cls, host: str = "localhost", port: int = 8000, *, embedder: Any = None, config: BankConfig | None = None,
        reflector: Any = None, **client_kwargs: Any,
    ) -> "MemoryEngine":
        """An engine on a Chroma server (``chroma run --path ./data --port 8000``); same behaviour."""
        if not isinstance(port, int) or isinstance(port, bool):
            raise InvalidInputError(f"port must be an int, not {type(port).__name__}")
        return cls(f"http://{host}:{port}", embedder=embedder, config=config, reflector=reflector,
                   _store_factory=lambda: ChromaStore.http(host, port, **client_kwargs))

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
        with self._lock:
            index = self._indexes.get(bank_id)
            if index is not None:
                return index
        with self._load_lock(bank_id):
            with self._lock:
                index = self._indexes.get(bank_id)
            if index is not None:  # another thread loaded it while this one waited
                return index
            try:
                col = self.store.open_bank(bank_id, embedder=self.embedder.name, dim=self.embedder.dim,
                                           create=create)
            except NotFoundError:
                return LiveIndex(self.store, None, self.embedder.dim)
            index = LiveIndex(self.store, col, self.embedder.dim).load()
            with self._lock:
                self._indexes[bank_id] = index
            return index

    def _queue(self, bank_id: str) -> BackgroundQueue:
        with self._lock:
            queue = self._queues.get(bank_id)
            if queue is None:
                queue = self._queues[bank_id] = BackgroundQueue(f"reflect-{bank_id}")
            return queue

    def drain(self, timeout: float | None = 60.0) -> bool:
        """Wait for background reflection of every bank to finish. False if it timed out."""
        if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout < 0):
            raise InvalidInputError(f"timeout must be None or a number of seconds >= 0, not {timeout!r}")
        with self._lock:
            queues = list(self._queues.values())
        return all(q.drain(timeout) for q in queues)

    def background_failures(self) -> list[Any]:
        """Background jobs that failed after their retries (each with its error), for every bank."""
        with self._lock:
            return [f for q in self._queues.values() for f in q.failures]

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
        with self._lock:
            queue = self._queues.pop(bank_id, None)
        if queue is not None:
            queue.close()  # pending reflections finish first, so nothing writes into a deleted bank
        load_lock = self._load_lock(bank_id)
        with load_lock:  # no load of this bank starts until it is dropped
            with self._lock:
                index = self._indexes.get(bank_id)
            if index is not None:
                with index.lock:  # waits for a write in progress; order: bank lock, then _lock
                    index.dropped = True  # writers holding a reference start again on a fresh bank
                    with self._lock:
                        if self._indexes.get(bank_id) is index:
                            del self._indexes[bank_id]
                    dropped = self.store.drop_bank(bank_id)
                    index.clear()
            else:
                dropped = self.store.drop_bank(bank_id)
        if not dropped and not missing_ok:
            raise NotFoundError(f"no bank named {bank_id!r}; engine.banks() lists the existing ones")

    def _forget_index(self, bank_id: str, index: LiveIndex) -> None:
        """Drop ``index`` from the registry (if still registered): the next call loads the bank again."""
        with self._lock:
            if self._indexes.get(bank_id) is index:
                del self._indexes[bank_id]

    def _load_lock(self, bank_id: str) -> threading.Lock:
        with self._lock:
            return self._load_locks.setdefault(bank_id, threading.Lock())

    adelete_bank = _async_twin(delete_bank)
    abanks = _async_twin(banks)

    # ---- lifecycle ------------------------------------------------------------------------------
    def close(self) -> None:
        """Finish background work, release in-memory indexes (and an in-memory store's data)."""
        with self._lock:
            queues, self._queues = list(self._queues.values()), {}
        for queue in queues:
            queue.close()
        with self._lock:
            indexes, self._indexes = list(self._indexes.values()), {}
        for index in indexes:
            with index.lock:  # a write in progress finishes first; later ones find the bank dropped
                index.dropped = True
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
