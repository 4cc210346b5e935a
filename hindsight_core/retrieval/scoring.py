"""Feature scoring of a candidate pool: weighted z-scores plus score propagation along sessions.

Each candidate gets a row of raw features (cosine with the query and with its topic, BM25, its session's BM25, whether the query
names its speaker, closeness to the query's time window, and extra columns such as the graph
activation). Columns are standardised over the pool and summed with
their weights; then each unit inherits a share of its previous and next unit's score, because in a
conversation the answer and the question that prompted it sit side by side.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

import numpy as np

from hindsight_core.retrieval.channels import temporal_score
from hindsight_core.retrieval.config import RecallConfig
from hindsight_core.retrieval.types import BankIndex

__all__ = ["PoolScorer"]


@dataclass(slots=True)
class PoolScorer:
    """Scores any pool of unit ids for one query; caches cosines across calls."""

    index: BankIndex
    cfg: RecallConfig
    qvec: np.ndarray
    keyword: Mapping[str, float]
    window: tuple[float, float] | None
    sessions: Mapping[str, float]
    named: frozenset[str]
    topic: np.ndarray | None = None  # the query's topic vector (retrieval/topic.py), when it named a speaker
    _cos: dict[str, float] = field(default_factory=dict)
    _ctx: dict[str, float] = field(default_factory=dict)

    def cosines(self, ids: list[str]) -> np.ndarray:
        new = [i for i in ids if i not in self._cos]
        if new:
            self._cos.update(zip(new, (self.index.vectors(new) @ self.qvec).tolist()))
        return np.fromiter((self._cos[i] for i in ids), dtype=np.float64, count=len(ids))

    def topic_cosines(self, ids: list[str]) -> np.ndarray:
        """Cosine of the query's topic vector with each unit (computed per call: pools are small)."""
        assert self.topic is not None
        return (self.index.vectors(ids) @ self.topic).astype(np.float64)

    def context_cosines(self, ids: list[str]) -> np.ndarray:
        """Cosine of the query with each unit's context-window embedding."""
        new = [i for i in ids if i not in self._ctx]
        if new:
            units = self.index.units
            own = self.cosines(new)  # a unit without a context window stands for itself
            for r, i in enumerate(new):
                ctx = units[i].context
                self._ctx[i] = float(ctx @ self.qvec) if ctx is not None else float(own[r])
        return np.fromiter((self._ctx[i] for i in ids), dtype=np.float64, count=len(ids))

    def _context_columns(self, ids: list[str]) -> list[tuple[np.ndarray, float]]:
        """The unit read after the one before it, and the unit read before the one after it (the
        next unit's context window holds this unit's text too)."""
        cfg = self.cfg
        if not (cfg.context_weight or cfg.context_next_weight):
            return []
        own = self.context_cosines(ids)
        out = [(own, cfg.context_weight)]
        if cfg.context_next_weight:
            graph = self.index.graph
            nxt = [graph.prev_next(i)[1] for i in ids]
            known = [j for j in nxt if j is not None and j in self.index.units]
            later = dict(zip(known, self.context_cosines(known))) if known else {}
            col = np.fromiter((later.get(j, own[r]) if j is not None else own[r] for r, j in enumerate(nxt)),
                              dtype=np.float64, count=len(ids))
            out.append((col, cfg.context_next_weight))
        return out

    def score(self, ids: list[str], extras: Mapping[str, tuple[np.ndarray, float]] | None = None) -> np.ndarray:
        """Fused score of each id in ``ids`` (same order)."""
        if not ids:
            return np.zeros(0)
        cfg, units = self.cfg, self.index.units
        cos = self.cosines(ids)
        cols = [cos]
        weights = [cfg.dense_weight]
        if cfg.topic_weight and self.topic is not None:
            cols.append(self.topic_cosines(ids))
            weights.append(cfg.topic_weight)
        if cfg.keyword_weight:
            cols.append(np.fromiter((self.keyword.get(i, 0.0) for i in ids), dtype=np.float64, count=len(ids)))
            weights.append(cfg.keyword_weight)
        if cfg.session_weight:
            cols.append(np.fromiter((self.sessions.get(units[i].session_id or "", 0.0) for i in ids),
                                    dtype=np.float64, count=len(ids)))
            weights.append(cfg.session_weight)
        if cfg.speaker_weight and self.named:
            cols.append(np.fromiter((1.0 if (units[i].speaker or "").lower() in self.named else 0.0 for i in ids),
                                    dtype=np.float64, count=len(ids)))
            weights.append(cfg.speaker_weight)
        if cfg.temporal_weight and self.window is not None:
            w = self.window
            cols.append(np.fromiter((temporal_score(units[i], w, cfg.temporal_slack_days * 86400.0) for i in ids),
                                    dtype=np.float64, count=len(ids)))
            weights.append(cfg.temporal_weight)
        for col, w in [*self._context_columns(ids), *(extras or {}).values()]:
            if w:
                cols.append(np.asarray(col, dtype=np.float64))
                weights.append(w)
        f = np.column_stack(cols)
        sd = f.std(axis=0)
        sd[sd == 0] = 1.0
        base = ((f - f.mean(axis=0)) / sd) @ np.asarray(weights)
        if not (cfg.prev_weight or cfg.next_weight):
            return base
        return base + self._propagate(ids, base)

    def _propagate(self, ids: list[str], base: np.ndarray) -> np.ndarray:
        graph = self.index.graph
        pos = {i: r for r, i in enumerate(ids)}
        floor = float(base.min())
        prev = np.full(len(ids), floor)
        nxt = np.full(len(ids), floor)
        for r, i in enumerate(ids):
            before, after = graph.prev_next(i)
            if before is not None and (j := pos.get(before)) is not None:
                prev[r] = base[j]
            if after is not None and (j := pos.get(after)) is not None:
                nxt[r] = base[j]
        return self.cfg.prev_weight * prev + self.cfg.next_weight * nxt
