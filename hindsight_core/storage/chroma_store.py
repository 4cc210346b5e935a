"""The Chroma store: the single source of truth for every bank.

One Chroma collection per bank gives strict isolation (a query can only ever see its own bank)
and makes a bank the unit of sharding and of deletion. The same code runs on an embedded
``PersistentClient``, an in-memory client (its own Chroma database, so engines never share
state) and a Chroma server through ``HttpClient``.
"""

from __future__ import annotations

import hashlib
import re
import uuid
from typing import Any, Iterator, Sequence

import numpy as np

from hindsight_core.errors import InvalidInputError, NotFoundError, SchemaVersionError, StorageError

__all__ = ["ChromaStore", "BANK_KEY", "validate_bank_id"]

BANK_KEY = "hindsight_bank"
_PREFIX = "hs-"
_SCAN_BATCH = 2_000
_MAX_BANK_ID = 200


def validate_bank_id(bank: Any) -> str:
    if not isinstance(bank, str):
        raise InvalidInputError(f"bank id must be a str, not {type(bank).__name__}")
    if not bank.strip():
        raise InvalidInputError("bank id must be a non-empty string, e.g. engine.bank('alice')")
    if len(bank) > _MAX_BANK_ID or any(ord(c) < 32 for c in bank):
        raise InvalidInputError(f"bank id must be at most {_MAX_BANK_ID} printable characters")
    return bank


def _collection_name(bank: str) -> str:
    """A valid, collision-free Chroma name: readable slug plus a hash of the exact id."""
    slug = re.sub(r"[^a-zA-Z0-9_-]+", "-", bank).strip("-_")[:40] or "bank"
    digest = hashlib.sha256(bank.encode()).hexdigest()[:16]
    return f"{_PREFIX}{slug}-{digest}"


def _check_folder(path: str) -> None:
    """Refuse a ``chroma.sqlite3`` that is not a Chroma database before Chroma migrates (writes) it."""
    import os
    import sqlite3

    db = os.path.join(path, "chroma.sqlite3")
    if not os.path.isfile(db) or os.path.getsize(db) == 0:
        return
    try:
        con = sqlite3.connect(db)  # read-write only so SQLite can recover a crashed writer's journal
        try:
            con.execute("pragma query_only = 1")
            tables = {row[0] for row in con.execute("select name from sqlite_master where type='table'")}
        finally:
            con.close()
    except sqlite3.Error as exc:
        raise StorageError(
            f"could not open a Chroma store at {path!r}: {db} is not a readable SQLite database ({exc}). "
            "Point `path` to a new folder to start fresh, or restore the folder from a backup."
        ) from None
    if tables and not {"collections", "embeddings_queue", "migrations"} <= tables:
        raise StorageError(
            f"could not open a Chroma store at {path!r}: {db} is an SQLite database of another program "
            f"(tables {sorted(tables)[:5]}), left untouched. Point `path` to a new folder to start fresh."
        )


def _storage_error(action: str, exc: Exception) -> StorageError:
    return StorageError(f"Chroma failed to {action}: {exc}")


class ChromaStore:
    """Thin, typed access to Chroma collections, one per bank."""

    def __init__(self, client: Any, *, description: str, owned_database: str | None = None,
                 folder_lock: str | None = None, server: bool = False) -> None:
        self.client = client
        self._server = server
        self.description = description
        self._owned_database = owned_database
        self._folder_lock = folder_lock  # key from storage._folder_lock (embedded folders only)

    # ---- construction -------------------------------------------------------------------------
    @classmethod
    def persistent(cls, path: str) -> "ChromaStore":
        import chromadb
        from chromadb.config import Settings

        from hindsight_core.storage import _folder_lock

        lock = _folder_lock.acquire(path)  # one process per folder; see storage/_folder_lock.py
        try:
            _check_folder(path)
            client = chromadb.PersistentClient(path=path, settings=Settings(anonymized_telemetry=False))
            client.list_collections(limit=1)
        except Exception as exc:  # noqa: BLE001 - any failure here means an unusable folder
            _folder_lock.release(lock)
            raise StorageError(
                f"could not open a Chroma store at {path!r} ({exc}). Is it a Chroma folder written by a "
                "compatible chromadb, and not in use by an incompatible version? Point `path` to a new folder "
                "to start fresh."
            ) from exc
        return cls(client, description=f"embedded Chroma at {path}", folder_lock=lock)

    @classmethod
    def ephemeral(cls) -> "ChromaStore":
        import chromadb
        from chromadb.config import Settings

        settings = Settings(anonymized_telemetry=False, is_persistent=False)
        database = f"hindsight_{uuid.uuid4().hex}"  # a database of its own: engines never share state
        chromadb.AdminClient(settings).create_database(database)
        client = chromadb.EphemeralClient(settings=settings, database=database)
        return cls(client, description="in-memory Chroma", owned_database=database)

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
            from hindsight_core.storage import _folder_lock

            _folder_lock.release(self._folder_lock)
            self._folder_lock = None

    # ---- banks ----------------------------------------------------------------------------------
    def open_bank(self, bank: str, *, embedder: str, dim: int, create: bool = True) -> Any:
        """Return the bank's collection, creating it if asked; checks it was made with this embedder."""
        name = _collection_name(bank)
        try:
            if create:
                col = self.client.get_or_create_collection(
                    name,
                    embedding_function=None,
                    configuration={"hnsw": {"space": "cosine"}},
                    metadata={BANK_KEY: bank, "embedder": embedder, "dim": dim, "schema_version": 1},
                )
            else:
                col = self.client.get_collection(name, embedding_function=None)
        except Exception as exc:  # noqa: BLE001
            if not create:
                raise NotFoundError(f"no bank named {bank!r} in {self.description}") from None
            raise _storage_error(f"open bank {bank!r}", exc) from exc
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
        return col

    def list_banks(self) -> list[str]:
        try:
            cols = self.client.list_collections()
        except Exception as exc:  # noqa: BLE001
            raise _storage_error("list banks", exc) from exc
        return sorted(
            (c.metadata or {}).get(BANK_KEY) for c in cols if c.name.startswith(_PREFIX) and (c.metadata or {}).get(BANK_KEY)
        )

    def drop_bank(self, bank: str) -> bool:
        try:
            self.client.delete_collection(_collection_name(bank))
            return True
        except Exception as exc:  # noqa: BLE001
            if "does not exist" in str(exc).lower() or "not found" in str(exc).lower():
                return False
            raise _storage_error(f"delete bank {bank!r}", exc) from exc

    # ---- records --------------------------------------------------------------------------------
    @staticmethod
    def upsert(col: Any, ids: Sequence[str], documents: Sequence[str], metadatas: Sequence[dict[str, Any]],
               embeddings: np.ndarray | None) -> None:
        try:
            col.upsert(
                ids=list(ids),
                documents=list(documents),
                metadatas=list(metadatas),
                embeddings=None if embeddings is None else np.asarray(embeddings, dtype=np.float32),
            )
        except Exception as exc:  # noqa: BLE001
            raise _storage_error("write memory units", exc) from exc

    @staticmethod
    def update_metadata(col: Any, ids: Sequence[str], metadatas: Sequence[dict[str, Any]]) -> None:
        try:
            col.update(ids=list(ids), metadatas=list(metadatas))
        except Exception as exc:  # noqa: BLE001
            raise _storage_error("update memory units", exc) from exc

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

    @staticmethod
    def delete(col: Any, ids: Sequence[str]) -> None:
        try:
            col.delete(ids=list(ids))
        except Exception as exc:  # noqa: BLE001
            raise _storage_error("delete memory units", exc) from exc

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
