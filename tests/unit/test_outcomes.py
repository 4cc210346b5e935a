"""Episode meaning decided once in the core: failed steps, outcomes from evidence, the judge, and
the one lessons-first context renderer."""

from __future__ import annotations

import pytest

from hindsight_core import InvalidInputError, MemoryEngine, Outcome
from hindsight_core.episodes import Episode, StepKind, TraceStep
from hindsight_core.outcomes import LLMJudge, as_verdict, decide_outcome, infer_outcome, is_request, step_kind
from hindsight_core.testing import HashEmbedder


def S(kind: str, text: str, tool: str | None = None) -> TraceStep:
    return TraceStep(kind=kind, text=text, tool=tool)


ASK = S("user", "Deploy billing to prod")
CALL = S("tool_call", "deploy()", "deploy")


@pytest.mark.parametrize("status,text,kind", [
    ("error", "anything", StepKind.TOOL_ERROR), (True, "ok", StepKind.TOOL_ERROR),
    (None, "Error: ticket required", StepKind.TOOL_ERROR), ("success", "PermissionError: denied", StepKind.TOOL_ERROR),
    (None, '{"error": "quota"}', StepKind.TOOL_ERROR), (None, "deployed billing; 0 errors found", StepKind.TOOL_RESULT),
    ("success", "Deployed.", StepKind.TOOL_RESULT),
])
def test_failed_step_is_status_or_error_shaped_output(status, text, kind):
    assert step_kind(status, text) is kind


@pytest.mark.parametrize("steps,outcome", [
    ([ASK, CALL, S("tool_error", "denied", "deploy")], "failure"),  # never recovered
    ([ASK, CALL, S("tool_result", "Error: denied", "deploy"), CALL, S("tool_result", "deployed", "deploy")], "success"),
    ([ASK, CALL, S("tool_error", "denied", "deploy"), S("tool_call", "ask()", "ask_human"),
      S("tool_result", "asked", "ask_human")], "partial"),  # recovered with another tool
    ([ASK, CALL, S("tool_result", "deployed", "deploy")], "success"),
    ([ASK, S("assistant", "Done.")], "unknown"),  # nothing attempted, no feedback
    ([ASK, CALL, S("tool_result", "deployed", "deploy"), S("assistant", "Done."),
      S("user", "No, that's wrong: it was staging")], "failure"),  # a correction counts
])
def test_outcome_from_evidence(steps, outcome):
    assert infer_outcome(steps).outcome.value == outcome


def test_error_label_judge_and_feedback_precedence():
    episode = Episode.from_steps([ASK, CALL, S("tool_result", "deployed", "deploy")])
    assert infer_outcome([], error=None) is None
    assert infer_outcome(episode.steps, error=RuntimeError("boom")).outcome is Outcome.FAILURE
    assert decide_outcome(episode, label="partial").decided_by == "label"
    assert decide_outcome(episode, judge=lambda e: False).outcome is Outcome.FAILURE
    assert decide_outcome(episode, judge=lambda e: None).outcome is Outcome.SUCCESS  # undecided: the rules
    assert decide_outcome(episode, feedback="No, that is wrong").outcome is Outcome.FAILURE
    with pytest.raises(InvalidInputError, match="no outcome"):
        as_verdict("meh")


def test_llm_judge_with_a_scripted_model():
    from langchain_core.messages import AIMessage

    from hindsight_lg.testing import ScriptedChatModel

    model = ScriptedChatModel(responses=[AIMessage("", tool_calls=[
        {"name": "JudgeDraft", "args": {"outcome": "failure", "reason": "the wrong service was deployed"}, "id": "j"}])])
    episode = Episode.from_steps([ASK, CALL, S("tool_result", "deployed payments", "deploy")])
    verdict = decide_outcome(episode, judge=LLMJudge(model))
    assert verdict.outcome is Outcome.FAILURE and verdict.decided_by == "judge" and "wrong service" in verdict.reason
    assert "Goal: Deploy billing to prod" in model.calls[0][-1].content


def test_requests_are_told_from_facts():
    assert all(is_request(t) for t in ["Deploy billing", "What is my editor?", "Can you book a room", "please check"])
    assert not any(is_request(t) for t in ["My editor is Helix.", "Remember: staging is db-2", "The port is 9090"])


def test_recall_context_is_lessons_first_filtered_and_honours_exclusions():
    bank = MemoryEngine.ephemeral(embedder=HashEmbedder()).bank("ops")
    fact = bank.capture("Billing deploys go through the release train").unit_id
    failed = Episode.from_steps([ASK, CALL, S("tool_error", "a change ticket is required", "deploy")])
    lesson = bank.end_episode(failed, "failure").lesson
    nothing = bank.end_episode(Episode.from_steps([S("user", "Deploy billing to prod"), S("assistant", "Done.")]),
                               "unknown")
    assert nothing.lesson is None  # unknown: stored, never a recipe
    ctx = bank.recall_context("Deploy billing to prod", k=5, lessons_k=3)
    assert ctx.lessons and ctx.lessons[0].id == lesson.id and ctx.text.index("change ticket") < ctx.text.index("release")
    assert "[worked before]" not in ctx.text
    assert fact not in bank.recall_context("Deploy billing to prod", exclude_ids=[fact]).ids
    only_success = bank.recall_context("Deploy billing to prod", outcomes=["success"])
    assert not only_success.lessons and all(h.unit.outcome in (None, Outcome.SUCCESS) for h in only_success.result.hits)
    assert bank.recall_context("   ").text == ""
    small = bank.recall_context("Deploy billing to prod", max_tokens=60)
    assert len(small.text) // 4 + 1 <= 60
