"""LoCoMo smoke: on a small slice, the engine's recall@10 is not below the RRF(dense, BM25) baseline."""

from __future__ import annotations

import pytest


@pytest.mark.needs_data("locomo")
def test_engine_not_below_rrf_on_a_small_slice() -> None:
    from benchmarks.locomo import run

    out = run([0], max_questions=None, sessions=4, log=lambda _: None)
    engine = out["systems"]["engine"]["all"]
    rrf = out["systems"]["rrf"]["all"]
    assert engine["n"] >= 10
    assert engine["recall@10"] >= rrf["recall@10"], (engine, rrf)
    assert out["systems"]["engine"]["latency_ms"]["p50"] is not None
    # the slice is large enough for the learned ranker (RecallConfig.ranker_min_pool): the smoke
    # checks the default ordering, not the weighted fallback of small pools
    assert out["systems"]["engine"]["orderings"].get("learned", 0) >= 0.9 * engine["n"]
    ingest = out["ingest"]  # the capture time split into the model's share and the rest, in one run
    from benchmarks._locomo_data import load_locomo

    assert ingest["turns"] == sum(1 for t in load_locomo()[0].turns if t.session <= 4)
    assert ingest["texts_embedded_in_capture"] >= ingest["turns"]
    assert 0 < ingest["embedding_in_capture_s"] < ingest["capture_s"]
    assert ingest["beyond_embedding_ratio"] > 0 and ingest["plain_embedding_turns_per_s"] > 0
    # chat turns the update rules superseded at capture: look-alikes nobody here wrote, reported by id
    sup = out["systems"]["engine"]["turns_superseded"]
    dias = {t.dia_id for t in load_locomo()[0].turns if t.session <= 4}
    assert sup["count"] == len(sup["turns"]) and 0 <= sup["evidence"] <= sup["count"]
    assert all(t["dia_id"] in dias and t["by"] for t in sup["turns"])
