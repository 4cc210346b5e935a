"""Maximal marginal relevance re-ranking over unit embeddings (pure function).

Example:
    >>> import numpy as np
    >>> vecs = np.array([[1, 0], [1, 0], [0, 1]], dtype=np.float32)
    >>> mmr(["a", "b", "c"], [3.0, 2.9, 1.0], vecs, lam=0.5, k=2)
    ['a', 'c']
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

__all__ = ["mmr"]


def mmr(ids: Sequence[str], scores: Sequence[float], vectors: np.ndarray, lam: float, k: int) -> list[str]:
    """Greedy MMR: pick ``argmax lam * rel - (1 - lam) * max_sim_to_picked``; relevance is min-max scaled."""
    n = len(ids)
    if n == 0 or k <= 0:
        return []
    rel = np.asarray(scores, dtype=np.float64)
    span = rel.max() - rel.min()
    rel = (rel - rel.min()) / span if span > 0 else np.ones_like(rel)
    sims = vectors @ vectors.T
    picked: list[int] = []
    best_sim = np.full(n, -np.inf)
    available = np.ones(n, dtype=bool)
    for _ in range(min(k, n)):
        penalty = np.where(np.isfinite(best_sim), best_sim, 0.0)
        value = np.where(available, lam * rel - (1.0 - lam) * penalty, -np.inf)
        i = int(np.argmax(value))
        picked.append(i)
        available[i] = False
        best_sim = np.maximum(best_sim, sims[i])
    return [ids[i] for i in picked]
