"""A small run of the Reflexion experience benchmark (the full run: python -m benchmarks.experience)."""

from __future__ import annotations

import pytest

from benchmarks.experience import run


@pytest.mark.needs_data("reflexion")
def test_own_latest_failure_lesson_comes_back_first(embedder):
    summary = run(questions=15, embedder=embedder)
    assert summary["retries"] >= 10
    assert summary["hit@1"] >= 90.0
    assert summary["failure_above_success"] == 100.0
    assert summary["hit@1"] >= summary["dense_hit@1"]
