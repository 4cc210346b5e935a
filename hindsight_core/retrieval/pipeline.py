"""The recall pipeline: channels -> candidate pool -> feature fusion -> (MMR, rerank) -> top k.

1. Over-fetch candidates from the dense and keyword channels (plus the temporal channel when the
   query names a time window), add each candidate's session neighbours, and score the pool
   (:class:`~hindsight_core.retrieval.scoring.PoolScorer`): exact cosine with the query and with
   its topic (the query without the speakers it names, :mod:`~hindsight_core.retrieval.topic`), BM25 of the unit (the
   query's terms plus the bank's words nearest its words, :mod:`~hindsight_core.retrieval.expansion`) and of its whole session, "the query names this unit's speaker", closeness to the query's window,
   all standardised and weighted, then each unit inherits a share of its neighbours' scores.
2. The best first-stage units seed the graph channel (spreading activation from the query's
   entities and from the seeds' entities, 1-2 hops) and, optionally, keyword feedback; their
   finds join the pool, which is scored again with the graph activation as one more feature.
3. On a pool of conversation size that may hold captured text (not a lessons-only recall), boosted
   trees fitted on LoCoMo dev reorder the head of that ranking
   (:mod:`~hindsight_core.retrieval.learned`: the same features, the neighbours' features two turns
   either side, the kind of question); ``RecallConfig(ranker="weighted")`` keeps the sum.
4. MMR diversification and a cross-encoder reranker are optional (both off by default).

Every returned :class:`Candidate` lists each channel that found it as ``(channel, rank, score)``;
"neighbour" marks a unit that entered the pool only as the neighbour of one that was found.
The trace's ``ordering`` says which of ``"learned"``, ``"weighted"`` or ``"rrf"`` ordered the pool.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from datetime import datetime, timezone
from typing import Any, Iterator

import numpy as np

from hindsight_core.lifecycle.extract import extract_entities
from hindsight_core.lifecycle.rival_model import asks_about_now
from hindsight_core.lifecycle.timeparse import parse_query_window
from hindsight_core.retrieval import channels as ch
from hindsight_core.retrieval import learned, present
from hindsight_core.retrieval.answer_forms import answer_first
from hindsight_core.retrieval.config import RecallConfig
from hindsight_core.retrieval.fusion import rrf_fuse
from hindsight_core.retrieval.mmr import mmr
from hindsight_core.retrieval.scoring import PoolScorer
from hindsight_core.retrieval.types import BankIndex, Candidate, IndexedUnit, RetrievalRequest

__all__ = ["retrieve", "one_blas_thread"]

_CONTROLLER: Any = None


def _blas_controller() -> Any:
    """One threadpoolctl controller per process (creating one scans the loaded libraries: ~2 ms)."""
    global _CONTROLLER
    if _CONTROLLER is None:
        try:
            from threadpoolctl import ThreadpoolController
        except ImportError:  # pragma: no cover - threadpoolctl is a core dependency
            _CONTROLLER = False
        else:
            _CONTROLLER = ThreadpoolController()
    return _CONTROLLER


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """BLAS limited to one thread for the block: small mat-vec products are slow and jittery with
    several BLAS threads on few, busy cores."""
    controller = _blas_controller()
    if not controller:  # pragma: no cover - threadpoolctl is a core dependency
        yield
        return
    with controller.limit(limits=1, user_api="blas"):
        yield


def _allowed(u: IndexedUnit, req: RetrievalRequest) -> bool:
    return (
        u.status in req.statuses
        and (req.kinds is None or u.kind in req.kinds)
        and (req.session_id is None or u.session_id == req.session_id)
    )


def _window(query: str, as_of: float) -> tuple[float, float] | None:
    win = parse_query_window(query, datetime.fromtimestamp(as_of, tz=timezone.utc))
    return None if win is None else (win[0].timestamp(), win[1].timestamp())


def _learned_order(scorer: PoolScorer, pool: list[str], extras: dict[str, tuple[np.ndarray, float]], query: str,
                   weighted: np.ndarray, order: np.ndarray, head_size: int) -> list[tuple[str, float]]:
    """The head of the weighted ranking reordered by the learned ranker, then the rest in weighted
    order, scored just below the head so the list stays sorted."""
    head, learnt = learned.rerank_head(learned.features(scorer, pool, extras, query), order, head_size)
    fused = [(pool[j], float(s)) for j, s in zip(head, learnt)]
    tail = order[head_size:]
    if len(tail):
        shift = float(learnt.min()) - 1e-3 - float(weighted[tail[0]])
        fused.extend((pool[j], float(weighted[j]) + shift) for j in tail)
    return fused


def retrieve(request: RetrievalRequest, index: BankIndex, config: RecallConfig) -> tuple[list[Candidate], dict[str, Any]]:
    """Run every channel, fuse, and return at most ``request.k`` candidates best first, plus a trace."""
    with one_blas_thread():
        return _retrieve(request, index, config)


def _retrieve(req: RetrievalRequest, index: BankIndex, cfg: RecallConfig) -> tuple[list[Candidate], dict[str, Any]]:
    timings: dict[str, float] = {}
    t0 = time.perf_counter()

    def lap(name: str) -> None:
        nonlocal t0
        now = time.perf_counter()
        timings[name] = round((now - t0) * 1000, 3)
        t0 = now

    units = index.units
    graph = index.graph
    n = cfg.over_fetch
    text = ch.strip_question(req.query) if cfg.strip_question else req.query
    qvec = np.asarray(req.vector, dtype=np.float32).reshape(-1)
    ranked: dict[str, list[tuple[str, float]]] = {}
    archived = "archived" in req.statuses
    ranked["dense"] = ch.dense_channel(qvec, index, n, archived)
    lap("dense")
    ranked["keyword"] = ch.keyword_channel(text, index, n, archived, req.extra_terms)
    lap("keyword")
    window = _window(req.query, req.as_of) if cfg.temporal_weight else None
    ranked["temporal"] = ch.temporal_channel(window, index, n)
    lap("temporal")
    sessions = ch.session_channel(text, index, cfg.session_top) if cfg.session_weight else {}
    q_entities = graph.match_entities(req.query, extract_entities(req.query))
    lap("entities")

    topic = None if req.topic_vector is None else np.asarray(req.topic_vector, dtype=np.float32).reshape(-1)
    scorer = PoolScorer(index, cfg, qvec, dict(ranked["keyword"]), window, sessions,
                        frozenset(q_entities), topic)

    def with_neighbours(ids: list[str]) -> list[str]:
        out = dict.fromkeys(ids)
        if cfg.prev_weight or cfg.next_weight:
            for pair in scorer.adjacent(ids):
                for other in pair:
                    if other is not None:
                        out[other] = None
        return [i for i in out if i in units and _allowed(units[i], req)]

    pool0 = with_neighbours([uid for name in ("dense", "keyword", "temporal") for uid, _ in ranked[name]])
    first = scorer.score(pool0)
    lap("fuse1")

    order = np.argsort(-first, kind="stable")
    top_first = [pool0[j] for j in order[: max(cfg.graph_seeds, cfg.feedback_seeds)]]
    if cfg.graph_weight and top_first:
        lo = float(first[order[min(cfg.graph_seeds, len(order)) - 1]])
        seeds = {pool0[j]: float(first[j]) - lo + 1e-3 for j in order[: cfg.graph_seeds]}
        ranked["graph"] = ch.graph_channel(q_entities, seeds, index, n, cfg.graph_entity_cap)
    else:
        ranked["graph"] = []
    if cfg.feedback_weight and top_first:
        ranked["feedback"] = ch.feedback_channel(text, top_first[: cfg.feedback_seeds], index, n, cfg.feedback_terms,
                                                 cfg.feedback_query_weight)
    else:
        ranked["feedback"] = []
    if cfg.aggregate_weight and q_entities and ch.asks_for_list(req.query):
        ranked["speaker"] = ch.speaker_channel(text, q_entities, index, cfg.aggregate_top, req.extra_terms)
    else:
        ranked["speaker"] = []
    in_pool = set(pool0)
    extra = [uid for name in ("graph", "feedback", "speaker") for uid, _ in ranked[name][: cfg.expand if name != "speaker" else None]
             if uid not in in_pool]
    extra = list(dict.fromkeys(extra))
    pool = with_neighbours(pool0 + extra) if extra else pool0
    successor_of = present.predecessors(pool, index, req.statuses)  # stale facts are scored for their successor
    in_pool = set(pool)
    pool = pool + [uid for uid in successor_of if uid not in in_pool]
    lap("graph")
    ordering = "rrf" if cfg.fusion == "rrf" else "weighted"  # "learned" once the trees take the head
    if cfg.fusion == "rrf":
        allowed = set(pool)
        fused = [(i, s) for i, s in rrf_fuse({k: ranked[k] for k in ("dense", "keyword")}, cfg.rrf_k) if i in allowed]
    else:
        gmap = dict(ranked["graph"])
        fmap = dict(ranked["feedback"])
        extras = {"graph": (np.array([gmap.get(i, 0.0) for i in pool]), cfg.graph_weight),
                  "feedback": (np.array([fmap.get(i, 0.0) for i in pool]), cfg.feedback_weight)}
        if ranked["speaker"]:
            smap = dict(ranked["speaker"])
            extras["speaker"] = (np.array([smap.get(i, 0.0) for i in pool]), cfg.aggregate_weight)
        asks_now = ch.asks_current(req.query)
        if cfg.current_phrase_weight and asks_now:
            extras["phrase"] = (ch.phrase_scores(text, pool, index), cfg.current_phrase_weight)
        final = scorer.score(pool, extras)
        order = np.argsort(-final, kind="stable")
        # a question about the present where facts in the pool have changed: the weighted order with the
        # question's word pairs decides (the trees were fitted on chat turns and read no such weight)
        if (cfg.ranker == "learned" and len(pool) >= cfg.ranker_min_pool and not (asks_now and successor_of)
                and (req.kinds is None or "world" in req.kinds)):
            fused = _learned_order(scorer, pool, extras, req.query, final, order, cfg.ranker_head)
            ordering = "learned"
        else:
            fused = [(pool[j], float(final[j])) for j in order]
    fused = present.inherit(fused, successor_of)
    # active facts a later one disagrees with
    earlier = present.rivals(fused, index, req.query, qvec if cfg.present_judge else None,
                             cfg.present_judge_threshold)
    if earlier and "superseded" not in req.statuses:  # the present is asked: the later one answers
        fused = present.inherit(fused, earlier)
    # a fact here changed and the present is asked ("When did ...?" is not): the facts with its answer lead
    if (cfg.answer_forms and (successor_of or earlier) and "superseded" not in req.statuses
            and asks_about_now(req.query)):
        fused = answer_first(fused, lambda uid: units[uid].text if uid in units else None, req.query,
                             {*successor_of.values(), *earlier.values()})
    found = {uid for hits in ranked.values() for uid, _ in hits}
    ranked["neighbour"] = [(uid, s) for uid, s in fused if uid not in found]  # pulled in beside a hit
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
        "ordering": ordering,
        "top": {name: [uid for uid, _ in hits[:10]] for name, hits in ranked.items()},
        "timings_ms": timings,
        "earlier": {old: {"by": new, "until": units[new].mentioned_at} for old, new in earlier.items()},
    }
    return out, trace
