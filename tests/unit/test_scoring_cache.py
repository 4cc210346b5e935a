"""PoolScorer's per-unit caches change no score: the second, larger pool of a recall is scored
exactly as a scorer that never saw the first would score it, column by column as before the caches."""

from __future__ import annotations

import hashlib
import random

import numpy as np
import pytest

from hindsight_core.retrieval.channels import temporal_score
from hindsight_core.retrieval.config import RecallConfig
from hindsight_core.retrieval.memory_index import InMemoryBankIndex
from hindsight_core.retrieval.scoring import PoolScorer
from hindsight_core.retrieval.types import IndexedUnit

DAY = 86400.0
NOW = 1_700_000_000.0
WORDS = "pottery camping adoption sweden necklace kids research support group class paint beach dog".split()
SPEAKERS = ("Caroline", "Melanie", "Nate")


def _vec(text: str, dim: int = 32) -> np.ndarray:
    v = np.zeros(dim, dtype=np.float32)
    for w in text.split():
        v[int(hashlib.md5(w.encode()).hexdigest(), 16) % dim] += 1.0
    return v / (np.linalg.norm(v) or 1.0)


@pytest.fixture
def index() -> InMemoryBankIndex:
    rng = random.Random(7)
    idx = InMemoryBankIndex()
    for seq in range(90):  # 9 sessions of 10 turns: every unit has neighbours, some outside any pool
        text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 8)))
        session = f"s{seq // 10}"
        idx.add(IndexedUnit(f"u{seq}", seq, text, "world", "active", "user", session, None, None,
                            NOW - (90 - seq) * DAY, (), 0.5, 1.0, 0.0, speaker=SPEAKERS[seq % 3]), _vec(text))
    return idx


def _reference(index: InMemoryBankIndex, cfg: RecallConfig, qvec: np.ndarray, topic: np.ndarray,
               keyword: dict[str, float], window: tuple[float, float], sessions: dict[str, float],
               named: frozenset[str], ids: list[str], extras: list[tuple[np.ndarray, float]]) -> np.ndarray:
    """The scoring as written before the caches: every column computed for the whole pool."""
    units = index.units
    cols = [(index.vectors(ids) @ qvec).astype(np.float64), (index.vectors(ids) @ topic).astype(np.float64),
            np.array([keyword.get(i, 0.0) for i in ids]),
            np.array([sessions.get(units[i].session_id or "", 0.0) for i in ids]),
            np.array([1.0 if (units[i].speaker or "").lower() in named else 0.0 for i in ids]),
            np.array([temporal_score(units[i], window, cfg.temporal_slack_days * DAY) for i in ids])]
    weights = [cfg.dense_weight, cfg.topic_weight, cfg.keyword_weight, cfg.session_weight, cfg.speaker_weight,
               cfg.temporal_weight]
    for col, w in extras:
        cols.append(np.asarray(col, dtype=np.float64))
        weights.append(w)
    f = np.column_stack(cols)
    sd = f.std(axis=0)
    sd[sd == 0] = 1.0
    base = ((f - f.mean(axis=0)) / sd) @ np.asarray(weights)
    pos = {i: r for r, i in enumerate(ids)}
    prev = np.full(len(ids), float(base.min()))
    nxt = prev.copy()
    for r, i in enumerate(ids):
        before, after = index.graph.prev_next(i)
        if before is not None and (j := pos.get(before)) is not None:
            prev[r] = base[j]
        if after is not None and (j := pos.get(after)) is not None:
            nxt[r] = base[j]
    return base + (cfg.prev_weight * prev + cfg.next_weight * nxt)


def test_second_pool_scores_as_a_fresh_scorer_and_the_reference(index: InMemoryBankIndex) -> None:
    cfg = RecallConfig()
    rng = random.Random(11)
    qvec, topic = _vec("pottery class kids"), _vec("pottery class")
    ids = list(index.units)
    keyword = {i: rng.random() * 5 for i in rng.sample(ids, 30)}
    sessions = {f"s{n}": rng.random() * 9 for n in range(0, 9, 2)}
    window = (NOW - 40 * DAY, NOW - 30 * DAY)
    named = frozenset({"melanie"})

    def scorer() -> PoolScorer:
        return PoolScorer(index, cfg, qvec, keyword, window, sessions, named, topic)

    first = rng.sample(ids, 25)
    second = first + [i for i in rng.sample(ids, 40) if i not in first]  # the first pool is its prefix
    graph_col = np.array([rng.random() for _ in second])
    cached = scorer()
    first_scores = cached.score(first)
    second_scores = cached.score(second, {"graph": (graph_col, cfg.graph_weight)})
    fresh_scores = scorer().score(second, {"graph": (graph_col, cfg.graph_weight)})

    assert np.array_equal(first_scores, _reference(index, cfg, qvec, topic, keyword, window, sessions, named,
                                                   first, []))
    assert np.array_equal(second_scores, fresh_scores)
    assert np.array_equal(second_scores, _reference(index, cfg, qvec, topic, keyword, window, sessions, named,
                                                    second, [(graph_col, cfg.graph_weight)]))
    assert cached.adjacent(second) == [index.graph.prev_next(i) for i in second]
