"""A small run of the repeat-error benchmark (the full run: python -m benchmarks.repeat_errors)."""

from __future__ import annotations

import pytest

pytest.importorskip("langchain.agents", reason="pip install 'hindsight-memory[langgraph]' (needs langchain)")

from benchmarks.repeat_errors import pitfalls, run  # noqa: E402


def test_pitfall_set_is_twenty_distinct_tools_in_three_failure_styles():
    items = pitfalls()
    assert len(items) == 20 and len({p.tool for p in items}) == 20
    assert {p.style for p in items} == {"raise", "status", "text"}
    assert all(p.task != p.paraphrase for p in items)


def test_memory_stops_repeat_errors_and_keeps_lessons_off_unrelated_tasks(embedder):
    with_memory = run(embedder, memory=True, limit=6)
    without = run(embedder, memory=False, limit=6)
    assert with_memory["first_attempt_errors"] == without["first_attempt_errors"] == 6
    assert without["repeat_error_rate"] == 100.0  # the scripted model alone repeats every mistake
    assert with_memory["repeat_error_rate"] == 0.0
    assert with_memory["unrelated_lesson_rate"] <= 10.0
