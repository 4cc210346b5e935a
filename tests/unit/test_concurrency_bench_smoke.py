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
    assert summary["one_bank"]["written"] == {"load-0": 12}
    assert summary["many_banks"]["written"] == {"load-0": 4, "load-1": 4, "load-2": 4}
    assert summary["clean"] is True and summary["single"]["recall_p95_ms"] > 0
