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


def test_a_pitfall_set_end_to_end_the_second_look_stops_the_repeats_the_context_missed(embedder):
    from benchmarks.lesson_transfer import SPLITS
    from benchmarks.repeat_errors import run_set

    second_look = run_set(str(SPLITS["dev"]), embedder, limit=6)
    context_only = run_set(str(SPLITS["dev"]), embedder, limit=6, check_tool_calls=False)
    assert second_look["paraphrases"] == context_only["paraphrases"] == 18
    assert second_look["repeat_errors"] == 0 and second_look["second_looks"] > 0
    assert context_only["second_looks"] == 0  # off: one model call per step
    assert second_look["unrelated_second_looks"] == 0 and second_look["unrelated_with_lesson"] <= 1
    # the bank's own matching with the check on: the lessons the plan's context shows need no second look
    bank_context = run_set(str(SPLITS["dev"]), embedder, limit=6, lesson_match="bank")
    assert bank_context["repeat_errors"] == 0 and bank_context["second_looks"] < second_look["second_looks"]
