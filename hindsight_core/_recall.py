"""Recall over a bank's :class:`~hindsight_core.storage.unit_store.UnitStore`: no LLM, four channels fused.

The query is embedded before any lock is taken; the search runs on the bank's index under its
shared read lock (a consistent view: recalls never wait for each other, and a capture holds the
write lock only for its short apply step, never while it embeds); whole units are then read from
Chroma. A service over ``(store, config)``: :meth:`MemoryBank.recall` validates its arguments and
calls :func:`recall`.
"""

from __future__ import annotations

import time
from datetime import datetime

from hindsight_core._expansion_ops import schedule_learning, word_vectors_of
from hindsight_core._lifecycle_ops import OVER_FETCH, filter_candidates, record_recall
from hindsight_core._render import estimate_tokens
from hindsight_core._text_vectors import embed_cached
from hindsight_core.config import BankConfig, RecallConfig
from hindsight_core.models import ChannelHit, RecallHit, RecallResult
from hindsight_core.retrieval.expansion import plan_expansion
from hindsight_core.retrieval.pipeline import one_blas_thread, retrieve
from hindsight_core.retrieval.topic import topic_query
from hindsight_core.retrieval.types import RetrievalRequest
from hindsight_core.storage.unit_store import UnitStore

__all__ = ["recall", "NOVELTY_BELOW"]

#: Best dense similarity under this: nothing in memory is close (``RecallResult.novel``).
NOVELTY_BELOW = 0.3
_DIRECTIVE_OVERHEAD_TOKENS = 4  # a rendered line's bullet and spacing, per unit


def recall(store: UnitStore, config: BankConfig, cfg: RecallConfig, *, query: str, k: int, now: datetime,
           statuses: frozenset[str], kinds: frozenset[str], session_id: str | None, excluded: frozenset[str],
           max_tokens: int | None, record_hits: bool, started: float | None = None) -> RecallResult:
    """One recall with validated arguments (see :meth:`MemoryBank.recall` for their meaning);
    ``started`` is the ``perf_counter()`` the caller's timing starts from (default: now)."""
    started = time.perf_counter() if started is None else started
    with store.reads.reading():  # writes' heavy steps wait until it is done (read_priority)
        return _recall(store, config, cfg, query=query, k=k, now=now, statuses=statuses, kinds=kinds,
                       session_id=session_id, excluded=excluded, max_tokens=max_tokens, record_hits=record_hits,
                       started=started)


def _recall(store: UnitStore, config: BankConfig, cfg: RecallConfig, *, query: str, k: int, now: datetime,
            statuses: frozenset[str], kinds: frozenset[str], session_id: str | None, excluded: frozenset[str],
            max_tokens: int | None, record_hits: bool, started: float) -> RecallResult:
    topic = plan = None
    embedder = store.embedder
    words = word_vectors_of(embedder) if cfg.expansion_weight else None
    if cfg.topic_weight or cfg.expansion_weight:
        # No lock: this only plans what to embed, from the bank's speakers (LiveIndex.speakers is
        # safe without it) and its vocabulary (which has its own lock). Under the read lock, a recall
        # arriving during a capture's write step waited for all of it (8 threads on one bank: p50
        # 23 ms, p95 75 ms of a 96 / 150 ms recall), before its query was even embedded.
        index = store.current()
        speakers = index.speakers()
        # the query without the bank's speakers it names, embedded in the same call
        topic = topic_query(query, speakers) if cfg.topic_weight else None
        # its words neither the bank uses nor an earlier recall embedded, for keyword expansion (same call)
        plan = plan_expansion(query, index, speakers, index.revision,
                              None if words is None else words.get) if cfg.expansion_weight else None
        if plan is not None and plan.behind:  # the bank's own words are learnt in its background queue
            schedule_learning(store)
    heads = [query] if topic is None else [query, topic]
    asked = plan.texts if plan is not None else []
    embedding = time.perf_counter()
    # one model call, no lock held, ahead of captures' queued texts; a query embedded moments ago
    # (recall_context recalls lessons, then memories, for one task) is not embedded again
    head_vectors, word_vectors = embed_cached(embedder, heads, asked)
    embedding = time.perf_counter() - embedding
    if asked and words is not None:
        words.put(asked, word_vectors)
    waited = time.perf_counter()
    with store.read() as index:  # shared: recalls never wait for each other, nor for a capture's embedding
        waited = time.perf_counter() - waited
        extra_terms = None
        if plan is not None:
            with one_blas_thread():
                extra_terms = plan.finish(word_vectors, index.keyword, cfg)
        request = RetrievalRequest(query=query, vector=head_vectors[0], as_of=now.timestamp(),
                                   k=min(k + len(excluded) + OVER_FETCH, 1000),
                                   statuses=statuses, kinds=kinds, session_id=session_id,
                                   topic_vector=None if topic is None else head_vectors[1], extra_terms=extra_terms or None)
        candidates, trace = retrieve(request, index, cfg)
        candidates = filter_candidates(index, config, [c for c in candidates if c.id not in excluded], k, trace)
        directive_ids = sorted(index.directives, key=lambda i: index.units[i].seq)
    trace["lock_wait_ms"] = round(waited * 1000, 2)  # time spent waiting for a write to finish
    trace["embed_ms"] = round(embedding * 1000, 2)  # the query's model call, queueing included
    units = {u.id: u for u in store.get_many([c.id for c in candidates] + directive_ids)}
    directives = tuple(units[i] for i in directive_ids if i in units)
    cost = lambda text: estimate_tokens(text) + _DIRECTIVE_OVERHEAD_TOKENS  # noqa: E731
    if max_tokens is not None:  # standing rules first, as many as the budget holds
        fitting = list(directives)
        while fitting and sum(cost(d.text) for d in fitting) > max_tokens:
            fitting.pop()
        directives = tuple(fitting)
    budget = None if max_tokens is None else max_tokens - sum(cost(d.text) for d in directives)
    hits: list[RecallHit] = []
    for cand in candidates:
        unit = units.get(cand.id)
        if unit is None:
            continue  # deleted by another thread since the search
        if budget is not None:
            budget -= cost(unit.text)
            if budget < 0:
                break
        hits.append(RecallHit(unit=unit, score=cand.score,
                              channels=tuple(ChannelHit(channel=c, rank=r, score=s) for c, r, s in cand.channels)))
    best_dense = max((s for c in candidates for ch, _, s in c.channels if ch == "dense"), default=0.0)
    if record_hits:
        record_recall(store, config, [h.unit.id for h in hits], trace)  # in memory now, one Chroma write later
    trace = dict(trace, total_ms=round((time.perf_counter() - started) * 1000, 2))
    return RecallResult(query=query, bank=store.id, as_of=now, hits=tuple(hits), directives=directives,
                        novel=best_dense < NOVELTY_BELOW, trace=trace)
