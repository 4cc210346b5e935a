"""Rank fusion: reciprocal-rank fusion and weighted z-score fusion (pure functions).

Example:
    >>> rrf_fuse({"dense": [("a", 0.9), ("b", 0.5)], "keyword": [("b", 7.0)]}, k=60)[0][0]
    'b'
    >>> zscore_fuse({"dense": {"a": 0.9, "b": 0.5}, "keyword": {"b": 7.0}}, {"dense": 1.0, "keyword": 2.0})[0][0]
    'b'
"""

from __future__ import annotations

import math
from typing import Mapping, Sequence

__all__ = ["rrf_fuse", "zscore_fuse", "zscores"]


def rrf_fuse(ranked: Mapping[str, Sequence[tuple[str, float]]], k: int = 60,
             weights: Mapping[str, float] | None = None) -> list[tuple[str, float]]:
    """Reciprocal-rank fusion: ``sum_c w_c / (k + rank_c)``; best first, ties by id."""
    scores: dict[str, float] = {}
    for channel, hits in ranked.items():
        w = 1.0 if weights is None else weights.get(channel, 0.0)
        for rank, (doc, _) in enumerate(hits, start=1):
            scores[doc] = scores.get(doc, 0.0) + w / (k + rank)
    return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))


def zscores(values: Mapping[str, float], missing: float | None = None) -> dict[str, float]:
    """Standardise ``values`` to zero mean and unit variance (all-equal values give zeros)."""
    if not values:
        return {}
    n = len(values)
    mean = sum(values.values()) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in values.values()) / n) or 1.0
    return {doc: (v - mean) / sd for doc, v in values.items()}


def zscore_fuse(features: Mapping[str, Mapping[str, float]], weights: Mapping[str, float],
                pool: Sequence[str] | None = None) -> list[tuple[str, float]]:
    """Weighted sum of per-feature z-scores over ``pool`` (default: every id seen); ids a feature
    did not score get ``min(0, its lowest score)``. Best first, ties by id."""
    ids = list(pool) if pool is not None else sorted({d for f in features.values() for d in f})
    total = dict.fromkeys(ids, 0.0)
    for name, values in features.items():
        w = weights.get(name, 0.0)
        if not w or not values:
            continue
        floor = min(0.0, min(values.values()))
        z = zscores({d: values.get(d, floor) for d in ids})
        for d in ids:
            total[d] += w * z[d]
    return sorted(total.items(), key=lambda kv: (-kv[1], kv[0]))
