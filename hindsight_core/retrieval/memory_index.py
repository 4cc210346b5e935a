"""An in-memory :class:`~hindsight_core.retrieval.types.BankIndex`: exact cosine over a numpy matrix.

Useful as a test fake for the engine's recall path and for fast retrieval experiments: it holds the
same keyword and graph indexes the engine keeps, and answers ``dense_search`` by brute force.

Example:
    >>> import numpy as np
    >>> from hindsight_core.retrieval.types import IndexedUnit
    >>> idx = InMemoryBankIndex()
    >>> u = IndexedUnit("a", 0, "hello", "world", "active", "user", None, None, None, 0.0, (), 0.5, 1.0, 0.0)
    >>> idx.add(u, np.array([1.0, 0.0], dtype=np.float32))
    >>> idx.dense_search(np.array([1.0, 0.0], dtype=np.float32), 5)
    [('a', 1.0)]
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from hindsight_core.retrieval.types import IndexedUnit
from hindsight_core.storage.graph import GraphIndex
from hindsight_core.storage.keyword import KeywordIndex

__all__ = ["InMemoryBankIndex"]


class InMemoryBankIndex:
    """Units, keyword index, graph index and an exact dense index, all in memory."""

    def __init__(self, keyword: KeywordIndex | None = None, graph: GraphIndex | None = None) -> None:
        self.units: dict[str, IndexedUnit] = {}
        self.keyword = keyword or KeywordIndex()
        self.graph = graph or GraphIndex()
        self._row: dict[str, int] = {}
        self._ids: list[str | None] = []
        self._matrix: np.ndarray | None = None
        self._free: list[int] = []

    def add(self, unit: IndexedUnit, vector: np.ndarray) -> None:
        """Index ``unit`` in every index; ``vector`` is its unit-normalised embedding."""
        if unit.id in self.units:
            self.remove(unit.id)
        vec = np.asarray(vector, dtype=np.float32).reshape(-1)
        if self._matrix is None:
            self._matrix = np.zeros((16, vec.shape[0]), dtype=np.float32)
        if self._free:
            row = self._free.pop()
        else:
            row = len(self._ids)
            self._ids.append(None)
            if row >= self._matrix.shape[0]:
                self._matrix = np.vstack([self._matrix, np.zeros_like(self._matrix)])
        self._matrix[row] = vec
        self._ids[row] = unit.id
        self._row[unit.id] = row
        self.units[unit.id] = unit
        self.keyword.add(unit.id, unit.text, group=unit.session_id)
        self.graph.add(unit)

    def remove(self, unit_id: str) -> None:
        row = self._row.pop(unit_id, None)
        if row is None:
            return
        assert self._matrix is not None
        self._matrix[row] = 0.0
        self._ids[row] = None
        self._free.append(row)
        self.units.pop(unit_id, None)
        self.keyword.remove(unit_id)
        self.graph.remove(unit_id)

    def dense_search(self, vector: np.ndarray, n: int) -> list[tuple[str, float]]:
        if self._matrix is None or not self._row or n <= 0:
            return []
        size = len(self._ids)
        sims = self._matrix[:size] @ np.asarray(vector, dtype=np.float32).reshape(-1)
        live = np.fromiter((i is not None for i in self._ids), dtype=bool, count=size)
        sims = np.where(live, sims, -np.inf)
        n = min(n, int(live.sum()))
        top = np.argpartition(-sims, n - 1)[:n] if n < size else np.arange(size)
        top = top[np.argsort(-sims[top], kind="stable")]
        return [(self._ids[i], float(sims[i])) for i in top if self._ids[i] is not None]  # type: ignore[misc]

    def vectors(self, ids: Sequence[str]) -> np.ndarray:
        assert self._matrix is not None or not ids
        if not ids:
            return np.zeros((0, 0 if self._matrix is None else self._matrix.shape[1]), dtype=np.float32)
        return self._matrix[[self._row[i] for i in ids]]  # type: ignore[index]
