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
from hindsight_core.retrieval.vectors import VectorSet
from hindsight_core.storage.graph import GraphIndex
from hindsight_core.storage.keyword import KeywordIndex

__all__ = ["InMemoryBankIndex"]


class InMemoryBankIndex:
    """Units, keyword index, graph index and an exact dense index, all in memory."""

    def __init__(self, keyword: KeywordIndex | None = None, graph: GraphIndex | None = None) -> None:
        self.units: dict[str, IndexedUnit] = {}
        self.keyword = keyword or KeywordIndex()
        self.graph = graph or GraphIndex()
        self._vectors: VectorSet | None = None  # created with the first vector (its size)

    def add(self, unit: IndexedUnit, vector: np.ndarray) -> None:
        """Index ``unit`` in every index; ``vector`` is its unit-normalised embedding."""
        if unit.id in self.units:
            self.remove(unit.id)
        vec = np.asarray(vector, dtype=np.float32).reshape(-1)
        if self._vectors is None:
            self._vectors = VectorSet(vec.shape[0])
        self._vectors.add(unit.id, vec)
        self.units[unit.id] = unit
        self.keyword.add(unit.id, unit.text, group=unit.session_id)
        self.graph.add(unit)

    def remove(self, unit_id: str) -> None:
        if self.units.pop(unit_id, None) is None:
            return
        assert self._vectors is not None
        self._vectors.discard(unit_id)
        self.keyword.remove(unit_id)
        self.graph.remove(unit_id)

    def dense_search(self, vector: np.ndarray, n: int, *, archived: bool = False) -> list[tuple[str, float]]:
        """Exact top ``n`` by cosine over every unit (statuses are filtered by the caller)."""
        return [] if self._vectors is None else self._vectors.search(vector, n)

    def vectors(self, ids: Sequence[str]) -> np.ndarray:
        if not ids:
            return np.zeros((0, 0 if self._vectors is None else self._vectors.dim), dtype=np.float32)
        assert self._vectors is not None
        return self._vectors.rows(ids)
