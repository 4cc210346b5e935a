"""The learned ranker: the shipped trees, fitting and reading trees, and where recall uses them."""

from __future__ import annotations

import numpy as np
import pytest

from hindsight_core.retrieval import learned
from hindsight_core.retrieval._ranker_trees import TREES
from hindsight_core.retrieval.config import RecallConfig
from hindsight_core.retrieval.memory_index import InMemoryBankIndex
from hindsight_core.retrieval.pipeline import retrieve
from hindsight_core.retrieval.types import IndexedUnit, RetrievalRequest
from hindsight_core.testing import HashEmbedder


def test_the_shipped_trees_read_these_features_and_every_leaf_ends_its_path():
    assert TREES["features"] == list(learned.FEATURES)
    feature, left, right = (np.asarray(TREES[k]) for k in ("feature", "left", "right"))
    assert len(TREES["roots"]) >= 10 and feature.max() < len(learned.FEATURES)
    leaves = np.flatnonzero(left == np.arange(len(left)))
    assert len(leaves) and (right[leaves] == leaves).all()
    assert np.isfinite(learned.score(np.zeros((3, len(learned.FEATURES))))).all()


def test_trees_fitted_on_other_features_are_refused_with_how_to_fix():
    with pytest.raises(ValueError, match="recall_model --write"):
        learned.score(np.zeros((1, len(learned.FEATURES))), {**TREES, "features": ["cos"]})


def test_the_words_column_counts_each_units_content_words_standardised_over_the_pool():
    idx, emb = _bank(3)
    idx.units["t001"].text = 'Melanie said, "I was in Chicago with my daughter Sara, it was awesome!"'
    x = learned.features(_scorer(idx, emb), ["t000", "t001", "t002"], {}, "Which cities has Melanie been to?")
    words = x[:, learned.FEATURES.index("words")]
    # t001 tells more than the two one-line turns; stopwords ("I", "was", "with", "it") do not count
    assert words[1] > 0 > words[0] == words[2] and abs(words.mean()) < 1e-9
    assert learned._content_words(idx.units["t001"].text) == 5.0  # melanie, chicago, daughter, sara, awesome

    # an observation sums up many turns: its length says nothing, so it gets the turns' mean
    idx.units["t002"].kind = "observation"
    idx.units["t002"].text = "Melanie paints, runs, camps, swims, reads novels and volunteers at shelters."
    x = learned.features(_scorer(idx, emb), ["t000", "t001", "t002"], {}, "Which cities?")
    words = x[:, learned.FEATURES.index("words")]
    assert abs(words[2]) < 1e-9 and words[1] > 0 > words[0]


def test_derived_units_in_the_pool_leave_the_turns_scores_and_features_alone():
    idx, emb = _bank(40)
    turns = list(idx.units)
    query = "Which cities has Melanie been to?"
    weighted, x = _scorer(idx, emb).score(turns), learned.features(_scorer(idx, emb), turns, {}, query)
    # consolidation's observations sum up many turns and sit close to most questions
    texts = [f"Melanie has been to many cities: Chicago, Paris and Rome ({i})." for i in range(5)]
    for i, (text, vec) in enumerate(zip(texts, emb.embed(texts))):
        idx.add(IndexedUnit(id=f"o{i}", seq=100 + i, text=text, kind="observation", status="active", source="system",
                            session_id=None, episode_id=None, occurred_at=None, mentioned_at=1.8e9,
                            entities=[], importance=0.5, confidence=1.0, activity=0.0), vec)
    pool = turns + [f"o{i}" for i in range(5)]
    with_derived = _scorer(idx, emb).score(pool)
    assert np.ptp(with_derived[40:]) > 0 and with_derived[40:].max() > np.median(weighted)  # they do score
    # the turns are read on their own scale: the trees see the features they were fitted on
    np.testing.assert_allclose(with_derived[:40], weighted, atol=1e-9)
    np.testing.assert_allclose(learned.features(_scorer(idx, emb), pool, {}, query)[:40], x, atol=1e-9)
    # where derived units are most of the pool (a bank of lessons), the whole pool is the scale, as before
    scorer = _scorer(idx, emb)
    assert scorer.said(turns) is None and scorer.said(turns[:4] + pool[40:]) is None
    assert scorer.said(pool).sum() == 40


def _scorer(idx, emb):
    from hindsight_core.retrieval.scoring import PoolScorer

    query = "Which cities has Melanie been to?"
    return PoolScorer(idx, RecallConfig(), emb.embed([query])[0], {}, None, {}, frozenset({"melanie"}))


def _pools(n: int, seed: int):
    from benchmarks.recall_model import Pool

    rng = np.random.default_rng(seed)
    out = []
    for q in range(n):
        x = rng.normal(size=(80, len(learned.FEATURES)))
        # evidence: high keyword score where the query's speaker spoke (an interaction a weighted sum misses)
        y = ((x[:, 2] > 0.8) & (x[:, 4] > 0)).astype(float)
        out.append(Pool(q % 10, 1, [f"u{q}-{i}" for i in range(80)], rng.normal(size=80), x, y, int(y.sum())))
    return out


def test_a_bagged_model_scores_the_mean_of_its_fits():
    from benchmarks.recall_model import fit, fit_bagged

    pools = _pools(20, 0)
    bagged = fit_bagged(pools, seeds=2, trees=4, depth=2)
    x = np.random.default_rng(3).normal(size=(50, len(learned.FEATURES)))
    each = [learned.score(x, fit(pools, trees=4, depth=2, seed=s)) for s in (0, 1)]
    assert len(bagged["roots"]) == 8
    assert np.allclose(learned.score(x, bagged), np.mean(each, axis=0), atol=1e-4)
    assert not np.allclose(each[0], each[1])  # the seeds' fits differ: there is something to average


def test_fit_learns_an_interaction_and_rescoring_reads_the_exported_trees():
    from benchmarks.recall_model import fit, recall_at, rescore

    trees = fit(_pools(60, 0), trees=15, depth=3)
    test = [p for p in _pools(30, 1) if p.y.any()]
    weighted = recall_at(test, [[p.ids[j] for j in np.argsort(-p.weighted)] for p in test])["all"]
    learnt = recall_at(test, [rescore(p, trees, head=80) for p in test])["all"]
    assert learnt >= 90 and weighted < 40, (learnt, weighted)
    # a head of 10 keeps the weighted order's first 10 units in the top 10
    p = test[0]
    assert set(rescore(p, trees, head=10)[:10]) == {p.ids[j] for j in np.argsort(-p.weighted, kind="stable")[:10]}


def _bank(n: int) -> tuple[InMemoryBankIndex, HashEmbedder]:
    emb = HashEmbedder()
    idx = InMemoryBankIndex()
    topics = ["pottery", "camping", "painting", "running", "the museum", "a concert", "her dog", "the beach"]
    texts = [f"{'Melanie' if i % 2 else 'Caroline'} said, \"I went to {topics[i % 8]} on day {i}.\"" for i in range(n)]
    for i, (text, vec) in enumerate(zip(texts, emb.embed(texts))):
        idx.add(IndexedUnit(id=f"t{i:03d}", seq=i, text=text, kind="world", status="active", source="user",
                            session_id=f"s{i // 20}", episode_id=None, occurred_at=None, mentioned_at=1.7e9 + 60 * i,
                            entities=[], importance=0.5, confidence=1.0, activity=0.0,
                            speaker="Melanie" if i % 2 else "Caroline"), vec)
    return idx, emb


def _recall(idx, emb, cfg, query="What does Melanie do at the beach?", kinds=None, trace=None):
    req = RetrievalRequest(query, emb.embed([query])[0], 1.8e9, cfg.k, frozenset({"active"}), kinds=kinds)
    cands, seen = retrieve(req, idx, cfg)
    if trace is not None:
        trace.update(seen)
    return cands


def test_a_pool_under_the_minimum_keeps_the_weighted_order():
    idx, emb = _bank(30)
    trace: dict = {}
    learnt = _recall(idx, emb, RecallConfig(), trace=trace)
    weighted = _recall(idx, emb, RecallConfig(ranker="weighted"))
    assert [(c.id, c.score) for c in learnt] == [(c.id, c.score) for c in weighted]
    assert trace["ordering"] == "weighted"  # the trace says which ordering a recall got


def test_a_large_pool_is_ranked_by_the_trees_and_scores_stay_sorted():
    idx, emb = _bank(160)
    cfg = RecallConfig(k=40, ranker_head=20)
    trace: dict = {}
    learnt = _recall(idx, emb, cfg, trace=trace)
    assert trace["ordering"] == "learned"
    weighted = _recall(idx, emb, cfg.model_copy(update={"ranker": "weighted"}), trace=trace)
    assert trace["ordering"] == "weighted"
    _recall(idx, emb, cfg.model_copy(update={"fusion": "rrf"}), trace=trace)
    assert trace["ordering"] == "rrf"
    scores = [c.score for c in learnt]
    assert scores == sorted(scores, reverse=True)
    # the head is the weighted head, reordered; the tail follows in weighted order
    assert {c.id for c in learnt[:20]} == {c.id for c in weighted[:20]}
    assert [c.id for c in learnt[20:]] == [c.id for c in weighted[20:]]
    assert [c.id for c in learnt[:20]] != [c.id for c in weighted[:20]]


def test_a_lessons_only_recall_keeps_the_weighted_order():
    idx, emb = _bank(160)
    for u in idx.units.values():
        u.kind = "observation"
    cfg = RecallConfig(k=40, ranker_head=20)
    lessons = frozenset({"observation", "skill"})
    trace: dict = {}
    learnt = _recall(idx, emb, cfg, kinds=lessons, trace=trace)
    assert trace["ordering"] == "weighted"
    weighted = _recall(idx, emb, cfg.model_copy(update={"ranker": "weighted"}), kinds=lessons)
    assert len(learnt) == 40 and [c.id for c in learnt] == [c.id for c in weighted]
    assert [c.id for c in _recall(idx, emb, cfg, kinds=lessons | {"world"})] != [c.id for c in weighted]


@pytest.mark.needs_data("locomo")
def test_the_fitting_benchmark_runs_end_to_end(monkeypatch):
    from benchmarks import _locomo_fast, recall_model

    emb = HashEmbedder(64)
    monkeypatch.setattr(_locomo_fast, "embed_cached", lambda texts, tag: emb.embed(texts))
    out = recall_model.main(["--conversations", "0", "--trees", "3"])
    rows = out["recall_at_10"]
    assert set(rows) == {"dev (fitted on) weighted", "dev (fitted on) learned"}
    assert out["questions"] > 100
    assert all(0 < r["all"] <= 100 for r in rows.values())
