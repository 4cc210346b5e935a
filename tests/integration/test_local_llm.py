"""The LLM paths with a real small model (Qwen2.5 GGUF on llama-cpp-python): opt-in, off in CI.

Run: ``HINDSIGHT_LOCAL_LLM=1 pytest -m local_llm tests/integration/test_local_llm.py`` after the setup
in ``benchmarks/local_llm.py`` (``HINDSIGHT_LOCAL_LLM_SIZE=1.5b`` for the larger model). The scripted
models of the other tests check the parsing and the bookkeeping; these check that a real model's
answers to the shipped prompts go through them.
"""

from __future__ import annotations

import os

import pytest

from benchmarks.local_llm import local_chat_model, unavailable
from hindsight_core import MemoryEngine
from hindsight_core.episodes import Episode, TraceStep
from hindsight_core.lifecycle.llm_reflect import LLMReflector
from hindsight_core.prompts import contradiction

pytestmark = pytest.mark.local_llm

SIZE = os.environ.get("HINDSIGHT_LOCAL_LLM_SIZE", "0.5b")


@pytest.fixture(scope="module")
def model():
    if os.environ.get("HINDSIGHT_LOCAL_LLM") != "1":
        pytest.skip("opt-in: set HINDSIGHT_LOCAL_LLM=1 after the setup in benchmarks/local_llm.py")
    reason = unavailable(SIZE)
    if reason:
        pytest.skip(reason)
    return local_chat_model(SIZE)


class _Counted:
    def __init__(self, model):
        self.model, self.calls = model, 0

    def invoke(self, messages, **kwargs):
        self.calls += 1
        return self.model.invoke(messages, **kwargs)


def test_the_contradiction_prompt_gets_a_reading_that_parses(model):
    """Small models read what each statement is about well, and judge badly (they call two attributes
    of one subject a contradiction): the verdict counts only with ``same_attribute``, so their answers
    parse and name the subject, whatever they conclude (benchmarks/updates.py --llm measures that)."""
    from hindsight_core.lifecycle._llm import ask_json

    changed = ask_json(model, contradiction.build_messages(
        "The billing service listens on port 8080.", "Billing now listens on port 9090; 8080 is closed."))
    added = ask_json(model, contradiction.build_messages("I like coffee in the morning.", "I also like tea."))
    changed, added = (contradiction.ContradictionVerdict.model_validate(a) for a in (changed, added))
    assert "billing" in changed.older_about.lower() and "billing" in changed.newer_about.lower()
    assert "coffee" in added.older_about.lower() and "tea" in added.newer_about.lower()


def test_a_pair_the_rules_leave_open_goes_to_the_model_and_its_verdict_is_recorded(model):
    counted = _Counted(model)
    with MemoryEngine.ephemeral(llm=counted) as engine:  # the real embedder: the pair must be close
        bank = engine.bank("ops", lifecycle={"consolidate_every": 0})
        older = bank.capture("The staging cluster runs Postgres 14.")
        bank.capture("The staging cluster runs in eu-west-1.")  # no cue, no rule: close, and open
        assert counted.calls == 1
        unit = bank.get(older.unit_id)
        superseded = unit.status.value == "superseded"
        assert superseded == any(str(flag).startswith("superseded (llm:") for flag in unit.flags)


def test_a_real_model_reflects_a_failed_run_into_a_grounded_lesson(model):
    episode = Episode.from_steps([
        TraceStep(kind="user", text="Deploy the api service to production"),
        TraceStep(kind="tool_call", text="deploy_service(service='api', env='production')", tool="deploy_service"),
        TraceStep(kind="tool_error", text="PermissionError: production deploys need ticket=CHG-1042",
                  tool="deploy_service"),
    ])
    reflection = LLMReflector(model).reflect(episode, "failure")
    assert any(word in reflection.lesson.lower() for word in ("deploy", "ticket", "permission", "production"))


def test_a_real_model_judges_a_confirmed_booking_a_success_and_a_refused_deploy_a_failure(model):
    from hindsight_core.outcomes import LLMJudge

    booked = Episode.from_steps([
        TraceStep(kind="user", text="Book a table for two at Nopa tonight at 8"),
        TraceStep(kind="tool_call", text="book_table(restaurant='Nopa', time='20:00', party=2)", tool="book_table"),
        TraceStep(kind="tool_result", text="confirmed: reservation R-5521 for 2 at 20:00", tool="book_table"),
        TraceStep(kind="assistant", text="Your table at Nopa is booked for 8pm."),
        TraceStep(kind="user", text="perfect, thanks!"),
    ])
    refused = Episode.from_steps([
        TraceStep(kind="user", text="Deploy the billing service to production"),
        TraceStep(kind="tool_call", text="deploy_service(service='billing', env='production')", tool="deploy_service"),
        TraceStep(kind="tool_error", text="PermissionError: production deploys need a change ticket",
                  tool="deploy_service"),
        TraceStep(kind="assistant", text="I could not deploy it."),
    ])
    judge = LLMJudge(model)
    assert [judge(e).outcome.value for e in (booked, refused)] == ["success", "failure"]
