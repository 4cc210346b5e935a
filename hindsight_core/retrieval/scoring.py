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

__all__ = ["PoolScorer", "standardised"]


def standardised(f: np.ndarray, over: np.ndarray | None = None) -> np.ndarray:
    """Each column of ``f`` as z-scores over its rows, or over the rows the mask ``over`` marks
    (a constant column becomes zeros)."""
    ref = f if over is None else f[over]
    sd = ref.std(axis=0)
    sd[sd == 0] = 1.0
    return (f - ref.mean(axis=0)) / sd


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
    _topic: dict[str, float] = field(default_factory=dict)
    _last_units: tuple[list[str], np.ndarray] | None = None  # the pool unit_features was last asked for
    _raw: dict[str, tuple[float, ...]] = field(default_factory=dict)  # a unit's own features (_unit_features)
    _adj: dict[str, tuple[str | None, str | None]] = field(default_factory=dict)  # its previous and next unit

    def cosines(self, ids: list[str]) -> np.ndarray:
        new = [i for i in ids if i not in self._cos]
        if new:
            self._cos.update(zip(new, (self.index.vectors(new) @ self.qvec).tolist()))
        return np.fromiter((self._cos[i] for i in ids), dtype=np.float64, count=len(ids))

    def topic_cosines(self, ids: list[str]) -> np.ndarray:
        """Cosine of the query's topic vector with each unit, cached like :meth:`cosines`."""
        assert self.topic is not None
        new = [i for i in ids if i not in self._topic]
        if new:
            self._topic.update(zip(new, (self.index.vectors(new) @ self.topic).tolist()))
        return np.fromiter((self._topic[i] for i in ids), dtype=np.float64, count=len(ids))

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

    def adjacent(self, ids: list[str]) -> list[tuple[str | None, str | None]]:
        """``graph.prev_next`` of each id, cached: a recall asks for the pool's neighbours three times."""
        adj, prev_next = self._adj, self.index.graph.prev_next
        for i in ids:
            if i not in adj:
                adj[i] = prev_next(i)
        return [adj[i] for i in ids]

    def _unit_columns(self) -> list[tuple[int, float]]:
        """The columns of :meth:`unit_features` the weighted sum uses, with their weights."""
        cfg = self.cfg
        return [(c, w) for c, (w, on) in enumerate(((cfg.keyword_weight, True), (cfg.session_weight, True),
                                                    (cfg.speaker_weight, bool(self.named)),
                                                    (cfg.temporal_weight, self.window is not None))) if w and on]

    def said(self, ids: list[str]) -> np.ndarray | None:
        """The rows whose scale every column is read on: the units said or done (not derived later),
        when they are most of the pool; None (every row) when derived units are (a bank of lessons)."""
        units = self.index.units
        mask = np.fromiter((units[i].is_turn for i in ids), dtype=bool, count=len(ids))
        return None if mask.all() or 2 * int(mask.sum()) < len(ids) else mask

    def unit_features(self, ids: list[str]) -> np.ndarray:
        """The features that depend on the unit alone, one row per id, columns: BM25, its session's
        BM25, "the query names its speaker", closeness to the window (0 without one). Computed
        once per unit: the pool is scored twice and the second pool holds the first."""
        if self._last_units is not None and self._last_units[0] is ids:  # scoring, then the learned ranker
            return self._last_units[1]
        raw, units = self._raw, self.index.units
        kw, sessions, named, window = self.keyword, self.sessions, self.named, self.window
        slack = self.cfg.temporal_slack_days * 86400.0
        for i in ids:
            if i in raw:
                continue
            u = units[i]
            raw[i] = (kw.get(i, 0.0), sessions.get(u.session_id or "", 0.0),
                      1.0 if named and (u.speaker or "").lower() in named else 0.0,
                      temporal_score(u, window, slack) if window is not None else 0.0)
        out = np.array([raw[i] for i in ids], dtype=np.float64).reshape(len(ids), 4)
        self._last_units = (ids, out)
        return out

    def score(self, ids: list[str], extras: Mapping[str, tuple[np.ndarray, float]] | None = None) -> np.ndarray:
        """Fused score of each id in ``ids`` (same order)."""
        if not ids:
            return np.zeros(0)
        cfg = self.cfg
        cos = self.cosines(ids)
        cols = [cos]
        weights = [cfg.dense_weight]
        if cfg.topic_weight and self.topic is not None:
            cols.append(self.topic_cosines(ids))
            weights.append(cfg.topic_weight)
        used = self._unit_columns()
        if used:
            own = self.unit_features(ids)
            cols.extend(own[:, c] for c, _ in used)
            weights.extend(w for _, w in used)
        for col, w in [*self._context_columns(ids), *(extras or {}).values()]:
            if w:
                cols.append(np.asarray(col, dtype=np.float64))
                weights.append(w)
        # derived units (observations, lessons) are read on the scale of what was said: five summaries of
        # many turns in a pool moved every turn's z-scores, and the order of the turns with them
        said = self.said(ids)
        base = standardised(np.column_stack(cols), said) @ np.asarray(weights)
        if not (cfg.prev_weight or cfg.next_weight):
            return base
        return base + self._propagate(ids, base, said)

    def neighbour_positions(self, ids: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """Position in ``ids`` of each unit's previous and of its next unit, -1 when it has none there."""
        pos = dict(zip(ids, range(len(ids))))
        adj = self.adjacent(ids)
        before = np.fromiter((pos.get(b, -1) if b is not None else -1 for b, _ in adj), dtype=np.intp, count=len(ids))
        after = np.fromiter((pos.get(a, -1) if a is not None else -1 for _, a in adj), dtype=np.intp, count=len(ids))
        return before, after

    def _propagate(self, ids: list[str], base: np.ndarray, said: np.ndarray | None) -> np.ndarray:
        before, after = self.neighbour_positions(ids)
        floor = float((base if said is None else base[said]).min())
        prev = np.where(before >= 0, base[before], floor)
        nxt = np.where(after >= 0, base[after], floor)
        return self.cfg.prev_weight * prev + self.cfg.next_weight * nxt
