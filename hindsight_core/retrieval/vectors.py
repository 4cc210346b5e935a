"""An exact, in-memory cosine index: a dense numpy matrix with O(1) add and remove.

Rows stay packed (a removed row is filled with the last one), so a search is one mat-vec product
over exactly the live vectors, with no mask. It backs :class:`~hindsight_core.retrieval.memory_index.InMemoryBankIndex`
and the engine's hot set (the units recall may return by default; archived units are not in it).

Example:
    >>> import numpy as np
    >>> vs = VectorSet(2)
    >>> vs.add("a", np.array([1.0, 0.0])); vs.add("b", np.array([0.0, 1.0]))
    >>> vs.search(np.array([0.6, 0.8]), 1)
    [('b', 0.800000011920929)]
    >>> vs.discard("b"); len(vs), "b" in vs
    (1, False)
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

__all__ = ["VectorSet"]


class VectorSet:
    """Unit-normalised vectors by id; :meth:`search` returns exact top-n cosine matches."""

    def __init__(self, dim: int) -> None:
        self.dim = dim
        self._matrix = np.zeros((64, dim), dtype=np.float32)
        self._ids: list[str] = []
        self._row: dict[str, int] = {}

    def __len__(self) -> int:
        return len(self._ids)

    def __contains__(self, item: object) -> bool:
        return item in self._row

    def add(self, item: str, vector: np.ndarray) -> None:
        vec = np.asarray(vector, dtype=np.float32).reshape(-1)
        row = self._row.get(item)
        if row is None:
            row = len(self._ids)
            if row == self._matrix.shape[0]:  # grow by doubling: amortised O(1)
                self._matrix = np.concatenate([self._matrix, np.zeros_like(self._matrix)])
            self._ids.append(item)
            self._row[item] = row
        self._matrix[row] = vec

    def discard(self, item: str) -> None:
        row = self._row.pop(item, None)
        if row is None:
            return
        last = len(self._ids) - 1
        if row != last:  # keep rows packed: the last vector takes the freed row
            moved = self._ids[last]
            self._matrix[row] = self._matrix[last]
            self._ids[row] = moved
            self._row[moved] = row
        self._ids.pop()

    def get(self, item: str) -> np.ndarray:
        return self._matrix[self._row[item]]

    def rows(self, items: Sequence[str]) -> np.ndarray:
        return self._matrix[[self._row[i] for i in items]]

    def search(self, vector: np.ndarray, n: int) -> list[tuple[str, float]]:
        """Top ``n`` ``(id, cosine)`` pairs, best first (ties in insertion order)."""
        size = len(self._ids)
        if n <= 0 or size == 0:
            return []
        sims = self._matrix[:size] @ np.asarray(vector, dtype=np.float32).reshape(-1)
        if n < size:
            top = np.argpartition(-sims, n - 1)[:n]
            top = top[np.argsort(-sims[top], kind="stable")]
        else:
            top = np.argsort(-sims, kind="stable")
        return [(self._ids[i], float(sims[i])) for i in top]

    def export(self) -> tuple[list[str], np.ndarray]:
        """(ids, their vectors as rows in the same order): the whole set, for a snapshot."""
        return list(self._ids), self._matrix[:len(self._ids)]

    @classmethod
    def from_rows(cls, ids: Sequence[str], matrix: np.ndarray) -> "VectorSet":
        """The set :meth:`export` described (``matrix`` is used as is when the set may write into it:
        a writable, C-ordered float32 array; otherwise it is copied)."""
        if matrix.ndim != 2 or matrix.shape[0] != len(ids):
            raise ValueError(f"{len(ids)} ids for a matrix of shape {matrix.shape}")
        out = cls(matrix.shape[1])
        if not len(ids):
            return out
        writable = matrix.dtype == np.float32 and matrix.flags.writeable and matrix.flags.c_contiguous
        out._matrix = matrix if writable else np.array(matrix, dtype=np.float32)
        out._ids = list(ids)
        out._row = dict(zip(out._ids, range(len(out._ids))))
        return out
