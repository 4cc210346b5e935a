"""Episodes and reflection on the real engine: rule-based, LLM (scripted), inline and background."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from hindsight_core import InvalidInputError, LLMError, MemoryEngine
from hindsight_core.episodes import Episode, Reflection, TraceStep
from hindsight_core.lifecycle.llm_reflect import LLMReflector, parse_json_object
from hindsight_core.testing import scripted_chat_model

T0 = datetime(2024, 3, 1, 9, 0, tzinfo=timezone.utc)


def failed_deploy(session="t1"):
    return Episode.from_steps([
        TraceStep(kind="user", text="Deploy the billing service to production"),
        TraceStep(kind="tool_call", text="deploy(service='billing', env='prod')", tool="deploy"),
        TraceStep(kind="tool_error", text="PermissionError: change ticket required for prod", tool="deploy"),
        TraceStep(kind="assistant", text="I could not deploy billing."),
    ], session_id=session)


def test_failure_becomes_a_lesson_recalled_before_the_next_plan(engine):
    bank = engine.bank("ops")
    result = bank.end_episode(failed_deploy(), "failure", ended_at=T0)
    assert result.experience.kind.value == "experience" and result.experience.outcome.value == "failure"
    assert result.lesson is not None and "change ticket" in result.lesson.text
    assert result.lesson.evidence_ids == (result.experience.id,)
    lessons = bank.recall_lessons("deploy billing to prod", k=3)
    assert lessons.hits[0].unit.id == result.lesson.id
    assert "FAILED attempt" in lessons.render()
    # the experience is recallable at once too
    assert result.experience.id in bank.recall("deploy billing production", k=5).ids
    assert engine.bank("other").recall_lessons("deploy billing to prod").hits == ()


def test_success_is_reflected_too(engine):
    ep = Episode.from_steps([
        TraceStep(kind="user", text="Rotate the API keys for the gateway"),
        TraceStep(kind="tool_call", text="rotate_keys(target='gateway')", tool="rotate_keys"),
        TraceStep(kind="tool_result", text="rotated 3 keys", tool="rotate_keys"),
        TraceStep(kind="assistant", text="Done: 3 keys rotated."),
    ])
    res = engine.bank("ops").end_episode(ep, "success")
    assert res.lesson.outcome.value == "success" and "rotate_keys" in res.lesson.text


def test_latest_failure_lesson_comes_first_and_failures_outrank_successes(engine):
    bank = engine.bank("qa")
    goal = "Which stadium does the team coached by Kent Baer play in?"
    for trial in range(3):
        bank.end_episode(Episode(goal=goal), "failure", ended_at=T0 + timedelta(days=trial), reflection=Reflection(
            goal=goal, outcome="failure", cause=f"guessed without searching (trial {trial})",
            lesson=f"When asked about Kent Baer, search the team first (attempt {trial}).", trigger=goal))
    other = "Which stadium does the team of coach Bill Smith play in?"
    bank.end_episode(Episode(goal=other), "success", ended_at=T0 + timedelta(days=5))
    hits = bank.recall_lessons(goal, k=4).hits
    assert "attempt 2" in hits[0].unit.text
    assert [h.unit.outcome.value for h in hits[:3]] == ["failure"] * 3


def test_llm_reflector_repairs_json_and_rejects_invented_names(engine):
    model = scripted_chat_model([
        "Sure! ```json\n{'cause': 'no ticket', 'lesson': 'When deploying billing to prod, open a change ticket first.',"
        " 'trigger': 'prod deploys', 'confidence': 0.8,}\n```",
    ])
    res = engine.bank("ops").end_episode(failed_deploy(), "failure", reflector=LLMReflector(model))
    assert res.reflection.lesson.startswith("When deploying billing") and res.lesson.confidence == 0.8

    inventing = scripted_chat_model([
        '{"cause": "x", "lesson": "When deploying, ask Marjorie in Oslo for 42 approvals first.", "trigger": "deploys"}',
        '{"cause": "no ticket", "lesson": "When deploying to prod, get a change ticket first.", "trigger": "deploys"}',
    ])
    res = engine.bank("ops").end_episode(failed_deploy(), "failure", reflector=LLMReflector(inventing))
    assert "Marjorie" not in res.reflection.lesson


def test_llm_reflector_rejects_the_prompts_example_or_an_unfilled_shape(engine):
    """Small local models return the prompt's example lesson word for word, or the shape with its
    slots unfilled: neither is a lesson about the run, so the model is asked again."""
    import json

    from hindsight_core.prompts import reflect as reflect_prompt

    copying = scripted_chat_model([
        json.dumps(reflect_prompt.EXAMPLE),
        '{"cause": "<what caused it>", "lesson": "When <situation>, <do this> first.", "trigger": "x"}',
        '{"cause": "no ticket", "lesson": "When deploying to prod, get a change ticket first.", "trigger": "deploys"}',
    ])
    res = engine.bank("ops").end_episode(failed_deploy(), "failure", reflector=LLMReflector(copying))
    assert res.reflection.lesson == "When deploying to prod, get a change ticket first."
    stubborn = scripted_chat_model([json.dumps(reflect_prompt.EXAMPLE)] * 3)
    with pytest.raises(LLMError, match="example or an unfilled shape"):
        engine.bank("other").end_episode(failed_deploy(), "failure", reflector=LLMReflector(stubborn))


def test_llm_reflector_failure_is_an_error_not_an_empty_lesson(engine):
    broken = scripted_chat_model(["I refuse to answer in JSON."] * 3)
    bank = engine.bank("ops")
    with pytest.raises(LLMError, match="stored as experience"):
        bank.end_episode(failed_deploy(), "failure", reflector=LLMReflector(broken))
    assert [u.kind.value for u in bank.units()] == ["experience"]


def test_background_reflection_and_failures_are_kept(embedder):
    class Flaky:
        calls = 0

        def reflect(self, episode, outcome, feedback=None):
            Flaky.calls += 1
            raise RuntimeError("model offline")

    engine = MemoryEngine.ephemeral(embedder=embedder)
    bank = engine.bank("ops")
    pending = bank.end_episode(failed_deploy(), "failure", background=True)
    assert pending.pending and pending.lesson is None
    assert pending.experience.id in bank.recall("deploy billing", k=3).ids  # recallable before reflection
    engine.drain(30)
    assert len(bank.recall_lessons("deploy billing to prod").hits) == 1

    engine._queue("ops").backoff_s = 0.01
    bank.end_episode(failed_deploy(), "failure", background=True, reflector=Flaky())
    engine.drain(30)
    assert Flaky.calls == 3 and len(engine.background_failures()) == 1
    engine.close()


def test_episode_input_errors(engine):
    bank = engine.bank("ops")
    with pytest.raises(InvalidInputError, match="outcome"):
        bank.end_episode(failed_deploy(), "won")
    with pytest.raises(InvalidInputError):
        bank.end_episode("not an episode", "success")
    with pytest.raises(InvalidInputError):
        bank.end_episode(failed_deploy(), "success", reflector=object())
    assert bank.count() == 0


def test_parse_json_object_variants():
    assert parse_json_object('x {"a": 1,} y') == {"a": 1}
    assert parse_json_object("{'a': true}") == {"a": True}
    with pytest.raises(ValueError):
        parse_json_object("no json here")
