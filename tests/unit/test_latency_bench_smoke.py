"""A run of the latency benchmark on LoCoMo's smallest conversation (timings are reported, not asserted)."""

from __future__ import annotations

import pytest

from benchmarks.latency import run


@pytest.mark.needs_data("locomo")
def test_latency_benchmark_runs_end_to_end():
    summary = run(conversation=1)
    assert summary["bank_units"] == 369 and summary["questions"] > 0
    assert 0 < summary["recall_p50_ms"] <= summary["recall_p95_ms"]
    assert summary["ingest_turns_per_s"] > 0
