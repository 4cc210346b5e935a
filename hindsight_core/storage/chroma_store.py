"""The Chroma store: the single source of truth for every bank.

One Chroma collection per bank gives strict isolation (a query can only ever see its own bank)
and makes a bank the unit of sharding and of deletion. The same code runs on an embedded
``PersistentClient``, an in-memory client (its own Chroma database, so engines never share
state) and a Chroma server through ``HttpClient``.

Each bank may have a second collection, its change log (``hslog-...``): one entry per written or
deleted unit, read by other engines to catch up (``LiveIndex.catch_up``). It exists only where
another engine can read the store: on a server, or a folder that two engines of this process have
open. An engine alone on its folder writes none, and a log is created by the first write recorded.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import shutil
import threading
import time
import uuid
import weakref
from collections import OrderedDict
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from hindsight_core.errors import InvalidInputError, NotFoundError, SchemaVersionError, StorageError
from hindsight_core.storage._chroma_cache import PERSIST_EVERY_WRITE

__all__ = ["ChromaStore", "BANK_KEY", "validate_bank_id", "snapshot_name", "placeholder_vectors"]

log = logging.getLogger("hindsight.storage")

BANK_KEY = "hindsight_bank"
_PREFIX = "hs-"
_LOG_PREFIX = "hslog-"  # a bank's change log; never listed as a bank (no BANK_KEY in its metadata)
_SNAP_PREFIX = "hsnap-"  # a bank's index snapshot on a server (storage/chroma_snapshot.py); never listed either
#: A reader re-reads log entries this much older than the newest it has seen, so a writer whose
#: entry lands late (or whose clock is behind, up to this much) is still seen.
LOG_WINDOW_NS = 10 * 1_000_000_000
_SCAN_BATCH = 2_000


def validate_bank_id(bank: Any) -> str:
    """The bank id in its one normal form (see ``_validate.normalise_bank_id``); bad ids raise."""
    from hindsight_core._validate import normalise_bank_id

    return normalise_bank_id(bank)


def _collection_name(bank: str) -> str:
    """The bank's Chroma collection name: a keyed hash of the id, so names (in server listings, logs,
    backups' file lists) do not show who the bank belongs to. ``HINDSIGHT_BANK_NAME_KEY`` sets the key
    (default: a fixed library key, which still hides the id from a reader who does not guess it);
    ``HINDSIGHT_READABLE_BANK_NAMES=1`` opts in to the readable names of earlier releases."""
    import hmac
    import os

    if os.environ.get("HINDSIGHT_READABLE_BANK_NAMES") == "1":
        return _readable_collection_name(bank)
    key = os.environ.get("HINDSIGHT_BANK_NAME_KEY", "hindsight-memory/bank-name/v1").encode()
    return f"{_PREFIX}k-{hmac.new(key, bank.encode(), hashlib.sha256).hexdigest()[:40]}"


def _readable_collection_name(bank: str) -> str:
    """The name earlier releases used (readable slug plus a hash of the exact id); stores written with
    it keep opening: :meth:`ChromaStore._name_of` looks for it when the keyed name is not there."""
    slug = re.sub(r"[^a-zA-Z0-9_-]+", "-", bank).strip("-_")[:40] or "bank"
    digest = hashlib.sha256(bank.encode()).hexdigest()[:16]
    return f"{_PREFIX}{slug}-{digest}"


_KEYED_NAME = re.compile(r"^hs-k-[0-9a-f]{40}$")


def _is_legacy_name(name: str) -> bool:
    """Whether ``name`` is a bank collection named the readable way of earlier releases."""
    return name.startswith(_PREFIX) and not _KEYED_NAME.match(name)


#: Change-log handles kept open, most recently used first (about 12.5 KB each). A bank whose handle
#: was dropped reopens it by name on its next write or read, so a process that touches many banks
#: does not keep one per bank it ever saw.
LOG_HANDLES = 2048


def placeholder_vectors(records: Sequence[Any]) -> np.ndarray:
    """One-dimensional vectors for ``records`` of a collection that is read by id or metadata alone
    (a change log, a server's index snapshot): Chroma wants a vector per record."""
    return np.ones((len(records), 1), dtype=np.float32)


def _log_name(bank_collection: str) -> str:
    return _LOG_PREFIX + bank_collection[len(_PREFIX):]


def snapshot_name(bank_collection: str) -> str:
    """The collection holding the index snapshot of the bank stored in ``bank_collection`` (same
    length as its change log's name, so within Chroma's name limit for every bank name)."""
    return _SNAP_PREFIX + bank_collection[len(_PREFIX):]


def _gone(exc: BaseException) -> bool:
    text = str(exc).lower()
    return "does not exist" in text or "not found" in text or "404" in text


#: Words of SQLite, the OS and Chroma's Rust core when a write finds no room (lower case).
_FULL_WORDS = ("database or disk is full", "no space left", "disk is full", "sqlite_full", "disk quota exceeded",
               "not enough space")
#: Chroma's own log compaction fails like this when its folder's disk is full.
_COMPACTION_WORDS = ("error in compaction", "compaction")
#: Below this many free bytes a compaction failure is reported as a full disk.
LOW_DISK_BYTES = 64 * 1024 * 1024


def _chain(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        yield exc
        exc = exc.__cause__ or exc.__context__  # type: ignore[assignment]


def disk_full(exc: BaseException, path: str | None = None) -> bool:
    """Whether ``exc`` says the disk is full: ``ENOSPC``/``EDQUOT``, SQLite's "database or disk is
    full", or a Chroma compaction error while the store's disk has under :data:`LOW_DISK_BYTES` free."""
    import errno
    import shutil

    for err in _chain(exc):
        if isinstance(err, OSError) and err.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)):
            return True
        text = str(err).lower()
        if any(w in text for w in _FULL_WORDS):
            return True
        if path and any(w in text for w in _COMPACTION_WORDS):
            try:
                return shutil.disk_usage(path).free < LOW_DISK_BYTES
            except OSError:
                return False
    return False


def _storage_error(action: str, exc: Exception, path: str | None = None) -> StorageError:
    if disk_full(exc, path):
        where = f"the disk holding {path!r}" if path else "the disk of the Chroma store"
        return StorageError(
            f"Chroma failed to {action}: {where} is full ({exc}). Free disk space (or move the store to a bigger "
            "disk) and retry the call. A capture that raised this was undone, unless this message says the "
            "undo failed too."
        )
    return StorageError(f"Chroma failed to {action}: {exc}")


class ChromaStore:
    """Thin, typed access to Chroma collections, one per bank."""

    def __init__(self, client: Any, *, description: str, owned_database: str | None = None,
                 folder_lock: str | None = None, server: bool = False, path: str | None = None) -> None:
        self.client = client
        self.path = path  # the folder of an embedded store (None in memory or on a server)
        #: Whether writes are recorded in each bank's change log: only a store another engine can
        #: share (a folder or a server) needs one; an in-memory store is this engine's alone.
        self.logs_changes = owned_database is None
        self.writer = uuid.uuid4().hex  # this store's id in change-log entries (its own are skipped)
        self._logs: OrderedDict[str, Any] = OrderedDict()  # bank collection id -> its change-log collection
        self._logs_lock = threading.Lock()
        #: Whether banks may live under the readable names of earlier releases, so opening a bank
        #: first looks for one (a Chroma call per open). False for a folder whose collections were
        #: all checked at open (no other process can add one while this one holds the folder).
        self.legacy_names = True
        self._scrub_pending = False  # a wipe of deleted data failed and is to be retried
        self.read_only = False  # opened read-only: every write raises (see ``persistent``)
        self.secure_delete = False  # wipe deleted bytes from the folder's files (embedded folders only)
        self._copy: str | None = None  # the private copy a read-only store reads
        #: An in-memory store's folder in RAM (``path``, storage/_ram_folder.py) is removed by this at
        #: close, collection or exit.
        self._ram_finalizer: weakref.finalize | None = None
        self._server = server
        self.description = description
        self._owned_database = owned_database
        self._folder_lock = folder_lock  # key from storage._folder_lock (embedded folders only)
        self._torn: dict[str, str] = {}  # collection id -> why its vector files were reset on open
        #: Whether a crash may have left vector files Chroma cannot load (``ensure_readable`` then
        #: probes each collection once). False only for the first opener of a cleanly closed folder.
        self._may_be_torn = True

    # ---- construction -------------------------------------------------------------------------
    @classmethod
    def persistent(cls, path: str, *, read_only: bool | None = None, secure_delete: bool = True,
                   hnsw_cache: int | None = None) -> "ChromaStore":
        """The embedded store in folder ``path``, created (crash-safely) if missing.

        ``read_only=None`` opens a folder this process cannot write read-only; ``True`` always does.
        A read-only store is read from a private copy: recall, get and export work, writes raise.
        ``hnsw_cache``: collections whose HNSW index Chroma keeps loaded (see ``storage/_chroma_cache.py``;
        applied only where every collection is safe to evict and no other engine shares the folder).
        """
        import chromadb
        from chromadb.config import Settings

        from hindsight_core.storage import _chroma_cache, _folder_init, _folder_lock, _repair

        if read_only or (read_only is None and _folder_init.is_read_only(path)):
            copy = _folder_init.read_only_copy(path)
            try:
                torn = _repair.reset_torn_segments(copy)  # the copy is private: mending it changes nothing of the user's
                client = chromadb.PersistentClient(path=copy, settings=Settings(anonymized_telemetry=False))
                client.list_collections(limit=1)
            except Exception as exc:  # noqa: BLE001
                shutil.rmtree(copy, ignore_errors=True)
                raise StorageError(f"could not open the Chroma store at {path!r} read-only ({exc})") from exc
            store = cls(client, description=f"embedded Chroma at {path} (read-only)", path=path)
            store._note_torn(torn)
            store.read_only, store._copy, store.logs_changes = True, copy, False
            return store
        lock = _folder_lock.acquire(path)  # one process per folder; see storage/_folder_lock.py
        try:
            first = _folder_lock.holders(lock) <= 1
            torn: dict[str, str] | None = {}  # None: closed cleanly, so no file can be torn
            if first:  # first opener in this process; see _folder_init on SQLite
                _folder_init.prepare_folder(path)  # a kill at any moment of a creation leaves a folder that opens
                torn = _repair.check_on_open(path)  # a kill mid-write of Chroma's vector files
            evictable = hnsw_cache is not None and first and _chroma_cache.store_is_evictable(path)
            names = _chroma_cache.collection_names(path) if first else None
            client = chromadb.PersistentClient(path=path, settings=Settings(anonymized_telemetry=False))
            if evictable:
                _chroma_cache.bound_hnsw_cache(client, hnsw_cache)
            client.list_collections(limit=1)
        except StorageError:
            _folder_lock.release(lock)
            raise
        except Exception as exc:  # noqa: BLE001 - any failure here means an unusable folder
            _folder_lock.release(lock)
            raise StorageError(
                f"could not open a Chroma store at {path!r} ({exc}). Is it a Chroma folder written by a "
                "compatible chromadb, and not in use by an incompatible version? Point `path` to a new folder "
                "to start fresh."
            ) from exc
        store = cls(client, description=f"embedded Chroma at {path}", folder_lock=lock, path=path)
        store._note_torn(torn or {})
        store._may_be_torn = torn is not None
        store.secure_delete = secure_delete
        store.legacy_names = names is None or any(_is_legacy_name(n) for n in names)
        return store

    @classmethod
    def ephemeral(cls, *, hnsw_cache: int | None = None) -> "ChromaStore":
        """A store of this process alone, gone when it closes: a private folder in RAM
        (``storage/_ram_folder.py``: its own Chroma core, freed at close, and Chroma's index cache
        bounded by ``hnsw_cache`` as in a folder), or Chroma's in-memory client where there is no
        RAM file system with room."""
        from hindsight_core.storage import _ram_folder

        folder = _ram_folder.create()
        if folder is not None:
            try:
                store = cls.persistent(folder, read_only=False, secure_delete=False, hnsw_cache=hnsw_cache)
            except BaseException:
                _ram_folder.remove(folder)
                raise
            store.description = "in-memory Chroma"
            store.logs_changes = False  # no other engine can open a private folder
            # an engine never closed: its Chroma core is stopped and the folder removed when the store is
            # collected or at exit (the finalizer holds the client, not the store)
            store._ram_finalizer = weakref.finalize(store, _ram_folder.remove, folder, os.getpid(), store.client)
            return store
        return cls._shared_memory()

    @classmethod
    def _shared_memory(cls) -> "ChromaStore":
        """Chroma's in-memory client: a database of this store's own in the process's one in-memory core."""
        import chromadb
        from chromadb.config import Settings

        settings = Settings(anonymized_telemetry=False, is_persistent=False)
        database = f"hindsight_{uuid.uuid4().hex}"  # a database of its own: engines never share state
        chromadb.AdminClient(settings).create_database(database)
        client = chromadb.EphemeralClient(settings=settings, database=database)
        store = cls(client, description="in-memory Chroma", owned_database=database)
        store.legacy_names = False  # a database of its own, made just now
        return store

    @classmethod
    def http(cls, host: str, port: int, **kwargs: Any) -> "ChromaStore":
        import chromadb
        from chromadb.config import Settings

        try:
            client = chromadb.HttpClient(
                host=host, port=port, settings=Settings(anonymized_telemetry=False), **kwargs
            )
            client.heartbeat()
        except Exception as exc:  # noqa: BLE001
            raise StorageError(
                f"could not reach a Chroma server at {host}:{port} ({exc}). Start one with "
                "`chroma run --path ./chroma-data --port 8000` or check host/port."
            ) from exc
        return cls(client, description=f"Chroma server at {host}:{port}", server=True)

    @property
    def remote(self) -> bool:
        """Whether this is a Chroma server: its writes wait on the network, and release the GIL
        meanwhile (an embedded store's bindings hold it for a whole write)."""
        return self._server

    @property
    def may_change_elsewhere(self) -> bool:
        """Whether another writer can change this store behind this engine's back.

        True for a server (other processes) and for a folder that another engine of this process
        also has open; False for an in-memory store or a folder this engine alone holds (the folder
        lock keeps other processes out), so the per-bank indexes never need to look for changes.
        """
        if self._server:
            return True
        if self._folder_lock is None:  # in memory (or closed)
            return False
        if not self._folder_lock:  # no advisory locks on this platform: assume others may write
            return True
        from hindsight_core.storage import _folder_lock

        return _folder_lock.holders(self._folder_lock) > 1

    def close(self) -> None:
        if self._copy is not None:
            try:
                self.client.close()
            except Exception:  # noqa: BLE001 - best effort on shutdown
                pass
            shutil.rmtree(self._copy, ignore_errors=True)
            self._copy = None
        if self._owned_database is not None:
            import chromadb
            from chromadb.config import Settings

            try:
                chromadb.AdminClient(Settings(anonymized_telemetry=False, is_persistent=False)).delete_database(
                    self._owned_database
                )
            except Exception:  # noqa: BLE001 - best effort on shutdown
                pass
            self._owned_database = None
        if self._folder_lock is not None:
            try:  # stop Chroma's cached system so a later open in this process reads the folder afresh
                self.client.close()
            except Exception:  # noqa: BLE001 - best effort on shutdown
                pass
            if self._scrub_pending:  # a wipe after a delete failed: try once more
                self.scrub()
            from hindsight_core.storage import _folder_lock, _repair

            if self.path is not None and _folder_lock.holders(self._folder_lock) <= 1:
                try:
                    _repair.mark_closed(self.path)
                except OSError:  # best effort: without the mark the next open checks every segment
                    pass
            _folder_lock.release(self._folder_lock)
            self._folder_lock = None
        if self._ram_finalizer is not None:  # an in-memory store's folder (its Chroma core is stopped above)
            self._ram_finalizer()
            self._ram_finalizer = None

    def _check_writable(self, action: str) -> None:
        if self.read_only:
            raise StorageError(
                f"cannot {action}: {self.description} is open read-only (its folder is not writable by this "
                "process, or read_only=True). Recall, get and export work; to write, open a writable folder "
                "(e.g. a copy of this one)."
            )

    # ---- banks ----------------------------------------------------------------------------------
    def open_bank(self, bank: str, *, embedder: str, dim: int, create: bool = True) -> Any:
        """Return the bank's collection, creating it if asked; checks it was made with this embedder."""
        name = self._name_of(bank)
        if create and self.read_only:
            try:
                return self.open_bank(bank, embedder=embedder, dim=dim, create=False)
            except NotFoundError:
                self._check_writable(f"create bank {bank!r}")
        try:
            if create:
                col = self.client.get_or_create_collection(
                    name,
                    embedding_function=None,
                    configuration={"hnsw": {"space": "cosine", **PERSIST_EVERY_WRITE}},
                    metadata={BANK_KEY: bank, "embedder": embedder, "dim": dim, "schema_version": 1},
                )
            else:
                col = self.client.get_collection(name, embedding_function=None)
        except Exception as exc:  # noqa: BLE001
            if not create:
                raise NotFoundError(f"no bank named {bank!r} in {self.description}") from None
            raise _storage_error(f"open bank {bank!r}", exc, self.path) from exc
        meta = col.metadata or {}
        if meta.get(BANK_KEY) != bank:
            raise StorageError(f"collection {name!r} does not belong to bank {bank!r}; the store may be foreign")
        if int(meta.get("schema_version", 1)) > 1:
            raise SchemaVersionError(
                f"bank {bank!r} was written by a newer hindsight-memory (schema {meta.get('schema_version')}); "
                "upgrade this installation to read it"
            )
        if int(meta.get("dim", dim)) != dim:
            raise InvalidInputError(
                f"bank {bank!r} holds {meta.get('dim')}-dimensional vectors from {meta.get('embedder')!r}, but this "
                f"engine's embedder {embedder!r} makes {dim}-dimensional ones. Open it with the same embedder, or "
                "export and re-import the bank to re-embed it."
            )
        return col  # its change log is created by the first write another engine must hear of (``_record``)

    def _note_torn(self, torn: dict[str, str]) -> None:
        for collection, why in torn.items():
            log.warning("%s: the vector files of collection %s were torn (%s), most likely by a crash mid-write; "
                        "they were reset and are rebuilt from its records when its bank opens",
                        self.description, collection, why)
        self._torn = dict(torn)

    def ensure_readable(self, col: Any, what: str, embed: Callable[[Sequence[str]], Any],
                        failed: BaseException | None = None) -> bool:
        """Give back a collection of an embedded folder whose vector files a crash tore (``storage/_repair.py``).

        ``what`` names it in messages (``"bank 'x'"``). A collection whose torn files were reset
        before Chroma opened the folder, or that Chroma cannot load (probed with one ``count()``, which
        loads its vector index, and only when the folder was not closed cleanly; with ``failed``, an
        error a read of ``col`` raised, nothing is probed), gets every record written back with
        ``embed(texts)``, the bank's embedder: a warning says so and True is returned.
        """
        folder = self._copy or self.path
        if folder is None or col is None:  # in memory, or a server's files, which are the server's
            return False
        from hindsight_core.storage import _repair

        why, reset, exc = self._torn.pop(str(col.id), None), False, failed
        if why is None and exc is None:
            if not self._may_be_torn:  # every file was whole at the last close and no crash since
                return False
            try:
                col.count()
                return False
            except Exception as probe:  # noqa: BLE001
                exc = probe
        if why is None:
            if _repair.is_unloadable(exc):
                why, reset = f"Chroma cannot load them: {exc}", True
            elif failed is not None and _repair.is_missing_vectors(exc):
                why = "records without vectors, as after a reset that was not finished"
            elif failed is not None:
                return False
            else:
                raise _storage_error(f"open {what}", exc, self.path) from exc
        log.warning("%s: Chroma's vector files were torn, most likely by a crash mid-write (%s); writing its "
                    "records back with their vectors", what, why)
        try:
            if reset:
                _repair.reset_in_child(folder, str(col.id))
            restored = _repair.restore_vectors(col, embed)
        except Exception as err:  # noqa: BLE001
            raise StorageError(
                f"{what}: Chroma's vector files in {folder!r} were torn (a crash mid-write) and rebuilding them "
                f"failed ({err}). The records are intact in chroma.sqlite3: open the folder again to retry, or "
                "export the bank from a copy of the folder and import it into a new one."
            ) from err
        log.warning("%s: vector index rebuilt from %d records", what, restored)
        return True

    def _name_of(self, bank: str) -> str:
        """The collection of ``bank``: the keyed name, or the readable name of a store from an earlier release."""
        name = _collection_name(bank)
        legacy = _readable_collection_name(bank)
        if legacy != name and self.legacy_names:
            try:
                self.client.get_collection(legacy, embedding_function=None)
                return legacy
            except Exception:  # noqa: BLE001 - not there: the keyed name it is
                pass
        return name

    def list_banks(self) -> list[str]:
        try:
            cols = self.client.list_collections()
        except Exception as exc:  # noqa: BLE001
            raise _storage_error("list banks", exc) from exc
        return sorted(
            (c.metadata or {}).get(BANK_KEY) for c in cols if c.name.startswith(_PREFIX) and (c.metadata or {}).get(BANK_KEY)
        )

    def describe_banks(self) -> list[dict[str, Any]]:
        """Every bank with the embedder and dimension it was made with and its record count, sorted by id.

        Opens no bank, so banks made with another embedder are listed instead of refused.
        """
        try:
            cols = [c for c in self.client.list_collections()
                    if c.name.startswith(_PREFIX) and (c.metadata or {}).get(BANK_KEY)]
            rows = [{"bank": c.metadata[BANK_KEY], "embedder": c.metadata.get("embedder"),
                     "dim": c.metadata.get("dim"), "records": c.count()} for c in cols]
        except Exception as exc:  # noqa: BLE001
            raise _storage_error("list banks", exc) from exc
        return sorted(rows, key=lambda r: r["bank"])

    def drop_bank(self, bank: str) -> bool:
        """Delete a bank and its change log (a reader of the log then finds the bank gone)."""
        self._check_writable(f"delete bank {bank!r}")
        name = self._name_of(bank)
        try:
            self.client.delete_collection(name)
        except Exception as exc:  # noqa: BLE001
            if _gone(exc):
                return False
            raise _storage_error(f"delete bank {bank!r}", exc, self.path) from exc
        try:
            self.client.delete_collection(_log_name(name))
        except Exception as exc:  # noqa: BLE001 - a bank of an older version has no log
            if not _gone(exc):
                raise _storage_error(f"delete the change log of bank {bank!r}", exc, self.path) from exc
        with self._logs_lock:
            for key in [k for k, v in self._logs.items() if getattr(v, "name", None) == _log_name(name)]:
                del self._logs[key]
        self._drop_snapshot(bank, name)
        self.scrub()
        return True

    def _drop_snapshot(self, bank: str, name: str) -> None:
        """Delete the bank's index snapshot collection (a server's; see ``storage/chroma_snapshot.py``)
        when the bank or some of its units are deleted: deleted data must not stay readable there either
        (the next eviction or close of the bank stores a new one)."""
        if not self._server:
            return
        try:
            self.client.delete_collection(snapshot_name(name))
        except Exception as exc:  # noqa: BLE001 - most banks have no snapshot
            if not _gone(exc):
                raise _storage_error(f"delete the index snapshot of bank {bank!r}", exc, self.path) from exc

    # ---- change log -----------------------------------------------------------------------------
    def _keep_log(self, key: str, log: Any) -> None:
        with self._logs_lock:
            self._logs[key] = log
            self._logs.move_to_end(key)
            while len(self._logs) > LOG_HANDLES:
                self._logs.popitem(last=False)

    def _log_of(self, col: Any, *, create: bool = False) -> Any | None:
        """The change log of the bank ``col``, reopened by name when its handle was dropped (None for
        a store without logs, and for a bank none of whose writes was recorded yet unless ``create``).

        Raises:
            NotFoundError: the bank was deleted, or dropped and created again, since ``col`` was opened.
        """
        if not self.logs_changes:
            return None
        key = str(getattr(col, "id", ""))
        with self._logs_lock:
            log = self._logs.get(key)
            if log is not None:
                self._logs.move_to_end(key)
                return log
        name = getattr(col, "name", None)
        if name is None:
            return None
        try:  # the bank must still be the one ``col`` names: a recreated bank has a new id
            current = self.client.get_collection(name, embedding_function=None)
        except Exception as exc:  # noqa: BLE001
            if _gone(exc):
                raise NotFoundError("the bank was deleted (or dropped and created again) by another process") from None
            raise _storage_error("open the change log", exc, self.path) from exc
        if str(current.id) != key:
            raise NotFoundError("the bank was dropped and created again by another process")
        try:
            if create:
                log = self.client.get_or_create_collection(
                    _log_name(name), embedding_function=None, metadata={"hindsight_log_of": name},
                    configuration={"hnsw": dict(PERSIST_EVERY_WRITE)})
            else:
                log = self.client.get_collection(_log_name(name), embedding_function=None)
        except Exception as exc:  # noqa: BLE001
            if not create and _gone(exc):
                return None  # no write of this bank was recorded yet: nothing to catch up on
            raise _storage_error("open the change log", exc, self.path) from exc
        self.ensure_readable(log, f"the change log of {name}", placeholder_vectors)
        self._keep_log(key, log)
        return log

    def _record(self, col: Any, ids: Sequence[str], op: str) -> None:
        """Note in the bank's change log that ``ids`` were written (``put``) or deleted.

        Only while another engine may read this store (a server, or a folder another engine of this
        process opened): an engine alone on its folder writes no log, which saves a log collection
        per bank and a second Chroma write per write. Checked *after* the write landed, so nothing
        is missed: an engine that joins after this check opened the folder after the write and reads
        it from Chroma when it loads the bank; one that joined before it gets the entry, timed after
        its own load began, so its next catch-up reads the unit again.
        """
        if not ids or not self.may_change_elsewhere:
            return
        log = self._log_of(col, create=True)
        if log is None:
            return
        ts = time.time_ns()
        unique = list(dict.fromkeys(ids))
        try:
            log.upsert(ids=unique, embeddings=placeholder_vectors(unique),
                       metadatas=[{"ts": ts, "op": op, "w": self.writer}] * len(unique))
        except Exception as exc:  # noqa: BLE001
            raise _storage_error("record a change", exc, self.path) from exc

    def changes(self, col: Any, since_ns: int) -> list[tuple[str, int, str, str]]:
        """Change-log entries of the bank newer than ``since_ns``: ``(unit id, ts, op, writer)``.

        Raises:
            NotFoundError: the bank (and its log) was deleted since ``col`` was opened.
        """
        log = self._log_of(col)
        if log is None:
            return []
        try:
            res = log.get(where={"ts": {"$gt": int(since_ns)}}, include=["metadatas"])
        except Exception as exc:  # noqa: BLE001
            if _gone(exc):
                raise NotFoundError("the bank was deleted (or dropped and created again) by another process") from None
            raise _storage_error("read the change log", exc, self.path) from exc
        return [(i, int(m["ts"]), str(m["op"]), str(m.get("w", ""))) for i, m in zip(res["ids"], res["metadatas"])]

    # ---- index snapshots on a server (storage/chroma_snapshot.py) -------------------------------
    def snapshot_collection(self, col: Any, *, create: bool) -> Any | None:
        """The collection holding the index snapshot of the bank ``col`` (None when it has none and not ``create``)."""
        name = snapshot_name(col.name)
        try:
            if create:
                return self.client.get_or_create_collection(
                    name, embedding_function=None, metadata={"hindsight_snapshot_of": col.name},
                    configuration={"hnsw": dict(PERSIST_EVERY_WRITE)})
            return self.client.get_collection(name, embedding_function=None)
        except Exception as exc:  # noqa: BLE001
            if not create and _gone(exc):
                return None
            raise _storage_error("open the index snapshot", exc, self.path) from exc

    def bank_alive(self, col: Any) -> bool:
        """Whether the bank ``col`` still exists as that collection (not deleted, nor dropped and made again)."""
        try:
            return str(self.client.get_collection(col.name, embedding_function=None).id) == str(col.id)
        except Exception as exc:  # noqa: BLE001
            if _gone(exc):
                return False
            raise _storage_error("open a bank", exc, self.path) from exc

    def log_size(self, col: Any) -> int:
        """How many entries the bank's change log holds (one per unit ever written; 0 without a log)."""
        log = self._log_of(col)
        if log is None:
            return 0
        try:
            return int(log.count())
        except Exception as exc:  # noqa: BLE001
            if _gone(exc):
                raise NotFoundError("the bank was deleted (or dropped and created again) by another process") from None
            raise _storage_error("read the change log", exc, self.path) from exc

    # ---- records --------------------------------------------------------------------------------
    def upsert(self, col: Any, ids: Sequence[str], documents: Sequence[str | None], metadatas: Sequence[dict[str, Any]],
               embeddings: np.ndarray | None) -> None:
        """Write records (over a stored record, Chroma merges the metadata: see ``codec.whole``).
        ``documents`` of None are sent as no document when every one is None (new records keep their
        text in metadata, see ``codec``), else as empty ones: an upsert without documents keeps the
        document of a record it writes over, and with it an older text."""
        self._check_writable("write memory units")
        docs = None if all(d is None for d in documents) else [d or "" for d in documents]
        try:
            col.upsert(
                ids=list(ids),
                metadatas=list(metadatas),
                embeddings=None if embeddings is None else np.asarray(embeddings, dtype=np.float32),
                **({} if docs is None else {"documents": docs}),
            )
        except Exception as exc:  # noqa: BLE001
            raise _storage_error("write memory units", exc, self.path) from exc
        self._record(col, ids, "put")

    def update_metadata(self, col: Any, ids: Sequence[str], metadatas: Sequence[dict[str, Any]]) -> None:
        self._check_writable("update memory units")
        try:
            col.update(ids=list(ids), metadatas=list(metadatas))
        except Exception as exc:  # noqa: BLE001
            raise _storage_error("update memory units", exc, self.path) from exc
        self._record(col, ids, "put")

    @staticmethod
    def get(col: Any, ids: Sequence[str], *, embeddings: bool = False) -> dict[str, tuple[str, dict[str, Any], Any]]:
        """``{id: (document, metadata, embedding|None)}`` for the ids that exist."""
        if not ids or col is None:
            return {}
        include = ["documents", "metadatas"] + (["embeddings"] if embeddings else [])
        try:
            res = col.get(ids=list(ids), include=include)
        except Exception as exc:  # noqa: BLE001
            raise _storage_error("read memory units", exc) from exc
        embs = res.get("embeddings") if embeddings else None
        return {
            i: (res["documents"][n], res["metadatas"][n], None if embs is None else embs[n])
            for n, i in enumerate(res["ids"])
        }

    def delete(self, col: Any, ids: Sequence[str]) -> None:
        self._check_writable("delete memory units")
        try:
            col.delete(ids=list(ids))
        except Exception as exc:  # noqa: BLE001
            raise _storage_error("delete memory units", exc, self.path) from exc
        self._record(col, ids, "delete")
        self._drop_snapshot(str((col.metadata or {}).get(BANK_KEY, col.name)), col.name)  # it holds their text
        self.scrub(ids)

    def scrub(self, deleted_ids: Sequence[str] = ()) -> None:
        """Wipe deleted units' bytes from the files of an embedded folder (see ``storage/_scrub.py``).

        A failure is logged, not raised: the delete has happened; the next delete or ``close()``
        scrubs again.
        """
        if self.path is None or self._folder_lock is None or not self.secure_delete:
            return
        from hindsight_core.storage._scrub import scrub_in_child

        try:
            scrub_in_child(self.path, deleted_ids)
            self._scrub_pending = False
        except Exception as exc:  # noqa: BLE001
            self._scrub_pending = True
            log.warning("could not wipe deleted data from %s (%s); it is wiped at the next delete or close",
                        self.path, exc)

    @staticmethod
    def query_many(col: Any, vectors: np.ndarray, n: int) -> list[list[tuple[str, float]]]:
        """Top ``n`` ids by cosine similarity for each row of ``vectors``, in one call.

        No ``count()`` first: Chroma returns fewer hits when the bank is smaller than ``n``, and a
        count costs a scan that grows with the bank (about 5 ms at 50k units).
        """
        vectors = np.asarray(vectors, dtype=np.float32)
        if col is None or n <= 0 or len(vectors) == 0:
            return [[] for _ in range(len(vectors))]
        try:
            res = col.query(query_embeddings=vectors, n_results=n, include=["distances"])
        except Exception as exc:  # noqa: BLE001
            raise _storage_error("search vectors", exc) from exc
        return [[(i, 1.0 - float(d)) for i, d in zip(ids, dists)]
                for ids, dists in zip(res["ids"], res["distances"])]

    @staticmethod
    def count(col: Any) -> int:
        if col is None:
            return 0
        try:
            return int(col.count())
        except Exception as exc:  # noqa: BLE001
            raise _storage_error("count memory units", exc) from exc

    @staticmethod
    def ids(col: Any) -> list[str]:
        """Every unit id of a bank (no documents, metadata or vectors are read)."""
        out: list[str] = []
        if col is None:
            return out
        while True:
            try:
                res = col.get(include=[], limit=_SCAN_BATCH * 5, offset=len(out))
            except Exception as exc:  # noqa: BLE001
                raise _storage_error("list memory units", exc) from exc
            if not res["ids"]:
                return out
            out += res["ids"]

    @staticmethod
    def scan(col: Any, *, embeddings: bool = False) -> Iterator[tuple[str, str, dict[str, Any], Any]]:
        """Every record of a bank, in batches: ``(id, document, metadata, embedding|None)``."""
        if col is None:
            return
        include = ["documents", "metadatas"] + (["embeddings"] if embeddings else [])
        offset = 0
        while True:
            try:
                res = col.get(include=include, limit=_SCAN_BATCH, offset=offset)
            except Exception as exc:  # noqa: BLE001
                raise _storage_error("read a bank", exc) from exc
            ids = res["ids"]
            if not ids:
                return
            embs = res.get("embeddings") if embeddings else None
            for n, i in enumerate(ids):
                yield i, res["documents"][n], res["metadatas"][n], None if embs is None else embs[n]
            offset += len(ids)
