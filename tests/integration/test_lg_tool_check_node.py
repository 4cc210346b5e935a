"""tool_check_node in a real StateGraph with LangGraph's ToolNode: the planner gets a second look
before a call of a tool that failed before (real Chroma, the real embedding model)."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode

from hindsight_core import InvalidInputError
from hindsight_core.episodes import Episode, TraceStep
from hindsight_lg import MemoryState, recall_node, tool_check_node

TICKET_ERROR = "a change ticket is required for prod deploys"
REQUEST = "The login fix is merged, take care of the rest"  # recall's words miss the lesson


class State(MessagesState, MemoryState):
    pass


def _graph(engine, runs: list[str], proposals: list[str]):
    @tool
    def deploy_service(service: str, ticket: str = "") -> str:
        """Deploy a service to production."""
        runs.append(ticket)
        if not ticket:
            raise PermissionError(TICKET_ERROR)
        return f"{service} deployed under {ticket}"

    def planner(state: State) -> dict:
        if isinstance(state["messages"][-1], ToolMessage):
            return {"messages": [AIMessage("Deployed.")]}
        ticket = "CHG-9" if TICKET_ERROR in state.get("memory_context", "") else ""
        proposals.append(ticket)
        call = {"name": "deploy_service", "args": {"service": "api", "ticket": ticket}, "id": uuid.uuid4().hex}
        return {"messages": [AIMessage("", tool_calls=[call])]}

    return (StateGraph(State)
            .add_node("recall", recall_node(engine, lesson_match="precise")).add_node("agent", planner)
            .add_node("check", tool_check_node(engine), destinations=("agent", "tools", END))
            .add_node("tools", ToolNode([deploy_service]))
            .add_edge(START, "recall").add_edge("recall", "agent").add_edge("agent", "check")
            .add_edge("tools", "agent").compile())


def _learned(engine) -> None:
    engine.bank("ops").end_episode(Episode.from_steps([
        TraceStep(kind="user", text="Deploy the api service to production"),
        TraceStep(kind="tool_call", text="deploy_service(service='api')", tool="deploy_service"),
        TraceStep(kind="tool_error", text=f"PermissionError: {TICKET_ERROR}", tool="deploy_service")]), "failure")


def test_the_planner_revises_a_call_of_a_tool_that_failed_before(mem_engine):
    _learned(mem_engine)
    runs, proposals = [], []
    out = _graph(mem_engine, runs, proposals).invoke({"messages": [("user", REQUEST)]}, context={"bank_id": "ops"})
    assert proposals == ["", "CHG-9"]  # the first plan missed the lesson; the second look brought it
    assert runs == ["CHG-9"]  # only the revised call ran
    calls = [m for m in out["messages"] if isinstance(m, AIMessage) and m.tool_calls]
    assert [c.tool_calls[0]["args"]["ticket"] for c in calls] == ["CHG-9"]  # the first proposal was removed
    assert out["messages"][-1].content == "Deployed." and TICKET_ERROR in out["memory_context"]


def test_no_second_look_without_a_failed_call_and_the_async_path(mem_engine):
    runs, proposals = [], []
    graph = _graph(mem_engine, runs, proposals)
    with pytest.raises(PermissionError):  # nothing learned yet: the call goes through and fails
        graph.invoke({"messages": [("user", REQUEST)]}, context={"bank_id": "ops"})
    assert proposals == [""] and runs == [""]
    _learned(mem_engine)
    runs.clear(), proposals.clear()
    asyncio.run(graph.ainvoke({"messages": [("user", REQUEST)]}, context={"bank_id": "ops"}))
    assert proposals == ["", "CHG-9"] and runs == ["CHG-9"]


def test_bad_arguments_say_what_to_pass(mem_engine):
    with pytest.raises(InvalidInputError, match="agent must be a node name"):
        tool_check_node(mem_engine, agent="")
    with pytest.raises(InvalidInputError, match="k must be"):
        tool_check_node(mem_engine, k=0)
    with pytest.raises(InvalidInputError, match="lesson_match must be"):
        recall_node(mem_engine, lesson_match="strict")
