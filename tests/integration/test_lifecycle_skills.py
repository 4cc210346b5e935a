"""Skills on the real engine: promoted after three successes, recalled first, demoted on a failure."""

from __future__ import annotations

from hindsight_core import MemoryKind
from hindsight_core.episodes import Episode, TraceStep


def deploy(outcome_error: bool = False, session: str = "s") -> Episode:
    steps = [TraceStep(kind="user", text="Deploy the billing service to staging"),
             TraceStep(kind="tool_call", text="run_tests(service='billing')", tool="run_tests"),
             TraceStep(kind="tool_call", text="deploy(service='billing', env='staging')", tool="deploy")]
    if outcome_error:
        steps.append(TraceStep(kind="tool_error", text="TimeoutError: staging cluster unreachable", tool="deploy"))
    steps.append(TraceStep(kind="assistant", text="Done." if not outcome_error else "The deploy failed."))
    return Episode.from_steps(steps, session_id=session)


def test_skill_promoted_after_three_successes_and_demoted_after_a_failure(engine):
    bank = engine.bank("agent", lifecycle={"consolidate_every": 0})
    bank.capture("Staging deploys are frozen during the quarterly audit.", mentioned_at=None)
    for n in range(2):
        bank.end_episode(deploy(session=f"s{n}"), "success")
        assert list(bank.units(kind="skill")) == []
    bank.end_episode(deploy(session="s2"), "success")
    skills = list(bank.units(kind="skill"))
    assert len(skills) == 1
    skill = skills[0]
    assert "run_tests then deploy" in skill.text and skill.skill["successes"] >= 3
    assert skill.evidence_ids and all(bank.get(e).outcome.value == "success" for e in skill.evidence_ids)

    lessons = bank.recall_lessons("deploy the billing service to staging", k=3)
    assert lessons.hits[0].unit.id == skill.id  # recalled first when its trigger matches

    bank.end_episode(deploy(outcome_error=True, session="s3"), "failure")
    demoted = bank.get(skill.id)
    assert demoted.kind is MemoryKind.OBSERVATION and "skill_demoted" in demoted.flags
    assert demoted.confidence < skill.confidence and demoted.skill["failures"] == 1
    after = bank.recall_lessons("deploy the billing service to staging", k=3)
    assert after.hits[0].unit.kind is not MemoryKind.SKILL
    assert after.hits[0].unit.outcome.value == "failure"  # the latest mistake leads
