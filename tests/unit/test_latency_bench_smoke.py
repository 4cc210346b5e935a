"""A run of the latency benchmark on LoCoMo's smallest conversation (timings are reported, not asserted)."""

from __future__ import annotations

import pytest

from benchmarks.latency import FRESH_RECALLS, run


@pytest.mark.needs_data("locomo")
def test_latency_benchmark_runs_end_to_end():
    summary = run(conversation=1, fresh_repeats=1, max_questions=FRESH_RECALLS + 5)
    assert summary["bank_units"] == 369 and summary["questions"] > 0
    assert 0 < summary["recall_p50_ms"] <= summary["recall_p95_ms"]
    assert summary["ingest_turns_per_s"] > 0
    stages = summary["stages_ms"]  # where a recall's time goes, from its trace
    assert {"embed", "dense", "keyword", "fuse1", "graph", "fuse2"} <= set(stages)
    assert stages["embed"]["p50"] > 0 and all(0 <= v["p50"] <= v["p95"] for v in stages.values())
    for name in ("on", "off"):  # expansion on and off in the same run, and after a fresh open
        assert 0 < summary["expansion"][name]["p50"] <= summary["expansion"][name]["p95"]
        for words in ("warm_words", "cold_words"):
            fresh = summary["fresh_open"][f"{words}_{name}"]
            assert fresh["first_recall_ms"]["p50"] > 0 and fresh["next_19_recalls_ms"]["p95"] > 0
