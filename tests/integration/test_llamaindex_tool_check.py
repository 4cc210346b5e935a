"""checked_tools with a real LlamaIndex FunctionAgent: the first call, in an episode, of a tool that
failed in an earlier run answers with the lessons instead of running; the agent's next call runs
(real Chroma, the real embedding model, a scripted LLM)."""

from __future__ import annotations

import pytest
from llama_index.core.agent.workflow import FunctionAgent
from llama_index.core.tools import FunctionTool

from hindsight_core import InvalidInputError
from hindsight_llamaindex import HindsightMemory, checked_tools, run_with_memory
from hindsight_llamaindex.testing import ScriptedLLM

TICKET_ERROR = "a change ticket is required for prod deploys"
OTHER_WORDS = "The login fix is merged, take care of the rest"  # the recalled context misses the lesson


def _deploy_tool(runs: list[str]) -> FunctionTool:
    def deploy_service(service: str, ticket: str = "") -> str:
        """Deploy a service to production."""
        runs.append(ticket)
        if not ticket:
            raise PermissionError(TICKET_ERROR)
        return f"{service} deployed under {ticket}"

    return FunctionTool.from_defaults(deploy_service)


def _memory(engine, session: str) -> HindsightMemory:
    return HindsightMemory.from_engine(engine, bank_id="ops", session_id=session)


async def _learn(engine, runs: list[str]) -> None:
    llm = ScriptedLLM([("deploy_service", {"service": "api"}), "I could not deploy."])
    run = await run_with_memory(FunctionAgent(tools=[_deploy_tool(runs)], llm=llm),
                                "Deploy the api service to production", _memory(engine, "monday"))
    assert run.outcome == "failure" and run.episode.lesson is not None


async def test_the_first_call_of_a_tool_that_failed_before_answers_with_its_lessons(engine):
    runs: list[str] = []
    await _learn(engine, runs)
    runs.clear()
    memory = _memory(engine, "tuesday")
    llm = ScriptedLLM([("deploy_service", {"service": "api"}), ("deploy_service", {"service": "api", "ticket": "CHG-5"}),
                       "Deployed under CHG-5."])
    agent = FunctionAgent(tools=checked_tools([_deploy_tool(runs)], memory), llm=llm)

    run = await run_with_memory(agent, OTHER_WORDS, memory)

    assert TICKET_ERROR not in llm.seen(0)  # the recalled context did not show the lesson
    assert TICKET_ERROR in llm.seen(1) and "deploy_service was not run yet" in llm.seen(1)
    assert runs == ["CHG-5"]  # the held call never ran; the changed one did
    assert run.outcome == "success" and memory.lesson_match == "precise"


async def test_a_tool_is_checked_once_per_episode_and_one_that_never_failed_runs_at_once(engine):
    runs: list[str] = []
    await _learn(engine, runs)
    runs.clear()
    memory = _memory(engine, "wednesday")

    def status() -> str:
        """Service status."""
        return "all green"

    llm = ScriptedLLM([("status", {}), ("deploy_service", {"service": "api"}), ("deploy_service", {"service": "api"}),
                       "Gave up."])
    agent = FunctionAgent(tools=checked_tools([status, _deploy_tool(runs)], memory), llm=llm)
    await run_with_memory(agent, OTHER_WORDS, memory)
    assert "all green" in llm.seen(1)  # never failed: ran on its first call
    assert TICKET_ERROR in llm.seen(2) and runs == [""]  # held once, then run as asked (and it failed)


def test_bad_arguments_say_what_to_pass(engine):
    with pytest.raises(InvalidInputError, match="memory must be a HindsightMemory"):
        checked_tools([], memory=object())
    with pytest.raises(InvalidInputError, match="k must be"):
        checked_tools([], _memory(engine, "x"), k=0)
    with pytest.raises(InvalidInputError, match="LlamaIndex tools or functions"):
        checked_tools([42], _memory(engine, "x"))
