"""The per-bank in-memory index, rebuilt from Chroma when a bank is opened.

It implements :class:`~hindsight_core.retrieval.types.BankIndex`: light unit records, the keyword
index, the graph index and cached vectors. Chroma stays the source of truth: the index can always
be thrown away and rebuilt by :meth:`LiveIndex.load`.
"""

from __future__ import annotations

import threading
from typing import Any, Sequence

import numpy as np

from hindsight_core.retrieval.types import IndexedUnit
from hindsight_core.storage.chroma_store import ChromaStore
from hindsight_core.storage.codec import to_indexed
from hindsight_core.storage.graph import GraphIndex
from hindsight_core.storage.keyword import KeywordIndex

__all__ = ["LiveIndex"]


class LiveIndex:
    """In-memory view of one bank. Callers hold ``lock`` around reads and writes."""

    def __init__(self, store: ChromaStore, collection: Any, dim: int) -> None:
        self.store = store
        self.collection = collection
        self.dim = dim
        self.units: dict[str, IndexedUnit] = {}
        self.keyword = KeywordIndex()
        self.graph = GraphIndex()
        self._vectors: dict[str, np.ndarray] = {}
        self._cited_by: dict[str, set[str]] = {}  # unit id -> units whose evidence names it
        self.drafts: set[str] = set()  # ids of draft units (corroboration candidates)
        self.next_seq = 0
        self.revision = 0  # bumped on every change, so callers can cache reads
        self.lock = threading.RLock()

    # ---- BankIndex protocol ---------------------------------------------------------------------
    def dense_search(self, vector: np.ndarray, n: int) -> list[tuple[str, float]]:
        return self.dense_search_many(np.asarray(vector, dtype=np.float32).reshape(1, -1), n)[0]

    def dense_search_many(self, vectors: np.ndarray, n: int) -> list[list[tuple[str, float]]]:
        """:meth:`dense_search` for each row of ``vectors``, in one Chroma call."""
        hits = self.store.query_many(self.collection, vectors, n)
        # a unit another process is still writing is not in this index yet
        return [[(i, s) for i, s in row if i in self.units] for row in hits]

    def vectors(self, ids: Sequence[str]) -> np.ndarray:
        if not ids:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self._vectors[i] for i in ids])

    # ---- maintenance ----------------------------------------------------------------------------
    def load(self) -> "LiveIndex":
        """Rebuild everything from Chroma (units in insertion order, then their stored links)."""
        records = [
            (to_indexed(i, doc, meta), emb) for i, doc, meta, emb in self.store.scan(self.collection, embeddings=True)
        ]
        records.sort(key=lambda r: r[0].seq)
        for unit, emb in records:
            self._add(unit, np.asarray(emb, dtype=np.float32), link=False)
        for unit, _ in records:  # links after all nodes exist, whatever the order they were written in
            self._link(unit)
        return self

    def catch_up(self) -> int:
        """Take in units other processes added to (or deleted from) this bank since it was loaded.

        Free when no one else can write (an in-memory store, or a folder only this engine holds);
        otherwise one ``count()`` when nothing changed. When the count differs, only the ids are
        listed and only the missing units are read. Several processes on one bank need a Chroma
        server (an embedded folder is for one process). Returns how many units were added or removed.
        """
        if not self.store.may_change_elsewhere:
            return 0
        with self.lock:
            if self.store.count(self.collection) == len(self.units):
                return 0
            stored = set(self.store.ids(self.collection))
            gone = [i for i in self.units if i not in stored]
            for unit_id in gone:
                self.remove(unit_id)
            missing = [i for i in stored if i not in self.units]
            added: list[tuple[IndexedUnit, Any]] = []
            for start in range(0, len(missing), 1_000):
                found = self.store.get(self.collection, missing[start:start + 1_000], embeddings=True)
                added += [(to_indexed(i, doc, meta), emb) for i, (doc, meta, emb) in found.items()]
            added.sort(key=lambda r: r[0].seq)
            for unit, emb in added:
                self._add(unit, np.asarray(emb, dtype=np.float32), link=False)
            for unit, _ in added:
                self._link(unit)
                for citing in self._cited_by.get(unit.id, ()):  # units that arrived before their evidence
                    if citing in self.units:
                        self.graph.link(citing, unit.id, "evidence")
            return len(gone) + len(added)

    def take_seq(self) -> int:
        seq = self.next_seq
        self.next_seq += 1
        return seq

    def add(self, unit: IndexedUnit, vector: np.ndarray) -> None:
        self._add(unit, vector, link=True)

    def _add(self, unit: IndexedUnit, vector: np.ndarray, *, link: bool) -> None:
        if unit.id in self.units:
            self.remove(unit.id)
        self.units[unit.id] = unit
        self.revision += 1
        self._vectors[unit.id] = vector
        if unit.status == "draft":
            self.drafts.add(unit.id)
        self.keyword.add(unit.id, unit.text)
        self.graph.add(unit)
        self.next_seq = max(self.next_seq, unit.seq + 1)
        if link:
            self._link(unit)

    def _link(self, unit: IndexedUnit) -> None:
        for source_id in unit.evidence_ids:
            self._cited_by.setdefault(source_id, set()).add(unit.id)
            if source_id in self.units:
                self.graph.link(unit.id, source_id, "evidence")

    def replace(self, unit: IndexedUnit) -> None:
        """Metadata changed (status, confidence...): the text and vector stay."""
        vector = self._vectors[unit.id]
        self.remove(unit.id)
        self.add(unit, vector)
        for citing in self._cited_by.get(unit.id, ()):  # remove() dropped their links to it
            if citing in self.units:
                self.graph.link(citing, unit.id, "evidence")

    def remove(self, unit_id: str) -> None:
        unit = self.units.pop(unit_id, None)
        if unit is None:
            return
        self.revision += 1
        self._vectors.pop(unit_id, None)
        self.drafts.discard(unit_id)
        for source_id in unit.evidence_ids:
            self._cited_by.get(source_id, set()).discard(unit_id)
        self.keyword.remove(unit_id)
        self.graph.remove(unit_id)
