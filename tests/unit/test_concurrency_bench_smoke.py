"""A small run of ``benchmarks.concurrency``: its bookkeeping works (timings are reported, not asserted)."""

from __future__ import annotations

from benchmarks.concurrency import run
from hindsight_core.testing import HashEmbedder


def test_concurrency_benchmark_runs_and_loses_nothing():
    summary = run(threads=3, ops=4, embedder=HashEmbedder(dim=64), single_recalls=5, seed=30)
    for phase in ("one_bank", "many_banks"):
        assert summary[phase]["captures"] == 12 and summary[phase]["recalls"] == 12
        assert summary[phase]["errors"] == 0 and summary[phase]["lost_writes"] == 0
        assert summary[phase]["count_mismatch"] == 0
        assert 0 < summary[phase]["capture_p50_ms"] <= summary[phase]["capture_p95_ms"]
    assert summary["one_bank"]["written"] == {"load-0": 12}
    assert summary["many_banks"]["written"] == {"load-0": 4, "load-1": 4, "load-2": 4}
    assert summary["clean"] is True and summary["single"]["recall_p95_ms"] > 0


def test_recall_traces_its_embedding_time_apart_from_lock_waits():
    from hindsight_core import MemoryEngine

    engine = MemoryEngine.ephemeral(embedder=HashEmbedder(dim=32))
    try:
        bank = engine.bank("trace")
        bank.capture("Alice moved to Lisbon in March.")
        trace = bank.recall("Where did Alice move?").trace
        assert {"embed_ms", "lock_wait_ms", "total_ms"} <= set(trace)
        assert 0 <= trace["embed_ms"] <= trace["total_ms"]
    finally:
        engine.close()
