"""A second look before a tool call: HindsightMiddleware shows the model lessons of failed calls of a
tool it is about to call when the plan's context did not show them (real create_agent graphs, real
Chroma, the real embedding model)."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("langchain.agents", reason="pip install 'hindsight-memory[langgraph]' (needs langchain)")

from langchain.agents import create_agent  # noqa: E402
from langchain_core.messages import AIMessage  # noqa: E402
from langchain_core.tools import tool  # noqa: E402

from hindsight_core import InvalidInputError  # noqa: E402
from hindsight_core.episodes import Episode, TraceStep  # noqa: E402
from hindsight_lg import HindsightMiddleware  # noqa: E402
from hindsight_lg.testing import ScriptedChatModel  # noqa: E402

TICKET_ERROR = "a change ticket is required for prod deploys"
RUNS: list[dict[str, str]] = []


@tool
def deploy_service(service: str, env: str, ticket: str = "") -> str:
    """Deploy a service to an environment."""
    RUNS.append({"service": service, "env": env, "ticket": ticket})
    if env == "prod" and not ticket:
        raise PermissionError(TICKET_ERROR)
    return f"{service} deployed to {env} under {ticket}"


def _deploy(call_id: str, **args: str) -> AIMessage:
    return AIMessage("", tool_calls=[{"name": "deploy_service", "id": call_id,
                                      "args": {"service": "api", "env": "prod", **args}}])


def _learned(engine) -> None:
    """A failed deploy, as the middleware would have stored it."""
    episode = Episode.from_steps([
        TraceStep(kind="user", text="Deploy the api service to production"),
        TraceStep(kind="tool_call", text="deploy_service(service='api', env='prod')", tool="deploy_service"),
        TraceStep(kind="tool_error", text=f"PermissionError: {TICKET_ERROR}", tool="deploy_service")])
    engine.bank("ops").end_episode(episode, "failure")


def _system(call) -> str:
    return call[0].text if call and call[0].type == "system" else ""


PARAPHRASE = "The login fix is merged, take care of the rest"  # the plan's context misses the lesson


def test_a_proposed_call_of_a_tool_that_failed_before_gets_a_second_look(mem_engine):
    _learned(mem_engine)
    RUNS.clear()
    model = ScriptedChatModel(responses=[_deploy("c1"), _deploy("c2", ticket="CHG-1"), "Deployed under CHG-1.",
                                         "Deployed."])
    agent = create_agent(model, tools=[deploy_service], middleware=[HindsightMiddleware(mem_engine)])

    out = agent.invoke({"messages": [("user", PARAPHRASE)]}, context={"bank_id": "ops"})

    assert TICKET_ERROR not in _system(model.calls[0])  # the plan's context did not show the lesson
    assert TICKET_ERROR in _system(model.calls[1]) and "Before you call deploy_service" in _system(model.calls[1])
    assert RUNS == [{"service": "api", "env": "prod", "ticket": "CHG-1"}]  # only the revised call ran
    assert TICKET_ERROR in _system(model.calls[2])  # the rest of the run keeps it in view: no third look
    assert len(model.calls) == 3 and out["messages"][-1].content == "Deployed under CHG-1."


def test_no_second_look_when_the_context_showed_the_lesson_or_the_tool_never_failed(mem_engine):
    _learned(mem_engine)
    model = ScriptedChatModel(responses=[_deploy("c1", ticket="CHG-2"), "Done.",
                                         AIMessage("", tool_calls=[{"name": "status", "args": {}, "id": "s1"}]), "Up."])

    @tool
    def status() -> str:
        """Service status."""
        return "all green"

    agent = create_agent(model, tools=[deploy_service, status], middleware=[HindsightMiddleware(mem_engine)])
    agent.invoke({"messages": [("user", "Deploy the api service to production")]}, context={"bank_id": "ops"})
    assert len(model.calls) == 2 and TICKET_ERROR in _system(model.calls[0])  # shown in the plan already
    agent.invoke({"messages": [("user", "Is everything up?")]}, context={"bank_id": "ops"})
    assert len(model.calls) == 4  # a tool with no failed calls: one model call per step


def test_check_tool_calls_off_and_bad_values(mem_engine):
    _learned(mem_engine)
    RUNS.clear()
    model = ScriptedChatModel(responses=[_deploy("c1", ticket="CHG-3"), "Done."])
    agent = create_agent(model, tools=[deploy_service],
                         middleware=[HindsightMiddleware(mem_engine, check_tool_calls=False)])
    agent.invoke({"messages": [("user", PARAPHRASE)]}, context={"bank_id": "ops"})
    assert len(model.calls) == 2 and len(RUNS) == 1
    with pytest.raises(InvalidInputError, match="check_tool_calls"):
        HindsightMiddleware(mem_engine, check_tool_calls="yes")


def test_lesson_match_chooses_between_lessons_up_front_and_second_looks(mem_engine):
    """"auto" is "precise" with the check on; "bank" shows the paraphrase its lesson in the plan's
    context, so the proposed call needs no second look."""
    _learned(mem_engine)
    assert HindsightMiddleware(mem_engine).lesson_match == "precise"
    assert HindsightMiddleware(mem_engine, check_tool_calls=False).lesson_match == "bank"
    RUNS.clear()
    model = ScriptedChatModel(responses=[_deploy("c1", ticket="CHG-4"), "Deployed under CHG-4."])
    agent = create_agent(model, tools=[deploy_service],
                         middleware=[HindsightMiddleware(mem_engine, lesson_match="bank")])
    request = "Roll out the new api build to prod"  # a paraphrase the precise bars leave to the second look
    assert TICKET_ERROR not in mem_engine.bank("ops").recall_context(request, lesson_match="precise").text
    agent.invoke({"messages": [("user", request)]}, context={"bank_id": "ops"})
    assert TICKET_ERROR in _system(model.calls[0]) and len(model.calls) == 2 and len(RUNS) == 1
    for bad in ("strict", 0.6, True):
        with pytest.raises(InvalidInputError, match="lesson_match must be 'auto', 'bank', 'precise'"):
            HindsightMiddleware(mem_engine, lesson_match=bad)


def test_the_async_path_gives_the_same_second_look(mem_engine):
    _learned(mem_engine)
    RUNS.clear()
    model = ScriptedChatModel(responses=[_deploy("c1"), _deploy("c2", ticket="CHG-4"), "Deployed."])
    agent = create_agent(model, tools=[deploy_service], middleware=[HindsightMiddleware(mem_engine)])
    asyncio.run(agent.ainvoke({"messages": [("user", PARAPHRASE)]}, context={"bank_id": "ops"}))
    assert TICKET_ERROR in _system(model.calls[1]) and RUNS == [{"service": "api", "env": "prod", "ticket": "CHG-4"}]


def test_tool_lessons_finds_failures_of_that_tool_only(mem_engine):
    _learned(mem_engine)
    bank = mem_engine.bank("ops")
    worked = Episode.from_steps([TraceStep(kind="user", text="Restart the cache"),
                                 TraceStep(kind="tool_call", text="restart(name='cache')", tool="restart"),
                                 TraceStep(kind="tool_result", text="restarted", tool="restart")])
    bank.end_episode(worked, "success")
    activity = {u.id: bank._current().units[u.id].activity for u in bank.units()}
    found = bank.tool_lessons(["deploy_service"])
    assert {u.id: bank._current().units[u.id].activity for u in bank.units()} == activity  # a lookup, not a use
    assert [h.unit.outcome.value for h in found.lessons] == ["failure"] and TICKET_ERROR in found.text
    assert not bank.tool_lessons(["restart"])  # a success is no warning
    assert not bank.tool_lessons(["deploy_service"], shown=found.text)  # nothing shown twice
    assert not bank.tool_lessons([]) and not bank.tool_lessons(["deploy_service"], k=0)
    assert asyncio.run(bank.atool_lessons("deploy_service")).ids == found.ids
    with pytest.raises(InvalidInputError, match="k must be"):
        bank.tool_lessons(["deploy_service"], k=-1)


def test_a_tool_with_many_lessons_shows_first_those_of_the_closest_task(mem_engine):
    bank = mem_engine.bank("data")
    for goal, error in (("Count last week's page views by country", "a filter on event_date is required"),
                        ("Save the churned customers as a table", "the session is read-only")):
        bank.end_episode(Episode.from_steps([
            TraceStep(kind="user", text=goal),
            TraceStep(kind="tool_error", text=error, tool="run_sql_query")]), "failure")
    newest = bank.tool_lessons("run_sql_query", k=1)
    closest = bank.tool_lessons("run_sql_query", k=1, query="How many page views did we get per country?")
    assert "read-only" in newest.text and "event_date" in closest.text
