"""The recall pipeline: channels -> candidate pool -> feature fusion -> (MMR, rerank) -> top k.

1. Over-fetch candidates from the dense and keyword channels (plus the temporal channel when the
   query names a time window) and score the pool exactly: cosine of every candidate, BM25 of
   the unit and of its session, whether the query names the unit's speaker.
2. A first-stage weighted z-score fusion picks seeds; the graph channel spreads activation from
   the query's entities and the seeds' entities, and the neighbour channel pulls in the session
   neighbours of the best candidates (a question's answer is often the next turn).
3. The final fusion adds the graph and neighbour features; MMR and a cross-encoder are optional.

Every returned :class:`Candidate` lists each channel that found it as ``(channel, rank, score)``.
"""

from __future__ import annotations

import time
from datetime import datetime, timezone
from typing import Any

import numpy as np

from hindsight_core.lifecycle.extract import extract_entities
from hindsight_core.lifecycle.timeparse import parse_query_window
from hindsight_core.retrieval import channels as ch
from hindsight_core.retrieval.config import RecallConfig
from hindsight_core.retrieval.fusion import rrf_fuse, zscore_fuse
from hindsight_core.retrieval.mmr import mmr
from hindsight_core.retrieval.types import BankIndex, Candidate, IndexedUnit, RetrievalRequest

__all__ = ["retrieve"]

try:  # BLAS threads make small mat-vec products slow and jittery on few cores.
    from threadpoolctl import threadpool_limits as _limits
except ImportError:  # pragma: no cover - threadpoolctl is a core dependency
    _limits = None


def _allowed(u: IndexedUnit, req: RetrievalRequest) -> bool:
    return (
        u.status in req.statuses
        and (req.kinds is None or u.kind in req.kinds)
        and (req.session_id is None or u.session_id == req.session_id)
    )


def _window(query: str, as_of: float) -> tuple[float, float] | None:
    win = parse_query_window(query, datetime.fromtimestamp(as_of, tz=timezone.utc))
    return None if win is None else (win[0].timestamp(), win[1].timestamp())


def retrieve(request: RetrievalRequest, index: BankIndex, config: RecallConfig) -> tuple[list[Candidate], dict[str, Any]]:
    """Run every channel, fuse, and return at most ``request.k`` candidates best first, plus a trace."""
    if _limits is not None:
        with _limits(limits=1, user_api="blas"):
            return _retrieve(request, index, config)
    return _retrieve(request, index, config)  # pragma: no cover


def _retrieve(req: RetrievalRequest, index: BankIndex, cfg: RecallConfig) -> tuple[list[Candidate], dict[str, Any]]:
    timings: dict[str, float] = {}
    t0 = time.perf_counter()

    def lap(name: str) -> None:
        nonlocal t0
        now = time.perf_counter()
        timings[name] = round((now - t0) * 1000, 3)
        t0 = now

    units = index.units
    n = cfg.over_fetch
    text = ch.strip_question(req.query) if cfg.strip_question else req.query
    ranked: dict[str, list[tuple[str, float]]] = {}
    ranked["dense"] = ch.dense_channel(req.vector, index, n)
    lap("dense")
    ranked["keyword"] = ch.keyword_channel(text, index, n)
    lap("keyword")
    window = _window(req.query, req.as_of) if cfg.temporal_weight else None
    ranked["temporal"] = ch.temporal_channel(window, index, n)
    lap("temporal")
    sessions = ch.session_channel(text, index, cfg.session_top) if cfg.session_weight else {}
    q_entities = index.graph.match_entities(req.query, extract_entities(req.query))
    speakers = {e for e in q_entities}
    lap("entities")

    pool: dict[str, None] = {}
    for hits in ranked.values():
        for uid, _ in hits:
            u = units.get(uid)
            if u is not None and _allowed(u, req):
                pool[uid] = None

    features: dict[str, dict[str, float]] = {}

    def score_pool(ids: list[str]) -> None:
        new = [i for i in ids if i not in features.setdefault("dense", {})]
        if new:
            sims = index.vectors(new) @ np.asarray(req.vector, dtype=np.float32).reshape(-1)
            features["dense"].update(zip(new, map(float, sims)))
        kw = dict(ranked["keyword"])
        features["keyword"] = {i: kw.get(i, 0.0) for i in pool}
        tmp = dict(ranked["temporal"])
        features["temporal"] = {i: tmp.get(i, 0.0) for i in pool}
        features["session"] = {i: sessions.get(units[i].session_id or "", 0.0) for i in pool}
        features["speaker"] = {i: 1.0 if (units[i].speaker or "").lower() in speakers else 0.0 for i in pool}

    score_pool(list(pool))
    weights = {
        "dense": cfg.dense_weight, "keyword": cfg.keyword_weight, "temporal": cfg.temporal_weight,
        "session": cfg.session_weight, "speaker": cfg.speaker_weight,
    }
    first = dict(zscore_fuse(features, weights, list(pool)))
    lap("fuse1")

    seeds = dict(sorted(first.items(), key=lambda kv: -kv[1])[: cfg.graph_seeds])
    ranked["graph"] = ch.graph_channel(q_entities, seeds, index, n, cfg.graph_entity_cap) if cfg.graph_weight else []
    nb = ch.neighbour_channel(first, index, cfg.neighbour_top) if cfg.neighbour_weight else {}
    ranked["neighbour"] = sorted(nb.items(), key=lambda kv: (-kv[1], kv[0]))
    for name in ("graph", "neighbour"):
        for uid, _ in ranked[name][: cfg.expand]:
            u = units.get(uid)
            if u is not None and _allowed(u, req):
                pool[uid] = None
    lap("graph")
    score_pool(list(pool))
    g = dict(ranked["graph"])
    features["graph"] = {i: g.get(i, 0.0) for i in pool}
    floor = min(first.values()) if first else 0.0
    features["neighbour"] = {i: nb.get(i, floor) for i in pool}
    weights.update(graph=cfg.graph_weight, neighbour=cfg.neighbour_weight)
    if cfg.fusion == "rrf":
        fused = rrf_fuse({k: v for k, v in ranked.items() if k in ("dense", "keyword")}, cfg.rrf_k)
        fused = [(i, s) for i, s in fused if i in pool]
    else:
        fused = zscore_fuse(features, weights, list(pool))
    lap("fuse2")

    if cfg.mmr_lambda < 1.0 and fused:
        head = fused[: max(req.k * 3, 30)]
        order = mmr([i for i, _ in head], [s for _, s in head], index.vectors([i for i, _ in head]), cfg.mmr_lambda, req.k)
        score = dict(head)
        fused = [(i, score[i]) for i in order]
        lap("mmr")
    if cfg.reranker:
        from hindsight_core.retrieval.rerank import rerank

        fused = rerank(cfg.reranker, req.query, fused[: cfg.rerank_top], units) + fused[cfg.rerank_top:]
        lap("rerank")

    ranks = {name: {uid: (r, s) for r, (uid, s) in enumerate(hits, start=1)} for name, hits in ranked.items()}
    out: list[Candidate] = []
    for uid, score in fused[: req.k]:
        cand = Candidate(uid, float(score))
        for name, table in ranks.items():
            if uid in table:
                r, s = table[uid]
                cand.channels.append((name, r, float(s)))
        out.append(cand)
    lap("assemble")
    trace = {
        "query_text": text,
        "entities": q_entities,
        "window": window,
        "pool": len(pool),
        "top": {name: [uid for uid, _ in hits[:10]] for name, hits in ranked.items()},
        "timings_ms": timings,
    }
    return out, trace
